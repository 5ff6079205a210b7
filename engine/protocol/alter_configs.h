// AlterConfigs (api key 33) and IncrementalAlterConfigs (api key 44): change the configs of topics,
// as kafka-configs --alter and AdminClient.alterConfigs / incrementalAlterConfigs send them. Any
// broker takes a topic's change and writes it to zk (/config/topics/T, then /config/changes), from
// where every broker applies it. Gregor implements AlterConfigs v0-1 and IncrementalAlterConfigs v0
// (both flexible from the next version).
//
//   AlterConfigs            resources [resource_type int8, resource_name STRING,
//                             configs [name STRING, value NULLABLE_STRING]], validate_only bool
//                           The resource's overrides become exactly `configs` (the rest are removed).
//   IncrementalAlterConfigs resources [resource_type int8, resource_name STRING,
//                             configs [name STRING, config_operation int8, value NULLABLE_STRING]],
//                           validate_only bool
//                           config_operation: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT (list configs).
//   Response (both)         throttle_time_ms int32, responses [error_code int16,
//                             error_message NULLABLE_STRING, resource_type int8, resource_name STRING]
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

enum class ConfigOperation : int8_t { SET = 0, DELETE = 1, APPEND = 2, SUBTRACT = 3 };

struct AlterConfigsRequest {
  static constexpr ApiKey kApiKey = ApiKey::ALTER_CONFIGS;

  struct AlterableConfig {
    std::string name;
    std::optional<std::string> value;
    bool operator==(const AlterableConfig&) const = default;
  };
  struct AlterConfigsResource {
    int8_t resource_type = 2;  // ConfigResourceType::TOPIC
    std::string resource_name;
    std::vector<AlterableConfig> configs;
    bool operator==(const AlterConfigsResource&) const = default;
  };

  std::vector<AlterConfigsResource> resources;
  bool validate_only = false;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<AlterConfigsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const AlterConfigsRequest&) const = default;
};

// The response of both APIs.
struct AlterConfigsResourceResponse {
  ErrorCode error_code = ErrorCode::NONE;
  std::optional<std::string> error_message;
  int8_t resource_type = 2;
  std::string resource_name;
  bool operator==(const AlterConfigsResourceResponse&) const = default;
};

struct AlterConfigsResponse {
  static constexpr ApiKey kApiKey = ApiKey::ALTER_CONFIGS;
  int32_t throttle_time_ms = 0;
  std::vector<AlterConfigsResourceResponse> responses;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<AlterConfigsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const AlterConfigsResponse&) const = default;
};

struct IncrementalAlterConfigsRequest {
  static constexpr ApiKey kApiKey = ApiKey::INCREMENTAL_ALTER_CONFIGS;

  struct AlterableConfig {
    std::string name;
    int8_t config_operation = 0;  // ConfigOperation
    std::optional<std::string> value;
    bool operator==(const AlterableConfig&) const = default;
  };
  struct AlterConfigsResource {
    int8_t resource_type = 2;
    std::string resource_name;
    std::vector<AlterableConfig> configs;
    bool operator==(const AlterConfigsResource&) const = default;
  };

  std::vector<AlterConfigsResource> resources;
  bool validate_only = false;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<IncrementalAlterConfigsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const IncrementalAlterConfigsRequest&) const = default;
};

struct IncrementalAlterConfigsResponse {
  static constexpr ApiKey kApiKey = ApiKey::INCREMENTAL_ALTER_CONFIGS;
  int32_t throttle_time_ms = 0;
  std::vector<AlterConfigsResourceResponse> responses;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<IncrementalAlterConfigsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const IncrementalAlterConfigsResponse&) const = default;
};

}  // namespace gregor::protocol
