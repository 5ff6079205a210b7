// DeleteTopics (api key 20): delete topics, sent to the controller. Gregor implements v0-3 (the
// same request at every version; flexible from v4).
//
//   Request  topic_names [STRING], timeout_ms int32
//   Response throttle_time_ms int32 (v1+), responses [name STRING, error_code int16]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct DeleteTopicsRequest {
  static constexpr ApiKey kApiKey = ApiKey::DELETE_TOPICS;

  std::vector<std::string> topic_names;
  int32_t timeout_ms = 0;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<DeleteTopicsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const DeleteTopicsRequest&) const = default;
};

struct DeleteTopicsResponse {
  static constexpr ApiKey kApiKey = ApiKey::DELETE_TOPICS;

  struct DeletableTopicResult {
    std::string name;
    ErrorCode error_code = ErrorCode::NONE;
    bool operator==(const DeletableTopicResult&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v1+
  std::vector<DeletableTopicResult> responses;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<DeleteTopicsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const DeleteTopicsResponse&) const = default;
};

}  // namespace gregor::protocol
