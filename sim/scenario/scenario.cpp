#include "sim/scenario/scenario.h"

#include "engine/broker/broker_config.h"
#include "engine/group/offsets_topic.h"
#include "sim/scenario/duration.h"

namespace gregor::sim {

namespace {

std::string list_text(const std::vector<std::string>& v) {
  if (v.size() == 1) return v[0];
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + v[i];
  return s + "]";
}

std::string groups_text(const std::vector<std::vector<std::string>>& groups) {
  std::string s;
  for (size_t i = 0; i < groups.size(); i++) {
    if (i) s += " | ";
    s += "[";
    for (size_t j = 0; j < groups[i].size(); j++) s += (j ? ", " : "") + groups[i][j];
    s += "]";
  }
  return s;
}

}  // namespace

std::map<std::string, int32_t> target_partitions(const std::vector<TopicSpec>& topics, const ConfigMap& broker_config) {
  std::map<std::string, int32_t> out;
  for (const auto& t : topics) out[t.name] = t.partitions;
  // The broker config was validated (a positive integer) before targets are checked.
  broker::BrokerConfig defaults;
  int32_t offsets = defaults.offsets_topic_num_partitions;
  if (auto it = broker_config.find("offsets.topic.num.partitions"); it != broker_config.end()) {
    broker::BrokerConfig c;
    if (c.apply({{it->first, it->second}}).is_ok()) offsets = c.offsets_topic_num_partitions;
  }
  out[group::kOffsetsTopic] = offsets;
  return out;
}

ConfigMap group_consumer_config(const GroupSpec& g) {
  ConfigMap settings{{"group.id", g.name},
                     {"session.timeout.ms", "6000"},
                     {"heartbeat.interval.ms", "1000"},
                     {"auto.offset.reset", "earliest"},
                     {"enable.auto.commit", "false"},
                     {"fetch.max.wait.ms", "100"},
                     {"max.poll.records", "100"}};
  // A zookeeper group commits as the coordinator groups do: by its delivery mode, not on a timer.
  if (g.zookeeper) settings["auto.commit.enable"] = "false";
  for (const auto& [k, v] : g.config) settings[k] = v;
  return settings;
}

const std::vector<FaultKind>& fault_kinds() {
  static const std::vector<FaultKind> kinds = {
      FaultKind::kCrash,     FaultKind::kRestart, FaultKind::kPowerLoss, FaultKind::kPause,   FaultKind::kResume,
      FaultKind::kShutdown,  FaultKind::kIsolate, FaultKind::kPartition, FaultKind::kHeal,    FaultKind::kClog,
      FaultKind::kLatency,   FaultKind::kDiskCorrupt, FaultKind::kSetConfig, FaultKind::kIntercept,
      FaultKind::kDiskFull,  FaultKind::kIoError, FaultKind::kDiskFree,
      FaultKind::kReassign};
  return kinds;
}

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kCrash: return "crash";
    case FaultKind::kRestart: return "restart";
    case FaultKind::kPowerLoss: return "power-loss";
    case FaultKind::kPause: return "pause";
    case FaultKind::kResume: return "resume";
    case FaultKind::kShutdown: return "shutdown";
    case FaultKind::kIsolate: return "isolate";
    case FaultKind::kPartition: return "partition";
    case FaultKind::kHeal: return "heal";
    case FaultKind::kClog: return "clog";
    case FaultKind::kLatency: return "latency";
    case FaultKind::kDiskCorrupt: return "disk-corrupt";
    case FaultKind::kSetConfig: return "set-config";
    case FaultKind::kIntercept: return "intercept";
    case FaultKind::kDiskFull: return "disk-full";
    case FaultKind::kIoError: return "io-error";
    case FaultKind::kDiskFree: return "disk-free";
    case FaultKind::kReassign: return "reassign";
  }
  return "?";
}

std::optional<FaultKind> parse_fault_kind(const std::string& name) {
  for (FaultKind k : fault_kinds())
    if (name == fault_kind_name(k)) return k;
  return std::nullopt;
}

bool takes_targets(FaultKind kind) { return kind <= FaultKind::kIsolate; }

const char* intercept_action_name(Intercept::Action a) {
  switch (a) {
    case Intercept::Action::kDrop: return "drop";
    case Intercept::Action::kDelay: return "delay";
    case Intercept::Action::kHold: return "hold";
    case Intercept::Action::kDuplicate: return "duplicate";
  }
  return "?";
}

std::string EventMatch::describe() const {
  std::string s = event.empty() ? std::string(response ? "response " : "request ") + api : event;
  for (const auto& [k, v] : fields) s += " " + k + "=" + list_text(v);
  return s;
}

