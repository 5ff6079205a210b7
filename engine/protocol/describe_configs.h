// DescribeConfigs (api key 32): the configs of topics and brokers, as kafka-configs --describe and
// AdminClient.describeConfigs ask for them. Any broker answers for a topic (from zk); a broker
// resource is answered by that broker. The messages are generated from specs/describe_configs.yaml
// (versions 0-4).
//
// resource_type is Kafka's ConfigResource.Type (2 TOPIC, 4 BROKER); config_source is
// DescribeConfigsResponse.ConfigSource (1 DYNAMIC_TOPIC_CONFIG, 4 STATIC_BROKER_CONFIG, 5 DEFAULT_CONFIG).
#pragma once

#include <cstdint>

#include "generated/protocol/describe_configs.h"

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

}  // namespace gregor::protocol
