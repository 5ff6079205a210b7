// DescribeGroups (api key 15): a group's state, protocol and members (admin tools). The messages
// are generated from specs/describe_groups.yaml (versions 0-5).
#pragma once

#include <cstdint>
#include <limits>

#include "generated/protocol/describe_groups.h"

namespace gregor::protocol {

// Kafka's "authorized operations not requested/known" value for the int32 bit field.
inline constexpr int32_t kAuthorizedOperationsOmitted = std::numeric_limits<int32_t>::min();

}  // namespace gregor::protocol
