// ConfigDef (engine/core/config_def.h): configs declared once, and what is derived from the
// declarations: parsing with errors that name the key, ranges and type limits, values, non-default
// values, validation of a config built in code, a base's keys, and the --help text.
#include <catch2/catch.hpp>

#include "engine/core/config_def.h"

using namespace gregor;

namespace {

enum class Mode { kFast, kSafe };

struct Base {
  int64_t retention_ms = 1000;
};

struct Settings : Base {
  int32_t replicas = 3;
  int16_t small = 1;
  bool enabled = false;
  std::string reset = "latest";
  Mode mode = Mode::kSafe;
};

const ConfigDef<Base>& base_def() {
  static const ConfigDef<Base> def = [] {
    ConfigDef<Base> d("base");
    d.define("retention.ms", &Base::retention_ms, at_least(-1), "How long.", ConfigUpdate::kDynamic).synonym("log.retention.ms");
    return d;
  }();
  return def;
}

const ConfigDef<Settings>& def() {
  static const ConfigDef<Settings> d = [] {
    ConfigDef<Settings> x("test");
    x.include(base_def());
    x.define("replicas", &Settings::replicas, between(1, 10), "How many.");
    x.define("small", &Settings::small, at_least(0), "A short.");
    x.define("enabled", &Settings::enabled, "On or off.", ConfigUpdate::kDynamic);
    x.define("reset", &Settings::reset, {"earliest", "latest"}, "Where to start.");
    x.define("mode", &Settings::mode, {{Mode::kFast, "fast"}, {Mode::kSafe, "safe"}}, "How.");
    return x;
  }();
  return d;
}

std::string error(const std::map<std::string, std::string>& settings) {
  Settings s;
  Status st = def().apply(s, settings);
  return st.is_ok() ? "" : st.message();
}

}  // namespace

TEST_CASE("config def: parsing and validation errors name the key", "[config]") {
  Settings s;
  REQUIRE(def().apply(s, {{"replicas", "5"}, {"enabled", "true"}, {"reset", "earliest"}, {"mode", "fast"}, {"retention.ms", "-1"}})
              .is_ok());
  CHECK(s.replicas == 5);
  CHECK(s.enabled);
  CHECK(s.reset == "earliest");
  CHECK(s.mode == Mode::kFast);
  CHECK(s.retention_ms == -1);  // a base's key, through the derived config
  CHECK(error({{"replicas", "0"}}) == "replicas: must be at least 1");
  CHECK(error({{"replicas", "11"}}) == "replicas: must be at most 10");
  CHECK(error({{"replicas", "x"}}) == "replicas: not an integer: 'x'");
  CHECK(error({{"replicas", ""}}) == "replicas: empty value");
  CHECK(error({{"small", "40000"}}) == "small: must be at most 32767");  // the field's type bounds it too
  CHECK(error({{"enabled", "yes"}}) == "enabled: expected true or false, got 'yes'");
  CHECK(error({{"reset", "middle"}}) == "reset: expected earliest or latest, got 'middle'");
  CHECK(error({{"mode", "slow"}}) == "mode: expected fast or safe, got 'slow'");
  CHECK(error({{"nope", "1"}}) == "unknown test config 'nope'");
  // Numbers beyond a long are refused, not clamped to the largest one.
  CHECK(error({{"retention.ms", "99999999999999999999"}}) == "retention.ms: not an integer: '99999999999999999999'");
}

TEST_CASE("config def: values are read as Kafka's ConfigDef reads them: trimmed, booleans in any case", "[config]") {
  Settings s;
  REQUIRE(def().apply(s, {{"replicas", " 7 "}, {"enabled", "TRUE"}}).is_ok());
  CHECK(s.replicas == 7);
  CHECK(s.enabled);
  REQUIRE(def().apply(s, {{"enabled", "False"}}).is_ok());
  CHECK_FALSE(s.enabled);
}

TEST_CASE("config def: values, non-defaults, validation of a built config, and help", "[config]") {
  Settings s;
  s.replicas = 2;
  s.mode = Mode::kFast;
  const auto values = def().values(s);
  CHECK(values.at("replicas") == "2");
  CHECK(values.at("mode") == "fast");
  CHECK(values.at("retention.ms") == "1000");
  CHECK(def().non_defaults(s) == std::map<std::string, std::string>{{"mode", "fast"}, {"replicas", "2"}});
  CHECK(def().validate(s).is_ok());
  s.replicas = 12;
  CHECK(def().validate(s).message() == "replicas: must be at most 10");
  CHECK(def().find("retention.ms")->synonym == "log.retention.ms");
  CHECK(def().find("retention.ms")->dynamic());
  CHECK_FALSE(def().find("replicas")->dynamic());
  const std::string help = def().help();
  CHECK(help.find("  replicas  (int, default 3, 1..10)\n      How many.\n") != std::string::npos);
  CHECK(help.find("  retention.ms  (long, default 1000, at least -1, dynamic)\n") != std::string::npos);
  CHECK(help.find("  reset  (string, default latest, one of: earliest, latest)\n") != std::string::npos);
  CHECK(help.find("  enabled  (boolean, default false, dynamic)\n") != std::string::npos);
}

TEST_CASE("config lists: items trimmed, empty ones dropped", "[config]") {
  CHECK(split_config_list("compact, delete,,") == std::vector<std::string>{"compact", "delete"});
  CHECK(split_config_list("").empty());
  CHECK(join_config_list({"a", "b"}) == "a,b");
}
