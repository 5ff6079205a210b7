// ModelBuilder: folds trace events, in emission order, into the state the dashboard shows, and
// takes DashboardModel snapshots of it. The cluster's state comes from sim::ClusterModel, the
// one the checkers and the scenario targets use (sim/check/cluster_model.h: nodes, links, the
// controller, partitions, replicas' logs, topic configs, consumer groups); this class adds only
// what the dashboard draws beyond it: messages as moving dots, Kafka's broker metrics as
// counters, each follower's "last caught up" time, a cache of the logs merged by epoch, and the
// ZooKeeper view (the znode tree, zk sessions and zk activity from the zk_* events of one zk
// server: zk_node after a recovery, zk_create/zk_set/zk_delete, zk_session_*, zk_watch_fire,
// zk_refused; sessions tied to their nodes by the clients' zk_client_state). It reads nothing but
// events (docs/trace-events.md), so a live run and a recorded trace give the same pictures.
//
// A follower's "last caught up" time follows Kafka's rule (Partition.scala): the last time its LEO
// reached the leader's LEO. The builder is a value: copies are checkpoints for seeking.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/broker/topic_config.h"
#include "engine/core/trace_event.h"
#include "gui/dashboard_model.h"
#include "sim/check/cluster_model.h"

namespace gregor::gui {

// Cluster-wide settings that events do not carry (broker configs); topic overrides win over them.
struct ModelDefaults {
  int32_t min_insync_replicas = 1;
  bool unclean_leader_election = false;
  int64_t replica_lag_time_max_ms = 30000;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(ModelDefaults defaults = {}) : defaults_(defaults) {}

  void apply(const TraceEvent& e);
  Time last_time() const { return last_time_; }
  uint64_t applied() const { return applied_; }
  const ModelDefaults& defaults() const { return defaults_; }
  void set_defaults(ModelDefaults d) { defaults_ = d; }
  const sim::ClusterModel& cluster() const { return model_; }

  // The state at `now` (the time of the last applied event or later). Messages of the last
  // `traffic_window` are drawn as dots; the caller picks the window to suit the playback speed.
  DashboardModel snapshot(Time now, Duration traffic_window) const;
  // Only the cluster-wide counts (cheap; for time series).
  HealthModel health() const;
  // Total lag of each consumer group (cheap; for time series).
  std::map<std::string, int64_t> group_lags() const;

 private:
  struct Traffic {
    Time at;
    int32_t from, to;
    TrafficKind kind;
  };

  void on_zk_tree(const TraceEvent& e);
  void on_zk_ensemble(const TraceEvent& e);
  void zk_role(int32_t server, Time at, const std::string& role, int64_t epoch);
  void on_txn(const TraceEvent& e);
  void on_zk_group(const TraceEvent& e);
  void zk_groups_after_crash(Time at);
  std::vector<ZkServerModel> ensemble_model() const;
  void zk_activity(const TraceEvent& e, const char* what, const std::string& path, std::string detail, int64_t session);
  int32_t session_node(int64_t session) const;
  ZkModel zk_model() const;
  void before_append(const TraceEvent& e, const ev::LogAppend& a);
  void after_append(const TraceEvent& e, const ev::LogAppend& a);
  void add_traffic(Time at, int32_t from, int32_t to, TrafficKind kind);
  broker::TopicConfig topic_config(const std::string& topic) const;
  int32_t min_isr(const std::string& topic) const;
  bool unclean(const std::string& topic) const;
  int32_t any_zk() const;
  PartitionModel partition_model(const sim::PartitionKey& key, const sim::PartitionView& p, Time now) const;
  // A replica's log merged into runs of one leader epoch. Cached and extended as the log grows:
  // merging every batch of every replica on every frame was most of the dashboard's CPU time.
  const std::vector<EpochRun>& epoch_runs(int32_t broker, const sim::PartitionKey& key, const sim::ReplicaLog& log) const;
  void forget_runs(int32_t broker, const sim::PartitionKey& key, int64_t from_offset);
  std::vector<int32_t> replica_list(const sim::PartitionKey& key, const sim::PartitionView& p) const;

