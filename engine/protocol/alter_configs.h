// AlterConfigs (api key 33) and IncrementalAlterConfigs (api key 44): change the configs of topics,
// as kafka-configs --alter and AdminClient.alterConfigs / incrementalAlterConfigs send them. Any
// broker takes a topic's change and writes it to zk (/config/topics/T, then /config/changes), from
// where every broker applies it. The messages are generated from specs/alter_configs.yaml
// (AlterConfigs 0-2, IncrementalAlterConfigs 0-1); both answer with AlterConfigsResourceResponse.
//
// AlterConfigs makes a resource's overrides exactly `configs` (the rest are removed);
// IncrementalAlterConfigs applies config_operation per entry (ConfigOperation below).
#pragma once

#include <cstdint>

#include "generated/protocol/alter_configs.h"

namespace gregor::protocol {

enum class ConfigOperation : int8_t { SET = 0, DELETE = 1, APPEND = 2, SUBTRACT = 3 };

}  // namespace gregor::protocol
