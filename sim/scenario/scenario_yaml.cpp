// The scenario file format: parsing with yaml-cpp (every error names file, line and key) and
// writing back (to_yaml). docs/scenarios.md is the reference for the keys.
//
// yaml-cpp reports problems by throwing; so does this file's own validation (ParseError). Both are
// caught in parse_scenario and turned into a Status: no exception leaves this file.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/broker/broker_config.h"
#include "engine/client/producer.h"
#include "sim/scenario/duration.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_checks.h"
#include "sim/scenario/targets.h"

namespace gregor::sim {

namespace {

struct ParseError {
  int line;  // 1-based; 0 when unknown
  std::string key;
  std::string message;
};

int line_of(const YAML::Node& n, int fallback) {
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

Status validate_broker_key(const std::string& k, const std::string& v) {
  broker::BrokerConfig c;
  return c.apply({{k, v}});
}
Status validate_topic_key(const std::string& k, const std::string& v) {
  broker::TopicConfig c;
  return c.apply({{k, v}});
}
Status validate_producer_key(const std::string& k, const std::string& v) {
  if (k == "bootstrap.servers") return Status::error(StatusCode::kInvalidArgument, "set by the scenario (every broker)");
  client::ProducerConfig c;
  return c.apply({{k, v}});
}
// set-config on running producers: only the keys Producer::reconfigure takes.
Status validate_running_producer_key(const std::string& k, const std::string& v) {
  return client::Producer::reconfigured(client::ProducerConfig{}, {{k, v}}).status();
}

double read_rate(const YAML::Node& n, const std::string& key) {
  std::string s = R::scalar(n, key);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, "/s") == 0) s = s.substr(0, s.size() - 2);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v))
    R::fail(n, key, "expected records per second (100 or 100/s), got '" + R::scalar(n, key) + "'");
  if (v <= 0 || v > kScenarioRateMax)
    R::fail(n, key, "must be above 0 and at most " + std::to_string(static_cast<int64_t>(kScenarioRateMax)));
  return v;
}

// "2:3:1,3:1:2" -> {0: [2,3,1], 1: [3,1,2]}
std::map<int32_t, std::vector<int32_t>> read_assignment(const YAML::Node& n, const std::string& key, int32_t brokers) {
  std::map<int32_t, std::vector<int32_t>> out;
  std::stringstream parts(R::scalar(n, key));
  std::string part;
  int32_t p = 0;
  while (std::getline(parts, part, ',')) {
    std::stringstream ids(part);
    std::string id;
    std::vector<int32_t> replicas;
    while (std::getline(ids, id, ':')) {
      char* end = nullptr;
      long v = std::strtol(id.c_str(), &end, 10);
      if (id.empty() || *end != '\0' || v < 1 || v > brokers)
        R::fail(n, key, "'" + id + "' is not a broker id (1.." + std::to_string(brokers) + "); write \"2:3,3:1\"");
      if (std::find(replicas.begin(), replicas.end(), v) != replicas.end())
        R::fail(n, key, "broker " + id + " appears twice in partition " + std::to_string(p));
      replicas.push_back(static_cast<int32_t>(v));
    }
    if (replicas.empty()) R::fail(n, key, "partition " + std::to_string(p) + " has no replicas");
    out[p++] = replicas;
  }
  if (out.empty()) R::fail(n, key, "empty assignment");
  return out;
}

Expectations read_expect(const YAML::Node& n, const std::string& key) {
  R::check_keys(n, key, {"pass", "fail", "min-acked"});
  Expectations e;
  e.line = line_of(n, 0);
  const auto known = known_checker_names();
  auto check_names = [&](const YAML::Node& list, const std::string& k) {
    std::vector<std::string> names = R::strings(list, k);
    for (const auto& name : names)
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string all;
        for (const auto& c : known) all += (all.empty() ? "" : ", ") + c;
        R::fail(list, k, "unknown checker '" + name + "' (checkers: " + all + ")");
      }
    return names;
  };
  if (n["pass"]) {
    if (n["pass"].IsScalar() && n["pass"].Scalar() == "all")
      e.pass_all = true;
    else
      e.pass = check_names(n["pass"], key + ".pass");
  }
  if (n["fail"]) e.fail = check_names(n["fail"], key + ".fail");
  for (const auto& f : e.fail)
    if (std::find(e.pass.begin(), e.pass.end(), f) != e.pass.end())
      R::fail(n["fail"], key + ".fail", "'" + f + "' cannot both pass and fail");
  if (n["min-acked"]) e.min_acked = R::integer(n["min-acked"], key + ".min-acked", 0, INT64_MAX);
  return e;
}

