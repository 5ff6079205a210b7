#include "gui/model_builder.h"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "engine/broker/topic_config.h"
#include "engine/coord/zk_types.h"
#include "engine/coord/zxid.h"

namespace gregor::gui {

namespace {

// The traffic ring keeps this many recent messages; dots and link counts read from it.
constexpr size_t kTrafficKept = 4096;
// At most this many dots per link and direction, so a busy link stays readable.
constexpr int kDotsPerLink = 6;

bool contains(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }



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

const TransactionModel* DashboardModel::transaction(const std::string& transactional_id) const {
  for (const auto& t : transactions)
    if (t.transactional_id == transactional_id) return &t;
  return nullptr;
}

const ZkServerModel* ZkModel::server_model(int32_t id) const {
  for (const auto& s : ensemble)
    if (s.id == id) return &s;
  return nullptr;
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
  const int32_t node = e.node.value;
  if (node == 0) {
    // Crashes, power losses and restarts change logs through the events that follow (log_open);
    // dropping every cached run here is simply the safe choice for these rare events.
    runs_.clear();
    model_.apply(e);
    // A zk server of the ensemble that crashed or lost power is down until it looks again.
    for (auto& [id, z] : zk_servers_)
      if (!model_.alive(id) && z.role != "down") zk_role(id, e.time, "down", z.epoch);
    zk_groups_after_crash(e.time);
    return;
  }
  // A log that is truncated, reopened or rewritten below its cached end loses its cached runs.
  if (const auto* t = e.as<ev::LogTruncate>()) forget_runs(node, {t->topic, t->partition}, -1);
  if (const auto* o = e.as<ev::LogOpen>()) forget_runs(node, {o->topic, o->partition}, -1);
  if (const auto* a = e.as<ev::LogAppend>()) {
    forget_runs(node, {a->topic, a->partition}, a->base_offset);
    before_append(e, *a);
    model_.apply(e);
    after_append(e, *a);
    return;
  }
  model_.apply(e);
  // The znode tree, zk sessions and zk activity: the dashboard's ZooKeeper view.
  if (e.kind().starts_with("zk_")) {
    on_zk_tree(e);
    on_zk_ensemble(e);
  }
  // ZooKeeper-coordinated consumer groups: their znodes and their members' consumer_* events.
  if (e.kind().starts_with("zk_") || e.kind().starts_with("consume")) on_zk_group(e);
  // Transactions: the coordinator's states, the producers' transactions, markers and the LSO.
  if (e.kind().starts_with("txn_") || e.is<ev::ProduceAck>()) on_txn(e);

  // What the dashboard adds: messages on the links, Kafka's broker metrics, caught-up times.
  auto acting_leader = [&](const std::string& topic, int32_t partition) {
    const auto* p = model_.partition({topic, partition});
    return p ? p->acting.leader : -1;
  };
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::BrokerRegister> || std::is_same_v<B, ev::ControllerElected>) {
          add_traffic(e.time, node, any_zk(), TrafficKind::kZk);
        } else if constexpr (std::is_same_v<B, ev::LeaderChange> || std::is_same_v<B, ev::PartitionOffline>) {
          const sim::PartitionKey key{b.topic, b.partition};
          if constexpr (std::is_same_v<B, ev::LeaderChange>) {
            counters_.leader_elections++;
            if (is_internal_topic(b.topic)) counters_.internal_leader_elections++;
            if (b.reason == "unclean") counters_.unclean_elections++;
          }
          // LeaderAndIsr from the controller to the partition's replicas.
          if (const auto* p = model_.partition(key))
            for (int32_t r : replica_list(key, *p))
              if (r != node) add_traffic(e.time, node, r, TrafficKind::kControl);
        } else if constexpr (std::is_same_v<B, ev::IsrChange>) {
          const bool internal = is_internal_topic(b.topic);
          if (b.direction == "shrink") {
            counters_.isr_shrinks++;
            counters_.internal_isr_shrinks += internal;
          } else {
            counters_.isr_expands++;
            counters_.internal_isr_expands += internal;
          }
          add_traffic(e.time, node, any_zk(), TrafficKind::kZk);
        } else if constexpr (std::is_same_v<B, ev::BecomeLeader>) {
          // Kafka gives in-sync followers a fresh lag window when a leader takes over.
          for (int32_t r : b.isr)
            if (r != node) caught_up_[{r, {b.topic, b.partition}}] = e.time;
        } else if constexpr (std::is_same_v<B, ev::ProduceAck>) {
          counters_.produce_acked++;
          const int32_t leader = acting_leader(b.topic, b.partition);
          if (leader >= 0) add_traffic(e.time, node, leader, TrafficKind::kProduce);
        } else if constexpr (std::is_same_v<B, ev::ProduceError>) {
          counters_.produce_errors++;
          counters_.last_produce_error = b.error;
          const int32_t leader = acting_leader(b.topic, b.partition);
          if (leader >= 0) add_traffic(e.time, node, leader, TrafficKind::kError);
        } else if constexpr (std::is_same_v<B, ev::ProduceRejected>) {
          counters_.produce_rejected++;
          counters_.last_produce_error = b.error;
        } else if constexpr (std::is_same_v<B, ev::Consume>) {
          const int32_t leader = acting_leader(b.topic, b.partition);
          if (leader >= 0) add_traffic(e.time, leader, node, TrafficKind::kFetch);
        }
      },
      e.body);
}

