// UpdateMetadata (api key 6), inter-broker: the controller pushes the cluster's live brokers and
// every partition's leader and ISR to each broker's metadata cache, which answers clients'
// Metadata requests. The messages are generated from specs/update_metadata.yaml (versions 0-8,
// flexible from 6).
//
// Partitions are grouped by topic in every version (written ungrouped at v0-4, regrouped by
// consecutive topic on reading). A broker's address is v0_host/v0_port at v0 and a list of
// endpoints from v1.
#pragma once

#include <cstdint>

#include "generated/protocol/update_metadata.h"

namespace gregor::protocol {

inline constexpr int16_t kSecurityProtocolPlaintext = 0;

}  // namespace gregor::protocol
