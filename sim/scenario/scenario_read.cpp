// Reading scenario files (docs/scenarios.md is the reference for the keys): each section of the
// file has its reader, and every error names file, line and key (sim/scenario/yaml_reader.h).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/broker/broker_config.h"
#include "engine/client/consumer_config.h"
#include "engine/client/producer.h"
#include "engine/client/zk_group_consumer.h"
#include "engine/protocol/topic_name.h"
#include "sim/scenario/duration.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_checks.h"
#include "sim/scenario/message_faults.h"
#include "sim/scenario/targets.h"
#include "sim/scenario/triggers.h"
#include "sim/scenario/yaml_reader.h"

namespace gregor::sim {

namespace {

using namespace yaml;

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

// max-unavailable: 20s (every topic), {topic: orders, at-most: 20s}, or a list of those.
std::vector<AvailabilityBound> read_bounds(const YAML::Node& n, const std::string& key, const std::set<std::string>& topics) {
  std::vector<AvailabilityBound> out;
  auto one = [&](const YAML::Node& b, const std::string& k) {
    AvailabilityBound bound;
    bound.line = line_of(b, 0);
    if (b.IsScalar()) {
      bound.at_most = R::duration(b, k);
    } else {
      R::check_keys(b, k, {"topic", "at-most"});
      if (!b["at-most"]) R::fail(b, k + ".at-most", "how long at most? {topic: orders, at-most: 20s}");
      bound.at_most = R::duration(b["at-most"], k + ".at-most");
      if (b["topic"]) {
        bound.topic = R::scalar(b["topic"], k + ".topic");
        if (!topics.count(bound.topic)) R::fail(b["topic"], k + ".topic", "no topic '" + bound.topic + "' under topics:");
      }
    }
    out.push_back(bound);
  };
  if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); i++) one(n[i], key + "[" + std::to_string(i) + "]");
  } else {
    one(n, key);
  }
  return out;
}

Expectations read_expect(const YAML::Node& n, const std::string& key, const std::set<std::string>& topics) {
  R::check_keys(n, key, {"pass", "fail", "min-acked", "max-unavailable", "max-leaderless", "max-under-replicated"});
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
  if (n["max-unavailable"]) e.max_unavailable = read_bounds(n["max-unavailable"], key + ".max-unavailable", topics);
  if (n["max-leaderless"]) e.max_leaderless = read_bounds(n["max-leaderless"], key + ".max-leaderless", topics);
  if (n["max-under-replicated"])
    e.max_under_replicated = read_bounds(n["max-under-replicated"], key + ".max-under-replicated", topics);
  return e;
}

// The context fault targets are checked against.
struct Names {
  std::set<std::string> nodes;
  std::set<std::string> labels;  // groups (all members) and `as` labels of earlier faults
  std::map<std::string, int32_t> partitions;
  std::map<std::string, int32_t> target_partitions;  // partitions and __consumer_offsets (target_partitions)
  std::set<std::string> producers;
};

void check_target(const YAML::Node& at, const std::string& key, const std::string& target, const Names& names,
                  bool allow_others) {
  auto t = parse_target(target, names.nodes, names.labels, names.target_partitions);
  if (!t) R::fail(at, key, t.status().message());
  if (t->kind == TargetSpec::Kind::kOthers && !allow_others)
    R::fail(at, key, "'others' only makes sense as a group of partition or heal");
}

