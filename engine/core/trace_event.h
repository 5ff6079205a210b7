// TraceEvent: one state change of one node, as the runtime stamped it.
//
// Every state change that matters for checking, replay or display is emitted through
// Runtime::emit as one of the typed kinds of engine/core/trace_events.h: a leader change, an ISR
// shrink, a HW advance, a znode write, a fault. The runtime stamps the time and the node; the
// fingerprint of a run is a hash over all of them in order, so two runs with the same scenario and
// seed must emit exactly the same events.
//
// Code that reacts to events reads the typed fields: `if (auto* a = e.as<ev::LogAppend>()) ...`.
// Text (to_string) and JSON (fields_json) are made only for people and for SQLite; the generic
// accessors (find, get_int, get_string) look a field up by name and serve tools and tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/trace_events.h"
#include "engine/core/types.h"

namespace gregor {

struct TraceEvent {
  Time time;
  NodeId node;
  TraceBody body;

  // "leader_change": the kind's name.
  std::string_view kind() const;
  template <typename T>
  const T* as() const {
    return std::get_if<T>(&body);
  }
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(body);
  }

  // A field by name: integers (booleans as 0 or 1) and text (lists as their text), the way
  // fields_json shows them; nullopt when the event has no such field (or it is absent).
  using Value = std::variant<int64_t, std::string>;
  std::optional<Value> find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key).has_value(); }
  int64_t get_int(std::string_view key, int64_t fallback = 0) const;
  std::string get_string(std::string_view key, std::string fallback = "") const;

  // {"leader":2,"topic":"orders"}: the fields as a JSON object, in declaration order.
  std::string fields_json() const;
  // "1.250000s node 2 leader_change topic=orders partition=0 leader=2"
  std::string to_string() const;
  bool operator==(const TraceEvent&) const = default;
};

// Makes an event from what a trace file holds: its kind and its fields as a JSON object. A kind
// this build does not know becomes ev::Generic. Fails on malformed JSON, or on a field whose value
// has the wrong type for its kind. Fields missing from the object keep their defaults.
Result<TraceBody> trace_body_from_json(std::string_view kind, std::string_view fields_json);

// Every kind's name, in TraceBody order (Generic excluded).
const std::vector<std::string_view>& trace_kind_names();

// A running 64-bit hash over events: same events in the same order give the same fingerprint on
// every machine and build type. Each event is encoded as a sequence of 64-bit words (its time,
// node, kind and typed field values; docs/trace.md gives the encoding), and each word is mixed in.
class Fingerprint {
 public:
  void add(const TraceEvent& e) { add(e.time, e.node, e.body); }
  void add(Time time, NodeId node, const TraceBody& body);
  uint64_t value() const { return h_; }
  std::string hex() const;  // 16 hex digits

 private:
  friend struct FingerprintEncoder;
  void mix(uint64_t word) {
    h_ = (h_ ^ word) * 0xbf58476d1ce4e5b9ull;
    h_ ^= h_ >> 31;
  }
  void mix_bytes(std::string_view s);
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace gregor
