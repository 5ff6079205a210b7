#include "gui/model_builder.h"

#include <algorithm>

#include "engine/broker/topic_config.h"
#include "engine/broker/zk_data.h"
#include "engine/coord/zk_types.h"
#include "engine/core/bytes.h"

namespace gregor::gui {

namespace {

// The traffic ring keeps this many recent messages; dots and link counts read from it.
constexpr size_t kTrafficKept = 4096;
// At most this many dots per link and direction, so a busy link stays readable.
constexpr int kDotsPerLink = 6;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool contains(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(sep, i);
    if (j == std::string::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}


}  // namespace

const char* node_kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::kBroker: return "broker";
    case NodeKind::kZk: return "zk";
    case NodeKind::kClient: return "client";
  }
  return "?";
}

const char* node_status_name(NodeStatus s) {
  switch (s) {
    case NodeStatus::kAlive: return "alive";
    case NodeStatus::kPaused: return "paused";
    case NodeStatus::kCrashed: return "crashed";
    case NodeStatus::kPoweredOff: return "powered off";
  }
  return "?";
}

NodeKind node_kind_of(int32_t id) {
  if (id >= 2001) return NodeKind::kClient;
  if (id >= 1001) return NodeKind::kZk;
  return NodeKind::kBroker;
}

const char* traffic_kind_name(TrafficKind k) {
  switch (k) {
    case TrafficKind::kFetch: return "fetch";
    case TrafficKind::kProduce: return "produce";
    case TrafficKind::kControl: return "controller";
    case TrafficKind::kZk: return "zk";
    case TrafficKind::kError: return "error";
  }
  return "?";
}

bool is_internal_topic(const std::string& topic) { return topic.compare(0, 2, "__") == 0; }

const PartitionModel* DashboardModel::default_partition() const {
  for (const auto& p : partitions)
    if (!p.internal) return &p;
  return partitions.empty() ? nullptr : &partitions.front();
}

int DashboardModel::internal_partitions() const {
  int n = 0;
  for (const auto& p : partitions) n += p.internal;
  return n;
}

