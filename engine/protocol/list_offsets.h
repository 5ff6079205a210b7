// ListOffsets (api key 2): the offset of a partition at a timestamp, or its earliest (-2) or
// latest (-1) offset. Gregor implements v1-3 (v2 and v3 are the same).
//
//   Request  replica_id int32, isolation_level int8 (v2+),
//            topics [name STRING, partitions [partition_index int32, timestamp int64]]
//   Response throttle_time_ms int32 (v2+), topics [name STRING, partitions [partition_index int32,
//            error_code int16, timestamp int64, offset int64]]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

inline constexpr int64_t kListOffsetsLatestTimestamp = -1;
inline constexpr int64_t kListOffsetsEarliestTimestamp = -2;

struct ListOffsetsRequest {
  static constexpr ApiKey kApiKey = ApiKey::LIST_OFFSETS;

  struct ListOffsetsPartition {
    int32_t partition_index = 0;
    int64_t timestamp = kListOffsetsLatestTimestamp;
    bool operator==(const ListOffsetsPartition&) const = default;
  };
  struct ListOffsetsTopic {
    std::string name;
    std::vector<ListOffsetsPartition> partitions;
    bool operator==(const ListOffsetsTopic&) const = default;
  };

  int32_t replica_id = -1;
  int8_t isolation_level = 0;  // v2+
  std::vector<ListOffsetsTopic> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ListOffsetsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const ListOffsetsRequest&) const = default;
};

struct ListOffsetsResponse {
  static constexpr ApiKey kApiKey = ApiKey::LIST_OFFSETS;

  struct ListOffsetsPartitionResponse {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::NONE;
    int64_t timestamp = -1;
    int64_t offset = -1;
    bool operator==(const ListOffsetsPartitionResponse&) const = default;
  };
  struct ListOffsetsTopicResponse {
    std::string name;
    std::vector<ListOffsetsPartitionResponse> partitions;
    bool operator==(const ListOffsetsTopicResponse&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v2+
  std::vector<ListOffsetsTopicResponse> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ListOffsetsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const ListOffsetsResponse&) const = default;
};

}  // namespace gregor::protocol
