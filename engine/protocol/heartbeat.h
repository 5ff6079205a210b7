// Heartbeat (api key 12): a group member tells its coordinator it is alive; the answer tells it
// whether a rebalance has started (REBALANCE_IN_PROGRESS). Gregor implements v0-3.
//
//   Request  group_id STRING, generation_id int32, member_id STRING,
//            group_instance_id NULLABLE_STRING (v3+)
//   Response throttle_time_ms int32 (v1+), error_code int16
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct HeartbeatRequest {
  static constexpr ApiKey kApiKey = ApiKey::HEARTBEAT;

  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<HeartbeatRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const HeartbeatRequest&) const = default;
};

struct HeartbeatResponse {
  static constexpr ApiKey kApiKey = ApiKey::HEARTBEAT;

  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::NONE;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<HeartbeatResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const HeartbeatResponse&) const = default;
};

}  // namespace gregor::protocol
