// Produce (api key 0): a producer appends record batches to partition leaders.
// Gregor implements v3-7, the versions that carry only magic-2 RecordBatches; their requests share
// one layout (v7 only adds zstd as a permitted codec).
//
//   Request  v3-7: transactional_id NULLABLE_STRING, acks int16, timeout_ms int32,
//            topic_data [name STRING, partition_data [index int32, records RECORDS]]
//   Response v3-7: responses [name STRING, partition_responses [index int32, error_code int16,
//            base_offset int64, log_append_time_ms int64, log_start_offset int64 (v5+)]],
//            throttle_time_ms int32
//
// records is opaque here: concatenated RecordBatches (engine/record/ parses them). With acks = 0
// the broker sends no response at all.
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

struct ProduceRequest {
  static constexpr ApiKey kApiKey = ApiKey::PRODUCE;

  struct PartitionProduceData {
    int32_t index = 0;
    std::optional<Bytes> records;
    bool operator==(const PartitionProduceData&) const = default;
  };
  struct TopicProduceData {
    std::string name;
    std::vector<PartitionProduceData> partition_data;
    bool operator==(const TopicProduceData&) const = default;
  };

  std::optional<std::string> transactional_id;
  int16_t acks = -1;  // 0: no response; 1: leader only; -1: the full ISR
  int32_t timeout_ms = 0;
  std::vector<TopicProduceData> topic_data;

  // An upper bound of the encoded body size (the header is not included), to reserve space once.
  size_t encoded_size_hint() const;
  void encode(ByteWriter& w, int16_t version) const;
  static Result<ProduceRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const ProduceRequest&) const = default;
};

struct ProduceResponse {
  static constexpr ApiKey kApiKey = ApiKey::PRODUCE;

  struct PartitionProduceResponse {
    int32_t index = 0;
    ErrorCode error_code = ErrorCode::NONE;
    int64_t base_offset = 0;
    int64_t log_append_time_ms = -1;  // -1 unless the topic uses LogAppendTime
    int64_t log_start_offset = -1;    // v5+
    bool operator==(const PartitionProduceResponse&) const = default;
  };
  struct TopicProduceResponse {
    std::string name;
    std::vector<PartitionProduceResponse> partition_responses;
    bool operator==(const TopicProduceResponse&) const = default;
  };

  std::vector<TopicProduceResponse> responses;
  int32_t throttle_time_ms = 0;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ProduceResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const ProduceResponse&) const = default;
};

}  // namespace gregor::protocol