const std::vector<std::string> kTargetActions = {"crash", "restart", "power-loss", "pause", "resume", "shutdown", "isolate"};
const std::vector<std::string> kActions = {"crash",  "restart",   "power-loss", "pause", "resume", "shutdown", "isolate",
                                           "partition", "heal", "clog", "latency", "disk-corrupt", "set-config"};

// The context fault targets are checked against.
struct Names {
  std::set<std::string> nodes;
  std::set<std::string> labels;  // groups (all members) and `as` labels of earlier faults
  std::map<std::string, int32_t> partitions;
  std::set<std::string> producers;
};

void check_target(const YAML::Node& at, const std::string& key, const std::string& target, const Names& names,
                  bool allow_others) {
  auto t = parse_target(target, names.nodes, names.labels, names.partitions);
  if (!t) R::fail(at, key, t.status().message());
  if (t->kind == TargetSpec::Kind::kOthers && !allow_others)
    R::fail(at, key, "'others' only makes sense as a group of partition or heal");
}

std::vector<std::vector<std::string>> read_groups(const YAML::Node& n, const std::string& key) {
  std::vector<std::vector<std::string>> groups;
  if (n.IsSequence() && n.size() > 0 && n[0].IsSequence()) {
    for (size_t i = 0; i < n.size(); i++) groups.push_back(R::strings(n[i], key + "[" + std::to_string(i) + "]"));
  } else {
    // One side only: that side against everything else.
    groups.push_back(R::strings(n, key));
    groups.push_back({"others"});
  }
  if (groups.size() < 2) R::fail(n, key, "a partition needs at least two groups: [[a, b], [c]]");
  return groups;
}

FaultAction read_fault(const YAML::Node& n, const std::string& key) {
  std::vector<std::string> allowed = {"at", "as", "one-way"};
  allowed.insert(allowed.end(), kActions.begin(), kActions.end());
  R::check_keys(n, key, allowed);
  FaultAction f;
  f.line = line_of(n, 0);
  if (!n["at"]) R::fail(n, key + ".at", "every fault needs a time: at: 10s");
  Duration at = R::duration(n["at"], key + ".at");
  f.at = Time{0} + at;
  std::string action;
  for (const auto& a : kActions)
    if (n[a]) {
      if (!action.empty()) R::fail(n[a], key + "." + a, "one action per fault (this one already does " + action + ")");
      action = a;
    }
  if (action.empty()) R::fail(n, key, "no action (one of: crash, restart, power-loss, pause, resume, shutdown, isolate, "
                                      "partition, heal, clog, latency, disk-corrupt, set-config)");
  f.action = action;
  const YAML::Node v = n[action];
  const std::string vkey = key + "." + action;
  if (n["as"]) f.label = R::scalar(n["as"], key + ".as");
  if (n["one-way"]) {
    if (action != "partition" && action != "heal") R::fail(n["one-way"], key + ".one-way", "only partition and heal are one-way");
    f.one_way = R::boolean(n["one-way"], key + ".one-way");
  }
  if (std::find(kTargetActions.begin(), kTargetActions.end(), action) != kTargetActions.end()) {
    f.targets = R::strings(v, vkey);
  } else if (action == "disk-corrupt") {
    if (v.IsMap()) {
      R::check_keys(v, vkey, {"target", "path"});
      if (!v["target"]) R::fail(v, vkey + ".target", "which node's disk?");
      f.targets = R::strings(v["target"], vkey + ".target");
      if (v["path"]) f.path = R::scalar(v["path"], vkey + ".path");
    } else {
      f.targets = R::strings(v, vkey);
    }
  } else if (action == "partition") {
    f.groups = read_groups(v, vkey);
  } else if (action == "heal") {
    if (!(v.IsScalar() && v.Scalar() == "all")) f.groups = read_groups(v, vkey);
  } else if (action == "clog") {
    R::check_keys(v, vkey, {"from", "to", "for", "both-ways"});
    if (!v["from"] || !v["to"] || !v["for"]) R::fail(v, vkey, "clog needs from, to and for: {from: broker-1, to: broker-2, for: 2s}");
    f.targets = R::strings(v["from"], vkey + ".from");
    f.to = R::strings(v["to"], vkey + ".to");
    f.duration = R::duration(v["for"], vkey + ".for");
    f.one_way = !(v["both-ways"] && R::boolean(v["both-ways"], vkey + ".both-ways"));
  } else if (action == "latency") {
    R::check_keys(v, vkey, {"from", "to", "base", "jitter"});
    if (!v["base"]) R::fail(v, vkey + ".base", "latency needs a base: {base: 20ms, jitter: 5ms}");
    f.targets = v["from"] ? R::strings(v["from"], vkey + ".from") : std::vector<std::string>{"all"};
    f.to = v["to"] ? R::strings(v["to"], vkey + ".to") : std::vector<std::string>{"all"};
    f.base = R::duration(v["base"], vkey + ".base");
    f.jitter = v["jitter"] ? R::duration(v["jitter"], vkey + ".jitter") : Duration{0};
  } else if (action == "set-config") {
    const char* usage = "set-config: {topic: orders, config: {min.insync.replicas: 2}} or {producer: producer-1, config: {acks: 1}}";
    if (!v.IsMap()) R::fail(v, vkey, usage);
    R::check_keys(v, vkey, {"topic", "producer", "config"});
    if (v["topic"] && v["producer"]) R::fail(v, vkey, "a topic's config or a producer's, not both in one fault");
    if (!v["config"]) R::fail(v, vkey + ".config", usage);
    if (v["topic"]) {
      f.topics = R::strings(v["topic"], vkey + ".topic");
      f.config = read_config(v["config"], vkey + ".config", validate_topic_key);
    } else if (v["producer"]) {
      f.targets = R::strings(v["producer"], vkey + ".producer");
      f.config = read_config(v["config"], vkey + ".config", validate_running_producer_key);
    } else {
      R::fail(v, vkey, usage);
    }
    if (f.config.empty()) R::fail(v["config"], vkey + ".config", "nothing to set");
    if (!f.topics.empty()) return f;
  }
  if (f.targets.empty() && f.groups.empty() && !(action == "heal")) R::fail(v, vkey, "no targets");
  return f;
}

