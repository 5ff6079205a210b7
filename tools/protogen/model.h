// The protocol code generator's model of a spec file (engine/protocol/specs/*.yaml; the format is
// described in docs/protocol.md). The parser (parse.cpp) builds it and checks it; the emitter
// (emit.cpp) turns it into C++.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace protogen {

// A spec error: names the file, the line and what is wrong. The generator prints it and exits 2.
struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kNoVersion = 0x7fff;

// An inclusive range of versions; empty when lo > hi ("none").
struct Versions {
  int lo = 0;
  int hi = -1;
  bool empty() const { return lo > hi; }
  bool contains(int v) const { return v >= lo && v <= hi; }
  bool contains(const Versions& o) const { return o.empty() || (lo <= o.lo && o.hi <= hi); }
  Versions intersect(const Versions& o) const { return Versions{std::max(lo, o.lo), std::min(hi, o.hi)}; }
  std::string text() const;
};

enum class Kind { Int8, Int16, Int32, Int64, Uint16, Float64, Bool, Error, ApiKey, Uuid, String, Bytes, Records, Struct };

struct StructDef;

struct Field {
  std::string name;         // the C++ member name (snake_case)
  Kind kind = Kind::Int32;  // the element kind for arrays
  bool array = false;
  std::string struct_name;  // Kind::Struct: the struct's type name
  const StructDef* def = nullptr;
  Versions versions;
  Versions nullable;  // the versions in which null is allowed (empty: never)
  int tag = -1;       // >= 0: a tagged field (flexible versions only)
  std::optional<std::string> default_text;
  // flatten below N via G: in versions < N this array of structs is written as one array of the
  // elements of each struct's array field G, each preceded by the struct's other fields (Kafka's
  // "ungrouped" forms of LeaderAndIsr, UpdateMetadata and StopReplica).
  int flatten_below = -1;
  std::string flatten_via;
  std::string where;  // file:line, for errors

  bool ever_nullable() const { return !nullable.intersect(versions).empty(); }
};

struct StructDef {
  std::string name;
  std::vector<Field> fields;
  bool namespace_scope = false;  // a struct shared by several APIs of one file
  bool has_tagged_section = false;  // used in flexible versions somewhere: keeps unknown tags
  std::string where;
};

struct Message {
  std::string cpp_name;  // FetchRequest
  bool request = true;
  StructDef body;                          // the message's own fields (body.name == cpp_name)
  std::vector<const StructDef*> nested;    // structs declared inside it, inner ones first
};

struct Api {
  std::string name;  // Fetch
  int key = 0;
  Versions valid;
  Versions flexible;    // empty: never flexible
  Versions deprecated;  // empty: none
  Message request;
  Message response;
  std::string where;
};

struct SpecFile {
  std::string path;
  std::string stem;  // fetch (from fetch.yaml): the generated files' names
  std::vector<Api> apis;
  std::vector<const StructDef*> shared;  // namespace-scope structs, inner ones first
  std::deque<StructDef> storage;         // owns every StructDef (stable addresses)
};

// Parses and checks one spec file. Throws SpecError.
void parse_spec(const std::string& path, SpecFile& out);

// The C++ the generator writes for one spec file: a header and a source.
struct Emitted {
  std::string header;
  std::string source;
};
Emitted emit_spec(const SpecFile& spec);

// The table of every API (valid, flexible and deprecated versions), from all spec files.
std::string emit_api_table(const std::vector<const SpecFile*>& specs);

// Test support: sample messages for every message at every version, and a catalog of them.
Emitted emit_samples(const std::vector<const SpecFile*>& specs);

}  // namespace protogen
