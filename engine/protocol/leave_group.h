// LeaveGroup (api key 13): a member leaves its group at once instead of waiting for its session
// to time out, so the rebalance starts immediately. Gregor implements v0-1 (v3 batches several
// members; neither client needs it).
//
//   Request  group_id STRING, member_id STRING
//   Response throttle_time_ms int32 (v1+), error_code int16
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct LeaveGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::LEAVE_GROUP;

  std::string group_id;
  std::string member_id;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<LeaveGroupRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const LeaveGroupRequest&) const = default;
};

struct LeaveGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::LEAVE_GROUP;

  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::NONE;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<LeaveGroupResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const LeaveGroupResponse&) const = default;
};

}  // namespace gregor::protocol