void check_fault_targets(const YAML::Node& n, const std::string& key, const FaultAction& f, Names& names) {
  const std::string vkey = key + "." + f.action;
  const YAML::Node v = n[f.action];
  if (f.action == "set-config") {
    for (const auto& t : f.topics)
      if (!names.partitions.count(t)) R::fail(v["topic"], vkey + ".topic", "no topic '" + t + "' under topics:");
    for (const auto& p : f.targets)
      if (!names.producers.count(p)) R::fail(v["producer"], vkey + ".producer", "no producer '" + p + "' under producers:");
    return;
  }
  for (const auto& t : f.targets) check_target(v, vkey, t, names, false);
  for (const auto& t : f.to) check_target(v, vkey, t, names, false);
  for (const auto& g : f.groups) {
    if (g.empty()) R::fail(v, vkey, "an empty group");
    for (const auto& t : g) check_target(v, vkey, t, names, true);
  }
  if (!f.label.empty()) {
    if (names.nodes.count(f.label)) R::fail(n["as"], key + ".as", "'" + f.label + "' is already a node's name");
    names.labels.insert(f.label);
  }
}

const std::vector<std::string> kConsumerKeys = {
    "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "max.poll.records",
    "enable.auto.commit", "auto.commit.interval.ms", "auto.offset.reset", "isolation.level",
    "fetch.min.bytes", "fetch.max.wait.ms", "fetch.max.bytes", "max.partition.fetch.bytes",
    "partition.assignment.strategy", "request.timeout.ms", "retry.backoff.ms", "client.id",
    "group.instance.id", "enable.idempotence", "transactional.id"};

Status validate_consumer_key(const std::string& k, const std::string& v) {
  if (std::find(kConsumerKeys.begin(), kConsumerKeys.end(), k) == kConsumerKeys.end())
    return Status::error(StatusCode::kInvalidArgument, "unknown consumer config '" + k + "'");
  if (v.empty()) return Status::error(StatusCode::kInvalidArgument, k + ": empty value");
  return Status::ok();
}

