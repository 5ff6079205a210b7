// TraceEvent: a typed record of one state change of a node.
//
// Every state change that matters for checking, replay or display is emitted through
// Runtime::emit: a leader change, an ISR shrink, a HW advance, a znode write, a fault. The runtime
// stamps the time and the node; the fingerprint of a run is a hash over all of them in order, so
// two runs with the same scenario and seed must emit exactly the same events.
//
// Kinds are short snake_case names ("leader_change", "isr_shrink"); field keys likewise. Field
// values are integers or strings, which keeps the trace schema-free and queryable as JSON in SQLite.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/core/types.h"

namespace gregor {

struct TraceField {
  std::string key;
  std::variant<int64_t, std::string> value;

  TraceField(std::string k, int64_t v) : key(std::move(k)), value(v) {}
  TraceField(std::string k, int32_t v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  TraceField(std::string k, uint32_t v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  TraceField(std::string k, uint64_t v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  TraceField(std::string k, bool v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  TraceField(std::string k, std::string v) : key(std::move(k)), value(std::move(v)) {}
  TraceField(std::string k, const char* v) : key(std::move(k)), value(std::string(v)) {}
  TraceField(std::string k, std::string_view v) : key(std::move(k)), value(std::string(v)) {}
  bool operator==(const TraceField&) const = default;
};

struct TraceEvent {
  Time time;
  NodeId node;
  std::string kind;
  std::vector<TraceField> fields;

  const TraceField* find(std::string_view key) const;
  int64_t get_int(std::string_view key, int64_t fallback = 0) const;
  std::string get_string(std::string_view key, std::string fallback = "") const;
  // {"leader":2,"topic":"orders"}: the fields as a JSON object.
  std::string fields_json() const;
  // "1.250000s node 2 leader_change topic=orders partition=0 leader=2"
  std::string to_string() const;
  bool operator==(const TraceEvent&) const = default;
};

// A running 64-bit hash over events (FNV-1a over a canonical encoding of each event). Same events
// in the same order give the same fingerprint on every machine and build type.
class Fingerprint {
 public:
  void add(const TraceEvent& e);
  uint64_t value() const { return h_; }
  std::string hex() const;  // 16 hex digits

 private:
  void mix(const void* data, size_t n);
  void mix_u64(uint64_t v);
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace gregor
