// CreateTopics (api key 19): create topics, sent to the controller (others answer NOT_CONTROLLER).
// Gregor implements v0-3 (v4 makes partitions optional; v5 is flexible).
//
//   Request  topics [name STRING, num_partitions int32, replication_factor int16,
//              assignments [partition_index int32, broker_ids [int32]],
//              configs [name STRING, value NULLABLE_STRING]],
//            timeout_ms int32, validate_only bool (v1+)
//   Response throttle_time_ms int32 (v2+), topics [name STRING, error_code int16,
//            error_message NULLABLE_STRING (v1+)]
//
// num_partitions and replication_factor are -1 when assignments gives the placement by hand.
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

struct CreateTopicsRequest {
  static constexpr ApiKey kApiKey = ApiKey::CREATE_TOPICS;

  struct CreatableReplicaAssignment {
    int32_t partition_index = 0;
    std::vector<int32_t> broker_ids;
    bool operator==(const CreatableReplicaAssignment&) const = default;
  };
  struct CreatableTopicConfig {
    std::string name;
    std::optional<std::string> value;
    bool operator==(const CreatableTopicConfig&) const = default;
  };
  struct CreatableTopic {
    std::string name;
    int32_t num_partitions = -1;
    int16_t replication_factor = -1;
    std::vector<CreatableReplicaAssignment> assignments;
    std::vector<CreatableTopicConfig> configs;
    bool operator==(const CreatableTopic&) const = default;
  };

  std::vector<CreatableTopic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false;  // v1+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<CreateTopicsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const CreateTopicsRequest&) const = default;
};

struct CreateTopicsResponse {
  static constexpr ApiKey kApiKey = ApiKey::CREATE_TOPICS;

  struct CreatableTopicResult {
    std::string name;
    ErrorCode error_code = ErrorCode::NONE;
    std::optional<std::string> error_message;  // v1+
    bool operator==(const CreatableTopicResult&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v2+
  std::vector<CreatableTopicResult> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<CreateTopicsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const CreateTopicsResponse&) const = default;
};

}  // namespace gregor::protocol
