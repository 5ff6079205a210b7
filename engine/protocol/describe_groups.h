// DescribeGroups (api key 15): a group's state, protocol and members (admin tools). Gregor
// implements v0-4 (flexible from v5).
//
//   Request  groups [STRING], include_authorized_operations bool (v3+)
//   Response throttle_time_ms int32 (v1+), groups [error_code int16, group_id STRING,
//            group_state STRING, protocol_type STRING, protocol_data STRING,
//            members [member_id STRING, group_instance_id NULLABLE_STRING (v4+), client_id STRING,
//              client_host STRING, member_metadata BYTES, member_assignment BYTES],
//            authorized_operations int32 (v3+)]
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

// Kafka's "authorized operations not requested/known" value for the int32 bit field.
inline constexpr int32_t kAuthorizedOperationsOmitted = std::numeric_limits<int32_t>::min();

struct DescribeGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::DESCRIBE_GROUPS;

  std::vector<std::string> groups;
  bool include_authorized_operations = false;  // v3+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<DescribeGroupsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const DescribeGroupsRequest&) const = default;
};

struct DescribeGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::DESCRIBE_GROUPS;

  struct DescribedGroupMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v4+
    std::string client_id;
    std::string client_host;
    Bytes member_metadata;
    Bytes member_assignment;
    bool operator==(const DescribedGroupMember&) const = default;
  };
  struct DescribedGroup {
    ErrorCode error_code = ErrorCode::NONE;
    std::string group_id;
    std::string group_state;    // "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"
    std::string protocol_type;  // "consumer"
    std::string protocol_data;  // the chosen assignor, e.g. "range"
    std::vector<DescribedGroupMember> members;
    int32_t authorized_operations = kAuthorizedOperationsOmitted;  // v3+
    bool operator==(const DescribedGroup&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v1+
  std::vector<DescribedGroup> groups;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<DescribeGroupsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const DescribeGroupsResponse&) const = default;
};

}  // namespace gregor::protocol
