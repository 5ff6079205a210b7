// Controller: the one broker that won the ephemeral /controller znode (ZooKeeper-era Kafka's
// KafkaController). It watches broker registrations and topics, elects partition leaders, writes
// partition state with conditional writes fenced by the version of /controller_epoch, and tells
// brokers with LeaderAndIsr, UpdateMetadata and StopReplica (engine/broker/controller_channel.h).
//
// Its state is one ControllerContext (controller_context.h); its events run one at a time through
// a ControllerEventQueue, which also drops every answer that arrives after the controller resigned;
// the elections themselves are pure rules (leader_election.h): offline partitions, controlled
// shutdown, preferred leaders. Every leader change bumps the leader epoch. When a broker dies, it is
// removed from the ISR of partitions it followed (the last ISR member stays, as Kafka keeps it, so
// that it can come back as leader).
//
// Trace events (node = the controller): controller_elected, controller_resigned, leader_change
// {topic, partition, leader, leader_epoch, isr, reason}, partition_offline, broker_change
// {live}, topic_created, partitions_added, topic_deleted, reassignment_started,
// reassignment_completed, reassignment_cancelled.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/broker/broker_config.h"
#include "engine/broker/controller_channel.h"
#include "engine/broker/controller_context.h"
#include "engine/broker/controller_event_queue.h"
#include "engine/broker/timed_waits.h"
#include "engine/broker/zk_data.h"
#include "engine/coord/zk_client.h"
#include "engine/core/topic_partition.h"

namespace gregor::broker {

class Controller {
 public:
  Controller(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk, protocol::NetworkClient& net);
  ~Controller();

  // Tries to become the controller (create the ephemeral /controller). Called at startup, when
  // /controller disappears, and after a new zk session.
  void elect();
  bool is_active() const { return active_; }
  // This broker's epoch (KIP-380): the czxid of its /brokers/ids/N registration, -1 until it has
  // registered. A new registration (after a session expiry) gives a new, higher epoch.
  int64_t broker_epoch() const { return broker_epoch_; }
  void set_broker_epoch(int64_t epoch);
  // A Kafka broker processes no request before it has registered (KafkaServer enables request
  // processing last): a controller request naming a broker epoch that arrives earlier (one the
  // controller sent to this broker's previous incarnation, whose session has not expired yet) waits,
  // and is judged against the new epoch once registered. True when deferred: `retry` runs then.
  bool defer_until_registered(int64_t epoch_in_request, const char* api, std::function<void()> retry);
  // Kafka's isBrokerEpochStale: a controller request naming an older registration of this broker
  // than the current one is refused (STALE_BROKER_EPOCH). -1 (a request version without the field,
  // or a controller before KIP-380) is accepted, as Kafka does; an epoch above ours is too (the
  // controller may see a new registration before the broker reads its create's answer).
  bool is_broker_epoch_stale(int64_t epoch_in_request) const {
    return epoch_in_request != -1 && epoch_in_request < broker_epoch_;
  }
  int32_t epoch() const { return context_.epoch; }
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
  void controlled_shutdown(int32_t id, int64_t broker_epoch,
                           std::function<void(protocol::ErrorCode, std::vector<TopicPartition>)> done);
  // Preferred leader election for the given partitions (all when empty).
  void preferred_leader_election(std::vector<TopicPartition> partitions);
  // ElectLeaders (kafka-leader-election): a preferred or an unclean election for the given
  // partitions (all when nullopt), with one result per partition as Kafka gives them: NONE (elected),
  // ELECTION_NOT_NEEDED (the preferred replica leads already; for unclean, a live leader exists),
  // PREFERRED_LEADER_NOT_AVAILABLE (the preferred replica is not live or not in sync),
  // ELIGIBLE_LEADERS_NOT_AVAILABLE (unclean: no live replica), UNKNOWN_TOPIC_OR_PARTITION. An
  // unclean election ignores the topic's unclean.leader.election.enable, as Kafka's does.
  struct ElectionResult {
    protocol::ErrorCode error = protocol::ErrorCode::NONE;
    std::string message;
  };
  using ElectionResults = std::map<TopicPartition, ElectionResult>;
  void elect_leaders(std::optional<std::vector<TopicPartition>> partitions, bool unclean,
                     std::function<void(protocol::ErrorCode, ElectionResults)> done);

