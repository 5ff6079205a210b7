// GroupCoordinator: the broker-side coordinator of consumer groups, as Kafka's classic
// GroupCoordinator and GroupMetadataManager (ZooKeeper era) do it.
//
// Where groups live. Every group belongs to one partition of the internal topic __consumer_offsets
// (engine/group/offsets_topic.h); the broker leading that partition is the group's coordinator.
// The topic is created on the first FindCoordinator, with offsets.topic.num.partitions partitions
// and a replication factor of min(offsets.topic.replication.factor, live brokers). Offsets and
// group metadata are records appended to that partition with acks=all semantics: a commit or a
// group store is acknowledged only once the partition's high watermark covers it (or fails with
// the error Kafka maps the append error to). When this broker becomes leader of an offsets
// partition it loads the groups and offsets from the partition's log (COORDINATOR_LOAD_IN_PROGRESS
// meanwhile); when it stops leading it unloads them (NOT_COORDINATOR), so coordinator failover
// keeps committed offsets and the members of stable groups.
//
// The state machine (group_metadata.h): a join moves a group to PreparingRebalance; the rebalance
// completes when every known member has rejoined, or at the rebalance timeout (members that did not
// rejoin are removed); the first rebalance of an empty group waits group.initial.rebalance.delay.ms
// (extended while new members keep arriving, up to the rebalance timeout). Completing bumps the
// generation, elects the leader and answers every JoinGroup (the leader gets all members'
// metadata); the leader's SyncGroup carries the assignments, which are stored and handed out, and
// the group is Stable. Members heartbeat within session.timeout.ms or are removed. Requests with a
// stale generation get ILLEGAL_GENERATION, unknown members UNKNOWN_MEMBER_ID, heartbeats during a
// rebalance REBALANCE_IN_PROGRESS; OffsetCommit is accepted in PreparingRebalance from members of
// the current generation (Kafka's validateOffsetCommit) and refused in CompletingRebalance.
//
// Transactional offsets (group_txn_offsets.cpp): TxnOffsetCommit stores offsets as a transactional
// batch of the producer; they stay pending (OffsetFetch v7+ require_stable: UNSTABLE_OFFSET_COMMIT)
// until complete_txn_offsets reports the producer's marker in that partition, and the loader keeps
// them pending until it reads the marker (a control batch) after them.
//
// Trace events (node = this broker): offsets_load, offsets_unload, member_join, member_leave,
// group_rebalance, group_join_complete, group_stable, group_empty, offset_commit,
// group_store_failed. docs/trace-events.md lists their fields; docs/groups.md explains the design.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/runtime.h"
#include "engine/group/coordinator_host.h"
#include "engine/group/group_config.h"
#include "engine/group/group_metadata.h"
#include "engine/protocol/describe_groups.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/heartbeat.h"
#include "engine/protocol/leave_group.h"
#include "engine/protocol/list_groups.h"
#include "engine/protocol/offset_commit.h"
#include "engine/protocol/offset_delete.h"
#include "engine/protocol/offset_fetch.h"
#include "engine/protocol/txn_offset_commit.h"
#include "engine/record/record.h"

namespace gregor::group {

// Limits and timeouts Kafka configures on the broker (defaults; not yet scenario settings).
inline constexpr int64_t kOffsetCommitTimeoutMs = 5000;      // offsets.commit.timeout.ms
inline constexpr size_t kOffsetMetadataMaxBytes = 4096;      // offset.metadata.max.bytes
inline constexpr int64_t kNewMemberJoinTimeoutMs = 300000;   // GroupCoordinator.NewMemberJoinTimeoutMs
inline constexpr size_t kGroupsPerCoordinatorMax = 100000;   // a bound on memory
inline constexpr size_t kMembersPerGroupMax = 1000;          // group.max.size
// DescribeGroups v3+ authorized operations of a group when nothing is denied (no ACLs): Kafka's
// AclOperation codes READ (3), DELETE (6), DESCRIBE (8) as bits.
inline constexpr int32_t kGroupAuthorizedOperations = (1 << 3) | (1 << 6) | (1 << 8);
// ListGroups v5: the type of every group a ZooKeeper-era coordinator has (KIP-848's "classic").
inline constexpr const char* kClassicGroupType = "classic";

class GroupCoordinator {
 public:
  GroupCoordinator(Runtime& rt, const GroupConfig& config, CoordinatorHost& host);
  ~GroupCoordinator();
  GroupCoordinator(const GroupCoordinator&) = delete;
  GroupCoordinator& operator=(const GroupCoordinator&) = delete;

