// SyncGroup (api key 14): after a join, the leader sends every member's assignment and each member
// receives its own; followers' requests are held until the leader's arrives. Gregor implements
// v0-3.
//
//   Request  group_id STRING, generation_id int32, member_id STRING,
//            group_instance_id NULLABLE_STRING (v3+), assignments [member_id STRING, assignment BYTES]
//   Response throttle_time_ms int32 (v1+), error_code int16, assignment BYTES
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

struct SyncGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::SYNC_GROUP;

  struct SyncGroupRequestAssignment {
    std::string member_id;
    Bytes assignment;
    bool operator==(const SyncGroupRequestAssignment&) const = default;
  };

  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
  std::vector<SyncGroupRequestAssignment> assignments;  // from the leader only

  void encode(ByteWriter& w, int16_t version) const;
  static Result<SyncGroupRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const SyncGroupRequest&) const = default;
};

struct SyncGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::SYNC_GROUP;

  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::NONE;
  Bytes assignment;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<SyncGroupResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const SyncGroupResponse&) const = default;
};

}  // namespace gregor::protocol