const NodeModel* DashboardModel::node(int32_t id) const {
  for (const auto& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

const PartitionModel* DashboardModel::partition(const std::string& topic, int32_t p) const {
  for (const auto& m : partitions)
    if (m.topic == topic && m.partition == p) return &m;
  return nullptr;
}

const ZnodeModel* ZkModel::znode(const std::string& path) const {
  auto it = std::lower_bound(znodes.begin(), znodes.end(), path,
                             [](const ZnodeModel& z, const std::string& p) { return z.path < p; });
  return it != znodes.end() && it->path == path ? &*it : nullptr;
}

const GroupModel* DashboardModel::group(const std::string& name) const {
  for (const auto& g : groups)
    if (g.group == name) return &g;
  return nullptr;
}

// ---- Applying events ---------------------------------------------------------------------------

void ModelBuilder::apply(const TraceEvent& e) {
  last_time_ = e.time;
  applied_++;
  const std::string_view k = e.kind();
  const int32_t node = e.node.value;
  if (node == 0) {
    // Crashes, power losses and restarts change logs through the events that follow (log_open);
    // dropping every cached run here is simply the safe choice for these rare events.
    runs_.clear();
    return on_world(e);
  }
  // A log that is truncated, reopened or rewritten below its cached end loses its cached runs.
  if (k == "log_truncate" || k == "log_open") forget_runs(node, sim::partition_key(e), -1);
  else if (k == "log_append") forget_runs(node, sim::partition_key(e), e.get_int("base_offset"));
  if (starts_with(k, "zk_")) on_zk(e);
  if (e.find("group")) on_group(e);

  if (k == "log_append") {
    before_append(e);
    replicas_.apply(e);
    after_append(e);
    return;
  }
  replicas_.apply(e);

  if (k == "broker_register") {
    nodes_[node].registered = true;
    add_traffic(e.time, node, any_zk(), TrafficKind::kZk);
  } else if (k == "broker_session_expired") {
    nodes_[node].registered = false;
  } else if (k == "controller_elected") {
    controller_ = node;
    controller_epoch_ = static_cast<int32_t>(e.get_int("controller_epoch"));
    add_traffic(e.time, node, any_zk(), TrafficKind::kZk);
  } else if (k == "controller_resigned") {
    if (controller_ == node) controller_ = -1;
  } else if (k == "leader_change" || k == "partition_offline") {
    auto key = sim::partition_key(e);
    auto& p = partitions_[key];
    const int32_t epoch = static_cast<int32_t>(e.get_int("leader_epoch"));
    if (epoch >= p.leader_epoch) {
      const int32_t old_leader = p.leader;
      p.leader = static_cast<int32_t>(e.get_int("leader", -1));
      p.leader_epoch = epoch;
      p.isr = sim::parse_int_list(e.get_string("isr"));
      if (p.has_leader_record && old_leader != p.leader) p.leader_changes++;
      p.has_leader_record = true;
    }
    if (k == "leader_change") {
      counters_.leader_elections++;
      if (is_internal_topic(key.first)) counters_.internal_leader_elections++;
      if (e.get_string("reason") == "unclean") counters_.unclean_elections++;
    }
    // LeaderAndIsr from the controller to the partition's replicas.
    for (int32_t r : replica_list(key, p))
      if (r != node) add_traffic(e.time, node, r, TrafficKind::kControl);
  } else if (k == "isr_change") {
    auto key = sim::partition_key(e);
    auto& p = partitions_[key];
    if (e.get_int("leader_epoch") == p.leader_epoch) {
      p.isr = sim::parse_int_list(e.get_string("isr"));
      p.isr_changes++;
    }
    const bool internal = is_internal_topic(key.first);
    if (e.get_string("direction") == "shrink") {
      counters_.isr_shrinks++;
      counters_.internal_isr_shrinks += internal;
    } else {
      counters_.isr_expands++;
      counters_.internal_isr_expands += internal;
    }
    add_traffic(e.time, node, any_zk(), TrafficKind::kZk);
  } else if (k == "become_leader") {
    // Kafka gives in-sync followers a fresh lag window when a leader takes over.
    auto key = sim::partition_key(e);
    for (int32_t r : sim::parse_int_list(e.get_string("isr")))
      if (r != node) caught_up_[{r, key}] = e.time;
  } else if (k == "topic_deleted") {
    const std::string topic = e.get_string("topic");
    for (auto it = partitions_.begin(); it != partitions_.end();)
      it = it->first.first == topic ? partitions_.erase(it) : std::next(it);
    topic_configs_.erase(topic);
  } else if (k == "produce_ack") {
    counters_.produce_acked++;
    const auto* p = replicas_.partition(sim::partition_key(e));
    if (p && p->leader >= 0) add_traffic(e.time, node, p->leader, TrafficKind::kProduce);
  } else if (k == "produce_error") {
    counters_.produce_errors++;
    counters_.last_produce_error = e.get_string("error");
    const auto* p = replicas_.partition(sim::partition_key(e));
    if (p && p->leader >= 0) add_traffic(e.time, node, p->leader, TrafficKind::kError);
  } else if (k == "produce_rejected") {
    counters_.produce_rejected++;
    counters_.last_produce_error = e.get_string("error");
  }
}

void ModelBuilder::on_world(const TraceEvent& e) {
  const std::string_view k = e.kind();
  const int32_t target = static_cast<int32_t>(e.get_int("target", -1));
  if (k == "node_start" || k == "node_restart") {
    auto& n = nodes_[target];
    n.name = e.get_string("name", n.name);
    n.status = NodeStatus::kAlive;
    n.incarnation = static_cast<uint64_t>(e.get_int("incarnation", static_cast<int64_t>(n.incarnation + 1)));
  } else if (k == "node_crash") {
    nodes_[target].status = NodeStatus::kCrashed;
    nodes_[target].registered = false;
  } else if (k == "power_loss") {
    nodes_[target].status = NodeStatus::kPoweredOff;
    nodes_[target].registered = false;
  } else if (k == "node_pause") {
    nodes_[target].status = NodeStatus::kPaused;
  } else if (k == "node_resume") {
    nodes_[target].status = NodeStatus::kAlive;
  } else if (k == "partition" || k == "heal") {
    const bool both = e.get_int("both_ways", 1) != 0;
    for (int32_t a : sim::parse_int_list(e.get_string("from")))
      for (int32_t b : sim::parse_int_list(e.get_string("to"))) {
        if (a == b) continue;
        if (k == "partition") {
          cuts_.insert({a, b});
          if (both) cuts_.insert({b, a});
        } else {
          cuts_.erase({a, b});
          if (both) cuts_.erase({b, a});
        }
      }
  } else if (k == "heal_all") {
    cuts_.clear();
  }
}

void ModelBuilder::on_zk(const TraceEvent& e) {
  on_zk_tree(e);
  const std::string_view k = e.kind();
  const std::string path = e.get_string("path");
  if (k == "zk_delete" && path == "/controller") {
    controller_ = -1;
    return;
  }
  if (k != "zk_create" && k != "zk_set" && k != "zk_node") return;
  const std::string data = e.get_string("data");
  static const std::string kTopics = "/brokers/topics/";
  static const std::string kConfigs = "/config/topics/";
  if (starts_with(path, kTopics) && path.find('/', kTopics.size()) == std::string::npos) {
    auto a = broker::TopicAssignment::decode(as_view(data));
    if (!a.is_ok()) return;
    const std::string topic = path.substr(kTopics.size());
    for (const auto& [p, replicas] : a->partitions) partitions_[{topic, p}].replicas = replicas;
  } else if (starts_with(path, kConfigs)) {
    auto c = broker::decode_topic_config(as_view(data));
    if (c.is_ok()) topic_configs_[path.substr(kConfigs.size())] = *c;
  }
}

int32_t ModelBuilder::session_node(int64_t session) const {
  auto it = session_nodes_.find(session);
  return it == session_nodes_.end() ? -1 : it->second;
}

void ModelBuilder::zk_activity(const TraceEvent& e, const char* what, const std::string& path, std::string detail,
                               int64_t session) {
  ZkActivityModel a;
  a.at = e.time;
  a.node = session_node(session);
  a.what = what;
  a.path = path;
  a.detail = std::move(detail);
  a.zxid = e.get_int("zxid");
  zk_activity_.push_back(std::move(a));
  while (zk_activity_.size() > kZkActivityMax) zk_activity_.pop_front();
}

// The znode tree, sessions and activity (ZkModel). Clients say which session they hold; the rest
// comes from one server, the first that speaks (the simulator runs one).
void ModelBuilder::on_zk_tree(const TraceEvent& e) {
  const std::string_view k = e.kind();
  const int32_t node = e.node.value;
  const int64_t session = e.get_int("session");
  if (k == "zk_client_state") {
    if (session == 0) return;
    session_nodes_[session] = node;
    auto it = zk_sessions_.find(session);
    if (it != zk_sessions_.end()) it->second.node = node;
    return;
  }
  if (zk_server_ < 0) {
    // Every tree starts with the root and ZooKeeper's own znodes. A live view attaches after the
    // server started (its zk_recover and zk_node events are gone), so they are put in here; a
    // trace that has the server's start replaces them with what it recovered.
    zk_server_ = node;
    znodes_["/"].path = "/";
    for (const std::string& p : coord::system_paths()) znodes_[p].path = p;
  }
  if (node != zk_server_) return;
  const std::string path = e.get_string("path");
  auto parent_changed = [&](const std::string& p) {
    if (p.size() <= 1) return;
    const size_t slash = p.rfind('/');
    auto it = znodes_.find(slash == 0 ? std::string("/") : p.substr(0, slash));
    if (it != znodes_.end()) it->second.cversion++;
  };
  if (k == "zk_recover") {
    // The tree follows as zk_node events; the sessions as zk_session_restore.
    znodes_.clear();
    zk_sessions_.clear();
    zk_last_zxid_ = e.get_int("zxid");
  } else if (k == "zk_node") {
    ZnodeModel& z = znodes_[path];
    z = ZnodeModel{};
    z.path = path;
    z.data = e.get_string("data");
    z.version = static_cast<int32_t>(e.get_int("version"));
    z.cversion = static_cast<int32_t>(e.get_int("cversion"));
    z.ephemeral_owner = e.get_int("ephemeral_owner");
    z.modified = e.time;
  } else if (k == "zk_create") {
    ZnodeModel& z = znodes_[path];
    z = ZnodeModel{};
    z.path = path;
    z.data = e.get_string("data");
    z.ephemeral_owner = e.get_int("ephemeral") != 0 ? session : 0;
    z.czxid = z.mzxid = e.get_int("zxid");
    z.created_by = z.written_by = session_node(session);
    z.modified = e.time;
    parent_changed(path);
    zk_last_zxid_ = std::max(zk_last_zxid_, z.czxid);
    zk_activity(e, "create", path, (z.ephemeral_owner ? "ephemeral " : "") + z.data, session);
  } else if (k == "zk_set") {
    ZnodeModel& z = znodes_[path];
    z.path = path;
    z.data = e.get_string("data");
    z.version = static_cast<int32_t>(e.get_int("version"));
    z.mzxid = e.get_int("zxid");
    z.written_by = session_node(session);
    z.modified = e.time;
    zk_last_zxid_ = std::max(zk_last_zxid_, z.mzxid);
    zk_activity(e, "set", path, "v" + std::to_string(z.version) + " " + z.data, session);
  } else if (k == "zk_delete") {
    znodes_.erase(path);
    parent_changed(path);
    zk_last_zxid_ = std::max(zk_last_zxid_, e.get_int("zxid"));
    zk_activity(e, "delete", path, "", session);
  } else if (k == "zk_session_open" || k == "zk_session_restore") {
    ZkSessionModel& s = zk_sessions_[session];
    s.session = session;
    s.node = session_node(session);
    s.state = k == "zk_session_open" ? "open" : "restored";
    s.timeout_ms = static_cast<int32_t>(e.get_int("timeout_ms"));
    if (k == "zk_session_open") zk_activity(e, "session", "", "opened", session);
  } else if (k == "zk_session_expire" || k == "zk_session_close") {
    ZkSessionModel& s = zk_sessions_[session];
    s.session = session;
    s.node = session_node(session);
    s.state = k == "zk_session_expire" ? "expired" : "closed";
    // The ephemerals just deleted went with the session, not with a request of its node.
    for (auto it = zk_activity_.rbegin(); it != zk_activity_.rend() && it->at == e.time; ++it)
      if (it->what == "delete" && it->node == session_node(session) && it->detail.empty())
        it->detail = "(its session " + s.state + ")";
    zk_activity(e, "session", "", s.state + ", " + std::to_string(e.get_int("ephemerals")) + " ephemerals deleted",
                session);
  } else if (k == "zk_watch_fire") {
    zk_watches_fired_++;
    zk_activity(e, "watch", path, e.get_string("type"), session);
  } else if (k == "zk_refused") {
    zk_refused_++;
    zk_activity(e, "refused", path, e.get_string("op") + ": " + e.get_string("error"), session);
  }
}

ZkModel ModelBuilder::zk_model() const {
  ZkModel z;
  z.server = zk_server_;
  z.last_zxid = zk_last_zxid_;
  z.watches_fired = zk_watches_fired_;
  z.refused = zk_refused_;
  std::map<int64_t, int> owned;
  z.znodes.reserve(znodes_.size());
  for (const auto& [path, node] : znodes_) {
    z.znodes.push_back(node);
    ZnodeModel& m = z.znodes.back();
    if (m.ephemeral_owner != 0) {
      m.owner_node = session_node(m.ephemeral_owner);
      owned[m.ephemeral_owner]++;
    }
  }
  for (const auto& [id, s] : zk_sessions_) {
    z.sessions.push_back(s);
    ZkSessionModel& m = z.sessions.back();
    if (m.node < 0) m.node = session_node(id);
    auto it = owned.find(id);
    m.ephemerals = it == owned.end() ? 0 : it->second;
  }
  z.activity.assign(zk_activity_.begin(), zk_activity_.end());
  return z;
}

// Consumer-group events (docs/trace-events.md): each carries "group"; offsets and assignments
// name topic and partition. Unknown kinds with a group field only keep the group visible.
void ModelBuilder::on_group(const TraceEvent& e) {
  // The events are the group coordinator's (engine/group: member_join, member_leave, group_rebalance,
  // group_join_complete, group_stable, group_empty, offset_commit) and the consumers' (engine/client:
  // consumer_join, consumer_assignment, consumer_revoke, commit, consume); docs/trace-events.md.
  const std::string_view k = e.kind();
  auto& g = groups_[e.get_string("group")];
  const int32_t node = e.node.value;
  const bool from_broker = node_kind_of(node) == NodeKind::kBroker;
  if (auto f = e.find("state"); f && std::holds_alternative<std::string>(*f)) g.state = e.get_string("state");
  if (e.find("generation") && (from_broker || g.generation < 0)) g.generation = static_cast<int32_t>(e.get_int("generation"));
  // The coordinator is the broker that speaks for the group; a consumer's FindCoordinator answer
  // stands in until one does.
  if (from_broker) g.coordinator = node;
  else if (k == "consumer_coordinator" && g.coordinator < 0) g.coordinator = static_cast<int32_t>(e.get_int("coordinator", -1));
  const std::string member = e.get_string("member");
  auto drop_owner = [&](const std::string& m) {
    for (auto it = g.owners.begin(); it != g.owners.end();) it = it->second.first == m ? g.owners.erase(it) : std::next(it);
  };
  auto assign = [&](const std::string& m, const std::string& partitions) {
    drop_owner(m);
    auto& mm = g.members[m];
    mm.member_id = m;
    mm.assignment.clear();
    for (const std::string& tp : split(partitions, ',')) {
      mm.assignment.push_back(tp);
      const size_t dash = tp.rfind('-');
      if (dash == std::string::npos) continue;
      g.owners[{tp.substr(0, dash), static_cast<int32_t>(std::strtol(tp.c_str() + dash + 1, nullptr, 10))}] = {m, mm.client};
    }
  };
  if (k == "member_join") {
    if (member.empty()) return;
    auto& m = g.members[member];
    m.member_id = member;
    m.client_name = e.get_string("client_id", m.client_name);
    for (const auto& [id, n] : nodes_)
      if (m.client < 0 && node_kind_of(id) == NodeKind::kClient && n.name == m.client_name) m.client = id;
  } else if (k == "member_leave") {
    g.members.erase(member);
    drop_owner(member);
  } else if (k == "group_join_complete" || k == "group_stable" || k == "group_empty") {
    // The coordinator's member list is the truth: members it does not list have left.
    const auto listed = split(e.get_string("members"), ',');
    for (auto it = g.members.begin(); it != g.members.end();) {
      if (std::find(listed.begin(), listed.end(), it->first) == listed.end()) {
        drop_owner(it->first);
        it = g.members.erase(it);
      } else {
        ++it;
      }
    }
    // group_stable carries the leader's assignment: "member=t-0,t-1;member2=".
    if (k == "group_stable")
      for (const std::string& entry : split(e.get_string("assignment"), ';')) {
        const size_t eq = entry.find('=');
        if (eq != std::string::npos && g.members.count(entry.substr(0, eq))) assign(entry.substr(0, eq), entry.substr(eq + 1));
      }
  } else if (k == "consumer_join") {
    if (member.empty()) return;
    auto& m = g.members[member];
    m.member_id = member;
    m.client = node;
    for (auto& [tp, owner] : g.owners)
      if (owner.first == member) owner.second = node;
  } else if (k == "consumer_assignment") {
    if (member.empty()) return;
    g.members[member].client = node;
    assign(member, e.get_string("partitions"));
  } else if (k == "consumer_revoke") {
    auto it = g.members.find(member);
    const auto revoked = split(e.get_string("partitions"), ',');
    if (it != g.members.end())
      for (const std::string& tp : revoked) {
        auto& a = it->second.assignment;
        a.erase(std::remove(a.begin(), a.end(), tp), a.end());
      }
    for (auto o = g.owners.begin(); o != g.owners.end();) {
      const std::string tp = o->first.first + "-" + std::to_string(o->first.second);
      const bool gone = o->second.first == member && std::find(revoked.begin(), revoked.end(), tp) != revoked.end();
      o = gone ? g.owners.erase(o) : std::next(o);
    }
  } else if (k == "offset_commit" || k == "commit") {
    g.committed[sim::partition_key(e)] = e.get_int("offset");
  } else if (k == "consume") {
    g.consumed += std::max<int64_t>(1, e.get_int("count", 1));
    const auto* p = replicas_.partition(sim::partition_key(e));
    if (p && p->leader >= 0) add_traffic(e.time, p->leader, node, TrafficKind::kFetch);
  }
}

void ModelBuilder::before_append(const TraceEvent& e) {
  if (e.get_string("role") != "leader") return;
  // Followers that had the leader's whole log were caught up until this moment.
  auto key = sim::partition_key(e);
  const auto* leader = replicas_.replica(e.node.value, key);
  const int64_t old_leo = leader ? leader->leo : 0;
  auto it = partitions_.find(key);
  if (it == partitions_.end()) return;
  for (int32_t r : replica_list(key, it->second)) {
    // Kafka updates a follower's lastCaughtUpTime from its fetches: a dead one catches up with nothing.
    if (r == e.node.value || !alive(r)) continue;
    const auto* f = replicas_.replica(r, key);
    if (f && f->leo >= old_leo) caught_up_[{r, key}] = e.time;
  }
}

void ModelBuilder::after_append(const TraceEvent& e) {
  if (e.get_string("role") == "leader") return;
  auto key = sim::partition_key(e);
  const auto* view = replicas_.partition(key);
  if (!view || view->leader < 0) return;
  add_traffic(e.time, view->leader, e.node.value, TrafficKind::kFetch);
  const auto* leader = replicas_.replica(view->leader, key);
  const auto* self = replicas_.replica(e.node.value, key);
  if (leader && self && self->leo >= leader->leo) caught_up_[{e.node.value, key}] = e.time;
}

void ModelBuilder::add_traffic(Time at, int32_t from, int32_t to, TrafficKind kind) {
  if (from <= 0 || to <= 0 || from == to) return;
  traffic_.push_back({at, from, to, kind});
  if (traffic_.size() > kTrafficKept) traffic_.pop_front();
}

// ---- Reading -----------------------------------------------------------------------------------

bool ModelBuilder::alive(int32_t node) const {
  auto it = nodes_.find(node);
  return it != nodes_.end() && (it->second.status == NodeStatus::kAlive || it->second.status == NodeStatus::kPaused);
}

// A topic's config as its brokers read it: its overrides in zk over the broker-level defaults. A
// value the brokers would refuse keeps the default.
broker::TopicConfig ModelBuilder::topic_config(const std::string& topic) const {
  broker::TopicConfig c;
  c.min_insync_replicas = defaults_.min_insync_replicas;
  c.unclean_leader_election_enable = defaults_.unclean_leader_election;
  auto t = topic_configs_.find(topic);
  if (t != topic_configs_.end())
    for (const auto& [k, v] : t->second)
      if (const auto* key = broker::topic_config_def().find(k)) (void)key->parse(c, v);
  return c;
}

int32_t ModelBuilder::min_isr(const std::string& topic) const { return topic_config(topic).min_insync_replicas; }

bool ModelBuilder::unclean(const std::string& topic) const { return topic_config(topic).unclean_leader_election_enable; }

int32_t ModelBuilder::any_zk() const {
  for (const auto& [id, n] : nodes_)
    if (node_kind_of(id) == NodeKind::kZk && n.status == NodeStatus::kAlive) return id;
  for (const auto& [id, n] : nodes_)
    if (node_kind_of(id) == NodeKind::kZk) return id;
  return -1;
}

std::vector<int32_t> ModelBuilder::replica_list(const sim::PartitionKey& key, const PartitionState& p) const {
  std::vector<int32_t> out = p.replicas;
  // Without the assignment znode (a trace that starts late), the brokers holding a log stand in.
  if (out.empty()) {
    for (const auto& [rk, log] : replicas_.replicas())
      if (rk.second == key && !contains(out, rk.first)) out.push_back(rk.first);
    std::sort(out.begin(), out.end());
  }
  return out;
}

PartitionModel ModelBuilder::partition_model(const sim::PartitionKey& key, const PartitionState& p, Time now) const {
  PartitionModel m;
  m.topic = key.first;
  m.partition = key.second;
  m.internal = is_internal_topic(key.first);
  m.replicas = replica_list(key, p);
  m.preferred_leader = m.replicas.empty() ? -1 : m.replicas.front();
  m.leader = p.leader;
  m.leader_epoch = p.leader_epoch;
  m.isr = p.isr;
  m.leader_alive = p.leader >= 0 && alive(p.leader);
  m.min_insync_replicas = min_isr(key.first);
  m.unclean_leader_election = unclean(key.first);
  m.leader_changes = p.leader_changes;
  m.isr_changes = p.isr_changes;
  m.offline = p.leader < 0;
  const int isr_size = static_cast<int>(m.isr.size());
  m.under_replicated = !m.offline && isr_size < static_cast<int>(m.replicas.size());
  m.under_min_isr = !m.offline && isr_size < m.min_insync_replicas;
  m.at_min_isr = !m.offline && isr_size == m.min_insync_replicas;

  // LEO and HW of the partition are the acting leader's (the broker that last took leadership).
  const auto* view = replicas_.partition(key);
  const int32_t acting = view ? view->leader : -1;
  const auto* leader_log = acting >= 0 ? replicas_.replica(acting, key) : nullptr;
  if (leader_log) {
    m.leo = leader_log->leo;
    m.hw = leader_log->hw;
  }
  for (int32_t b : m.replicas) {
    ReplicaRowModel row;
    row.broker = b;
    auto n = nodes_.find(b);
    row.alive = alive(b);
    row.paused = n != nodes_.end() && n->second.status == NodeStatus::kPaused;
    row.leader = b == p.leader;
    row.in_isr = contains(p.isr, b);
    const auto* log = replicas_.replica(b, key);
    row.has_log = log != nullptr;
    if (log) {
      row.acting_leader = log->leader;
      row.leader_epoch = log->leader_epoch;
      row.leo = log->leo;
      row.hw = log->hw;
      row.log_start = log->batches.empty() ? log->leo : log->batches.begin()->first;
      row.runs = epoch_runs(b, key, *log);
    }
    if (b == acting || !leader_log) {
      row.lag = 0;
      row.since_caught_up_ms = 0;
    } else {
      row.lag = std::max<int64_t>(0, m.leo - row.leo);
      if (row.lag == 0) {
        row.since_caught_up_ms = 0;
      } else {
        auto c = caught_up_.find({b, key});
        row.since_caught_up_ms = c == caught_up_.end() ? -1 : (now - c->second).ms();
      }
    }
    m.rows.push_back(std::move(row));
  }
  return m;
}

void ModelBuilder::forget_runs(int32_t broker, const sim::PartitionKey& key, int64_t from_offset) {
  auto it = runs_.find({broker, key});
  if (it == runs_.end()) return;
  // An append at or past the cached end only extends the log; anything else rewrites it.
  if (from_offset < 0 || from_offset < it->second.end) runs_.erase(it);
}

const std::vector<EpochRun>& ModelBuilder::epoch_runs(int32_t broker, const sim::PartitionKey& key, const sim::ReplicaLog& log) const {
  RunCache& c = runs_[{broker, key}];
  const int64_t first = log.batches.empty() ? -1 : log.batches.begin()->first;
  auto it = log.batches.begin();
  if (c.first_base != first) {
    // The log's start moved (retention) or this is the first look: merge it all.
    c.runs.clear();
  } else if (!c.runs.empty()) {
    it = log.batches.lower_bound(c.end);
    // The batch before the cached end must end exactly there, or the cache is stale.
    if (it != log.batches.begin() && std::prev(it)->second.last_offset + 1 != c.end) {
      c.runs.clear();
      it = log.batches.begin();
    }
  }
  for (; it != log.batches.end(); ++it) {
    const auto& [base, batch] = *it;
    if (!c.runs.empty() && c.runs.back().epoch == batch.epoch && c.runs.back().end == base)
      c.runs.back().end = batch.last_offset + 1;
    else
      c.runs.push_back({base, batch.last_offset + 1, batch.epoch});
  }
  c.first_base = first;
  c.end = log.batches.empty() ? 0 : log.batches.rbegin()->second.last_offset + 1;
  GREGOR_ASSERT(c.runs.empty() || c.runs.back().end == c.end);
  return c.runs;
}

HealthModel ModelBuilder::health() const {
  HealthModel h = counters_;
  for (const auto& [key, p] : partitions_) {
    if (!p.has_leader_record) continue;
    const bool offline = p.leader < 0;
    const int isr_size = static_cast<int>(p.isr.size());
    // The same replica list the partition view shows: __consumer_offsets' assignment znode is too
    // big for the trace (its data is recorded as "<712 bytes>"), so its replicas are the brokers
    // holding a log of it.
    const size_t replicas = replica_list(key, p).size();
    const bool internal = is_internal_topic(key.first);
    const bool under_replicated = !offline && static_cast<size_t>(isr_size) < replicas;
    const bool under_min_isr = !offline && isr_size < min_isr(key.first);
    h.offline += offline;
    h.under_replicated += under_replicated;
    h.under_min_isr += under_min_isr;
    h.internal_offline += internal && offline;
    h.internal_under_replicated += internal && under_replicated;
    h.internal_under_min_isr += internal && under_min_isr;
  }
  for (const auto& [id, n] : nodes_) {
    if (node_kind_of(id) != NodeKind::kBroker) continue;
    h.brokers_total++;
    if (alive(id)) h.brokers_alive++;
  }
  h.active_controllers = controller_ >= 0 && alive(controller_) ? 1 : 0;
  return h;
}

std::map<std::string, int64_t> ModelBuilder::group_lags() const {
  std::map<std::string, int64_t> out;
  for (const auto& [name, g] : groups_) {
    int64_t lag = 0;
    for (const auto& [tp, committed] : g.committed) {
      const auto* view = replicas_.partition(tp);
      const auto* log = view && view->leader >= 0 ? replicas_.replica(view->leader, tp) : nullptr;
      if (log) lag += std::max<int64_t>(0, log->hw - committed);
    }
    out[name] = lag;
  }
  return out;
}

DashboardModel ModelBuilder::snapshot(Time now, Duration traffic_window) const {
  DashboardModel m;
  m.now = now;
  m.controller = controller_;
  m.controller_epoch = controller_epoch_;
  m.health = health();
  m.topic_configs = topic_configs_;
  m.zk = zk_model();

  std::map<int32_t, size_t> index;
  for (const auto& [id, n] : nodes_) {
    NodeModel nm;
    nm.id = id;
    nm.name = n.name.empty() ? std::string(node_kind_name(node_kind_of(id))) + "-" + std::to_string(id) : n.name;
    nm.kind = node_kind_of(id);
    nm.status = n.status;
    nm.controller = id == controller_;
    nm.registered = n.registered;
    nm.incarnation = n.incarnation;
    index[id] = m.nodes.size();
    m.nodes.push_back(std::move(nm));
  }
  for (const auto& [from, to] : cuts_) {
    if (index.count(from)) m.nodes[index[from]].cut_links++;
    if (index.count(to)) m.nodes[index[to]].cut_links++;
  }
  const int others = static_cast<int>(m.nodes.size()) - 1;
  for (auto& n : m.nodes) n.isolated = others > 0 && n.cut_links >= 2 * others;

  for (const auto& [key, p] : partitions_) {
    if (!p.has_leader_record && p.replicas.empty()) continue;
    m.partitions.push_back(partition_model(key, p, now));
    const auto& pm = m.partitions.back();
    if (pm.leader >= 0 && index.count(pm.leader)) m.nodes[index[pm.leader]].leaderships++;
  }
  // The user's topics first: '_' sorts before lower-case letters, so __consumer_offsets would
  // otherwise come first everywhere (and be the partition view's default).
  std::stable_partition(m.partitions.begin(), m.partitions.end(), [](const PartitionModel& p) { return !p.internal; });

  // Links: every broker pair, every broker with every zk server, every client with every broker.
  std::map<std::pair<int32_t, int32_t>, LinkModel> links;
  for (const auto& a : m.nodes)
    for (const auto& b : m.nodes) {
      if (a.id >= b.id) continue;
      // Ids order brokers before zk servers before clients: every link has a broker at one end.
      if (a.kind != NodeKind::kBroker) continue;
      LinkModel l;
      l.a = a.id;
      l.b = b.id;
      links[{a.id, b.id}] = l;
    }
  for (const auto& [from, to] : cuts_) {
    auto it = links.find({std::min(from, to), std::max(from, to)});
    if (it == links.end()) {
      LinkModel l;
      l.a = std::min(from, to);
      l.b = std::max(from, to);
      it = links.emplace(std::make_pair(l.a, l.b), l).first;
    }
    (from < to ? it->second.cut_ab : it->second.cut_ba) = true;
  }
  // At most kDotsPerLink dots per direction, one per equal slice of the window: a busy link shows
  // dots spread along it (as a stream looks) rather than the newest few bunched at the sender.
  std::map<std::pair<int32_t, int32_t>, uint32_t> slots_taken;
  static_assert(kDotsPerLink <= 32, "one bit per slot");
  for (auto it = traffic_.rbegin(); it != traffic_.rend(); ++it) {
    if (it->at > now) continue;
    if (now - it->at > traffic_window) break;
    auto l = links.find({std::min(it->from, it->to), std::max(it->from, it->to)});
    if (l != links.end()) {
      if (it->kind == TrafficKind::kFetch) l->second.fetch++;
      else if (it->kind == TrafficKind::kProduce || it->kind == TrafficKind::kError) l->second.produce++;
      else l->second.control++;
    }
    const float progress =
        traffic_window.us > 0 ? static_cast<float>(static_cast<double>((now - it->at).us) / static_cast<double>(traffic_window.us)) : 1.0f;
    const int slot = std::clamp(static_cast<int>(progress * static_cast<float>(kDotsPerLink)), 0, kDotsPerLink - 1);
    uint32_t& taken = slots_taken[{it->from, it->to}];
    if (taken & (1u << slot)) continue;
    taken |= 1u << slot;
    MessageDot d;
    d.from = it->from;
    d.to = it->to;
    d.kind = it->kind;
    d.progress = progress;
    m.dots.push_back(d);
  }
  for (auto& [k, l] : links) m.links.push_back(l);

  for (const auto& [name, g] : groups_) {
    GroupModel gm;
    gm.group = name;
    gm.state = g.state;
    gm.generation = g.generation;
    gm.coordinator = g.coordinator;
    gm.consumed = g.consumed;
    for (const auto& [id, member] : g.members) gm.members.push_back(member);
    std::set<sim::PartitionKey> tps;
    for (const auto& [tp, off] : g.committed) tps.insert(tp);
    for (const auto& [tp, owner] : g.owners) tps.insert(tp);
    for (const auto& tp : tps) {
      GroupOffsetModel o;
      o.topic = tp.first;
      o.partition = tp.second;
      auto c = g.committed.find(tp);
      if (c != g.committed.end()) o.committed = c->second;
      const auto* view = replicas_.partition(tp);
      const auto* log = view && view->leader >= 0 ? replicas_.replica(view->leader, tp) : nullptr;
      if (log) o.log_end = log->hw;
      if (o.committed >= 0 && o.log_end >= 0) o.lag = std::max<int64_t>(0, o.log_end - o.committed);
      auto w = g.owners.find(tp);
      if (w != g.owners.end()) {
        o.member = w->second.first;
        o.client = w->second.second;
      }
      if (o.lag > 0) gm.total_lag += o.lag;
      gm.offsets.push_back(std::move(o));
    }
    m.groups.push_back(std::move(gm));
  }
  return m;
}

}  // namespace gregor::gui
