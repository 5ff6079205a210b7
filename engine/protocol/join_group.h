// JoinGroup (api key 11): a consumer joins (or rejoins) a group; the coordinator answers when the
// rebalance completes, electing a leader that receives every member's metadata. Gregor implements
// v0-5.
//
//   Request  group_id STRING, session_timeout_ms int32, rebalance_timeout_ms int32 (v1+),
//            member_id STRING, group_instance_id NULLABLE_STRING (v5+), protocol_type STRING,
//            protocols [name STRING, metadata BYTES]
//   Response throttle_time_ms int32 (v2+), error_code int16, generation_id int32,
//            protocol_name STRING, leader STRING, member_id STRING,
//            members [member_id STRING, group_instance_id NULLABLE_STRING (v5+), metadata BYTES]
//
// From v4 a join with an empty member_id may be answered MEMBER_ID_REQUIRED with the member id to
// rejoin with (KIP-394). Protocol metadata is opaque to the broker (the assignors run on clients).
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

struct JoinGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::JOIN_GROUP;

  struct JoinGroupRequestProtocol {
    std::string name;
    Bytes metadata;
    bool operator==(const JoinGroupRequestProtocol&) const = default;
  };

  std::string group_id;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;  // v1+; at v0 the session timeout serves as both
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v5+
  std::string protocol_type;
  std::vector<JoinGroupRequestProtocol> protocols;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<JoinGroupRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const JoinGroupRequest&) const = default;
};

struct JoinGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::JOIN_GROUP;

  struct JoinGroupResponseMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v5+
    Bytes metadata;
    bool operator==(const JoinGroupResponseMember&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v2+
  ErrorCode error_code = ErrorCode::NONE;
  int32_t generation_id = -1;
  std::string protocol_name;
  std::string leader;
  std::string member_id;
  std::vector<JoinGroupResponseMember> members;  // filled for the leader only

  void encode(ByteWriter& w, int16_t version) const;
  static Result<JoinGroupResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const JoinGroupResponse&) const = default;
};

}  // namespace gregor::protocol