std::vector<std::vector<std::string>> read_sides(const YAML::Node& n, const std::string& key) {
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

std::string fault_kind_list() {
  std::string out;
  for (FaultKind k : fault_kinds()) out += (out.empty() ? "" : ", ") + std::string(fault_kind_name(k));
  return out;
}

// The operand of a set-config fault: a topic's config or a producer's.
void read_set_config(const YAML::Node& v, const std::string& vkey, FaultAction& f) {
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
}

// The operand of each kind of fault.
void read_fault_operand(const YAML::Node& v, const std::string& vkey, FaultAction& f) {
  switch (f.kind) {
    case FaultKind::kDiskCorrupt:
      if (v.IsMap()) {
        R::check_keys(v, vkey, {"target", "path"});
        if (!v["target"]) R::fail(v, vkey + ".target", "which node's disk?");
        f.targets = R::strings(v["target"], vkey + ".target");
        if (v["path"]) f.path = R::scalar(v["path"], vkey + ".path");
      } else {
        f.targets = R::strings(v, vkey);
      }
      return;
    case FaultKind::kDiskFull:
    case FaultKind::kIoError: {
      const char* operand = f.kind == FaultKind::kDiskFull ? "capacity" : "writes";
      if (v.IsMap()) {
        R::check_keys(v, vkey, {"target", operand});
        if (!v["target"]) R::fail(v, vkey + ".target", "which node's disk?");
        f.targets = R::strings(v["target"], vkey + ".target");
        if (v[operand] && f.kind == FaultKind::kDiskFull)
          f.capacity = R::integer(v[operand], vkey + "." + operand, 0, INT64_MAX);
        if (v[operand] && f.kind == FaultKind::kIoError) f.writes = R::integer(v[operand], vkey + "." + operand, 1, INT64_MAX);
      } else {
        f.targets = R::strings(v, vkey);
      }
      return;
    }
    case FaultKind::kDiskFree: f.targets = R::strings(v, vkey); return;
    case FaultKind::kPartition: f.groups = read_sides(v, vkey); return;
    case FaultKind::kHeal:
      if (!(v.IsScalar() && v.Scalar() == "all")) f.groups = read_sides(v, vkey);
      return;
    case FaultKind::kClog:
      R::check_keys(v, vkey, {"from", "to", "for", "both-ways"});
      if (!v["from"] || !v["to"] || !v["for"]) R::fail(v, vkey, "clog needs from, to and for: {from: broker-1, to: broker-2, for: 2s}");
      f.targets = R::strings(v["from"], vkey + ".from");
      f.to = R::strings(v["to"], vkey + ".to");
      f.duration = R::duration(v["for"], vkey + ".for");
      f.one_way = !(v["both-ways"] && R::boolean(v["both-ways"], vkey + ".both-ways"));
      return;
    case FaultKind::kLatency:
      R::check_keys(v, vkey, {"from", "to", "base", "jitter"});
      if (!v["base"]) R::fail(v, vkey + ".base", "latency needs a base: {base: 20ms, jitter: 5ms}");
      f.targets = v["from"] ? R::strings(v["from"], vkey + ".from") : std::vector<std::string>{"all"};
      f.to = v["to"] ? R::strings(v["to"], vkey + ".to") : std::vector<std::string>{"all"};
      f.base = R::duration(v["base"], vkey + ".base");
      f.jitter = v["jitter"] ? R::duration(v["jitter"], vkey + ".jitter") : Duration{0};
      return;
    case FaultKind::kSetConfig: read_set_config(v, vkey, f); return;
    case FaultKind::kReassign: {
      const char* usage = "reassign: {partition: orders-0, replicas: [broker-2, broker-3, broker-4]}";
      if (!v.IsMap()) R::fail(v, vkey, usage);
      R::check_keys(v, vkey, {"partition", "replicas"});
      if (!v["partition"] || !v["replicas"]) R::fail(v, vkey, usage);
      f.partition = R::scalar(v["partition"], vkey + ".partition");
      f.targets = R::strings(v["replicas"], vkey + ".replicas");
      return;
    }
    case FaultKind::kIntercept: {
      const char* usage = "intercept: {request: Fetch, from: broker-2, to: broker-1, action: drop}";
      if (!v.IsMap()) R::fail(v, vkey, usage);
      R::check_keys(v, vkey, {"request", "response", "from", "to", "action", "for", "count"});
      if (static_cast<bool>(v["request"]) == static_cast<bool>(v["response"]))
        R::fail(v, vkey, std::string("name a request or a response: ") + usage);
      Intercept& i = f.intercept;
      i.response = static_cast<bool>(v["response"]);
      const std::string side = i.response ? "response" : "request";
      i.api = R::scalar(v[side], vkey + "." + side);
      if (!api_key_named(i.api))
        R::fail(v[side], vkey + "." + side, "no Kafka API '" + i.api + "' (Kafka's names: Produce, Fetch, LeaderAndIsr, ...)");
      if (v["from"]) i.from = R::strings(v["from"], vkey + ".from");
      if (v["to"]) i.to = R::strings(v["to"], vkey + ".to");
      if (!v["action"]) R::fail(v, vkey + ".action", "drop, delay (with for: 2s), hold (until a heal) or duplicate (with for: 2s)");
      const std::string action = R::scalar(v["action"], vkey + ".action");
      if (action == "drop") {
        i.action = Intercept::Action::kDrop;
      } else if (action == "delay") {
        i.action = Intercept::Action::kDelay;
        if (!v["for"]) R::fail(v, vkey + ".for", "how long? action: delay, for: 2s");
        i.delay = R::duration(v["for"], vkey + ".for");
      } else if (action == "hold") {
        i.action = Intercept::Action::kHold;
      } else if (action == "duplicate") {
        i.action = Intercept::Action::kDuplicate;
        if (!v["for"]) R::fail(v, vkey + ".for", "how much later does the copy arrive? action: duplicate, for: 2s");
        i.delay = R::duration(v["for"], vkey + ".for");
      } else {
        R::fail(v["action"], vkey + ".action", "expected drop, delay, hold or duplicate, got '" + action + "'");
      }
      if (v["for"] && i.action != Intercept::Action::kDelay && i.action != Intercept::Action::kDuplicate)
        R::fail(v["for"], vkey + ".for", "only action: delay and action: duplicate take a time");
      if (v["count"]) i.count = R::integer(v["count"], vkey + ".count", 1, kInterceptCountMax);
      return;
    }
    default:
      GREGOR_ASSERT(takes_targets(f.kind));
      f.targets = R::strings(v, vkey);
  }
}

// `when:` {event: KIND, field: value, ...} or {request|response: API, from: ..., to: ...}.
EventMatch read_when(const YAML::Node& n, const std::string& key) {
  const char* usage = "when: {event: leader_change, partition: orders-0} or {request: LeaderAndIsr, to: broker-3}";
  if (!n.IsMap()) R::fail(n, key, usage);
  EventMatch m;
  const int sides = (n["event"] ? 1 : 0) + (n["request"] ? 1 : 0) + (n["response"] ? 1 : 0);
  if (sides != 1) R::fail(n, key, std::string("name one of event, request or response: ") + usage);
  if (n["event"]) {
    m.event = R::scalar(n["event"], key + ".event");
  } else {
    R::check_keys(n, key, {"request", "response", "from", "to"});
    m.response = static_cast<bool>(n["response"]);
    const std::string side = m.response ? "response" : "request";
    m.api = R::scalar(n[side], key + "." + side);
    if (!api_key_named(m.api)) R::fail(n[side], key + "." + side, "no Kafka API '" + m.api + "' (Kafka's names: Produce, Fetch, LeaderAndIsr, ...)");
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    if (k == "event" || k == "request" || k == "response") continue;
    m.fields.emplace_back(k, R::strings(it->second, key + "." + k));
  }
  return m;
}

FaultAction read_fault(const YAML::Node& n, const std::string& key) {
  std::vector<std::string> allowed = {"at", "as", "one-way", "when", "delay", "count", "until"};
  for (FaultKind k : fault_kinds()) allowed.push_back(fault_kind_name(k));
  R::check_keys(n, key, allowed);
  FaultAction f;
  f.line = line_of(n, 0);
  if (!n["at"] && !n["when"]) R::fail(n, key + ".at", "every fault needs a time (at: 10s) or a trigger (when: {...})");
  f.at = n["at"] ? Time{0} + R::duration(n["at"], key + ".at") : Time{0};
  if (n["when"]) {
    Trigger t;
    t.match = read_when(n["when"], key + ".when");
    if (n["delay"]) t.delay = R::duration(n["delay"], key + ".delay");
    if (n["count"]) t.count = R::integer(n["count"], key + ".count", 1, kTriggerCountMax);
    f.when = std::move(t);
  } else {
    for (const char* k : {"delay", "count"})
      if (n[k]) R::fail(n[k], key + "." + k, "only a triggered fault (when:) has a delay or a count");
  }
  std::optional<FaultKind> kind;
  for (FaultKind k : fault_kinds())
    if (n[fault_kind_name(k)]) {
      if (kind)
        R::fail(n[fault_kind_name(k)], key + "." + fault_kind_name(k),
                std::string("one action per fault (this one already does ") + fault_kind_name(*kind) + ")");
      kind = k;
    }
  if (!kind) R::fail(n, key, "no action (one of: " + fault_kind_list() + ")");
  f.kind = *kind;
  const std::string name = fault_kind_name(f.kind);
  const YAML::Node v = n[name];
  const std::string vkey = key + "." + name;
  if (n["as"]) f.label = R::scalar(n["as"], key + ".as");
  if (n["one-way"]) {
    if (f.kind != FaultKind::kPartition && f.kind != FaultKind::kHeal)
      R::fail(n["one-way"], key + ".one-way", "only partition and heal are one-way");
    f.one_way = R::boolean(n["one-way"], key + ".one-way");
  }
  read_fault_operand(v, vkey, f);
  if (n["until"]) {
    if (!f.when && f.kind != FaultKind::kIntercept)
      R::fail(n["until"], key + ".until", "only a triggered fault (when:) or an intercept lasts until a time");
    f.until = Time{0} + R::duration(n["until"], key + ".until");
    if (*f.until < f.at) R::fail(n["until"], key + ".until", "before the fault's at:");
  }
  if (f.kind == FaultKind::kIntercept || (f.kind == FaultKind::kSetConfig && !f.topics.empty())) return f;
  if (f.targets.empty() && f.groups.empty() && f.kind != FaultKind::kHeal) R::fail(v, vkey, "no targets");
  return f;
}

// Message triggers name nodes that exist from the start: names, or every broker, zk server, client.
void check_static_targets(const YAML::Node& at, const std::string& key, const std::vector<std::string>& targets,
                          const Names& names) {
  for (const auto& t : targets) {
    auto spec = parse_target(t, names.nodes, {}, names.target_partitions);
    using K = TargetSpec::Kind;
    if (!spec || !(spec->kind == K::kName || spec->kind == K::kBrokers || spec->kind == K::kZookeeper ||
                   spec->kind == K::kClients || spec->kind == K::kAll))
      R::fail(at, key, "'" + t + "': a trigger on messages names nodes (broker-2) or brokers, zookeeper, clients, all");
  }
}

void check_when(const YAML::Node& n, const std::string& key, const EventMatch& m, const Names& names) {
  if (m.event.empty()) {
    for (const auto& [k, v] : m.fields) check_static_targets(n[k], key + "." + k, v, names);
    return;
  }
  auto known = [&](const std::string& name) -> std::optional<NodeId> {
    if (names.nodes.count(name)) return NodeId{1};
    return std::nullopt;
  };
  auto compiled = EventMatcher::compile(m, known);
  if (!compiled) R::fail(n, key, compiled.status().message());
}

void check_fault_targets(const YAML::Node& n, const std::string& key, const FaultAction& f, Names& names) {
  const std::string vkey = key + "." + fault_kind_name(f.kind);
  const YAML::Node v = n[fault_kind_name(f.kind)];
  if (f.when) check_when(n["when"], key + ".when", f.when->match, names);
  if (f.kind == FaultKind::kIntercept) {
    for (const auto& t : f.intercept.from) check_target(v["from"], vkey + ".from", t, names, false);
    for (const auto& t : f.intercept.to) check_target(v["to"], vkey + ".to", t, names, false);
  }
  if (f.kind == FaultKind::kReassign) {
    const auto dash = f.partition.rfind('-');
    const std::string topic = dash == std::string::npos ? "" : f.partition.substr(0, dash);
    char* end = nullptr;
    const long index = dash == std::string::npos ? -1 : std::strtol(f.partition.c_str() + dash + 1, &end, 10);
    auto it = names.partitions.find(topic);
    if (it == names.partitions.end() || index < 0 || *end != '\0' || index >= it->second)
      R::fail(v["partition"], vkey + ".partition", "no partition '" + f.partition + "' of a topic under topics:");
  }
  if (f.kind == FaultKind::kSetConfig) {
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

// A consumer key of a group: checked alone here, and with the group's other keys in read_group.
Status validate_consumer_key(const std::string& k, const std::string& v) {
  // Kafka 0.8's consumer keys (groups with coordination: zookeeper; the others ignore them).
  if (client::ZkConsumerSettings::is_zk_key(k)) return client::ZkConsumerSettings{}.apply({{k, v}});
  const auto* key = client::consumer_config_def().find(k);
  if (!key) return client::consumer_config_def().unknown(k);
  client::ConsumerConfig c;
  return key->parse(c, v);
}

DeliveryMode read_delivery(const YAML::Node& n, const std::string& key);

std::vector<FaultAction> read_faults(const YAML::Node& fs, const Scenario& s, Names& names, const std::string& section);
std::set<std::string> topic_names(const Scenario& s) {
  std::set<std::string> out;
  for (const auto& t : s.topics) out.insert(t.name);
  return out;
}

Variant read_variant(const std::string& name, const YAML::Node& n, const std::string& key, const Scenario& s, Names names) {
  R::check_keys(n, key, {"description", "broker-config", "topic-config", "producer-config", "group-config", "delivery", "expect",
                         "faults"});
  Variant v;
  v.name = name;
  v.line = line_of(n, 0);
  if (n["description"]) v.description = R::scalar(n["description"], key + ".description");
  if (n["broker-config"]) v.broker_config = read_config(n["broker-config"], key + ".broker-config", validate_broker_key);
  if (n["topic-config"]) v.topic_config = read_config(n["topic-config"], key + ".topic-config", validate_topic_key);
  if (n["producer-config"]) v.producer_config = read_config(n["producer-config"], key + ".producer-config", validate_producer_key);
  if (n["group-config"]) v.group_config = read_config(n["group-config"], key + ".group-config", validate_consumer_key);
  if (n["delivery"]) v.delivery = read_delivery(n["delivery"], key + ".delivery");
  if (v.delivery == DeliveryMode::kExactlyOnceTxn)
    for (const auto& g : s.groups)
      if (g.output.empty())
        R::fail(n["delivery"], key + ".delivery", "exactly-once-txn needs output: on every group ('" + g.name + "' has none)");
  if (n["expect"]) v.expect = read_expect(n["expect"], key + ".expect", topic_names(s));
  if (n["faults"]) v.faults = n["faults"].IsNull() ? std::vector<FaultAction>{} : read_faults(n["faults"], s, names, key + ".faults");
  return v;
}

std::string broker_name(int32_t id) { return "broker-" + std::to_string(id); }

void read_cluster(const YAML::Node& c, Scenario& s) {
  R::check_keys(c, "cluster", {"brokers", "zookeeper", "network", "controller", "start"});
  if (c["brokers"]) s.brokers = static_cast<int32_t>(R::integer(c["brokers"], "cluster.brokers", 1, kScenarioBrokersMax));
  if (c["zookeeper"]) {
    const int64_t zk = R::integer(c["zookeeper"], "cluster.zookeeper", 1, kScenarioZkServersMax);
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

// The entries of a list section ("topics", "producers", ...), each with its key ("topics[2]").
template <typename ReadOne>
void read_list(const YAML::Node& list, const char* section, const char* what, int max, ReadOne read_one) {
  if (!list.IsSequence()) R::fail(list, section, std::string("expected a list of ") + what);
  if (list.size() > static_cast<size_t>(max)) R::fail(list, section, std::string("too many ") + what);
  for (size_t i = 0; i < list.size(); i++) read_one(list[i], std::string(section) + "[" + std::to_string(i) + "]", i);
}

TopicSpec read_topic(const YAML::Node& t, const std::string& key, int32_t brokers, const Names& names) {
  R::check_keys(t, key, {"name", "partitions", "replication-factor", "replica-assignment", "config"});
  TopicSpec spec;
  spec.line = line_of(t, 0);
  if (!t["name"]) R::fail(t, key + ".name", "a topic needs a name");
  spec.name = R::scalar(t["name"], key + ".name");
  if (names.partitions.count(spec.name)) R::fail(t["name"], key + ".name", "topic '" + spec.name + "' is defined twice");
  if (auto problem = protocol::topic_name_problem(spec.name)) R::fail(t["name"], key + ".name", *problem);
  for (const auto& [other, n] : names.partitions)
    if (protocol::topic_names_collide(spec.name, other))
      R::fail(t["name"], key + ".name", "topic '" + spec.name + "' collides with topic '" + other + "' ('.' and '_' are the same to Kafka)");
  if (t["partitions"])
    spec.partitions = static_cast<int32_t>(R::integer(t["partitions"], key + ".partitions", 1, kScenarioPartitionsMax));
  spec.replication_factor = std::min<int32_t>(3, brokers);
  if (t["replication-factor"])
    spec.replication_factor = static_cast<int32_t>(R::integer(t["replication-factor"], key + ".replication-factor", 1, brokers));
  if (t["replica-assignment"]) {
    spec.replica_assignment = read_assignment(t["replica-assignment"], key + ".replica-assignment", brokers);
    spec.partitions = static_cast<int32_t>(spec.replica_assignment.size());
    spec.replication_factor = static_cast<int32_t>(spec.replica_assignment.begin()->second.size());
    for (const auto& [p, r] : spec.replica_assignment)
      if (static_cast<int32_t>(r.size()) != spec.replication_factor)
        R::fail(t["replica-assignment"], key + ".replica-assignment", "every partition needs the same number of replicas");
    if (t["partitions"] && R::integer(t["partitions"], key + ".partitions", 1, kScenarioPartitionsMax) != spec.partitions)
      R::fail(t["partitions"], key + ".partitions", "does not match replica-assignment");
  }
  if (t["config"]) spec.config = read_config(t["config"], key + ".config", validate_topic_key);
  return spec;
}

std::string read_keys_spec(const YAML::Node& n, const std::string& key) {
  const std::string keys = R::scalar(n, key);
  bool ok = keys == "none" || keys == "seq";
  if (keys.rfind("mod:", 0) == 0) {
    char* end = nullptr;
    long m = std::strtol(keys.c_str() + 4, &end, 10);
    ok = *end == '\0' && m >= 1 && m <= 1000000;
  }
  if (!ok) R::fail(n, key, "expected none, seq or mod:N");
  return keys;
}

ProducerSpec read_producer(const YAML::Node& p, const std::string& key, size_t index, const Names& names) {
  R::check_keys(p, key,
                {"name", "topic", "rate", "keys", "value-bytes", "records", "start", "stop", "config", "transaction.records", "abort.every"});
  ProducerSpec spec;
  spec.line = line_of(p, 0);
  spec.name = p["name"] ? R::scalar(p["name"], key + ".name") : "producer-" + std::to_string(index + 1);
  if (names.nodes.count(spec.name) || names.labels.count(spec.name))
    R::fail(p["name"] ? p["name"] : p, key + ".name", "the name '" + spec.name + "' is taken");
  if (!p["topic"]) R::fail(p, key + ".topic", "which topic does it write to?");
  spec.topic = R::scalar(p["topic"], key + ".topic");
  if (!names.partitions.count(spec.topic)) R::fail(p["topic"], key + ".topic", "no topic '" + spec.topic + "' under topics:");
  if (p["rate"]) spec.rate_per_sec = read_rate(p["rate"], key + ".rate");
  if (p["keys"]) spec.keys = read_keys_spec(p["keys"], key + ".keys");
  if (p["value-bytes"]) spec.value_bytes = static_cast<int32_t>(R::integer(p["value-bytes"], key + ".value-bytes", 1, 1 << 20));
  if (p["records"]) spec.records = R::integer(p["records"], key + ".records", 0, INT64_MAX);
  if (p["start"]) spec.start = Time{0} + R::duration(p["start"], key + ".start");
  if (p["stop"]) spec.stop = Time{0} + R::duration(p["stop"], key + ".stop");
  if (p["config"]) spec.config = read_config(p["config"], key + ".config", validate_producer_key);
  // Transactions: only for a producer that has a transactional.id.
  const bool transactional = spec.config.count("transactional.id") && !spec.config.at("transactional.id").empty();
  for (const char* k : {"transaction.records", "abort.every"})
    if (p[k] && !transactional)
      R::fail(p[k], key + "." + k, std::string(k) + " needs a transactional.id under config:");
  if (p["transaction.records"])
    spec.transaction_records = R::integer(p["transaction.records"], key + ".transaction.records", 1, 1000000);
  if (p["abort.every"]) spec.abort_every = R::integer(p["abort.every"], key + ".abort.every", 0, 1000000);
  return spec;
}

DeliveryMode read_delivery(const YAML::Node& n, const std::string& key) {
  auto d = parse_delivery_mode(R::scalar(n, key));
  if (!d) R::fail(n, key, "expected at-most-once, at-least-once, exactly-once or exactly-once-txn");
  return *d;
}

GroupSpec read_group(const YAML::Node& g, const std::string& key, const Names& names) {
  R::check_keys(g, key, {"name", "topics", "members", "delivery", "start", "config", "coordination", "output",
                          "transactional.id.prefix", "producer-config"});
  GroupSpec spec;
  spec.line = line_of(g, 0);
  if (g["coordination"]) {
    const std::string c = R::scalar(g["coordination"], key + ".coordination");
    if (c != "coordinator" && c != "zookeeper") R::fail(g["coordination"], key + ".coordination", "expected coordinator or zookeeper, got '" + c + "'");
    spec.zookeeper = c == "zookeeper";
  }
  if (!g["name"]) R::fail(g, key + ".name", "a group needs a name (its group.id)");
  spec.name = R::scalar(g["name"], key + ".name");
  if (names.nodes.count(spec.name) || names.labels.count(spec.name))
    R::fail(g["name"], key + ".name", "the name '" + spec.name + "' is taken");
  if (!g["topics"]) R::fail(g, key + ".topics", "which topics does it read?");
  spec.topics = R::strings(g["topics"], key + ".topics");
  for (const auto& t : spec.topics)
    if (!names.partitions.count(t)) R::fail(g["topics"], key + ".topics", "no topic '" + t + "' under topics:");
  if (g["members"]) spec.members = static_cast<int32_t>(R::integer(g["members"], key + ".members", 1, kScenarioGroupMembersMax));
  if (g["delivery"]) spec.delivery = read_delivery(g["delivery"], key + ".delivery");
  if (spec.zookeeper && (spec.delivery == DeliveryMode::kExactlyOnce || spec.delivery == DeliveryMode::kExactlyOnceTxn))
    R::fail(g["delivery"], key + ".delivery", "a zookeeper group is at-most-once or at-least-once (0.8 had no transactions)");
  if (g["start"]) spec.start = Time{0} + R::duration(g["start"], key + ".start");
  if (g["config"]) {
    spec.config = read_config(g["config"], key + ".config", validate_consumer_key);
    client::ConsumerConfig together;  // keys that only fail together (heartbeat vs session timeout)
    if (Status s = together.apply(client::without_zk_consumer_keys(group_consumer_config(spec))); !s.is_ok())
      R::fail(g["config"], key + ".config", s.message());
  }
  // exactly-once-txn: the output topic and the members' producers.
  const bool txn = spec.delivery == DeliveryMode::kExactlyOnceTxn;
  if (txn && !g["output"]) R::fail(g, key + ".output", "exactly-once-txn writes to a topic: output: <topic>");
  for (const char* k : {"output", "transactional.id.prefix", "producer-config"})
    if (g[k] && !txn) R::fail(g[k], key + "." + k, std::string(k) + " is for delivery: exactly-once-txn");
  if (g["output"]) {
    spec.output = R::scalar(g["output"], key + ".output");
    if (!names.partitions.count(spec.output)) R::fail(g["output"], key + ".output", "no topic '" + spec.output + "' under topics:");
    for (const auto& t : spec.topics)
      if (t == spec.output) R::fail(g["output"], key + ".output", "the group reads '" + t + "': write to another topic");
  }
  if (g["transactional.id.prefix"]) {
    spec.transactional_id_prefix = R::scalar(g["transactional.id.prefix"], key + ".transactional.id.prefix");
    if (spec.transactional_id_prefix.empty())
      R::fail(g["transactional.id.prefix"], key + ".transactional.id.prefix", "an empty prefix");
  }
  if (g["producer-config"]) {
    spec.producer_config = read_config(g["producer-config"], key + ".producer-config", validate_producer_key);
    for (const char* k : {"transactional.id", "enable.idempotence", "acks"})
      if (spec.producer_config.count(k))
        R::fail(g["producer-config"], key + ".producer-config", std::string(k) + " is set by exactly-once-txn");
  }
  return spec;
}

std::vector<FaultAction> read_faults(const YAML::Node& fs, const Scenario& s, Names& names, const std::string& section) {
  if (!fs.IsSequence()) R::fail(fs, section, "expected a list of faults (- at: 10s\\n  crash: broker-1)");
  if (fs.size() > static_cast<size_t>(kScenarioFaultsMax)) R::fail(fs, section, "too many faults");
  // In time order: a stable sort keeps same-time faults in file order.
  std::vector<std::pair<FaultAction, size_t>> read;
  for (size_t i = 0; i < fs.size(); i++) read.emplace_back(read_fault(fs[i], section + "[" + std::to_string(i) + "]"), i);
  std::stable_sort(read.begin(), read.end(), [](const auto& a, const auto& b) { return a.first.at < b.first.at; });
  std::vector<FaultAction> out;
  // Targets are checked in time order, so that a label names an earlier fault's nodes; triggered
  // faults fire at no known time, so they are checked last and may name any timed fault's label
  // (one that has not fired yet when they fire hits no node, which the timeline says).
  for (bool triggered : {false, true})
    for (auto& [f, i] : read)
      if (f.when.has_value() == triggered)
        check_fault_targets(fs[i], section + "[" + std::to_string(i) + "]", f, names);
  for (auto& [f, i] : read) {
    const std::string key = section + "[" + std::to_string(i) + "]";
    if (f.at > Time{0} + s.length)
      R::fail(fs[i]["at"], key + ".at", "after the end of the run (length " + format_duration(s.length) + ")");
    if (f.when && f.when->delay > s.length)
      R::fail(fs[i]["delay"], key + ".delay", "longer than the run (length " + format_duration(s.length) + ")");
    out.push_back(std::move(f));
  }
  return out;
}

Scenario read_scenario(const YAML::Node& root) {
  if (!root.IsMap()) R::fail(root, "", "a scenario file is a mapping (name:, cluster:, topics:, ...)", 1);
  R::check_keys(root, "", {"name", "story", "seed", "cluster", "broker-config", "topics", "producers", "groups", "faults",
                           "length", "expect", "variants"});
  Scenario s;
  if (!root["name"]) R::fail(root, "name", "every scenario has a name", 1);
  s.name = R::scalar(root["name"], "name");
  if (root["story"]) s.story = R::scalar(root["story"], "story");
  if (root["seed"]) s.seed = static_cast<uint64_t>(R::integer(root["seed"], "seed", 0, INT64_MAX));
  if (root["cluster"]) read_cluster(root["cluster"], s);
  if (root["broker-config"]) s.broker_config = read_config(root["broker-config"], "broker-config", validate_broker_key);

  // Each section may name what the sections before it defined.
  Names names;
  for (int32_t b = 1; b <= s.brokers; b++) names.nodes.insert(broker_name(b));
  for (int32_t z = 1; z <= s.zk_servers; z++) names.nodes.insert("zk-" + std::to_string(z));
  if (root["topics"])
    read_list(root["topics"], "topics", "topics", kScenarioTopicsMax, [&](const YAML::Node& t, const std::string& key, size_t) {
      s.topics.push_back(read_topic(t, key, s.brokers, names));
      names.partitions[s.topics.back().name] = s.topics.back().partitions;
    });
  names.target_partitions = target_partitions(s.topics, s.broker_config);
  if (root["producers"])
    read_list(root["producers"], "producers", "producers", kScenarioProducersMax,
              [&](const YAML::Node& p, const std::string& key, size_t i) {
                s.producers.push_back(read_producer(p, key, i, names));
                names.nodes.insert(s.producers.back().name);
                names.producers.insert(s.producers.back().name);
              });
  if (root["groups"])
    read_list(root["groups"], "groups", "consumer groups", kScenarioGroupsMax, [&](const YAML::Node& g, const std::string& key, size_t) {
      GroupSpec spec = read_group(g, key, names);
      for (int32_t m = 1; m <= spec.members; m++) {
        const std::string member = spec.name + "-" + std::to_string(m);
        if (names.nodes.count(member)) R::fail(g["name"], key + ".name", "member name '" + member + "' is taken");
        names.nodes.insert(member);
      }
      names.labels.insert(spec.name);
      s.groups.push_back(std::move(spec));
    });

  if (root["length"]) s.length = R::duration(root["length"], "length");
  if (s.length.us <= 0) R::fail(root["length"], "length", "a run needs a positive length");
  const Names names_before_faults = names;  // a variant's own schedule starts from here
  if (root["faults"]) s.faults = read_faults(root["faults"], s, names, "faults");
  if (root["expect"])
    s.expect = read_expect(root["expect"], "expect", topic_names(s));
  else
    s.expect.pass_all = true;  // a scenario without expectations claims that nothing breaks
  if (const YAML::Node vs = root["variants"]) {
    if (!vs.IsMap()) R::fail(vs, "variants", "expected name: {overrides} pairs");
    for (auto it = vs.begin(); it != vs.end(); ++it) {
      const std::string name = it->first.Scalar();
      s.variants.push_back(read_variant(name, it->second, "variants." + name, s, names_before_faults));
    }
  }
  return s;
}

}  // namespace

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
  // Read with a bound: `gregor run /dev/zero` (or a huge file) must not read until memory runs out.
  constexpr size_t kScenarioFileBytesMax = 1u << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(StatusCode::kNotFound, path + ": cannot open the file");
  std::string text(kScenarioFileBytesMax + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return Status::error(StatusCode::kIoError, path + ": cannot read the file");
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kScenarioFileBytesMax) return Status::error(StatusCode::kInvalidArgument, path + ": larger than 1 MiB");
  return parse_scenario(text, path);
}

}  // namespace gregor::sim
