// ClusterModel: the cluster's state as the trace tells it, and the one place that turns trace
// events into state. The checkers, the scenario targets ("leader of orders-0") and the dashboard
// all read it; because it needs nothing but the events (typed, docs/trace-events.md), the same
// picture comes out of a live simulation and of a recorded trace file.
//
// What it keeps, and from which events:
//   nodes       name, incarnation, status (node_start/restart, node_crash, power_loss, node_pause,
//               node_resume), whether a broker is registered (broker_register,
//               broker_session_expired)
//   links       the cut directions (partition, heal, heal_all)
//   controller  the active controller and its epoch (controller_elected, controller_resigned,
//               zk_delete of /controller)
//   partitions  the assignment (topic_created), the leader, leader epoch and ISR in two views:
//               as the controller wrote them (leader_change, partition_offline, then the leader's
//               isr_change) and as the brokers act (become_leader, isr_change); the newest epoch
//               the controller elected
//   replicas    each broker's log of each partition, batch by batch (log_open, log_append,
//               log_truncate), its HW (hw_advance) and role (become_leader, become_follower)
//   topics      the configs of each topic (zk_create/zk_set of /config/topics/T, whose data is
//               the znode's JSON), deletions (topic_deleted)
//   groups      each consumer group's state, generation, coordinator, members and their
//               assignments, committed offsets and who owns which partition (the coordinator's
//               events and the consumers'), its claimed delivery mode and topics (consumer_start)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/trace_event.h"

namespace gregor::sim {

using PartitionKey = std::pair<std::string, int32_t>;  // topic, partition

// A std::map the model only ever adds to, with a hash index of its entries: a lookup hashes the
// topic name once instead of comparing it at every level of the tree (the checkers look up replicas
// on nearly every event, and __consumer_offsets' names differ only at the end). Keys are a
// PartitionKey or (node, PartitionKey). A copy indexes its own entries.
template <typename Key, typename T>
class IndexedMap {
 public:
  using Map = std::map<Key, T>;
  IndexedMap() = default;
  IndexedMap(const IndexedMap& o) : map_(o.map_) { reindex(); }
  IndexedMap& operator=(const IndexedMap& o) {
    if (this != &o) {
      map_ = o.map_;
      reindex();
    }
    return *this;
  }
  IndexedMap(IndexedMap&&) noexcept = default;  // the entries, and so the index's pointers, move along
  IndexedMap& operator=(IndexedMap&&) noexcept = default;

  const Map& map() const { return map_; }
  Map& map() { return map_; }  // for iterating: entries may change, not be added or removed
  T* find(int32_t node, std::string_view topic, int32_t partition) const {
    auto it = index_.find(View{node, topic, partition});
    return it == index_.end() ? nullptr : it->second;
  }
  T& get(int32_t node, std::string_view topic, int32_t partition) {
    if (T* found = find(node, topic, partition)) return *found;
    Key key = make_key(node, topic, partition);
    T& added = map_[key];
    index_.emplace(Owned{node, std::string(topic), partition}, &added);
    return added;
  }

 private:
  struct View {
    int32_t node;
    std::string_view topic;
    int32_t partition;
  };
  struct Owned {
    int32_t node;
    std::string topic;
    int32_t partition;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(const View& v) const {
      return std::hash<std::string_view>{}(v.topic) ^ (static_cast<size_t>(static_cast<uint32_t>(v.partition)) * 0x9e3779b97f4a7c15ull) ^
             (static_cast<size_t>(static_cast<uint32_t>(v.node)) << 40);
    }
    size_t operator()(const Owned& o) const { return (*this)(View{o.node, o.topic, o.partition}); }
  };
  struct Eq {
    using is_transparent = void;
    static View view(const View& v) { return v; }
    static View view(const Owned& o) { return View{o.node, o.topic, o.partition}; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      const View x = view(a), y = view(b);
      return x.node == y.node && x.partition == y.partition && x.topic == y.topic;
    }
  };
  static Key make_key(int32_t node, std::string_view topic, int32_t partition) {
    if constexpr (std::is_same_v<Key, PartitionKey>) {
      (void)node;
      return PartitionKey{std::string(topic), partition};
    } else {
      return Key{node, PartitionKey{std::string(topic), partition}};
    }
  }
  static View view_of(const Key& k) {
    if constexpr (std::is_same_v<Key, PartitionKey>)
      return View{0, k.first, k.second};
    else
      return View{k.first, k.second.first, k.second.second};
  }
  void reindex() {
    index_.clear();
    for (auto& [k, v] : map_) {
      const View w = view_of(k);
      index_.emplace(Owned{w.node, std::string(w.topic), w.partition}, &v);
    }
  }

