// OffsetFetch (api key 9): a consumer reads its group's committed positions. Gregor implements
// v1-4 (v6 is flexible; librdkafka would move to it if offered).
//
//   Request  group_id STRING, topics [name STRING, partition_indexes [int32]]
//            (nullable from v2: null = every partition the group has committed)
//   Response throttle_time_ms int32 (v3+), topics [name STRING, partitions [partition_index int32,
//            committed_offset int64, metadata NULLABLE_STRING, error_code int16]],
//            error_code int16 (v2+, group-level)
//
// A partition without a committed offset answers committed_offset -1, metadata "" and NONE.
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

struct OffsetFetchRequest {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_FETCH;

  struct OffsetFetchRequestTopic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    bool operator==(const OffsetFetchRequestTopic&) const = default;
  };

  std::string group_id;
  // nullopt = all topics; REQUIRES a value at v1, where the array is not nullable.
  std::optional<std::vector<OffsetFetchRequestTopic>> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<OffsetFetchRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const OffsetFetchRequest&) const = default;
};

struct OffsetFetchResponse {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_FETCH;

  struct OffsetFetchResponsePartition {
    int32_t partition_index = 0;
    int64_t committed_offset = -1;
    std::optional<std::string> metadata;
    ErrorCode error_code = ErrorCode::NONE;
    bool operator==(const OffsetFetchResponsePartition&) const = default;
  };
  struct OffsetFetchResponseTopic {
    std::string name;
    std::vector<OffsetFetchResponsePartition> partitions;
    bool operator==(const OffsetFetchResponseTopic&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v3+
  std::vector<OffsetFetchResponseTopic> topics;
  ErrorCode error_code = ErrorCode::NONE;  // v2+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<OffsetFetchResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const OffsetFetchResponse&) const = default;
};

}  // namespace gregor::protocol
