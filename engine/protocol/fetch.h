// Fetch (api key 1): consumers read from partition leaders, and followers replicate with it
// (replica_id = the follower's broker id). Gregor implements v4-11, the versions that return
// magic-2 batches; nothing flexible (v12+ is).
//
//   Request  replica_id int32, max_wait_ms int32, min_bytes int32, max_bytes int32,
//            isolation_level int8, session_id int32 (v7+), session_epoch int32 (v7+),
//            topics [topic STRING, partitions [partition int32, current_leader_epoch int32 (v9+),
//              fetch_offset int64, log_start_offset int64 (v5+), partition_max_bytes int32]],
//            forgotten_topics_data [topic STRING, partitions [int32]] (v7+),
//            rack_id STRING (v11+)
//   Response throttle_time_ms int32, error_code int16 (v7+), session_id int32 (v7+),
//            responses [topic STRING, partitions [partition_index int32, error_code int16,
//              high_watermark int64, last_stable_offset int64, log_start_offset int64 (v5+),
//              aborted_transactions NULLABLE [producer_id int64, first_offset int64],
//              preferred_read_replica int32 (v11+), records RECORDS]]
//
// Gregor runs sessionless fetches (KIP-227): librdkafka sends session_id 0 / epoch -1 and expects
// session_id 0 back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct FetchRequest {
  static constexpr ApiKey kApiKey = ApiKey::FETCH;

  struct FetchPartition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v9+
    int64_t fetch_offset = 0;
    int64_t log_start_offset = -1;  // v5+; a follower's log start offset
    int32_t partition_max_bytes = 0;
    bool operator==(const FetchPartition&) const = default;
  };
  struct FetchTopic {
    std::string topic;
    std::vector<FetchPartition> partitions;
    bool operator==(const FetchTopic&) const = default;
  };
  struct ForgottenTopic {
    std::string topic;
    std::vector<int32_t> partitions;
    bool operator==(const ForgottenTopic&) const = default;
  };

  int32_t replica_id = -1;  // -1 for a consumer, the broker id for a follower
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0x7fffffff;
  int8_t isolation_level = 0;  // 0 READ_UNCOMMITTED, 1 READ_COMMITTED
  int32_t session_id = 0;      // v7+
  int32_t session_epoch = -1;  // v7+
  std::vector<FetchTopic> topics;
  std::vector<ForgottenTopic> forgotten_topics_data;  // v7+
  std::string rack_id;                                // v11+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<FetchRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const FetchRequest&) const = default;
};

struct FetchResponse {
  static constexpr ApiKey kApiKey = ApiKey::FETCH;

  struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;
    bool operator==(const AbortedTransaction&) const = default;
  };
  struct PartitionData {
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::NONE;
    int64_t high_watermark = 0;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;  // v5+
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;
    int32_t preferred_read_replica = -1;  // v11+
    std::optional<Bytes> records;
    bool operator==(const PartitionData&) const = default;
  };
  struct FetchableTopicResponse {
    std::string topic;
    std::vector<PartitionData> partitions;
    bool operator==(const FetchableTopicResponse&) const = default;
  };

  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::NONE;  // v7+
  int32_t session_id = 0;                  // v7+
  std::vector<FetchableTopicResponse> responses;

  // An upper bound of the encoded body size (the header is not included), to reserve space once.
  size_t encoded_size_hint() const;
  void encode(ByteWriter& w, int16_t version) const;
  static Result<FetchResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const FetchResponse&) const = default;
};

}  // namespace gregor::protocol