// ---- The replicated zk ensemble ----------------------------------------------------------------

void ModelBuilder::zk_role(int32_t server, Time at, const std::string& role, int64_t epoch) {
  ZkServerModel& z = zk_servers_[server];
  z.id = server;
  z.role = role;
  z.epoch = epoch;
  if (!z.spans.empty() && z.spans.back().role == role && z.spans.back().epoch == epoch) return;
  // Two changes at one instant: the later one is what the server was in.
  if (!z.spans.empty() && z.spans.back().from == at) z.spans.pop_back();
  z.spans.push_back({at, role, epoch});
  constexpr size_t kSpansKept = 512;
  if (z.spans.size() > kSpansKept) z.spans.erase(z.spans.begin());
}

void ModelBuilder::on_zk_ensemble(const TraceEvent& e) {
  const int32_t node = e.node.value;
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::ZkClientState>) {
          zk_clients_[node] = {b.state, b.server};
        } else if constexpr (std::is_same_v<B, ev::ZkElection>) {
          ZkServerModel& z = zk_servers_[node];
          z.zxid = b.zxid;
          z.election_round = b.round;
          z.elections++;
          z.leader = -1;
          zk_role(node, e.time, "looking", b.epoch);
        } else if constexpr (std::is_same_v<B, ev::ZkLeader>) {
          ZkServerModel& z = zk_servers_[node];
          z.zxid = b.zxid;
          z.leader = node;
          zk_role(node, e.time, "leading", b.epoch);
        } else if constexpr (std::is_same_v<B, ev::ZkFollow>) {
          ZkServerModel& z = zk_servers_[node];
          z.zxid = b.zxid;
          z.leader = b.leader;
          zk_role(node, e.time, "following", b.epoch);
        } else if constexpr (std::is_same_v<B, ev::ZkSync>) {
          const std::string sync = b.mode + " " + coord::zxid_hex(b.from_zxid) + " -> " + coord::zxid_hex(b.to_zxid);
          zk_servers_[b.follower].id = b.follower;
          zk_servers_[b.follower].last_sync = sync + " from zk " + std::to_string(node);
          zk_servers_[node].last_sync = sync + " to zk " + std::to_string(b.follower);
        } else if constexpr (std::is_same_v<B, ev::ZkCommit>) {
          zk_commit_zxid_ = b.zxid;
          zk_commit_acks_ = b.acks;
          // The servers that acknowledged a proposal logged it durably.
          for (int32_t a : b.acks) {
            auto it = zk_servers_.find(a);
            if (it != zk_servers_.end()) it->second.zxid = std::max(it->second.zxid, b.zxid);
          }
        } else if constexpr (std::is_same_v<B, ev::ZkCreate> || std::is_same_v<B, ev::ZkSet> || std::is_same_v<B, ev::ZkDelete>) {
          // Every server applies committed txns and says so.
          auto it = zk_servers_.find(node);
          if (it != zk_servers_.end()) it->second.zxid = std::max(it->second.zxid, b.zxid);
        } else if constexpr (std::is_same_v<B, ev::ZkRecover>) {
          auto it = zk_servers_.find(node);
          if (it != zk_servers_.end()) it->second.zxid = b.zxid;
        }
      },
      e.body);
}

