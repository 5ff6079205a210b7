// A small JSON value with a writer and a strict parser, for the znode payloads Kafka writes in
// ZooKeeper ({"controller_epoch":1,"leader":2,"version":1,"leader_epoch":3,"isr":[2,3]}) and for
// machine-readable reports. Objects keep their keys sorted (std::map), so output is deterministic.
// Numbers are integers or doubles; the parser never trusts its input (depth and size limits).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/core/status.h"

namespace gregor {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::map<std::string, Json>;

  Json() : v_(nullptr) {}
  Json(std::nullptr_t) : v_(nullptr) {}
  Json(bool b) : v_(b) {}
  Json(int v) : v_(static_cast<int64_t>(v)) {}
  Json(int64_t v) : v_(v) {}
  Json(uint64_t v) : v_(static_cast<int64_t>(v)) {}
  Json(double v) : v_(v) {}
  Json(const char* s) : v_(std::string(s)) {}
  Json(std::string s) : v_(std::move(s)) {}
  Json(Array a) : v_(std::move(a)) {}
  Json(Object o) : v_(std::move(o)) {}

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_int() const { return std::holds_alternative<int64_t>(v_); }
  bool is_number() const { return is_int() || std::holds_alternative<double>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_array() const { return std::holds_alternative<Array>(v_); }
  bool is_object() const { return std::holds_alternative<Object>(v_); }

  // Typed access with a fallback when the value has another type.
  int64_t as_int(int64_t fallback = 0) const;
  double as_double(double fallback = 0) const;
  bool as_bool(bool fallback = false) const;
  std::string as_string(std::string fallback = "") const;
  const Array& as_array() const;    // empty array when not an array
  const Object& as_object() const;  // empty object when not an object
  Array& array();                   // REQUIRES: is_array()
  Object& object();                 // REQUIRES: is_object()

  // Object member or null.
  const Json& operator[](const std::string& key) const;
  bool has(const std::string& key) const;

  std::string dump() const;  // compact
  static Result<Json> parse(std::string_view text);

  bool operator==(const Json& o) const { return v_ == o.v_; }

 private:
  std::variant<std::nullptr_t, bool, int64_t, double, std::string, Array, Object> v_;
};

// Appends s to out as a JSON string, quoted and escaped (control characters as \n, \r, \t or
// \u00XX).
void json_escape(std::string& out, std::string_view s);

}  // namespace gregor