  // Requests. Each answers through its callback exactly once, at once or later (JoinGroup and
  // SyncGroup wait for the rebalance; commits wait for the offsets partition's high watermark).
  void find_coordinator(const protocol::FindCoordinatorRequest& req, int16_t version,
                        std::function<void(const protocol::FindCoordinatorResponse&)> respond);
  void join_group(const protocol::JoinGroupRequest& req, int16_t version, const std::string& client_id,
                  const std::string& client_host, JoinCallback respond);
  void sync_group(const protocol::SyncGroupRequest& req, SyncCallback respond);
  void heartbeat(const protocol::HeartbeatRequest& req, std::function<void(protocol::ErrorCode)> respond);
  void leave_group(const protocol::LeaveGroupRequest& req, int16_t version,
                   std::function<void(const protocol::LeaveGroupResponse&)> respond);
  void offset_commit(const protocol::OffsetCommitRequest& req,
                     std::function<void(const protocol::OffsetCommitResponse&)> respond);
  protocol::OffsetFetchResponse offset_fetch(const protocol::OffsetFetchRequest& req, int16_t version);
  // TxnOffsetCommit (group_txn_offsets.cpp): the offsets are stored as a transactional batch of the
  // producer and stay pending (OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT for
  // them) until complete_txn_offsets.
  void txn_offset_commit(const protocol::TxnOffsetCommitRequest& req, int16_t version,
                         std::function<void(const protocol::TxnOffsetCommitResponse&)> respond);
  // The transaction marker of a producer reached an offsets partition: its pending offsets in the
  // groups of that partition become committed offsets (committed) or are dropped (aborted).
  void complete_txn_offsets(int32_t offsets_partition, int64_t producer_id, int16_t producer_epoch, bool committed);
  protocol::DescribeGroupsResponse describe_groups(const protocol::DescribeGroupsRequest& req);
  protocol::ListGroupsResponse list_groups(const protocol::ListGroupsRequest& req);
  // DeleteGroups: each group's result (group_deletion.cpp): NONE once its tombstones are stored,
  // GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP (it has members), or the coordinator's errors.
  void delete_groups(const std::vector<std::string>& group_ids,
                     std::function<void(std::vector<std::pair<std::string, protocol::ErrorCode>>)> respond);
  // OffsetDelete: a group's committed offsets of the partitions named go (tombstones);
  // GROUP_SUBSCRIBED_TO_TOPIC for a topic a member of the (non-empty) consumer group subscribes to.
  void offset_delete(const protocol::OffsetDeleteRequest& req,
                     std::function<void(const protocol::OffsetDeleteResponse&)> respond);

  // From the broker: leadership of some partitions changed (LeaderAndIsr, StopReplica): load the
  // offsets partitions this broker now leads, unload those it no longer leads.
  void on_partitions_changed();
  // From the broker: a partition's high watermark or log moved (pending stores may complete).
  void on_partition_progress(const TopicPartition& tp);

  // Views for tests and the dashboard.
  const GroupMetadata* group(const std::string& group_id) const;
  std::vector<std::string> group_ids() const;
  // Offsets partitions this broker coordinates (loaded or loading).
  std::vector<int32_t> owned_partitions() const;
  bool is_loading(int32_t partition) const;
  int32_t offsets_partition_count() const;

 private:
  struct OwnedPartition {
    int32_t leader_epoch = -1;
    bool loading = true;
  };
  struct PendingStore {
    TopicPartition tp;
    Offset required;
    TimerId timer;
    std::function<void(protocol::ErrorCode)> done;
  };

  struct CoordinatorLookup {
    protocol::ErrorCode error = protocol::ErrorCode::NONE;
    BrokerAddress leader;
  };
  // The coordinator of one key (FindCoordinator answers one key, or from v4 several).
  CoordinatorLookup lookup_coordinator(const std::string& key, int8_t key_type);
  // A group's committed offsets for OffsetFetch (one group per request before v8, several from v8).
  using TopicRequest = std::pair<std::string, std::vector<int32_t>>;
  struct PartitionOffset {
    int32_t partition = 0;
    protocol::ErrorCode error = protocol::ErrorCode::NONE;
    CommittedOffset committed{};
  };
  struct GroupOffsets {
    protocol::ErrorCode error = protocol::ErrorCode::NONE;
    std::vector<std::pair<std::string, std::vector<PartitionOffset>>> topics;
  };
  GroupOffsets fetch_group_offsets(const std::string& group_id, const std::optional<std::vector<TopicRequest>>& topics,
                                   bool require_stable = false) const;
  // Validation shared by the group APIs: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS or NONE.
  protocol::ErrorCode coordinator_status(const std::string& group_id) const;
  GroupMetadata* find(const std::string& group_id);
  GroupMetadata& get_or_create(const std::string& group_id);

