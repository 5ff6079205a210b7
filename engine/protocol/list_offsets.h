// ListOffsets (api key 2): the offset of a partition at a timestamp, or at one of the special
// timestamps below. The messages are generated from specs/list_offsets.yaml (versions 0-9).
#pragma once

#include <cstdint>

#include "generated/protocol/list_offsets.h"

namespace gregor::protocol {

inline constexpr int64_t kListOffsetsLatestTimestamp = -1;
inline constexpr int64_t kListOffsetsEarliestTimestamp = -2;
inline constexpr int64_t kListOffsetsMaxTimestamp = -3;             // v7+ (KIP-734)
inline constexpr int64_t kListOffsetsEarliestLocalTimestamp = -4;   // v8+ (KIP-405)
inline constexpr int64_t kListOffsetsLatestTieredTimestamp = -5;    // v9+ (KIP-1005)

}  // namespace gregor::protocol
