#include "engine/protocol/describe_configs.h"

namespace gregor::protocol {

const char* config_source_name(ConfigSource s) {
  switch (s) {
    case ConfigSource::DYNAMIC_TOPIC_CONFIG: return "DYNAMIC_TOPIC_CONFIG";
    case ConfigSource::DYNAMIC_BROKER_CONFIG: return "DYNAMIC_BROKER_CONFIG";
    case ConfigSource::DYNAMIC_DEFAULT_BROKER_CONFIG: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case ConfigSource::STATIC_BROKER_CONFIG: return "STATIC_BROKER_CONFIG";
    case ConfigSource::DEFAULT_CONFIG: return "DEFAULT_CONFIG";
    case ConfigSource::DYNAMIC_BROKER_LOGGER_CONFIG: return "DYNAMIC_BROKER_LOGGER_CONFIG";
    case ConfigSource::UNKNOWN: break;
  }
  return "UNKNOWN";
}

}  // namespace gregor::protocol
