// ConfigDef: a node's configs declared once, as Kafka's ConfigDef declares them.
//
// Each key is declared with its name (Kafka's spelling), type, default (the value a
// default-constructed Config holds), valid values, documentation, and whether a running node takes
// a new value (dynamic) or only a restart does (static). Everything else is derived from the
// declarations: parsing and validation (apply: an unknown key or a bad value is an error naming the
// key), the values by key (values, non_defaults: what DescribeConfigs and kafka-topics --describe
// show), and the text of --help (help).
//
//   ConfigDef<TopicConfig> def("topic");
//   def.define("min.insync.replicas", &TopicConfig::min_insync_replicas, at_least(1),
//              "The fewest in-sync replicas an acks=all write needs.", ConfigUpdate::kDynamic);
//
// Integer keys are checked against their range and the field's type; booleans are true or false;
// string keys may list their valid values; anything else is declared with its own parse and format
// functions (define_custom).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/status.h"

namespace gregor {

// Config values as Kafka writes them. Errors name the key: "linger.ms: not an integer: 'x'".
Result<int64_t> parse_config_long(const std::string& key, const std::string& value);
Result<bool> parse_config_bool(const std::string& key, const std::string& value);
// A list config's value ("compact, delete") as items and back: items are trimmed, empty ones dropped.
std::vector<std::string> split_config_list(const std::string& value);
std::string join_config_list(const std::vector<std::string>& items);

enum class ConfigType { kBoolean, kShort, kInt, kLong, kString, kList };
const char* config_type_name(ConfigType type);  // "boolean", "short", "int", "long", "string", "list"

// Whether a running node takes a new value (a topic config altered with kafka-configs, a producer
// setting changed in a running scenario) or the value is fixed at start.
enum class ConfigUpdate { kStatic, kDynamic };

// The valid range of an integer key (inclusive).
struct ConfigRange {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
};
inline ConfigRange at_least(int64_t min) { return ConfigRange{min, std::numeric_limits<int64_t>::max()}; }
inline ConfigRange between(int64_t min, int64_t max) { return ConfigRange{min, max}; }
// The range text of --help: "at least 1", "1..100", "any".
std::string describe_range(ConfigRange range);
// "k: must be at least N" / "k: must be at most N", or ok.
Status check_range(const std::string& key, int64_t value, ConfigRange range);

template <typename Config>
class ConfigDef {
 public:
  struct Key {
    std::string name;
    ConfigType type = ConfigType::kString;
    std::string valid;  // the valid values, as --help prints them
    std::string doc;
    ConfigUpdate update = ConfigUpdate::kStatic;
    // The key of another level that sets this one's default (Kafka's config synonyms: the topic key
    // segment.bytes defaults to the broker's log.segment.bytes); empty when there is none.
    std::string synonym;
    // Parses and validates `value` into the config; an error names the key.
    std::function<Status(Config&, const std::string& value)> parse;
    // The current value as text, as it would be written in a config file.
    std::function<std::string(const Config&)> format;
    bool dynamic() const { return update == ConfigUpdate::kDynamic; }
  };

  // `what` names the kind in errors: "unknown topic config 'x'".
  explicit ConfigDef(std::string what) : what_(std::move(what)) {}

