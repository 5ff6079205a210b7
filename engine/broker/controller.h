// Controller: the one broker that won the ephemeral /controller znode (ZooKeeper-era Kafka's
// KafkaController). It watches broker registrations and topics, elects partition leaders, writes
// partition state with conditional writes fenced by the version of /controller_epoch, and tells
// brokers with LeaderAndIsr, UpdateMetadata and StopReplica.
//
// Events are processed one at a time, in arrival order, as Kafka's controller event queue does:
// each event may need several round trips to zk, and the next event starts only when the previous
// one is done, so no two events interleave their reads and writes.
//
// Election (PartitionStateMachine): the first replica in assignment order that is alive and in the
// ISR; if none and unclean.leader.election.enable, the first live replica (ISR := [it]); else the
// partition goes offline (leader -1). Every leader change bumps the leader epoch. When a broker
// dies, it is removed from the ISR of partitions it followed (the last ISR member stays, as Kafka
// keeps it, so that it can come back as leader).
//
// Trace events (node = the controller): controller_elected, controller_resigned, leader_change
// {topic, partition, leader, leader_epoch, isr, reason}, partition_offline, broker_change
// {live}, topic_created, topic_deleted.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/broker/broker_config.h"
#include "engine/broker/controller_channel.h"
#include "engine/core/topic_partition.h"
#include "engine/broker/zk_data.h"
#include "engine/coord/zk_client.h"

namespace gregor::broker {

struct ControllerPartition {
  std::vector<int32_t> replicas;
  LeaderIsrState state;
  int32_t zk_version = -1;  // -1: no state znode yet
};

class Controller {
 public:
  Controller(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk, protocol::NetworkClient& net);

  // Tries to become the controller (create the ephemeral /controller). Called at startup, when
  // /controller disappears, and after a new zk session.
  void elect();
  bool is_active() const { return active_; }
  int32_t epoch() const { return epoch_; }
  // Forwarded from the broker's zk watch listener.
  void on_watch(const coord::WatchEvent& e);
  // A topic's config changed (the broker's config change listener): later elections use it, and
  // when unclean.leader.election.enable became true the offline partitions of that topic are
  // elected at once from any live replica (Kafka's TopicUncleanLeaderElectionEnable event).
  void on_topic_config(const std::string& topic, const TopicConfig& config);
  // The zk session expired: ephemerals are gone, so this broker is no longer controller.
  void resign(const char* why);

  // ControlledShutdown from broker `id`: moves its leaderships away; reports the partitions it
  // still leads (none when all could move).
  void controlled_shutdown(int32_t id, std::function<void(protocol::ErrorCode, std::vector<TopicPartition>)> done);
  // Preferred leader election for the given partitions (all when empty).
  void preferred_leader_election(std::vector<TopicPartition> partitions);

  const std::map<TopicPartition, ControllerPartition>& partitions() const { return partitions_; }
  const std::map<int32_t, BrokerRegistration>& live_brokers() const { return live_; }

 private:
  using Done = std::function<void()>;
  using Step = std::function<void(Done)>;
  // The event queue: steps run one at a time.
  void enqueue(const char* name, Step step);
  void run_next();

  // Becoming controller.
  // Kafka's registerControllerAndIncrementControllerEpoch: one multi creates /controller and bumps
  // /controller_epoch, conditional on the epoch's version.
  void try_become_controller(int32_t epoch, int32_t epoch_zk_version);
  // Kafka's checkControllerAndEpoch: after NodeExists or BadVersion, who holds /controller? (Our
  // own multi may have gone through although its answer was lost.) Leaves a watch on /controller.
  void check_controller(int32_t new_epoch);
  void retry_elect_later();
  void on_elected(int32_t epoch, int32_t epoch_zk_version, Done done);
  void load_cluster(Done done);
  // Events.
  void on_broker_change(Done done);
  void on_topic_change(Done done);
  void on_topic_deletion(Done done);
  void on_isr_change_notification(Done done);
  void check_preferred_leaders(Done done);

  // Partition state changes.
  struct Change {
    TopicPartition tp;
    LeaderIsrState state;
    const char* reason;
  };
  // Elects leaders for partitions without a live leader (and new partitions).
  std::vector<Change> elect_offline(const std::set<int32_t>& shutting_down, const char* reason);
  // Writes each change conditionally (fenced by the controller epoch version), then sends
  // LeaderAndIsr to the replicas and UpdateMetadata to every live broker.
  void write_changes(std::vector<Change> changes, Done done);
  void send_leader_and_isr(const std::set<TopicPartition>& tps, const std::set<int32_t>& to_brokers);
  void send_update_metadata(const std::set<int32_t>& to_brokers);
  void send_stop_replica(int32_t broker, const std::vector<TopicPartition>& tps, bool delete_partitions);
  std::set<int32_t> live_ids() const;
  void read_partition_states(std::vector<TopicPartition> tps, Done done);
  void emit_leader_change(const TopicPartition& tp, const LeaderIsrState& s, const char* reason);

  Runtime& rt_;
  const BrokerConfig& config_;
  coord::ZkClient& zk_;
  ControllerChannel channel_;
  bool active_ = false;
  bool electing_ = false;
  int32_t epoch_ = 0;
  int32_t epoch_zk_version_ = -1;
  uint64_t generation_ = 0;  // bumped on resign: stale callbacks do nothing
  std::map<int32_t, BrokerRegistration> live_;
  std::map<int32_t, int64_t> broker_czxid_;  // registration identity: a bounced broker has a new one
  std::map<std::string, TopicAssignment> topics_;
  std::map<std::string, TopicConfig> topic_configs_;  // broker defaults + /config/topics/T overrides
  std::map<TopicPartition, ControllerPartition> partitions_;
  std::set<int32_t> shutting_down_;
  std::set<std::string> deleting_;
  std::deque<std::pair<const char*, Step>> queue_;
  bool busy_ = false;
  TimerId rebalance_timer_{0};
};

}  // namespace gregor::broker
