// Reading YAML with errors that name the file, line and key: the parser's helpers
// (engine-independent; sim/scenario/scenario_read.cpp uses them for every section).
//
// yaml-cpp reports problems by throwing; so do these helpers (ParseError). parse_scenario catches
// both and turns them into a Status: no exception leaves the scenario reader.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/types.h"
#include "sim/scenario/duration.h"
#include "sim/scenario/scenario.h"

namespace gregor::sim::yaml {

struct ParseError {
  int line;  // 1-based; 0 when unknown
  std::string key;
  std::string message;
};

inline int line_of(const YAML::Node& n, int fallback) {
  if (!n.IsDefined()) return fallback;
  const YAML::Mark m = n.Mark();
  return m.is_null() ? fallback : m.line + 1;
}

// Walks a document, remembering the key path for messages ("faults[2].crash").
class Reader {
 public:
  [[noreturn]] static void fail(const YAML::Node& n, const std::string& key, const std::string& message, int fallback = 0) {
    throw ParseError{line_of(n, fallback), key, message};
  }

  static void check_keys(const YAML::Node& map, const std::string& key, const std::vector<std::string>& allowed) {
    if (!map.IsMap()) fail(map, key, "expected a mapping of keys to values");
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string k = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(it->first, join(key, k), "unknown key (expected one of: " + list + ")");
      }
    }
  }

  static std::string join(const std::string& parent, const std::string& k) { return parent.empty() ? k : parent + "." + k; }

  static std::string scalar(const YAML::Node& n, const std::string& key) {
    if (!n.IsScalar()) fail(n, key, "expected a single value");
    return n.Scalar();
  }

  static int64_t integer(const YAML::Node& n, const std::string& key, int64_t min, int64_t max) {
    const std::string s = scalar(n, key);
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') fail(n, key, "expected an integer, got '" + s + "'");
    if (v < min || v > max)
      fail(n, key, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + s);
    return v;
  }

  static bool boolean(const YAML::Node& n, const std::string& key) {
    const std::string s = scalar(n, key);
    if (s == "true") return true;
    if (s == "false") return false;
    fail(n, key, "expected true or false, got '" + s + "'");
  }

  static Duration duration(const YAML::Node& n, const std::string& key) {
    auto d = parse_duration(scalar(n, key));
    if (!d) fail(n, key, d.status().message());
    return *d;
  }

  // A scalar or a sequence of scalars.
  static std::vector<std::string> strings(const YAML::Node& n, const std::string& key) {
    std::vector<std::string> out;
    if (n.IsScalar()) {
      out.push_back(n.Scalar());
    } else if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); i++) out.push_back(scalar(n[i], key + "[" + std::to_string(i) + "]"));
    } else {
      fail(n, key, "expected a name or a list of names");
    }
    return out;
  }

  // key: value pairs of configs, values kept as written (Kafka configs are strings).
  static std::vector<std::pair<std::string, YAML::Node>> config_entries(const YAML::Node& n, const std::string& key) {
    if (n.IsNull()) return {};
    if (!n.IsMap()) fail(n, key, "expected a mapping of config keys to values");
    std::vector<std::pair<std::string, YAML::Node>> out;
    for (auto it = n.begin(); it != n.end(); ++it) {
      scalar(it->second, join(key, it->first.Scalar()));
      out.emplace_back(it->first.Scalar(), it->second);
    }
    return out;
  }
};

using R = Reader;

// Checks each config entry with the given validator, so that an error points at its own line.
template <typename Validate>
ConfigMap read_config(const YAML::Node& n, const std::string& key, Validate validate) {
  ConfigMap out;
  for (const auto& [k, v] : R::config_entries(n, key)) {
    Status s = validate(k, v.Scalar());
    if (!s.is_ok()) R::fail(v, R::join(key, k), s.message());
    out[k] = v.Scalar();
  }
  return out;
}

}  // namespace gregor::sim::yaml
