// ModelBuilder: folds trace events, in emission order, into the state the dashboard shows, and
// takes DashboardModel snapshots of it. It reads nothing but events (docs/trace-events.md), so a
// live run and a recorded trace give the same pictures; the replica logs come from
// sim::ReplicaModel, the one the checkers use.
//
// Sources, by event: node states from the world's lifecycle events (node_start, node_crash,
// power_loss, node_pause, ...); cut links from partition/heal/heal_all; the controller from
// controller_elected/controller_resigned; replica assignments (preference order) and topic configs
// from the zk_create/zk_set of /brokers/topics/T and /config/topics/T; leader, leader epoch and ISR
// as the controller and leaders wrote them (leader_change, partition_offline, isr_change); LEO, HW
// and log contents per replica from log_open/log_append/log_truncate/hw_advance; the znode tree,
// zk sessions and zk activity from the zk_* events of one zk server (zk_node after a recovery,
// zk_create/zk_set/zk_delete, zk_session_*, zk_watch_fire, zk_refused), sessions tied to their
// nodes by the clients' zk_client_state.
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
#include "sim/check/replica_model.h"

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
  const sim::ReplicaModel& replicas() const { return replicas_; }

  // The state at `now` (the time of the last applied event or later). Messages of the last
  // `traffic_window` are drawn as dots; the caller picks the window to suit the playback speed.
  DashboardModel snapshot(Time now, Duration traffic_window) const;
  // Only the cluster-wide counts (cheap; for time series).
  HealthModel health() const;
  // Total lag of each consumer group (cheap; for time series).
  std::map<std::string, int64_t> group_lags() const;

 private:
  struct NodeState {
    std::string name;
    NodeStatus status = NodeStatus::kAlive;
    bool registered = false;
    uint64_t incarnation = 0;
  };
  struct PartitionState {
    std::vector<int32_t> replicas;  // preference order, from the topic's assignment znode
    int32_t leader = -1;
    int32_t leader_epoch = -1;
    std::vector<int32_t> isr;
    int32_t leader_changes = 0, isr_changes = 0;
    bool has_leader_record = false;  // a leader_change or partition_offline was seen
  };
  struct Traffic {
    Time at;
    int32_t from, to;
    TrafficKind kind;
  };
  struct GroupState {
    std::string state = "Unknown";
    int32_t generation = -1;
    int32_t coordinator = -1;
    std::map<std::string, GroupMemberModel> members;          // by member id
    std::map<sim::PartitionKey, int64_t> committed;           // committed offsets
    std::map<sim::PartitionKey, std::pair<std::string, int32_t>> owners;  // member, client
    int64_t consumed = 0;
  };

  void on_world(const TraceEvent& e);
  void on_zk(const TraceEvent& e);
  void on_zk_tree(const TraceEvent& e);
  void zk_activity(const TraceEvent& e, const char* what, const std::string& path, std::string detail, int64_t session);
  int32_t session_node(int64_t session) const;
  ZkModel zk_model() const;
  void on_group(const TraceEvent& e);
  void before_append(const TraceEvent& e);
  void after_append(const TraceEvent& e);
  void add_traffic(Time at, int32_t from, int32_t to, TrafficKind kind);
  bool alive(int32_t node) const;
  broker::TopicConfig topic_config(const std::string& topic) const;
  int32_t min_isr(const std::string& topic) const;
  bool unclean(const std::string& topic) const;
  int32_t any_zk() const;
  PartitionModel partition_model(const sim::PartitionKey& key, const PartitionState& p, Time now) const;
  // A replica's log merged into runs of one leader epoch. Cached and extended as the log grows:
  // merging every batch of every replica on every frame was most of the dashboard's CPU time.
  const std::vector<EpochRun>& epoch_runs(int32_t broker, const sim::PartitionKey& key, const sim::ReplicaLog& log) const;
  void forget_runs(int32_t broker, const sim::PartitionKey& key, int64_t from_offset);
  std::vector<int32_t> replica_list(const sim::PartitionKey& key, const PartitionState& p) const;

  ModelDefaults defaults_;
  sim::ReplicaModel replicas_;
  std::map<int32_t, NodeState> nodes_;
  std::set<std::pair<int32_t, int32_t>> cuts_;  // directed
  int32_t controller_ = -1;
  int32_t controller_epoch_ = 0;
  std::map<sim::PartitionKey, PartitionState> partitions_;
  std::map<std::string, std::map<std::string, std::string>> topic_configs_;
  std::map<std::pair<int32_t, sim::PartitionKey>, Time> caught_up_;  // follower -> last caught up
  std::map<std::string, GroupState> groups_;
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
  std::deque<Traffic> traffic_;
  HealthModel counters_;  // the cumulative counters (the counts are computed in snapshots)
  Time last_time_{0};
  uint64_t applied_ = 0;
};

}  // namespace gregor::gui
