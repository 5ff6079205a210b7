// ListGroups (api key 16): the groups a broker coordinates (admin tools). Gregor implements v0-2
// (flexible from v3).
//
//   Request  (empty)
//   Response throttle_time_ms int32 (v1+), error_code int16,
//            groups [group_id STRING, protocol_type STRING]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct ListGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::LIST_GROUPS;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ListGroupsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const ListGroupsRequest&) const = default;
};

struct ListGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::LIST_GROUPS;

  struct ListedGroup {
    std::string group_id;
    std::string protocol_type;
    bool operator==(const ListedGroup&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v1+
  ErrorCode error_code = ErrorCode::NONE;
  std::vector<ListedGroup> groups;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ListGroupsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const ListGroupsResponse&) const = default;
};

}  // namespace gregor::protocol