  // AlterPartitionReassignments (KIP-455, kafka-reassign-partitions): for each partition, its target
  // replicas, or nullopt to cancel the reassignment in progress. One result per partition: NONE
  // (started, or cancelled), INVALID_REPLICA_ASSIGNMENT (empty, duplicates, a negative id, an added
  // replica on a broker that is not live), UNKNOWN_TOPIC_OR_PARTITION, NO_REASSIGNMENT_IN_PROGRESS
  // (a cancel with none). The steps are Kafka's ZooKeeper-mode ones
  // (controller_reassignment.cpp); `done` runs once each partition's move has been started, or
  // NOT_CONTROLLER on a broker that is not the controller.
  using PartitionResults = std::map<TopicPartition, ElectionResult>;
  using ReassignmentTargets = std::map<TopicPartition, std::optional<std::vector<int32_t>>>;
  void alter_partition_reassignments(ReassignmentTargets targets,
                                     std::function<void(protocol::ErrorCode, PartitionResults)> done);
  // ListPartitionReassignments: the partitions under reassignment among `partitions` (all when
  // nullopt), with their replicas (all of them), adding and removing replicas.
  struct OngoingReassignment {
    std::vector<int32_t> replicas;
    std::vector<int32_t> adding;
    std::vector<int32_t> removing;
  };
  using OngoingReassignments = std::map<TopicPartition, OngoingReassignment>;
  void list_partition_reassignments(std::optional<std::vector<TopicPartition>> partitions,
                                    std::function<void(protocol::ErrorCode, OngoingReassignments)> done);

  // Calls done(false) once every live broker has applied the newest UpdateMetadata this controller
  // has sent so far (and with it, through each broker's ordered queue, every LeaderAndIsr before
  // it), or done(true) when `timeout` passes first or the controller resigns. CreateTopics answers
  // through it, so that any broker a client asks next knows the new topic and its leaders.
  void when_metadata_propagated(Duration timeout, std::function<void(bool timed_out)> done);

  const std::map<TopicPartition, ControllerPartition>& partitions() const { return context_.partitions; }
  const std::map<int32_t, BrokerRegistration>& live_brokers() const { return context_.live; }

 private:
  using Done = ControllerEventQueue::Done;
  using Change = election::Change;
  struct PartitionChange {
    TopicPartition tp;
    Change change;
  };
  // Broker id -> (registration, czxid), as read from /brokers/ids.
  using Registrations = std::map<int32_t, std::pair<BrokerRegistration, int64_t>>;

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
  void schedule_rebalance_check();
  // Events.
  void on_broker_change(Done done);
  void read_registrations(std::vector<std::string> ids, std::function<void(Registrations)> then);
  void apply_broker_change(const Registrations& fresh, Done done);
  void on_topic_change(Done done);
  void read_topic(const std::string& topic, std::shared_ptr<std::vector<TopicPartition>> new_partitions, Done next);
  void on_partition_modification(const std::string& topic, Done done);
  void on_topic_deletion(Done done);
  void delete_topic(const std::string& topic, Done next);
  void on_isr_change_notification(Done done);
  void check_preferred_leaders(Done done);