  // Membership (group_membership.cpp).
  void join_unknown_member(GroupMetadata& g, const protocol::JoinGroupRequest& req, bool require_known_member_id,
                           int32_t rebalance_timeout_ms, const std::string& client_id, const std::string& client_host,
                           JoinCallback respond);
  void join_static_member(GroupMetadata& g, const protocol::JoinGroupRequest& req, int16_t version,
                          int32_t rebalance_timeout_ms, const std::string& client_id, const std::string& client_host,
                          JoinCallback respond);
  void forget_static_member(GroupMetadata& g, const std::string& member_id);
  void join_known_member(GroupMetadata& g, const protocol::JoinGroupRequest& req, int32_t rebalance_timeout_ms,
                         const std::string& client_id, const std::string& client_host, JoinCallback respond);
  void add_member_and_rebalance(GroupMetadata& g, const std::string& member_id, const protocol::JoinGroupRequest& req,
                                int32_t rebalance_timeout_ms, const std::string& client_id,
                                const std::string& client_host, JoinCallback respond);
  void update_member_and_rebalance(GroupMetadata& g, MemberMetadata& m, const protocol::JoinGroupRequest& req,
                                   JoinCallback respond);
  protocol::JoinGroupResponse join_result(const GroupMetadata& g, const std::string& member_id, bool with_members) const;
  void maybe_prepare_rebalance(GroupMetadata& g, const std::string& reason);
  void prepare_rebalance(GroupMetadata& g, const std::string& reason);
  void arm_join_timer(GroupMetadata& g, int64_t delay_ms);
  void on_join_timer(const std::string& group_id, uint64_t epoch);
  void try_complete_join(GroupMetadata& g);
  void complete_join(GroupMetadata& g);
  void reset_and_propagate_assignment_error(GroupMetadata& g, protocol::ErrorCode error);
  void set_and_propagate_assignment(GroupMetadata& g, const std::map<std::string, Bytes>& assignment);
  void schedule_heartbeat_expiry(GroupMetadata& g, MemberMetadata& m);
  void on_heartbeat_expiry(const std::string& group_id, const std::string& member_id, uint64_t epoch);
  void remove_member_and_update_group(GroupMetadata& g, const std::string& member_id, const std::string& reason);
  void remove_pending_member(GroupMetadata& g, const std::string& member_id);
  void transition(GroupMetadata& g, GroupState to);
  std::string new_member_id(const std::string& client_id);

  // Stores (group_coordinator.cpp).
  void store_group(GroupMetadata& g, const std::map<std::string, Bytes>& assignment,
                   std::function<void(protocol::ErrorCode)> done);
  void append_records(int32_t partition, const std::vector<record::Record>& records,
                      std::function<void(protocol::ErrorCode)> done);
  // A transactional batch of a producer (TxnOffsetCommit): its sequence continues the producer's
  // last batch in that partition (txn_sequences_).
  void append_txn_records(int32_t partition, int64_t producer_id, int16_t producer_epoch,
                          const std::vector<record::Record>& records, std::function<void(protocol::ErrorCode)> done);
  // false when the partition refused the batch at once (done then runs later with the error).
  bool append_batch(int32_t partition, Bytes batch, std::function<void(protocol::ErrorCode)> done);
  void schedule_store_check();
  void check_stores();
  void fail_stores(int32_t partition, protocol::ErrorCode error);

  // Loading and unloading (group_offsets.cpp).
  void load_partition(int32_t partition, int32_t leader_epoch);
  void unload_partition(int32_t partition);
  Status read_offsets_partition(int32_t partition, int64_t* records_read);

  Runtime& rt_;
  const GroupConfig& config_;
  CoordinatorHost& host_;
  std::map<int32_t, OwnedPartition> owned_;
  std::map<std::string, std::unique_ptr<GroupMetadata>> groups_;
  std::map<uint64_t, PendingStore> pending_stores_;
  uint64_t next_store_id_ = 1;
  bool store_check_scheduled_ = false;
  bool creating_offsets_topic_ = false;
  // (offsets partition, producer id) -> (epoch, next sequence) of transactional offset batches.
  std::map<std::pair<int32_t, int64_t>, std::pair<int16_t, int32_t>> txn_sequences_;
};

}  // namespace gregor::group
