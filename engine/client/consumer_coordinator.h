// ConsumerCoordinator: the client side of the classic group protocol (the Java client's
// AbstractCoordinator and ConsumerCoordinator), owned by a Consumer.
//
// It finds the group's coordinator (FindCoordinator to any broker), joins (JoinGroup, with
// MEMBER_ID_REQUIRED handled), runs the selected assignor when it is the leader, syncs
// (SyncGroup), heartbeats every heartbeat.interval.ms while stable, commits offsets and reads
// committed ones. As in the Java client, joins happen only from poll(): a rebalance signalled by a
// heartbeat (REBALANCE_IN_PROGRESS) is acted on at the next poll, so an application finishes (and
// commits) what it is processing before it gives partitions up. If poll() is not called within
// max.poll.interval.ms the member leaves the group (LeaveGroup) and rejoins at its next poll.
//
// Eager assignors (range, roundrobin): every owned partition is revoked before rejoining.
// cooperative-sticky: partitions are kept through the rebalance; only those the new assignment
// lacks are revoked after the sync, and then the member rejoins once more so they can be handed
// over (KIP-429). When the generation is lost (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID) the
// partitions are "lost": dropped without a chance to commit.
//
// Trace events (node = the consumer): consumer_coordinator {group, coordinator},
// consumer_join {group, member, generation, leader, protocol}, consumer_assignment {group, member,
// generation, protocol, partitions, added, revoked}, consumer_revoke {group, member, generation,
// partitions, reason}, commit {group, member, generation, topic, partition, offset},
// commit_failed {group, member, generation, error}, consumer_group_error {group, error, api}.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/topic_partition.h"
#include "engine/client/assignors.h"
#include "engine/client/consumer_config.h"
#include "engine/client/metadata_manager.h"
#include "engine/protocol/network_client.h"
#include "engine/protocol/join_group.h"
#include "engine/protocol/sync_group.h"

namespace gregor::client {

using OffsetMap = std::map<TopicPartition, int64_t>;

class ConsumerCoordinator {
 public:
  struct Listener {
    // Partitions given up with a chance to commit them first (eager: before rejoining;
    // cooperative: those the new assignment lacks).
    std::function<void(const std::vector<TopicPartition>&)> on_revoked;
    std::function<void(const std::vector<TopicPartition>&)> on_assigned;
    // Partitions gone with the generation (they may already belong to someone else).
    std::function<void(const std::vector<TopicPartition>&)> on_lost;
    // The coordinator wants poll() to be called (a rejoin is due, a backoff ended).
    std::function<void()> wakeup;
  };
  enum class State { kUnjoined, kJoining, kSyncing, kStable };

  ConsumerCoordinator(Runtime& rt, const ConsumerConfig& config, NetworkClient& net, MetadataManager& metadata,
                      Listener listener);
  ~ConsumerCoordinator();

  void subscribe(std::vector<std::string> topics);
  // Called from Consumer::poll: finds the coordinator and (re)joins when needed.
  void poll();
  // Commits offsets (the next offset to read, per partition) for the current generation, retrying
  // coordinator errors until default.api.timeout.ms. Fails at once with REBALANCE_IN_PROGRESS when
  // the member is not stable. done(NONE) means the coordinator acknowledged every partition.
  void commit(const OffsetMap& offsets, std::function<void(protocol::ErrorCode)> done);
  // commitAsync: one OffsetCommit, never retried (as the Java client: a retried asynchronous commit
  // could land after a later one and move the committed offset back). A coordinator error marks
  // the coordinator unknown; done gets the error.
  void commit_async(const OffsetMap& offsets, std::function<void(protocol::ErrorCode)> done);
  // The committed offsets of these partitions (-1: none). done(error, {}) when the coordinator
  // could not answer; the caller retries.
  void fetch_committed(const std::vector<TopicPartition>& partitions,
                       std::function<void(protocol::ErrorCode, const OffsetMap&)> done);
  // Leaves the group (LeaveGroup), then done().
  void leave(const std::string& reason, std::function<void()> done);

  State state() const { return state_; }
  bool stable() const { return state_ == State::kStable; }
  int32_t generation() const { return generation_; }
  const std::string& member_id() const { return member_id_; }
  const std::string& protocol_name() const { return protocol_name_; }
  std::optional<int32_t> coordinator() const { return coordinator_; }
  const std::set<TopicPartition>& owned() const { return owned_; }
  const std::vector<std::string>& subscription() const { return topics_; }
  Time last_poll() const { return last_poll_; }

 private:
  void find_coordinator();
  void coordinator_unknown(const char* why);
  void send_join();
  void on_join_response(ByteReader* body, protocol::ErrorCode transport);
  void send_sync(const std::vector<protocol::SyncGroupRequest::SyncGroupRequestAssignment>& assignments);
  void on_sync_response(ByteReader* body, protocol::ErrorCode transport);
  std::vector<protocol::SyncGroupRequest::SyncGroupRequestAssignment> assign(
      const std::vector<protocol::JoinGroupResponse::JoinGroupResponseMember>& members);
  void heartbeat_tick(uint64_t epoch);
  void on_heartbeat_response(protocol::ErrorCode code);
  void handle_group_error(protocol::ErrorCode code, const char* api);
  void reset_generation(bool reset_member_id, const char* why);
  void request_rejoin(const char* why);
  void revoke(const std::vector<TopicPartition>& partitions, const char* reason);
  void commit_attempt(std::shared_ptr<struct PendingCommit> c);
  void retry_later(std::function<void()> fn);
  std::vector<TopicPartition> owned_list() const { return {owned_.begin(), owned_.end()}; }
  RebalanceProtocol rebalance_protocol() const;

  Runtime& rt_;
  const ConsumerConfig& config_;
  NetworkClient& net_;
  MetadataManager& metadata_;
  Listener listener_;
  std::vector<std::unique_ptr<Assignor>> assignors_;
  std::vector<std::string> topics_;

  std::optional<int32_t> coordinator_;
  bool finding_ = false;
  Time find_after_{0};
  State state_ = State::kUnjoined;
  bool rejoin_needed_ = false;
  Time join_after_{0};
  int32_t generation_ = -1;
  std::string member_id_;
  std::string protocol_name_;
  std::set<TopicPartition> owned_;
  uint64_t heartbeat_epoch_ = 0;
  TimerId heartbeat_timer_;
  bool heartbeat_in_flight_ = false;
  Time last_heartbeat_ok_{0};
  Time last_poll_{0};
  bool left_for_poll_timeout_ = false;
  std::vector<TimerId> timers_;
};

}  // namespace gregor::client