  ModelDefaults defaults_;
  sim::ClusterModel model_;
  std::map<std::pair<int32_t, sim::PartitionKey>, Time> caught_up_;  // follower -> last caught up
  struct RunCache {
    int64_t first_base = -1;  // the log's first batch when the runs were made
    int64_t end = 0;          // the runs cover the batches below this offset
    std::vector<EpochRun> runs;
  };
  // Valid while the log only grew at its end; dropped when an event shrinks or rewrites it.
  mutable std::map<std::pair<int32_t, sim::PartitionKey>, RunCache> runs_;
  // The coordination service (ZkModel): the tree of one server, its sessions, recent activity.
  static constexpr size_t kZkActivityMax = 400;
  int32_t zk_server_ = -1;
  std::map<std::string, ZnodeModel> znodes_;
  std::map<int64_t, ZkSessionModel> zk_sessions_;
  std::map<int64_t, int32_t> session_nodes_;  // session -> the client node that holds it
  std::deque<ZkActivityModel> zk_activity_;
  int64_t zk_last_zxid_ = 0, zk_watches_fired_ = 0, zk_refused_ = 0;
  // The replicated ensemble (ZkModel::ensemble): each server's role, epoch, zxid and role history.
  std::map<int32_t, ZkServerModel> zk_servers_;
  struct ZkClientConn {
    std::string state;
    int32_t server = -1;
  };
  std::map<int32_t, ZkClientConn> zk_clients_;  // client node -> its session's state and server
  int64_t zk_commit_zxid_ = 0;
  std::vector<int32_t> zk_commit_acks_;
  // ZooKeeper-coordinated groups (GroupModel::zk), by group name: what their znodes under
  // /consumers/<group> hold (from the tree's server), and what each member did.
  static constexpr size_t kZkRebalancesMax = 200;
  struct ZkMemberState {
    int32_t client = -1;
    int64_t session = 0;      // the session of its latest ids/<member>
    bool registered = false;
    bool rebalancing = false;
    std::map<sim::PartitionKey, int64_t> claiming;  // consumer_position since its rejoin: its share
    std::map<sim::PartitionKey, int64_t> believed;  // partition -> consumed position (-1: none yet)
    int64_t rebalances = 0, failed = 0, consumed = 0;
    int32_t last_attempts = 0;
  };
  struct ZkPartitionState {
    std::string owner;          // owners/<t>/<p>'s data
    bool owned = false;         // the owner znode exists
    int64_t committed = -1;     // offsets/<t>/<p>
    int64_t max_processed = -1; // the highest offset the group processed
    int64_t duplicates = 0;
  };
  struct ZkGroupState {
    std::map<std::string, ZkMemberState> members;
    std::map<sim::PartitionKey, ZkPartitionState> partitions;
    std::deque<ZkRebalanceModel> rebalances;
    int64_t rebalance_count = 0, member_rebalances = 0, retries = 0, conflicts = 0, failed = 0;
    int64_t watches_fired = 0, duplicates = 0;
    int64_t pending_watches = 0;  // fired while no rebalance was open: they start the next one
  };
  static void zk_group_maybe_close(ZkGroupState& g, Time at);
  void zk_group_models(DashboardModel& m) const;
  std::map<std::string, ZkGroupState> zk_groups_;
  // Transactions: the coordinator's view per transactional.id, which client runs which producer
  // id, and per partition the transactions open (their first offset holds the LSO), the markers
  // and the aborted data batches (base offset -> CRC, the leader's, to find them in every replica).
  std::map<std::string, TransactionModel> txns_;
  struct TxnProducer {
    std::string transactional_id;
    int64_t producer_id = -1;
  };
  std::map<int32_t, TxnProducer> txn_clients_;  // client node -> its transactional producer
  struct OpenTxn {
    int64_t first = 0;
    std::vector<int64_t> batches;  // base offsets of its data batches (from produce_ack)
  };
  struct PartitionTxns {
    std::map<int64_t, OpenTxn> open;           // producer id -> the open transaction
    std::map<int64_t, int64_t> last_marker;    // producer id -> the offset of its latest marker
    std::map<int64_t, std::pair<TxnMarkerModel, int64_t>> markers;  // offset -> marker, CRC
    std::map<int64_t, std::pair<int64_t, int64_t>> aborted;  // base offset -> (last offset + 1, CRC)
  };
  std::map<sim::PartitionKey, PartitionTxns> part_txns_;
  std::deque<Traffic> traffic_;
  HealthModel counters_;  // the cumulative counters (the counts are computed in snapshots)
  Time last_time_{0};
  uint64_t applied_ = 0;
};

}  // namespace gregor::gui