Variant read_variant(const std::string& name, const YAML::Node& n, const std::string& key) {
  R::check_keys(n, key, {"description", "broker-config", "topic-config", "producer-config", "group-config", "delivery", "expect"});
  Variant v;
  v.name = name;
  v.line = line_of(n, 0);
  if (n["description"]) v.description = R::scalar(n["description"], key + ".description");
  if (n["broker-config"]) v.broker_config = read_config(n["broker-config"], key + ".broker-config", validate_broker_key);
  if (n["topic-config"]) v.topic_config = read_config(n["topic-config"], key + ".topic-config", validate_topic_key);
  if (n["producer-config"]) v.producer_config = read_config(n["producer-config"], key + ".producer-config", validate_producer_key);
  if (n["group-config"]) v.group_config = read_config(n["group-config"], key + ".group-config", validate_consumer_key);
  if (n["delivery"]) {
    auto d = parse_delivery_mode(R::scalar(n["delivery"], key + ".delivery"));
    if (!d) R::fail(n["delivery"], key + ".delivery", "expected at-most-once, at-least-once or exactly-once");
    v.delivery = *d;
  }
  if (n["expect"]) v.expect = read_expect(n["expect"], key + ".expect");
  return v;
}

std::string broker_name(int32_t id) { return "broker-" + std::to_string(id); }

