// OffsetForLeaderEpoch (api key 23), inter-broker (and consumers, for KIP-320 truncation checks):
// a follower asks the leader where a leader epoch ended, so it truncates its log to the right
// offset instead of the high watermark (KIP-101). Gregor implements v0-3 (flexible from v4);
// followers send v3 (kOffsetForLeaderEpochVersion).
//
//   Request  replica_id int32 (v3+), topics [topic STRING, partitions [partition int32,
//            current_leader_epoch int32 (v2+), leader_epoch int32]]
//   Response throttle_time_ms int32 (v2+), topics [topic STRING, partitions [error_code int16,
//            partition int32, leader_epoch int32 (v1+), end_offset int64]]
//
// replica_id: the follower's broker id; -1 for a consumer; -2 (the default) for a debugging
// client, which may see past the high watermark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct OffsetForLeaderEpochRequest {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_FOR_LEADER_EPOCH;

  struct OffsetForLeaderPartition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v2+
    int32_t leader_epoch = 0;
    bool operator==(const OffsetForLeaderPartition&) const = default;
  };
  struct OffsetForLeaderTopic {
    std::string topic;
    std::vector<OffsetForLeaderPartition> partitions;
    bool operator==(const OffsetForLeaderTopic&) const = default;
  };

  int32_t replica_id = -2;  // v3+
  std::vector<OffsetForLeaderTopic> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<OffsetForLeaderEpochRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const OffsetForLeaderEpochRequest&) const = default;
};

struct OffsetForLeaderEpochResponse {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_FOR_LEADER_EPOCH;

  struct EpochEndOffset {
    ErrorCode error_code = ErrorCode::NONE;
    int32_t partition = 0;
    int32_t leader_epoch = -1;  // v1+
    int64_t end_offset = -1;
    bool operator==(const EpochEndOffset&) const = default;
  };
  struct OffsetForLeaderTopicResult {
    std::string topic;
    std::vector<EpochEndOffset> partitions;
    bool operator==(const OffsetForLeaderTopicResult&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v2+
  std::vector<OffsetForLeaderTopicResult> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<OffsetForLeaderEpochResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const OffsetForLeaderEpochResponse&) const = default;
};

}  // namespace gregor::protocol
