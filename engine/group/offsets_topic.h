// The internal topic __consumer_offsets: which of its partitions holds a group, and the records the
// group coordinator writes there, in Kafka's key and value schemas (apache/kafka
// group-coordinator/src/main/resources/common/message/*.json), so a dump of the topic reads as
// Kafka's would.
//
// A group lives in partition abs(groupId.hashCode()) % offsets.topic.num.partitions (Java's
// String.hashCode over UTF-16 code units, Kafka's Utils.abs). The leader of that partition is the
// group's coordinator.
//
// Record keys start with an int16 "key version" that names the record type:
//   0, 1  OffsetCommitKey    group STRING, topic STRING, partition int32
//   2     GroupMetadataKey   group STRING
// Values start with an int16 value version:
//   OffsetCommitValue v3     offset int64, leader_epoch int32, metadata STRING, commit_timestamp int64
//                            (v0: offset, metadata, commit_timestamp; v1 adds expire_timestamp;
//                            v2 = v0; all read)
//   GroupMetadataValue v3    protocol_type STRING, generation int32, protocol NULLABLE_STRING,
//                            leader NULLABLE_STRING, current_state_timestamp int64 (v2+),
//                            members [member_id STRING, group_instance_id NULLABLE_STRING (v3+),
//                              client_id STRING, client_host STRING, rebalance_timeout int32 (v1+),
//                              session_timeout int32, subscription BYTES, assignment BYTES]
// A null value is a tombstone: the offset or the group was deleted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"

namespace gregor::group {

inline constexpr const char* kOffsetsTopic = "__consumer_offsets";
inline constexpr int16_t kOffsetCommitKeyVersion = 1;
inline constexpr int16_t kGroupMetadataKeyVersion = 2;
inline constexpr int16_t kOffsetCommitValueVersion = 3;
inline constexpr int16_t kGroupMetadataValueVersion = 3;

// Java's String.hashCode() of a string (UTF-8 input is decoded to UTF-16 code units first, so
// non-ASCII group ids hash as they do in Java).
int32_t java_string_hash(const std::string& s);
// Kafka's Utils.abs: Math.abs, except that Integer.MIN_VALUE maps to 0.
inline int32_t kafka_abs(int32_t n) { return n == INT32_MIN ? 0 : (n < 0 ? -n : n); }
// The __consumer_offsets partition of a group. REQUIRES: num_partitions > 0.
int32_t partition_for_group(const std::string& group_id, int32_t num_partitions);

struct OffsetCommitKey {
  std::string group;
  std::string topic;
  int32_t partition = 0;
};

struct OffsetCommitValue {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = -1;
};

struct GroupMetadataKey {
  std::string group;
};

// Who a member is and its timeouts: what the group's record stores of it, and what the
// coordinator holds of it besides its protocols (MemberMetadata).
struct MemberIdentity {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
};

struct GroupMemberValue : MemberIdentity {
  Bytes subscription;
  Bytes assignment;
};

struct GroupMetadataValue {
  std::string protocol_type;
  int32_t generation = 0;
  std::optional<std::string> protocol;
  std::optional<std::string> leader;
  int64_t current_state_timestamp = -1;
  std::vector<GroupMemberValue> members;
};

Bytes encode_key(const OffsetCommitKey& k);
Bytes encode_key(const GroupMetadataKey& k);
Bytes encode_value(const OffsetCommitValue& v);
Bytes encode_value(const GroupMetadataValue& v);

// A decoded record of the offsets topic. The value is nullopt for a tombstone.
struct OffsetsRecord {
  std::variant<OffsetCommitKey, GroupMetadataKey> key;
  std::optional<OffsetCommitValue> offset_value;
  std::optional<GroupMetadataValue> group_value;
  bool tombstone = false;
};

// kCorruption for a malformed key or value, kInvalidArgument for an unknown key or value version
// (a newer Kafka's record types, which a loader skips).
Result<OffsetsRecord> decode_offsets_record(const std::optional<Bytes>& key, const std::optional<Bytes>& value);

}  // namespace gregor::group