Scenario read_scenario(const YAML::Node& root) {
  if (!root.IsMap()) R::fail(root, "", "a scenario file is a mapping (name:, cluster:, topics:, ...)", 1);
  R::check_keys(root, "", {"name", "story", "seed", "cluster", "broker-config", "topics", "producers", "groups", "faults",
                           "length", "expect", "variants"});
  Scenario s;
  if (!root["name"]) R::fail(root, "name", "every scenario has a name", 1);
  s.name = R::scalar(root["name"], "name");
  if (root["story"]) s.story = R::scalar(root["story"], "story");
  if (root["seed"]) s.seed = static_cast<uint64_t>(R::integer(root["seed"], "seed", 0, INT64_MAX));

  // Cluster.
  if (const YAML::Node c = root["cluster"]) {
    R::check_keys(c, "cluster", {"brokers", "zookeeper", "network", "controller", "start"});
    if (c["brokers"]) s.brokers = static_cast<int32_t>(R::integer(c["brokers"], "cluster.brokers", 1, kScenarioBrokersMax));
    if (c["zookeeper"]) {
      const int64_t zk = R::integer(c["zookeeper"], "cluster.zookeeper", 1, 5);
      if (zk > kScenarioZkServersMax)
        R::fail(c["zookeeper"], "cluster.zookeeper",
                "Gregor's zk is a single server for now (a replicated ensemble is not built): use 1");
      s.zk_servers = static_cast<int32_t>(zk);
    }
    if (const YAML::Node net = c["network"]) {
      R::check_keys(net, "cluster.network", {"latency", "jitter"});
      if (net["latency"]) s.latency.base = R::duration(net["latency"], "cluster.network.latency");
      if (net["jitter"]) s.latency.jitter = R::duration(net["jitter"], "cluster.network.jitter");
    }
    auto check_broker = [&](const YAML::Node& at, const std::string& key, const std::string& name) {
      for (int32_t b = 1; b <= s.brokers; b++)
        if (name == broker_name(b)) return;
      R::fail(at, key, "'" + name + "' is not a broker of this cluster (broker-1..broker-" + std::to_string(s.brokers) + ")");
    };
    if (c["controller"]) {
      s.controller = R::scalar(c["controller"], "cluster.controller");
      check_broker(c["controller"], "cluster.controller", s.controller);
    }
    if (const YAML::Node st = c["start"]) {
      if (!st.IsMap()) R::fail(st, "cluster.start", "expected broker: time pairs (broker-3: 20s)");
      for (auto it = st.begin(); it != st.end(); ++it) {
        const std::string b = it->first.Scalar();
        check_broker(it->first, "cluster.start." + b, b);
        s.broker_start[b] = Time{0} + R::duration(it->second, "cluster.start." + b);
      }
    }
  }
  if (root["broker-config"]) s.broker_config = read_config(root["broker-config"], "broker-config", validate_broker_key);

  Names names;
  for (int32_t b = 1; b <= s.brokers; b++) names.nodes.insert(broker_name(b));
  for (int32_t z = 1; z <= s.zk_servers; z++) names.nodes.insert("zk-" + std::to_string(z));

  // Topics.
  if (const YAML::Node ts = root["topics"]) {
    if (!ts.IsSequence()) R::fail(ts, "topics", "expected a list of topics");
    if (ts.size() > static_cast<size_t>(kScenarioTopicsMax)) R::fail(ts, "topics", "too many topics");
    for (size_t i = 0; i < ts.size(); i++) {
      const YAML::Node t = ts[i];
      const std::string key = "topics[" + std::to_string(i) + "]";
      R::check_keys(t, key, {"name", "partitions", "replication-factor", "replica-assignment", "config"});
      TopicSpec spec;
      spec.line = line_of(t, 0);
      if (!t["name"]) R::fail(t, key + ".name", "a topic needs a name");
      spec.name = R::scalar(t["name"], key + ".name");
      if (names.partitions.count(spec.name)) R::fail(t["name"], key + ".name", "topic '" + spec.name + "' is defined twice");
      if (t["partitions"])
        spec.partitions = static_cast<int32_t>(R::integer(t["partitions"], key + ".partitions", 1, kScenarioPartitionsMax));
      spec.replication_factor = std::min<int32_t>(3, s.brokers);
      if (t["replication-factor"])
        spec.replication_factor =
            static_cast<int32_t>(R::integer(t["replication-factor"], key + ".replication-factor", 1, s.brokers));
      if (t["replica-assignment"]) {
        spec.replica_assignment = read_assignment(t["replica-assignment"], key + ".replica-assignment", s.brokers);
        spec.partitions = static_cast<int32_t>(spec.replica_assignment.size());
        spec.replication_factor = static_cast<int32_t>(spec.replica_assignment.begin()->second.size());
        for (const auto& [p, r] : spec.replica_assignment)
          if (static_cast<int32_t>(r.size()) != spec.replication_factor)
            R::fail(t["replica-assignment"], key + ".replica-assignment", "every partition needs the same number of replicas");
        if (t["partitions"] && R::integer(t["partitions"], key + ".partitions", 1, kScenarioPartitionsMax) != spec.partitions)
          R::fail(t["partitions"], key + ".partitions", "does not match replica-assignment");
      }
      if (t["config"]) spec.config = read_config(t["config"], key + ".config", validate_topic_key);
      names.partitions[spec.name] = spec.partitions;
      s.topics.push_back(std::move(spec));
    }
  }

  // Producers.
  if (const YAML::Node ps = root["producers"]) {
    if (!ps.IsSequence()) R::fail(ps, "producers", "expected a list of producers");
    if (ps.size() > static_cast<size_t>(kScenarioProducersMax)) R::fail(ps, "producers", "too many producers");
    for (size_t i = 0; i < ps.size(); i++) {
      const YAML::Node p = ps[i];
      const std::string key = "producers[" + std::to_string(i) + "]";
      R::check_keys(p, key, {"name", "topic", "rate", "keys", "value-bytes", "records", "start", "stop", "config"});
      ProducerSpec spec;
      spec.line = line_of(p, 0);
      spec.name = p["name"] ? R::scalar(p["name"], key + ".name") : "producer-" + std::to_string(i + 1);
      if (names.nodes.count(spec.name) || names.labels.count(spec.name))
        R::fail(p["name"] ? p["name"] : p, key + ".name", "the name '" + spec.name + "' is taken");
      if (!p["topic"]) R::fail(p, key + ".topic", "which topic does it write to?");
      spec.topic = R::scalar(p["topic"], key + ".topic");
      if (!names.partitions.count(spec.topic))
        R::fail(p["topic"], key + ".topic", "no topic '" + spec.topic + "' under topics:");
      if (p["rate"]) spec.rate_per_sec = read_rate(p["rate"], key + ".rate");
      if (p["keys"]) {
        spec.keys = R::scalar(p["keys"], key + ".keys");
        bool ok = spec.keys == "none" || spec.keys == "seq";
        if (spec.keys.rfind("mod:", 0) == 0) {
          char* end = nullptr;
          long m = std::strtol(spec.keys.c_str() + 4, &end, 10);
          ok = *end == '\0' && m >= 1 && m <= 1000000;
        }
        if (!ok) R::fail(p["keys"], key + ".keys", "expected none, seq or mod:N");
      }
      if (p["value-bytes"])
        spec.value_bytes = static_cast<int32_t>(R::integer(p["value-bytes"], key + ".value-bytes", 1, 1 << 20));
      if (p["records"]) spec.records = R::integer(p["records"], key + ".records", 0, INT64_MAX);
      if (p["start"]) spec.start = Time{0} + R::duration(p["start"], key + ".start");
      if (p["stop"]) spec.stop = Time{0} + R::duration(p["stop"], key + ".stop");
      if (p["config"]) spec.config = read_config(p["config"], key + ".config", validate_producer_key);
      names.nodes.insert(spec.name);
      names.producers.insert(spec.name);
      s.producers.push_back(std::move(spec));
    }
  }

  // Consumer groups.
  if (const YAML::Node gs = root["groups"]) {
    if (!gs.IsSequence()) R::fail(gs, "groups", "expected a list of consumer groups");
    if (gs.size() > static_cast<size_t>(kScenarioGroupsMax)) R::fail(gs, "groups", "too many groups");
    for (size_t i = 0; i < gs.size(); i++) {
      const YAML::Node g = gs[i];
      const std::string key = "groups[" + std::to_string(i) + "]";
      R::check_keys(g, key, {"name", "topics", "members", "delivery", "start", "config"});
      GroupSpec spec;
      spec.line = line_of(g, 0);
      if (!g["name"]) R::fail(g, key + ".name", "a group needs a name (its group.id)");
      spec.name = R::scalar(g["name"], key + ".name");
      if (names.nodes.count(spec.name) || names.labels.count(spec.name))
        R::fail(g["name"], key + ".name", "the name '" + spec.name + "' is taken");
      if (!g["topics"]) R::fail(g, key + ".topics", "which topics does it read?");
      spec.topics = R::strings(g["topics"], key + ".topics");
      for (const auto& t : spec.topics)
        if (!names.partitions.count(t)) R::fail(g["topics"], key + ".topics", "no topic '" + t + "' under topics:");
      if (g["members"])
        spec.members = static_cast<int32_t>(R::integer(g["members"], key + ".members", 1, kScenarioGroupMembersMax));
      if (g["delivery"]) {
        auto d = parse_delivery_mode(R::scalar(g["delivery"], key + ".delivery"));
        if (!d) R::fail(g["delivery"], key + ".delivery", "expected at-most-once, at-least-once or exactly-once");
        spec.delivery = *d;
      }
      if (g["start"]) spec.start = Time{0} + R::duration(g["start"], key + ".start");
      if (g["config"]) spec.config = read_config(g["config"], key + ".config", validate_consumer_key);
      for (int32_t m = 1; m <= spec.members; m++) {
        const std::string member = spec.name + "-" + std::to_string(m);
        if (names.nodes.count(member)) R::fail(g["name"], key + ".name", "member name '" + member + "' is taken");
        names.nodes.insert(member);
      }
      names.labels.insert(spec.name);
      s.groups.push_back(std::move(spec));
    }
  }

  if (root["length"]) s.length = R::duration(root["length"], "length");
  if (s.length.us <= 0) R::fail(root["length"], "length", "a run needs a positive length");

  // Faults, in time order (a stable sort keeps same-time faults in file order).
  if (const YAML::Node fs = root["faults"]) {
    if (!fs.IsSequence()) R::fail(fs, "faults", "expected a list of faults (- at: 10s\\n  crash: broker-1)");
    if (fs.size() > static_cast<size_t>(kScenarioFaultsMax)) R::fail(fs, "faults", "too many faults");
    std::vector<std::pair<FaultAction, size_t>> read;
    for (size_t i = 0; i < fs.size(); i++) read.emplace_back(read_fault(fs[i], "faults[" + std::to_string(i) + "]"), i);
    std::stable_sort(read.begin(), read.end(), [](const auto& a, const auto& b) { return a.first.at < b.first.at; });
    for (auto& [f, i] : read) {
      check_fault_targets(fs[i], "faults[" + std::to_string(i) + "]", f, names);
      if (f.at > Time{0} + s.length)
        R::fail(fs[i]["at"], "faults[" + std::to_string(i) + "].at", "after the end of the run (length " + format_duration(s.length) + ")");
      s.faults.push_back(std::move(f));
    }
  }

  if (root["expect"])
    s.expect = read_expect(root["expect"], "expect");
  else
    s.expect.pass_all = true;  // a scenario without expectations claims that nothing breaks

  if (const YAML::Node vs = root["variants"]) {
    if (!vs.IsMap()) R::fail(vs, "variants", "expected name: {overrides} pairs");
    for (auto it = vs.begin(); it != vs.end(); ++it) {
      const std::string name = it->first.Scalar();
      s.variants.push_back(read_variant(name, it->second, "variants." + name));
    }
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Writing.

void emit_config(YAML::Emitter& out, const char* key, const ConfigMap& m) {
  if (m.empty()) return;
  out << YAML::Key << key << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : m) out << YAML::Key << k << YAML::Value << v;
  out << YAML::EndMap;
}

void emit_list(YAML::Emitter& out, const std::vector<std::string>& v) {
  if (v.size() == 1) {
    out << v[0];
    return;
  }
  out << YAML::Flow << YAML::BeginSeq;
  for (const auto& x : v) out << x;
  out << YAML::EndSeq;
}

void emit_groups(YAML::Emitter& out, const std::vector<std::vector<std::string>>& groups) {
  out << YAML::Flow << YAML::BeginSeq;
  for (const auto& g : groups) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& x : g) out << x;
    out << YAML::EndSeq;
  }
  out << YAML::EndSeq;
}