  // Partition state changes.
  // Elects leaders for partitions without a live leader (and new partitions).
  std::vector<PartitionChange> elect_offline(const char* reason) const;
  // Writes each change conditionally (fenced by the controller epoch version), then sends
  // LeaderAndIsr to the replicas and UpdateMetadata to every live broker.
  void write_changes(std::vector<PartitionChange> changes, Done done);
  void write_change(const PartitionChange& c, std::shared_ptr<std::set<TopicPartition>> written,
                    std::shared_ptr<std::vector<TopicPartition>> retry, Done next);
  void send_leader_and_isr(const std::set<TopicPartition>& tps, const std::set<int32_t>& to_brokers);
  void send_update_metadata(const std::set<int32_t>& to_brokers);
  // The epoch of a live broker's registration (its czxid), -1 for one not live.
  int64_t broker_epoch_of(int32_t broker) const;
  // A broker's endpoint on the inter-broker listener (its first one if it has none of that name).
  const ListenerEndpoint* inter_broker_endpoint(const BrokerRegistration& reg) const;
  // Where the controller sends its requests: the control.plane.listener.name endpoint when the
  // broker registered one, the inter-broker one otherwise (Kafka's ControllerChannelManager).
  const ListenerEndpoint* control_plane_endpoint(const BrokerRegistration& reg) const;
  void send_stop_replica(int32_t broker, const std::vector<TopicPartition>& tps, bool delete_partitions);
  void read_partition_states(std::vector<TopicPartition> tps, Done done);
  // A broker answered UpdateMetadata number `seq`, or left: the propagation waits that hold finish.
  void on_metadata_acknowledged(int32_t broker, uint64_t seq);
  void emit_leader_change(const TopicPartition& tp, const LeaderIsrState& s, const char* reason);
  // Reassignment steps (controller_reassignment.cpp).
  // Kafka's onPartitionReassignment, first half: RS = TRS + ORS in the znode with adding/removing,
  // a new leader epoch, LeaderAndIsr to every replica; then completes at once if it can.
  void start_reassignment(const TopicPartition& tp, std::vector<int32_t> target, Done done);
  // The second half, once every target replica is in the ISR: the leader moves if it is being
  // removed, the removed replicas leave the ISR and are deleted, the znode holds the target alone.
  // A cancellation finishes the same way towards the original replicas.
  void finish_reassignment(const TopicPartition& tp, std::vector<int32_t> final_replicas, bool cancelled, Done done);
  // Finishes each of these partitions whose target replicas are all in its ISR.
  void check_reassignments(std::vector<TopicPartition> tps, Done done);
  std::vector<TopicPartition> reassigning_partitions() const;
  // One conditional multi: the topic's assignment znode (the partition's replicas, adding and
  // removing as the context holds them) and the partition's state. kWritten: the context holds
  // `state`; kStale: the state's version moved (read it again); kGone: the topic went.
  enum class WriteOutcome { kWritten, kStale, kGone };
  void write_assignment_and_state(const TopicPartition& tp, const LeaderIsrState& state, std::function<void(WriteOutcome)> done);

  Runtime& rt_;
  const BrokerConfig& config_;
  coord::ZkClient& raw_zk_;  // for the election of /controller only, which happens between terms
  ControllerEventQueue queue_;
  ControllerZk zk_;
  ControllerChannel channel_;
  bool active_ = false;
  // Set once a new controller has read the brokers, topics and partition states: before that it
  // sends nothing, so no broker is told a cluster without its topics (Kafka's onControllerFailover
  // initializes the whole context first). A broker's metadata cache takes an UpdateMetadata whole.
  bool context_loaded_ = false;
  int64_t broker_epoch_ = -1;
  std::vector<std::function<void()>> waiting_for_registration_;
  bool electing_ = false;
  ControllerContext context_;
  TimerId rebalance_timer_{0};
  // UpdateMetadata propagation: the number of the newest one sent, the newest each broker answered,
  // and the CreateTopics requests waiting for every live broker to have answered a given one.
  uint64_t metadata_sent_seq_ = 0;
  std::map<int32_t, uint64_t> metadata_acked_seq_;
  TimedWaits propagation_waits_;
  // The newest UpdateMetadata every live broker answered.
  uint64_t metadata_acked_everywhere() const;
};

}  // namespace gregor::broker
