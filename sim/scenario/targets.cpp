#include "sim/scenario/targets.h"

#include <algorithm>

#include "engine/group/offsets_topic.h"
#include "sim/check/cluster_model.h"
#include "sim/cluster.h"

namespace gregor::sim {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "orders-0" -> (orders, 0); topic names may contain '-', the partition is after the last one.
bool split_partition(const std::string& s, std::string& topic, int32_t& partition) {
  size_t dash = s.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 >= s.size()) return false;
  int64_t p = 0;
  for (size_t i = dash + 1; i < s.size(); i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    p = p * 10 + (s[i] - '0');
    if (p > 1'000'000) return false;
  }
  topic = s.substr(0, dash);
  partition = static_cast<int32_t>(p);
  return true;
}

}  // namespace

Result<TargetSpec> parse_target(const std::string& text0, const std::set<std::string>& names,
                                const std::set<std::string>& labels,
                                const std::map<std::string, int32_t>& partitions) {
  const std::string text = trim(text0);
  TargetSpec t;
  static const std::map<std::string, TargetSpec::Kind> kWords = {
      {"controller", TargetSpec::Kind::kController}, {"brokers", TargetSpec::Kind::kBrokers},
      {"zookeeper", TargetSpec::Kind::kZookeeper},   {"clients", TargetSpec::Kind::kClients},
      {"all", TargetSpec::Kind::kAll},               {"crashed", TargetSpec::Kind::kCrashed},
      {"paused", TargetSpec::Kind::kPaused},         {"others", TargetSpec::Kind::kOthers},
      {"zk leader", TargetSpec::Kind::kZkLeader},    {"zk followers", TargetSpec::Kind::kZkFollowers}};
  static const std::map<std::string, TargetSpec::Kind> kRoles = {
      {"leader", TargetSpec::Kind::kLeader},       {"follower", TargetSpec::Kind::kFollower},
      {"followers", TargetSpec::Kind::kFollowers}, {"replicas", TargetSpec::Kind::kReplicas},
      {"isr", TargetSpec::Kind::kIsr}};
  if (auto w = kWords.find(text); w != kWords.end()) {
    t.kind = w->second;
    return t;
  }
  size_t of = text.find(" of ");
  if (of != std::string::npos) {
    std::string role = trim(text.substr(0, of));
    std::string part = trim(text.substr(of + 4));
    if (role == "coordinator") {
      // A group's members are a label named after the group (docs/scenarios.md).
      if (!labels.count(part) || names.count(part))
        return Status::error(StatusCode::kInvalidArgument, "no group '" + part + "' in this scenario (coordinator of GROUP)");
      t.kind = TargetSpec::Kind::kCoordinator;
      t.name = part;
      return t;
    }
    auto r = kRoles.find(role);
    if (r == kRoles.end())
      return Status::error(StatusCode::kInvalidArgument,
                           "unknown role '" + role + "' (leader, follower, followers, replicas, isr, coordinator)");
    if (!split_partition(part, t.topic, t.partition))
      return Status::error(StatusCode::kInvalidArgument, "'" + part + "' is not a partition (write it as orders-0)");
    auto p = partitions.find(t.topic);
    if (p == partitions.end())
      return Status::error(StatusCode::kInvalidArgument, "no topic '" + t.topic + "' in this scenario");
    if (t.partition >= p->second)
      return Status::error(StatusCode::kInvalidArgument, "topic '" + t.topic + "' has " + std::to_string(p->second) +
                                                             " partition(s); there is no " + part);
    t.kind = r->second;
    return t;
  }
  if (names.count(text)) {
    t.kind = TargetSpec::Kind::kName;
    t.name = text;
    return t;
  }
  if (labels.count(text)) {
    t.kind = TargetSpec::Kind::kLabel;
    t.name = text;
    return t;
  }
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  return Status::error(StatusCode::kInvalidArgument,
                       "unknown target '" + text + "' (nodes: " + known +
                           "; roles: leader of T-P, follower of T-P, controller, brokers, ...; or a label set with `as`)");
}

TargetResolver::TargetResolver(Simulator& sim, Cluster& cluster, const ClusterModel& model,
                               std::map<std::string, NodeId> names)
    : sim_(sim), cluster_(cluster), model_(model), names_(std::move(names)) {}