void emit_expect(YAML::Emitter& out, const Expectations& e) {
  out << YAML::BeginMap;
  if (e.pass_all)
    out << YAML::Key << "pass" << YAML::Value << "all";
  else if (!e.pass.empty()) {
    out << YAML::Key << "pass" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& c : e.pass) out << c;
    out << YAML::EndSeq;
  }
  if (!e.fail.empty()) {
    out << YAML::Key << "fail" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& c : e.fail) out << c;
    out << YAML::EndSeq;
  }
  if (e.min_acked > 0) out << YAML::Key << "min-acked" << YAML::Value << e.min_acked;
  out << YAML::EndMap;
}

std::string rate_text(double r) {
  std::ostringstream os;
  os << r;
  return os.str();
}

}  // namespace

const char* delivery_mode_name(DeliveryMode m) {
  switch (m) {
    case DeliveryMode::kAtMostOnce: return "at-most-once";
    case DeliveryMode::kAtLeastOnce: return "at-least-once";
    case DeliveryMode::kExactlyOnce: return "exactly-once";
  }
  return "?";
}

std::optional<DeliveryMode> parse_delivery_mode(const std::string& s) {
  if (s == "at-most-once") return DeliveryMode::kAtMostOnce;
  if (s == "at-least-once") return DeliveryMode::kAtLeastOnce;
  if (s == "exactly-once") return DeliveryMode::kExactlyOnce;
  return std::nullopt;
}