FaultAction FaultAction::concrete() const {
  FaultAction c = *this;
  // What fired is recorded at the time it fired: the trigger has done its work.
  c.when.reset();
  // Only single-list actions can be rewritten faithfully; partitions keep their groups (whose
  // members were resolved at the time and are listed in `resolved`).
  if (kind != FaultKind::kIntercept && !resolved.empty() && groups.empty() && to.empty()) c.targets = resolved;
  c.label.clear();
  c.line = 0;
  return c;
}

std::string FaultAction::describe() const {
  std::string s = fault_kind_name(kind);
  if (kind == FaultKind::kPartition || kind == FaultKind::kHeal) {
    s += groups.empty() ? " all" : " " + groups_text(groups);
    if (one_way) s += " (one way)";
  } else if (kind == FaultKind::kClog) {
    s += " " + list_text(targets) + " -> " + list_text(to) + " for " + format_duration(duration);
    if (!one_way) s += " (both ways)";
  } else if (kind == FaultKind::kLatency) {
    s += " " + list_text(targets) + " -> " + list_text(to) + " " + format_duration(base) + " +- " + format_duration(jitter);
  } else if (kind == FaultKind::kSetConfig) {
    s += " " + list_text(topics.empty() ? targets : topics);
    for (const auto& [k, v] : config) s += " " + k + "=" + v;
  } else if (kind == FaultKind::kReassign) {
    s += " " + partition + " to " + list_text(targets);
  } else if (kind == FaultKind::kIntercept) {
    const Intercept& i = intercept;
    s += std::string(i.response ? " response " : " request ") + i.api;
    if (!i.from.empty()) s += " from " + list_text(i.from);
    if (!i.to.empty()) s += " to " + list_text(i.to);
    s += std::string(": ") + intercept_action_name(i.action);
    if (i.action == Intercept::Action::kDelay || i.action == Intercept::Action::kDuplicate) s += " " + format_duration(i.delay);
    if (i.count != 1) s += " x" + std::to_string(i.count);
  } else {
    s += " " + list_text(targets);
    if (!path.empty()) s += " (" + path + ")";
    if (kind == FaultKind::kDiskFull && capacity) s += " (capacity " + std::to_string(*capacity) + " bytes)";
    if (kind == FaultKind::kIoError) s += writes < 0 ? " (every write)" : " (" + std::to_string(writes) + " writes)";
  }
  if (when) {
    s += " (when " + when->match.describe();
    if (when->delay.us > 0) s += ", after " + format_duration(when->delay);
    s += ")";
  }
  if (until) s += " (until " + format_duration(*until - Time{0}) + ")";
  return s;
}

const Variant* Scenario::find_variant(const std::string& variant_name) const {
  for (const auto& v : variants)
    if (v.name == variant_name) return &v;
  return nullptr;
}

Result<Scenario> apply_variant(const Scenario& s, const std::string& variant_name) {
  const Variant* v = s.find_variant(variant_name);
  if (!v) {
    std::string names;
    for (const auto& x : s.variants) names += (names.empty() ? "" : ", ") + x.name;
    return Status::error(StatusCode::kInvalidArgument, (s.file.empty() ? s.name : s.file) + ": no variant '" + variant_name +
                                                           "'" + (names.empty() ? " (it has none)" : " (variants: " + names + ")"));
  }
  Scenario out = s;
  out.variant = v->name;
  for (const auto& [k, val] : v->broker_config) out.broker_config[k] = val;
  for (auto& t : out.topics)
    for (const auto& [k, val] : v->topic_config) t.config[k] = val;
  for (auto& p : out.producers)
    for (const auto& [k, val] : v->producer_config) p.config[k] = val;
  for (auto& g : out.groups) {
    for (const auto& [k, val] : v->group_config) g.config[k] = val;
    if (v->delivery) g.delivery = *v->delivery;
    if (g.delivery != DeliveryMode::kExactlyOnceTxn) {
      // Another mode writes nothing: the group's output settings go with exactly-once-txn.
      g.output.clear();
      g.transactional_id_prefix.clear();
      g.producer_config.clear();
    }
  }
  if (v->expect) out.expect = *v->expect;
  if (v->faults) out.faults = *v->faults;
  return out;
}

Status validate_scenario(const Scenario& s) {
  // The file format's checks are the scenario's checks: write it out and read it back.
  auto parsed = parse_scenario(to_yaml(s), s.file.empty() ? s.name + ".yaml" : s.file);
  return parsed.is_ok() ? Status::ok() : parsed.status();
}

}  // namespace gregor::sim
