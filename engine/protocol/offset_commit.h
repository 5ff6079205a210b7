// OffsetCommit (api key 8): a consumer stores its position per partition with its group
// coordinator. Gregor implements v2-5.
//
//   Request  group_id STRING, generation_id int32, member_id STRING,
//            retention_time_ms int64 (v2-4), topics [name STRING, partitions [partition_index int32,
//            committed_offset int64, committed_metadata NULLABLE_STRING]]
//   Response throttle_time_ms int32 (v3+), topics [name STRING, partitions [partition_index int32,
//            error_code int16]]
//
// generation_id is the field Kafka's later JSON calls GenerationIdOrMemberEpoch (KIP-848); for
// the classic group protocol it is the generation. Kafka accepts a commit during
// PreparingRebalance (ClassicGroup.validateOffsetCommit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct OffsetCommitRequest {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_COMMIT;

  struct OffsetCommitRequestPartition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    std::optional<std::string> committed_metadata;
    bool operator==(const OffsetCommitRequestPartition&) const = default;
  };
  struct OffsetCommitRequestTopic {
    std::string name;
    std::vector<OffsetCommitRequestPartition> partitions;
    bool operator==(const OffsetCommitRequestTopic&) const = default;
  };

  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  int64_t retention_time_ms = -1;  // v2-4; -1 = the broker's offsets.retention.minutes
  std::vector<OffsetCommitRequestTopic> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<OffsetCommitRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const OffsetCommitRequest&) const = default;
};

struct OffsetCommitResponse {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_COMMIT;

  struct OffsetCommitResponsePartition {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::NONE;
    bool operator==(const OffsetCommitResponsePartition&) const = default;
  };
  struct OffsetCommitResponseTopic {
    std::string name;
    std::vector<OffsetCommitResponsePartition> partitions;
    bool operator==(const OffsetCommitResponseTopic&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v3+
  std::vector<OffsetCommitResponseTopic> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<OffsetCommitResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const OffsetCommitResponse&) const = default;
};

}  // namespace gregor::protocol
