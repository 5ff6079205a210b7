// GroupMetadata: one consumer group as its coordinator holds it (Kafka's classic GroupMetadata and
// MemberMetadata): the state machine's state, the generation, the members with their protocols,
// timers and parked JoinGroup/SyncGroup answers, and the committed offsets.
//
// States and the transitions Kafka allows (ClassicGroupState):
//   Empty               -> PreparingRebalance, Dead       no members (offsets may remain)
//   PreparingRebalance  -> CompletingRebalance, Empty, Dead   waiting for members to (re)join
//   CompletingRebalance -> Stable, PreparingRebalance, Dead   waiting for the leader's SyncGroup
//   Stable              -> PreparingRebalance, Dead       assignments handed out
//   Dead                                                  the group is gone from this coordinator
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/topic_partition.h"
#include "engine/core/bytes.h"
#include "engine/core/types.h"
#include "engine/group/offsets_topic.h"
#include "engine/protocol/join_group.h"
#include "engine/protocol/sync_group.h"

namespace gregor::group {

enum class GroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };

// Kafka's names, as DescribeGroups reports them: "Empty", "PreparingRebalance", ...
const char* group_state_name(GroupState s);
bool valid_transition(GroupState from, GroupState to);

using JoinCallback = std::function<void(const protocol::JoinGroupResponse&)>;
using SyncCallback = std::function<void(const protocol::SyncGroupResponse&)>;

struct MemberMetadata : MemberIdentity {
  std::string protocol_type;
  std::vector<std::pair<std::string, Bytes>> protocols;  // in the member's order of preference
  Bytes assignment;
  JoinCallback awaiting_join;  // set while its JoinGroup waits for the rebalance
  SyncCallback awaiting_sync;  // set while its SyncGroup waits for the leader's
  bool is_new = false;
  TimerId heartbeat_timer;
  uint64_t heartbeat_epoch = 0;  // a fired timer from an earlier scheduling is ignored

  // The metadata it sent for `protocol`, or nullptr.
  const Bytes* metadata(const std::string& protocol) const;
  bool matches(const std::vector<protocol::JoinGroupRequest::JoinGroupRequestProtocol>& p) const;
};

// A committed offset is what __consumer_offsets stores for it.
using CommittedOffset = OffsetCommitValue;

struct GroupMetadata {
  std::string group_id;
  int32_t offsets_partition = 0;
  GroupState state = GroupState::kEmpty;
  int32_t generation = 0;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::optional<std::string> leader_id;
  std::map<std::string, MemberMetadata> members;  // by member id
  std::map<std::string, TimerId> pending_members;  // KIP-394: ids handed out, not yet joined
  std::map<std::string, std::string> static_members;  // KIP-345: group.instance.id -> its member id
  std::map<TopicPartition, CommittedOffset> offsets;
  // TxnOffsetCommit: offsets stored in __consumer_offsets by a transaction that has not ended yet,
  // by producer id; invisible to OffsetFetch until the commit marker (Kafka's
  // pendingTransactionalOffsetCommits).
  std::map<int64_t, std::map<TopicPartition, CommittedOffset>> pending_txn_offsets;
  bool has_pending_txn_offset(const TopicPartition& tp) const {
    for (const auto& [pid, offsets_of] : pending_txn_offsets)
      if (offsets_of.count(tp)) return true;
    return false;
  }
  // The rebalance in preparation: its timer, and whether it is the initial delay of an empty group
  // (group.initial.rebalance.delay.ms), which waits out its delay even when everyone has joined.
  TimerId join_timer;
  uint64_t join_epoch = 0;
  bool initial_delay = false;
  int64_t initial_delay_remaining_ms = 0;
  bool new_member_added = false;
  int64_t state_timestamp_ms = -1;

  bool has(const std::string& member_id) const { return members.count(member_id) > 0; }
  // KIP-345: a request naming a group.instance.id that belongs to another member id is from a
  // fenced (older) instance of that static member.
  bool is_static_member_fenced(const std::optional<std::string>& instance_id, const std::string& member_id) const {
    if (!instance_id) return false;
    auto it = static_members.find(*instance_id);
    return it != static_members.end() && it->second != member_id;
  }
  size_t awaiting_join_count() const;
  bool has_all_members_joined() const { return awaiting_join_count() == members.size() && pending_members.empty(); }
  // The longest rebalance timeout of the members (the time a rebalance may take).
  int32_t rebalance_timeout_ms() const;
  // Can a member with these protocols join? (Kafka's supportsProtocols.)
  bool supports_protocols(const std::string& type,
                          const std::vector<protocol::JoinGroupRequest::JoinGroupRequestProtocol>& p) const;
  // The protocol every member supports with the most first-choice votes; ties go to the leader's
  // earlier preference. REQUIRES: members is not empty and they share a protocol.
  std::string select_protocol() const;
  bool can_rebalance() const {
    return state == GroupState::kStable || state == GroupState::kCompletingRebalance || state == GroupState::kEmpty;
  }
};

}  // namespace gregor::group