Result<Scenario> parse_scenario(const std::string& text, const std::string& file_name) {
  const std::string file = file_name.empty() ? "<scenario>" : file_name;
  try {
    YAML::Node root = YAML::Load(text);
    Scenario s = read_scenario(root);
    s.file = file_name;
    return s;
  } catch (const ParseError& e) {
    return Status::error(StatusCode::kInvalidArgument,
                         file + ":" + std::to_string(e.line) + ": " + (e.key.empty() ? "" : e.key + ": ") + e.message);
  } catch (const YAML::Exception& e) {
    return Status::error(StatusCode::kInvalidArgument, file + ":" + std::to_string(e.mark.is_null() ? 0 : e.mark.line + 1) +
                                                           ": not valid YAML: " + e.msg);
  }
}

Result<Scenario> load_scenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(StatusCode::kNotFound, path + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (1u << 20)) return Status::error(StatusCode::kInvalidArgument, path + ": larger than 1 MiB");
  return parse_scenario(text.str(), path);
}

std::string to_yaml(const Scenario& s) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << s.name;
  if (!s.story.empty()) out << YAML::Key << "story" << YAML::Value << YAML::Literal << s.story;
  if (s.seed != 1) out << YAML::Key << "seed" << YAML::Value << s.seed;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "brokers" << YAML::Value << s.brokers;
  out << YAML::Key << "zookeeper" << YAML::Value << s.zk_servers;
  out << YAML::Key << "network" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "latency" << YAML::Value
      << format_duration(s.latency.base) << YAML::Key << "jitter" << YAML::Value << format_duration(s.latency.jitter)
      << YAML::EndMap;
  if (!s.controller.empty()) out << YAML::Key << "controller" << YAML::Value << s.controller;
  if (!s.broker_start.empty()) {
    out << YAML::Key << "start" << YAML::Value << YAML::BeginMap;
    for (const auto& [b, t] : s.broker_start) out << YAML::Key << b << YAML::Value << format_duration(t - Time{0});
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  emit_config(out, "broker-config", s.broker_config);
  if (!s.topics.empty()) {
    out << YAML::Key << "topics" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : s.topics) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name;
      if (!t.replica_assignment.empty()) {
        std::string a;
        for (const auto& [p, r] : t.replica_assignment) {
          if (!a.empty()) a += ",";
          for (size_t i = 0; i < r.size(); i++) a += (i ? ":" : "") + std::to_string(r[i]);
        }
        out << YAML::Key << "replica-assignment" << YAML::Value << YAML::DoubleQuoted << a;
      } else {
        out << YAML::Key << "partitions" << YAML::Value << t.partitions;
        out << YAML::Key << "replication-factor" << YAML::Value << t.replication_factor;
      }
      emit_config(out, "config", t.config);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!s.producers.empty()) {
    out << YAML::Key << "producers" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : s.producers) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << p.name;
      out << YAML::Key << "topic" << YAML::Value << p.topic;
      out << YAML::Key << "rate" << YAML::Value << rate_text(p.rate_per_sec);
      if (p.keys != "none") out << YAML::Key << "keys" << YAML::Value << p.keys;
      if (p.value_bytes != 100) out << YAML::Key << "value-bytes" << YAML::Value << p.value_bytes;
      if (p.records >= 0) out << YAML::Key << "records" << YAML::Value << p.records;
      if (p.start.us != 0) out << YAML::Key << "start" << YAML::Value << format_duration(p.start - Time{0});
      if (p.stop.us != INT64_MAX) out << YAML::Key << "stop" << YAML::Value << format_duration(p.stop - Time{0});
      emit_config(out, "config", p.config);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!s.groups.empty()) {
    out << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
    for (const auto& g : s.groups) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << g.name;
      out << YAML::Key << "topics" << YAML::Value;
      emit_list(out, g.topics);
      out << YAML::Key << "members" << YAML::Value << g.members;
      out << YAML::Key << "delivery" << YAML::Value << delivery_mode_name(g.delivery);
      if (g.start.us != 0) out << YAML::Key << "start" << YAML::Value << format_duration(g.start - Time{0});
      emit_config(out, "config", g.config);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!s.faults.empty()) {
    out << YAML::Key << "faults" << YAML::Value << YAML::BeginSeq;
    for (const auto& f : s.faults) {
      out << YAML::BeginMap << YAML::Key << "at" << YAML::Value << format_duration(f.at - Time{0});
      out << YAML::Key << f.action << YAML::Value;
      if (f.action == "partition" || (f.action == "heal" && !f.groups.empty())) {
        emit_groups(out, f.groups);
      } else if (f.action == "heal") {
        out << "all";
      } else if (f.action == "clog") {
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "from" << YAML::Value;
        emit_list(out, f.targets);
        out << YAML::Key << "to" << YAML::Value;
        emit_list(out, f.to);
        out << YAML::Key << "for" << YAML::Value << format_duration(f.duration);
        if (!f.one_way) out << YAML::Key << "both-ways" << YAML::Value << true;
        out << YAML::EndMap;
      } else if (f.action == "latency") {
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "from" << YAML::Value;
        emit_list(out, f.targets);
        out << YAML::Key << "to" << YAML::Value;
        emit_list(out, f.to);
        out << YAML::Key << "base" << YAML::Value << format_duration(f.base) << YAML::Key << "jitter" << YAML::Value
            << format_duration(f.jitter) << YAML::EndMap;
      } else if (f.action == "set-config") {
        out << YAML::Flow << YAML::BeginMap << YAML::Key << (f.topics.empty() ? "producer" : "topic") << YAML::Value;
        emit_list(out, f.topics.empty() ? f.targets : f.topics);
        emit_config(out, "config", f.config);
        out << YAML::EndMap;
      } else if (f.action == "disk-corrupt" && !f.path.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "target" << YAML::Value;
        emit_list(out, f.targets);
        out << YAML::Key << "path" << YAML::Value << f.path << YAML::EndMap;
      } else {
        emit_list(out, f.targets);
      }
      if ((f.action == "partition" || f.action == "heal") && f.one_way) out << YAML::Key << "one-way" << YAML::Value << true;
      if (!f.label.empty()) out << YAML::Key << "as" << YAML::Value << f.label;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::Key << "length" << YAML::Value << format_duration(s.length);
  out << YAML::Key << "expect" << YAML::Value;
  emit_expect(out, s.expect);
  if (!s.variants.empty()) {
    out << YAML::Key << "variants" << YAML::Value << YAML::BeginMap;
    for (const auto& v : s.variants) {
      out << YAML::Key << v.name << YAML::Value << YAML::BeginMap;
      if (!v.description.empty()) out << YAML::Key << "description" << YAML::Value << v.description;
      emit_config(out, "broker-config", v.broker_config);
      emit_config(out, "topic-config", v.topic_config);
      emit_config(out, "producer-config", v.producer_config);
      emit_config(out, "group-config", v.group_config);
      if (v.delivery) out << YAML::Key << "delivery" << YAML::Value << delivery_mode_name(*v.delivery);
      if (v.expect) {
        out << YAML::Key << "expect" << YAML::Value;
        emit_expect(out, *v.expect);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gregor::sim
