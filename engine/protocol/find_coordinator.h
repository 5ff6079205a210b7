// FindCoordinator (api key 10): which broker coordinates a consumer group (key_type 0) or a
// transactional id (key_type 1). The messages are generated from specs/find_coordinator.yaml
// (versions 0-6; v4+ batch several keys in coordinator_keys and answer per key in coordinators).
// The advertised minimum must stay 0, or librdkafka never turns on its BrokerGroupCoordinator
// feature and never looks for a coordinator.
#pragma once

#include <cstdint>

#include "generated/protocol/find_coordinator.h"

namespace gregor::protocol {

inline constexpr int8_t kCoordinatorKeyTypeGroup = 0;
inline constexpr int8_t kCoordinatorKeyTypeTransaction = 1;

}  // namespace gregor::protocol