  Map map_;
  std::unordered_map<Owned, T*, Hash, Eq> index_;
};

enum class NodeStatus { kAlive, kPaused, kCrashed, kPoweredOff };

struct NodeView {
  std::string name;
  NodeStatus status = NodeStatus::kAlive;
  bool registered = false;   // a broker's /brokers/ids/N exists
  uint64_t incarnation = 0;  // 1 at the first start, +1 per restart
};

struct BatchRecord {
  int64_t last_offset = 0;
  int64_t crc = 0;
  int32_t epoch = 0;
};

struct ReplicaLog {
  std::map<int64_t, BatchRecord> batches;  // by base offset
  int64_t leo = 0;
  int64_t hw = 0;
  int32_t leader_epoch = -1;  // the epoch this replica last accepted (leader or follower)
  bool leader = false;        // the replica believes it leads (a zombie leader can)
};

struct LeaderView {
  int32_t leader = -1;  // -1: none
  int32_t leader_epoch = -1;
  IntList isr;
};

struct PartitionView {
  IntList replicas;  // the assignment, in preference order (empty until topic_created)
  // A reassignment in progress (reassignment_started until completed or cancelled): replicas then
  // lists the target's replicas and the original's; these are the ones being added and removed.
  IntList adding;
  IntList removing;
  // As the controller wrote it (leader_change, partition_offline), with the ISR its leader wrote
  // since (isr_change of that epoch): what Kafka's metadata says.
  LeaderView written;
  bool has_leader_record = false;  // a leader_change or partition_offline was seen
  int32_t leader_changes = 0;      // times the written leader changed to another broker
  int32_t isr_changes = 0;         // isr_change events of the written epoch
  // As the brokers act: the broker that became leader at the highest epoch (become_leader; -1
  // after partition_offline of that epoch or later) and the ISR it keeps.
  LeaderView acting;
  // The newest leader epoch the controller elected (leader_change); a become_leader below it acts
  // on a superseded LeaderAndIsr.
  int32_t elected_epoch = -1;
};

struct GroupMemberView {
  std::string member_id;
  int32_t client = -1;  // the consuming node, once known
  std::string client_name;
  PartitionList assignment;
};

struct GroupView {
  std::string state = "Unknown";  // Empty, PreparingRebalance, CompletingRebalance, Stable, Dead
  int32_t generation = -1;
  int32_t coordinator = -1;
  std::string mode;                // the delivery guarantee its members claim (consumer_start)
  std::set<std::string> topics;    // what its members consume (consumer_start)
  std::map<std::string, GroupMemberView> members;                 // by member id
  std::map<PartitionKey, int64_t> committed;                      // committed offsets
  std::map<PartitionKey, std::pair<std::string, int32_t>> owners;  // partition -> member, client
  int64_t consumed = 0;                                           // consume events
};

class ClusterModel {
 public:
  // Applies one event; returns true when it changed replica or partition state.
  bool apply(const TraceEvent& e);
  // What the last apply returned.
  bool last_changed_partitions() const { return last_changed_partitions_; }

  // Nodes.
  const std::map<int32_t, NodeView>& nodes() const { return nodes_; }
  const NodeView* node(int32_t id) const;
  // Running or paused (a paused process still holds its state and its connections).
  bool alive(int32_t id) const;
  bool down(int32_t id) const { return !alive(id) && nodes_.count(id) > 0; }
  const std::set<std::pair<int32_t, int32_t>>& cut_links() const { return cuts_; }  // directed

  // The broker that won /controller last, until it resigns or /controller is deleted (its zk
  // session ended): the controller as zk has it, -1 for none. It may be down (crashed, its session
  // not yet expired).
  int32_t controller() const { return controller_; }
  int32_t controller_epoch() const { return controller_epoch_; }

  // Partitions and replicas.
  const PartitionView* partition(const PartitionKey& tp) const;
  const std::map<PartitionKey, PartitionView>& partitions() const { return partitions_.map(); }
  const ReplicaLog* replica(int32_t broker, const PartitionKey& tp) const;
  const std::map<std::pair<int32_t, PartitionKey>, ReplicaLog>& replicas() const { return replicas_.map(); }
  // Does the replica hold exactly this batch (same base offset, and the CRC or, for a batch the
  // leader rewrote on append (batch_rewritten), the CRC the producer sent)?
  bool holds(int32_t broker, const PartitionKey& tp, int64_t base_offset, int64_t crc) const;
  // The topic's non-default configs (from its config znode).
  const std::map<std::string, std::map<std::string, std::string>>& topic_configs() const { return topic_configs_; }

  // Consumer groups.
  const std::map<std::string, GroupView>& groups() const { return groups_; }
  const GroupView* group(const std::string& name) const;

 private:
  void on_world(const TraceEvent& e);
  bool on_partition(const TraceEvent& e);
  void on_zk(const TraceEvent& e);
  void on_group(const TraceEvent& e);
  // A broker that stops (crash, clean stop, power loss) loses what its process held: none of its
  // replicas leads until a become_leader of a later incarnation; the log on disk stays.
  void forget_roles(int32_t node);
  ReplicaLog& replica_of(int32_t broker, const std::string& topic, int32_t partition);
  PartitionView& partition_of(const std::string& topic, int32_t partition);

  bool last_changed_partitions_ = false;
  std::map<int32_t, NodeView> nodes_;
  std::set<std::pair<int32_t, int32_t>> cuts_;
  int32_t controller_ = -1;
  int32_t controller_epoch_ = 0;
  IndexedMap<PartitionKey, PartitionView> partitions_;
  IndexedMap<std::pair<int32_t, PartitionKey>, ReplicaLog> replicas_;
  std::map<std::string, std::map<std::string, std::string>> topic_configs_;
  std::map<std::string, GroupView> groups_;
  // (partition, stored CRC) -> the CRCs of the produced batches a leader stored as it (batch_rewritten).
  std::map<std::pair<PartitionKey, int64_t>, std::set<int64_t>> produced_crcs_;
};

// "orders-0"
std::string partition_text(const PartitionKey& tp);

}  // namespace gregor::sim