std::optional<NodeId> TargetResolver::find(const std::string& name) const {
  auto it = names_.find(name);
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

std::string TargetResolver::name_of(NodeId id) const {
  if (sim_.has_node(id)) return sim_.node_name(id);
  return "node-" + std::to_string(id.value);
}

std::vector<NodeId> TargetResolver::resolve(const TargetSpec& t, const std::set<NodeId>& exclude) const {
  std::vector<NodeId> out;
  const PartitionKey key{t.topic, t.partition};
  const PartitionView* view = model_.partition(key);
  // The broker that leads (the highest epoch a broker took leadership in) and the ISR it keeps;
  // the replicas as the topic was created.
  const int32_t leader = view ? view->acting.leader : -1;
  auto in_isr = [&](int32_t b) { return view && std::find(view->acting.isr.begin(), view->acting.isr.end(), b) != view->acting.isr.end(); };
  static const IntList kNone;
  const IntList& replicas = view ? view->replicas : kNone;
  switch (t.kind) {
    case TargetSpec::Kind::kName:
      if (auto id = find(t.name)) out.push_back(*id);
      break;
    case TargetSpec::Kind::kLabel: {
      auto it = labels_.find(t.name);
      if (it != labels_.end()) out = it->second;
      break;
    }
    case TargetSpec::Kind::kLeader:
      if (leader >= 0) out.push_back(NodeId{leader});
      break;
    case TargetSpec::Kind::kFollower: {
      for (int32_t r : replicas)
        if (r != leader && in_isr(r)) {
          out.push_back(NodeId{r});
          break;
        }
      if (out.empty())
        for (int32_t r : replicas)
          if (r != leader) {
            out.push_back(NodeId{r});
            break;
          }
      break;
    }
    case TargetSpec::Kind::kFollowers:
      for (int32_t r : replicas)
        if (r != leader) out.push_back(NodeId{r});
      break;
    case TargetSpec::Kind::kReplicas:
      for (int32_t r : replicas) out.push_back(NodeId{r});
      break;
    case TargetSpec::Kind::kIsr:
      if (view)
        for (int32_t r : view->acting.isr) out.push_back(NodeId{r});
      break;
    case TargetSpec::Kind::kController:
      if (auto c = cluster_.controller()) out.push_back(NodeId{*c});
      break;
    case TargetSpec::Kind::kCoordinator: {
      // As a client finds it (FindCoordinator): the leader of the group's offsets partition.
      const auto brokers = cluster_.broker_ids();
      if (brokers.empty()) break;
      const int32_t count = cluster_.broker_config(brokers.front().value).offsets_topic_num_partitions;
      const PartitionView* offsets = model_.partition(PartitionKey{group::kOffsetsTopic, group::partition_for_group(t.name, count)});
      if (offsets && offsets->acting.leader >= 0) out.push_back(NodeId{offsets->acting.leader});
      break;
    }
    case TargetSpec::Kind::kBrokers:
      out = cluster_.broker_ids();
      break;
    case TargetSpec::Kind::kZookeeper:
      out = cluster_.zk_ids();
      break;
    case TargetSpec::Kind::kZkLeader:
      if (auto l = cluster_.zk_leader()) out.push_back(NodeId{*l});
      break;
    case TargetSpec::Kind::kZkFollowers: {
      const auto l = cluster_.zk_leader();
      for (NodeId z : cluster_.zk_ids())
        if (!l || z.value != *l) out.push_back(z);
      break;
    }
    case TargetSpec::Kind::kClients:
      for (NodeId id : sim_.node_ids())
        if (id.value >= kFirstClientNodeId) out.push_back(id);
      break;
    case TargetSpec::Kind::kAll:
    case TargetSpec::Kind::kOthers:
      out = sim_.node_ids();
      break;
    case TargetSpec::Kind::kCrashed:
      for (NodeId id : sim_.node_ids())
        if (sim_.state(id) == NodeState::kCrashed) out.push_back(id);
      break;
    case TargetSpec::Kind::kPaused:
      for (NodeId id : sim_.node_ids())
        if (sim_.state(id) == NodeState::kPaused) out.push_back(id);
      break;
  }
  std::vector<NodeId> kept;
  for (NodeId id : out)
    if (sim_.has_node(id) && !exclude.count(id) && std::find(kept.begin(), kept.end(), id) == kept.end())
      kept.push_back(id);
  return kept;
}

std::vector<NodeId> TargetResolver::resolve_all(const std::vector<TargetSpec>& ts) const {
  std::vector<NodeId> out;
  for (const auto& t : ts)
    for (NodeId id : resolve(t))
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  return out;
}

}  // namespace gregor::sim
