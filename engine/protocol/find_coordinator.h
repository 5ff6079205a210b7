// FindCoordinator (api key 10): which broker coordinates a consumer group (key_type 0) or a
// transactional id (key_type 1). Gregor implements v0-2; the minimum must stay 0, or librdkafka
// never turns on its BrokerGroupCoordinator feature and never looks for a coordinator.
//
//   Request  key STRING, key_type int8 (v1+)
//   Response throttle_time_ms int32 (v1+), error_code int16, error_message NULLABLE_STRING (v1+),
//            node_id int32, host STRING, port int32
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

inline constexpr int8_t kCoordinatorKeyTypeGroup = 0;
inline constexpr int8_t kCoordinatorKeyTypeTransaction = 1;

struct FindCoordinatorRequest {
  static constexpr ApiKey kApiKey = ApiKey::FIND_COORDINATOR;

  std::string key;
  int8_t key_type = kCoordinatorKeyTypeGroup;  // v1+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<FindCoordinatorRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const FindCoordinatorRequest&) const = default;
};

struct FindCoordinatorResponse {
  static constexpr ApiKey kApiKey = ApiKey::FIND_COORDINATOR;

  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::NONE;
  std::optional<std::string> error_message;  // v1+
  int32_t node_id = -1;
  std::string host;
  int32_t port = -1;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<FindCoordinatorResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const FindCoordinatorResponse&) const = default;
};

}  // namespace gregor::protocol