std::vector<ZkServerModel> ModelBuilder::ensemble_model() const {
  std::vector<ZkServerModel> out;
  if (zk_servers_.empty()) return out;
  // Every zk server of the cluster, also one that has not spoken yet.
  std::map<int32_t, ZkServerModel> all = zk_servers_;
  for (const auto& [id, n] : model_.nodes())
    if (node_kind_of(id) == NodeKind::kZk && !all.count(id)) all[id].id = id;
  for (auto& [id, z] : all) {
    z.id = id;
    const auto* n = model_.node(id);
    z.status = n ? n->status : NodeStatus::kAlive;
    if (!model_.alive(id)) z.role = "down";
    z.sessions = 0;
    for (const auto& [client, c] : zk_clients_)
      if (c.server == id && c.state == "SyncConnected" && model_.alive(client)) z.sessions++;
    out.push_back(std::move(z));
  }
  return out;
}

// ---- Transactions ------------------------------------------------------------------------------

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace

void ModelBuilder::on_txn(const TraceEvent& e) {
  const int32_t node = e.node.value;
  auto client = [&](const std::string& tid, int64_t pid, int32_t epoch, const char* what, const std::string& outcome) {
    TransactionModel& t = txns_[tid];
    t.transactional_id = tid;
    auto it = std::find_if(t.clients.begin(), t.clients.end(), [&](const TxnClientModel& c) { return c.client == node; });
    if (it == t.clients.end()) {
      t.clients.push_back({});
      it = t.clients.end() - 1;
      it->client = node;
      std::sort(t.clients.begin(), t.clients.end(), [](const TxnClientModel& a, const TxnClientModel& b) { return a.client < b.client; });
      it = std::find_if(t.clients.begin(), t.clients.end(), [&](const TxnClientModel& c) { return c.client == node; });
    }
    it->producer_id = pid;
    it->epoch = epoch;
    it->last = what;
    it->outcome = outcome;
    it->at = e.time;
  };
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::TxnStateChange>) {
          TransactionModel& t = txns_[b.transactional_id];
          t.transactional_id = b.transactional_id;
          t.producer_id = b.producer_id;
          t.producer_epoch = b.producer_epoch;
          t.coordinator = node;
          if (t.state != b.to || t.history.empty()) t.since = e.time;
          t.state = b.to;
          // The partitions of the transaction; a completed one keeps the list it had.
          const auto parts = split_list(b.partitions);
          if (!parts.empty() || (b.to != "CompleteCommit" && b.to != "CompleteAbort")) t.partitions = parts;
          if (b.to == "CompleteCommit") t.commits++;
          if (b.to == "CompleteAbort") t.aborts++;
          t.history.push_back({e.time, b.to, b.producer_epoch});
          constexpr size_t kHistoryKept = 600;
          if (t.history.size() > kHistoryKept) t.history.erase(t.history.begin());
        } else if constexpr (std::is_same_v<B, ev::TxnBegin>) {
          txn_clients_[node] = {b.transactional_id, b.producer_id};
          client(b.transactional_id, b.producer_id, b.epoch, "begin", "");
        } else if constexpr (std::is_same_v<B, ev::TxnCommit>) {
          client(b.transactional_id, b.producer_id, b.epoch, "commit", b.outcome);
        } else if constexpr (std::is_same_v<B, ev::TxnAbort>) {
          client(b.transactional_id, b.producer_id, b.epoch, "abort", b.outcome);
        } else if constexpr (std::is_same_v<B, ev::ProduceAck>) {
          // A transactional producer's batch: it belongs to the producer's open transaction on the
          // partition, or opens one (a write after that transaction's marker opens the next).
          auto c = txn_clients_.find(node);
          if (c == txn_clients_.end() || c->second.producer_id < 0) return;
          const int64_t pid = c->second.producer_id;
          PartitionTxns& pt = part_txns_[{b.topic, b.partition}];
          auto lm = pt.last_marker.find(pid);
          // Acknowledged after its transaction's marker went in (the marker was appended after
          // the batch): it was part of that transaction, already ended.
          if (lm != pt.last_marker.end() && b.base_offset < lm->second) return;
          auto [it, opened] = pt.open.try_emplace(pid);
          if (opened || b.base_offset < it->second.first) it->second.first = b.base_offset;
          it->second.batches.push_back(b.base_offset);
        } else if constexpr (std::is_same_v<B, ev::TxnMarkerAppend>) {
          const sim::PartitionKey key{b.topic, b.partition};
          PartitionTxns& pt = part_txns_[key];
          const auto* log = model_.replica(node, key);
          auto crc_at = [&](int64_t offset) -> std::pair<int64_t, int64_t> {
            if (!log) return {offset + 1, 0};
            auto it = log->batches.find(offset);
            if (it == log->batches.end()) return {offset + 1, 0};
            return {it->second.last_offset + 1, it->second.crc};
          };
          TxnMarkerModel mk;
          mk.offset = b.offset;
          mk.commit = b.result == "commit";
          mk.producer_id = b.producer_id;
          mk.producer_epoch = b.producer_epoch;
          mk.lso = b.lso;
          mk.at = e.time;
          pt.markers[b.offset] = {mk, crc_at(b.offset).second};
          auto open = pt.open.find(b.producer_id);
          if (open != pt.open.end()) {
            if (!mk.commit)
              for (int64_t base : open->second.batches)
                if (base < b.offset) pt.aborted[base] = crc_at(base);
            pt.open.erase(open);
          }
          pt.last_marker[b.producer_id] = b.offset;
        }
      },
      e.body);
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
  z.ensemble = ensemble_model();
  for (const auto& s : z.ensemble)
    if (s.role == "leading" && s.epoch >= z.ensemble_epoch) {
      z.ensemble_leader = s.id;
      z.ensemble_epoch = s.epoch;
    }
  z.last_commit_zxid = zk_commit_zxid_;
  z.last_commit_acks = zk_commit_acks_;
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