  // An integer key (short, int or long by the field's type), checked against `range` and the type.
  // (Each define takes a field of Config or of a base of Config.)
  template <typename T, typename Owner>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_base_of_v<Owner, Config>)
  ConfigDef& define(std::string name, T Owner::*field, ConfigRange range, std::string doc,
                    ConfigUpdate update = ConfigUpdate::kStatic) {
    std::string valid = describe_range(range);  // as declared; the type's own limits go unsaid
    range.min = std::max<int64_t>(range.min, std::numeric_limits<T>::min());
    if constexpr (std::numeric_limits<T>::max() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      range.max = std::min<int64_t>(range.max, static_cast<int64_t>(std::numeric_limits<T>::max()));
    const ConfigType type = sizeof(T) <= 2 ? ConfigType::kShort : sizeof(T) <= 4 ? ConfigType::kInt : ConfigType::kLong;
    return define_custom(
        std::move(name), type, std::move(valid), std::move(doc), update,
        [field, range](Config& c, const std::string& key, const std::string& value) -> Status {
          auto v = parse_config_long(key, value);
          if (!v) return v.status();
          GREGOR_RETURN_IF_ERROR(check_range(key, *v, range));
          c.*field = static_cast<T>(*v);
          return Status::ok();
        },
        [field](const Config& c) { return std::to_string(c.*field); });
  }

  template <typename Owner>
    requires std::is_base_of_v<Owner, Config>
  ConfigDef& define(std::string name, bool Owner::*field, std::string doc, ConfigUpdate update = ConfigUpdate::kStatic) {
    return define_custom(
        std::move(name), ConfigType::kBoolean, "any", std::move(doc), update,
        [field](Config& c, const std::string& key, const std::string& value) -> Status {
          auto v = parse_config_bool(key, value);
          if (!v) return v.status();
          c.*field = *v;
          return Status::ok();
        },
        [field](const Config& c) { return std::string(c.*field ? "true" : "false"); });
  }

  // A string key; with `choices`, only those values are valid.
  template <typename Owner>
    requires std::is_base_of_v<Owner, Config>
  ConfigDef& define(std::string name, std::string Owner::*field, std::vector<std::string> choices, std::string doc,
                    ConfigUpdate update = ConfigUpdate::kStatic) {
    return define_custom(
        std::move(name), ConfigType::kString, choices.empty() ? "any" : "one of: " + comma_list(choices),
        std::move(doc), update,
        [field, choices](Config& c, const std::string& key, const std::string& value) -> Status {
          if (!choices.empty() && std::find(choices.begin(), choices.end(), value) == choices.end())
            return Status::error(StatusCode::kInvalidArgument,
                                 key + ": expected " + or_list(choices) + ", got '" + value + "'");
          c.*field = value;
          return Status::ok();
        },
        [field](const Config& c) { return c.*field; });
  }

  // An enum key: each value has a name.
  template <typename E, typename Owner>
    requires(std::is_enum_v<E> && std::is_base_of_v<Owner, Config>)
  ConfigDef& define(std::string name, E Owner::*field, std::vector<std::pair<E, std::string>> names, std::string doc,
                    ConfigUpdate update = ConfigUpdate::kStatic) {
    std::vector<std::string> choices;
    for (const auto& [e, n] : names) choices.push_back(n);
    return define_custom(
        std::move(name), ConfigType::kString, "one of: " + comma_list(choices), std::move(doc), update,
        [field, names, choices](Config& c, const std::string& key, const std::string& value) -> Status {
          for (const auto& [e, n] : names)
            if (n == value) {
              c.*field = e;
              return Status::ok();
            }
          return Status::error(StatusCode::kInvalidArgument, key + ": expected " + or_list(choices) + ", got '" + value + "'");
        },
        [field, names](const Config& c) {
          for (const auto& [e, n] : names)
            if (e == c.*field) return n;
          return std::string("?");
        });
  }

  // Any other key: its own parser (which receives the key, to name it in errors) and formatter.
  ConfigDef& define_custom(std::string name, ConfigType type, std::string valid, std::string doc, ConfigUpdate update,
                           std::function<Status(Config&, const std::string& key, const std::string& value)> parse,
                           std::function<std::string(const Config&)> format) {
    GREGOR_ASSERT_MSG(find(name) == nullptr, "config declared twice: " + name);
    Key k;
    k.name = name;
    k.type = type;
    k.valid = std::move(valid);
    k.doc = std::move(doc);
    k.update = update;
    k.parse = [parse = std::move(parse), name](Config& c, const std::string& value) { return parse(c, name, value); };
    k.format = std::move(format);
    keys_.push_back(std::move(k));
    return *this;
  }

  // Sets the synonym of the key declared last.
  ConfigDef& synonym(std::string name) {
    GREGOR_ASSERT(!keys_.empty());
    keys_.back().synonym = std::move(name);
    return *this;
  }

  // Declares the keys of a base config (a config that extends another, as topic configs extend
  // the log's) with the same names, documentation and rules.
  template <typename Base>
    requires std::is_base_of_v<Base, Config>
  ConfigDef& include(const ConfigDef<Base>& base) {
    for (const auto& b : base.keys()) {
      GREGOR_ASSERT_MSG(find(b.name) == nullptr, "config declared twice: " + b.name);
      Key k;
      k.name = b.name;
      k.type = b.type;
      k.valid = b.valid;
      k.doc = b.doc;
      k.update = b.update;
      k.synonym = b.synonym;
      k.parse = [parse = b.parse](Config& c, const std::string& value) { return parse(static_cast<Base&>(c), value); };
      k.format = [format = b.format](const Config& c) { return format(static_cast<const Base&>(c)); };
      keys_.push_back(std::move(k));
    }
    return *this;
  }

  const std::string& what() const { return what_; }
  const std::vector<Key>& keys() const { return keys_; }
  const Key* find(const std::string& name) const {
    for (const auto& k : keys_)
      if (k.name == name) return &k;
    return nullptr;
  }

  // Applies key=value pairs in key order; the first unknown key or bad value is the error.
  Status apply(Config& config, const std::map<std::string, std::string>& settings) const {
    for (const auto& [k, v] : settings) {
      const Key* key = find(k);
      if (!key) return unknown(k);
      GREGOR_RETURN_IF_ERROR(key->parse(config, v));
    }
    return Status::ok();
  }
  // Checks a config built in code against the same rules, key by key.
  Status validate(const Config& config) const {
    Config scratch = config;
    for (const auto& k : keys_) GREGOR_RETURN_IF_ERROR(k.parse(scratch, k.format(config)));
    return Status::ok();
  }
  Status unknown(const std::string& name) const {
    return Status::error(StatusCode::kInvalidArgument, "unknown " + what_ + " config '" + name + "'");
  }

  // Every key with its value.
  std::map<std::string, std::string> values(const Config& config) const {
    std::map<std::string, std::string> out;
    for (const auto& k : keys_) out[k.name] = k.format(config);
    return out;
  }
  // The keys whose value differs from the default's.
  std::map<std::string, std::string> non_defaults(const Config& config) const {
    const Config defaults{};
    std::map<std::string, std::string> out;
    for (const auto& k : keys_) {
      std::string v = k.format(config);
      if (v != k.format(defaults)) out[k.name] = std::move(v);
    }
    return out;
  }

  // The --help text: each key with its type, default, valid values and documentation.
  std::string help() const {
    const Config defaults{};
    std::string out;
    for (const auto& k : keys_) {
      out += "  " + k.name + "  (" + config_type_name(k.type) + ", default " + quoted(k.format(defaults));
      if (k.valid != "any") out += ", " + k.valid;
      out += k.dynamic() ? ", dynamic)\n" : ")\n";
      out += "      " + k.doc + "\n";
    }
    return out;
  }

 private:
  static std::string comma_list(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
  }
  static std::string or_list(const std::vector<std::string>& choices) {
    std::string out;
    for (size_t i = 0; i < choices.size(); i++)
      out += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    return out;
  }
  static std::string quoted(const std::string& v) { return v.empty() ? "\"\"" : v; }

  std::string what_;
  std::vector<Key> keys_;
};

}  // namespace gregor
