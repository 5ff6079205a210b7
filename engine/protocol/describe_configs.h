// DescribeConfigs (api key 32): the configs of topics and brokers, as kafka-configs --describe and
// AdminClient.describeConfigs ask for them. Any broker answers for a topic (from zk); a broker
// resource is answered by that broker. Gregor implements v0-2 (v3 adds documentation; never flexible).
//
//   Request  resources [resource_type int8, resource_name STRING, configuration_keys [STRING] (null: all)],
//            include_synonyms bool (v1+)
//   Response throttle_time_ms int32, results [error_code int16, error_message NULLABLE_STRING,
//              resource_type int8, resource_name STRING,
//              configs [name STRING, value NULLABLE_STRING, read_only bool, is_default bool (v0 only),
//                       config_source int8 (v1+), is_sensitive bool,
//                       synonyms [name STRING, value NULLABLE_STRING, source int8] (v1+)]]
//
// resource_type is Kafka's ConfigResource.Type (2 TOPIC, 4 BROKER); config_source is
// DescribeConfigsResponse.ConfigSource (1 DYNAMIC_TOPIC_CONFIG, 4 STATIC_BROKER_CONFIG, 5 DEFAULT_CONFIG).
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

enum class ConfigResourceType : int8_t { UNKNOWN = 0, TOPIC = 2, BROKER = 4, BROKER_LOGGER = 8 };

enum class ConfigSource : int8_t {
  UNKNOWN = 0,
  DYNAMIC_TOPIC_CONFIG = 1,
  DYNAMIC_BROKER_CONFIG = 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG = 3,
  STATIC_BROKER_CONFIG = 4,
  DEFAULT_CONFIG = 5,
  DYNAMIC_BROKER_LOGGER_CONFIG = 6,
};
const char* config_source_name(ConfigSource s);

struct DescribeConfigsRequest {
  static constexpr ApiKey kApiKey = ApiKey::DESCRIBE_CONFIGS;

  struct DescribeConfigsResource {
    int8_t resource_type = static_cast<int8_t>(ConfigResourceType::TOPIC);
    std::string resource_name;
    std::optional<std::vector<std::string>> configuration_keys;  // null: every key
    bool operator==(const DescribeConfigsResource&) const = default;
  };

  std::vector<DescribeConfigsResource> resources;
  bool include_synonyms = false;  // v1+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<DescribeConfigsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const DescribeConfigsRequest&) const = default;
};

struct DescribeConfigsResponse {
  static constexpr ApiKey kApiKey = ApiKey::DESCRIBE_CONFIGS;

  struct DescribeConfigsSynonym {
    std::string name;
    std::optional<std::string> value;
    int8_t source = 0;
    bool operator==(const DescribeConfigsSynonym&) const = default;
  };
  struct DescribeConfigsResourceResult {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    bool is_default = false;  // v0 only (v1+ says config_source)
    int8_t config_source = -1;  // v1+
    bool is_sensitive = false;
    std::vector<DescribeConfigsSynonym> synonyms;  // v1+
    bool operator==(const DescribeConfigsResourceResult&) const = default;
  };
  struct DescribeConfigsResult {
    ErrorCode error_code = ErrorCode::NONE;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<DescribeConfigsResourceResult> configs;
    bool operator==(const DescribeConfigsResult&) const = default;
  };

  int32_t throttle_time_ms = 0;
  std::vector<DescribeConfigsResult> results;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<DescribeConfigsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const DescribeConfigsResponse&) const = default;
};

}  // namespace gregor::protocol