void ModelBuilder::before_append(const TraceEvent& e, const ev::LogAppend& a) {
  if (a.role != "leader") return;
  // Followers that had the leader's whole log were caught up until this moment.
  const sim::PartitionKey key{a.topic, a.partition};
  const auto* leader = model_.replica(e.node.value, key);
  const int64_t old_leo = leader ? leader->leo : 0;
  const auto* p = model_.partition(key);
  if (!p) return;
  for (int32_t r : replica_list(key, *p)) {
    // Kafka updates a follower's lastCaughtUpTime from its fetches: a dead one catches up with nothing.
    if (r == e.node.value || !model_.alive(r)) continue;
    const auto* f = model_.replica(r, key);
    if (f && f->leo >= old_leo) caught_up_[{r, key}] = e.time;
  }
}

void ModelBuilder::after_append(const TraceEvent& e, const ev::LogAppend& a) {
  if (a.role == "leader") return;
  const sim::PartitionKey key{a.topic, a.partition};
  const auto* view = model_.partition(key);
  if (!view || view->acting.leader < 0) return;
  add_traffic(e.time, view->acting.leader, e.node.value, TrafficKind::kFetch);
  const auto* leader = model_.replica(view->acting.leader, key);
  const auto* self = model_.replica(e.node.value, key);
  if (leader && self && self->leo >= leader->leo) caught_up_[{e.node.value, key}] = e.time;
}

void ModelBuilder::add_traffic(Time at, int32_t from, int32_t to, TrafficKind kind) {
  if (from <= 0 || to <= 0 || from == to) return;
  traffic_.push_back({at, from, to, kind});
  if (traffic_.size() > kTrafficKept) traffic_.pop_front();
}

// ---- Reading -----------------------------------------------------------------------------------

// A topic's config as its brokers read it: its overrides in zk over the broker-level defaults. A
// value the brokers would refuse keeps the default.
broker::TopicConfig ModelBuilder::topic_config(const std::string& topic) const {
  broker::TopicConfig c;
  c.min_insync_replicas = defaults_.min_insync_replicas;
  c.unclean_leader_election_enable = defaults_.unclean_leader_election;
  auto t = model_.topic_configs().find(topic);
  if (t != model_.topic_configs().end())
    for (const auto& [k, v] : t->second)
      if (const auto* key = broker::topic_config_def().find(k)) (void)key->parse(c, v);
  return c;
}

int32_t ModelBuilder::min_isr(const std::string& topic) const { return topic_config(topic).min_insync_replicas; }

bool ModelBuilder::unclean(const std::string& topic) const { return topic_config(topic).unclean_leader_election_enable; }

int32_t ModelBuilder::any_zk() const {
  for (const auto& [id, n] : model_.nodes())
    if (node_kind_of(id) == NodeKind::kZk && n.status == NodeStatus::kAlive) return id;
  for (const auto& [id, n] : model_.nodes())
    if (node_kind_of(id) == NodeKind::kZk) return id;
  return -1;
}

std::vector<int32_t> ModelBuilder::replica_list(const sim::PartitionKey& key, const sim::PartitionView& p) const {
  std::vector<int32_t> out = p.replicas;
  // Without the assignment znode (a trace that starts late), the brokers holding a log stand in.
  if (out.empty()) {
    for (const auto& [rk, log] : model_.replicas())
      if (rk.second == key && !contains(out, rk.first)) out.push_back(rk.first);
    std::sort(out.begin(), out.end());
  }
  return out;
}

PartitionModel ModelBuilder::partition_model(const sim::PartitionKey& key, const sim::PartitionView& p, Time now) const {
  PartitionModel m;
  m.topic = key.first;
  m.partition = key.second;
  m.internal = is_internal_topic(key.first);
  m.replicas = replica_list(key, p);
  m.adding = p.adding;
  m.removing = p.removing;
  m.preferred_leader = m.replicas.empty() ? -1 : m.replicas.front();
  m.leader = p.written.leader;
  m.leader_epoch = p.written.leader_epoch;
  m.isr = p.written.isr;
  m.leader_alive = p.written.leader >= 0 && model_.alive(p.written.leader);
  m.min_insync_replicas = min_isr(key.first);
  m.unclean_leader_election = unclean(key.first);
  m.leader_changes = p.leader_changes;
  m.isr_changes = p.isr_changes;
  m.offline = p.written.leader < 0;
  const int isr_size = static_cast<int>(m.isr.size());
  // As kafka-topics counts it: a replica still being added does not make a partition under-replicated.
  m.under_replicated = !m.offline && isr_size < static_cast<int>(m.replicas.size() - m.adding.size());
  m.under_min_isr = !m.offline && isr_size < m.min_insync_replicas;
  m.at_min_isr = !m.offline && isr_size == m.min_insync_replicas;

  // LEO and HW of the partition are the acting leader's (the broker that last took leadership).
  const int32_t acting = p.acting.leader;
  const auto* leader_log = acting >= 0 ? model_.replica(acting, key) : nullptr;
  if (leader_log) {
    m.leo = leader_log->leo;
    m.hw = leader_log->hw;
  }
  // The LSO: the HW, held back by the first offset of a transaction still open.
  const auto pt = part_txns_.find(key);
  int64_t first_open = INT64_MAX;
  if (pt != part_txns_.end()) {
    for (const auto& [pid, o] : pt->second.open) {
      m.open_txns.push_back({pid, o.first});
      first_open = std::min(first_open, o.first);
    }
    std::sort(m.open_txns.begin(), m.open_txns.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    for (const auto& [off, mk] : pt->second.markers) (mk.first.commit ? m.commit_markers : m.abort_markers)++;
  }
  m.lso = std::min(m.hw, first_open);
  for (int32_t b : m.replicas) {
    ReplicaRowModel row;
    row.broker = b;
    const auto* n = model_.node(b);
    row.alive = model_.alive(b);
    row.paused = n && n->status == NodeStatus::kPaused;
    row.leader = b == p.written.leader;
    row.in_isr = contains(p.written.isr, b);
    const auto* log = model_.replica(b, key);
    row.has_log = log != nullptr;
    if (log) {
      row.acting_leader = log->leader;
      row.leader_epoch = log->leader_epoch;
      row.leo = log->leo;
      row.hw = log->hw;
      row.log_start = log->batches.empty() ? log->leo : log->batches.begin()->first;
      row.runs = epoch_runs(b, key, *log);
      row.lso = std::min(row.hw, first_open);
      if (pt != part_txns_.end()) {
        // The markers and aborted batches this replica holds: the leader's batch, same CRC.
        auto holds = [&](int64_t offset, int64_t crc) {
          auto it = log->batches.find(offset);
          return it != log->batches.end() && it->second.crc == crc;
        };
        for (const auto& [off, mk] : pt->second.markers)
          if (holds(off, mk.second)) (mk.first.commit ? row.commit_markers : row.abort_markers).push_back(off);
        for (const auto& [base, a] : pt->second.aborted)
          if (holds(base, a.second)) {
            if (!row.aborted.empty() && row.aborted.back().end == base)
              row.aborted.back().end = a.first;
            else
              row.aborted.push_back({base, a.first, 0});
          }
      }
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
  for (const auto& [key, p] : model_.partitions()) {
    if (!p.has_leader_record) continue;
    const bool offline = p.written.leader < 0;
    const int isr_size = static_cast<int>(p.written.isr.size());
    // The same replica list the partition view shows.
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
  for (const auto& [id, n] : model_.nodes()) {
    if (node_kind_of(id) != NodeKind::kBroker) continue;
    h.brokers_total++;
    if (model_.alive(id)) h.brokers_alive++;
  }
  h.active_controllers = model_.controller() >= 0 && model_.alive(model_.controller()) ? 1 : 0;
  return h;
}

std::map<std::string, int64_t> ModelBuilder::group_lags() const {
  std::map<std::string, int64_t> out;
  for (const auto& [name, g] : model_.groups()) {
    int64_t lag = 0;
    for (const auto& [tp, committed] : g.committed) {
      const auto* view = model_.partition(tp);
      const auto* log = view && view->acting.leader >= 0 ? model_.replica(view->acting.leader, tp) : nullptr;
      if (log) lag += std::max<int64_t>(0, log->hw - committed);
    }
    out[name] = lag;
  }
  return out;
}

DashboardModel ModelBuilder::snapshot(Time now, Duration traffic_window) const {
  DashboardModel m;
  m.now = now;
  m.controller = model_.controller();
  m.controller_epoch = model_.controller_epoch();
  m.health = health();
  m.topic_configs = model_.topic_configs();
  m.zk = zk_model();
  for (const auto& [id, t] : txns_) {
    m.transactions.push_back(t);
    for (auto& c : m.transactions.back().clients) {
      c.fenced = c.outcome == "PRODUCER_FENCED" || c.outcome == "INVALID_PRODUCER_EPOCH";
      for (const auto& other : t.clients)
        c.fenced |= other.client != c.client && other.producer_id == c.producer_id && other.epoch > c.epoch;
    }
  }

  std::map<int32_t, size_t> index;
  for (const auto& [id, n] : model_.nodes()) {
    NodeModel nm;
    nm.id = id;
    nm.name = n.name.empty() ? std::string(node_kind_name(node_kind_of(id))) + "-" + std::to_string(id) : n.name;
    nm.kind = node_kind_of(id);
    nm.status = n.status;
    nm.controller = id == model_.controller();
    nm.registered = n.registered;
    nm.incarnation = n.incarnation;
    index[id] = m.nodes.size();
    m.nodes.push_back(std::move(nm));
  }
  for (const auto& [from, to] : model_.cut_links()) {
    if (index.count(from)) m.nodes[index[from]].cut_links++;
    if (index.count(to)) m.nodes[index[to]].cut_links++;
  }
  const int others = static_cast<int>(m.nodes.size()) - 1;
  for (auto& n : m.nodes) n.isolated = others > 0 && n.cut_links >= 2 * others;

  for (const auto& [key, p] : model_.partitions()) {
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
  for (const auto& [from, to] : model_.cut_links()) {
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

  for (const auto& [name, g] : model_.groups()) {
    GroupModel gm;
    gm.group = name;
    gm.state = g.state;
    gm.generation = g.generation;
    gm.coordinator = g.coordinator;
    gm.consumed = g.consumed;
    for (const auto& [id, member] : g.members) {
      GroupMemberModel mm;
      mm.member_id = member.member_id;
      mm.client = member.client;
      mm.client_name = member.client_name;
      for (const PartitionName& tp : member.assignment) mm.assignment.push_back(tp.str());
      gm.members.push_back(std::move(mm));
    }
    std::set<sim::PartitionKey> tps;
    for (const auto& [tp, off] : g.committed) tps.insert(tp);
    for (const auto& [tp, owner] : g.owners) tps.insert(tp);
    for (const auto& tp : tps) {
      GroupOffsetModel o;
      o.topic = tp.first;
      o.partition = tp.second;
      auto c = g.committed.find(tp);
      if (c != g.committed.end()) o.committed = c->second;
      const auto* view = model_.partition(tp);
      const auto* log = view && view->acting.leader >= 0 ? model_.replica(view->acting.leader, tp) : nullptr;
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
  zk_group_models(m);
  // A consumer without a group (a zk group member's own Consumer, a plain assign) names group "":
  // that is no group to show unless someone joined it.
  std::erase_if(m.groups, [](const GroupModel& g) { return g.group.empty() && g.members.empty(); });
  return m;
}

}  // namespace gregor::gui
