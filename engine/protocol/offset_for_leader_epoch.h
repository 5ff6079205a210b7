// OffsetForLeaderEpoch (api key 23), inter-broker (and consumers, for KIP-320 truncation checks):
// a follower asks the leader where a leader epoch ended, so it truncates its log to the right
// offset instead of the high watermark (KIP-101). The messages are generated from
// specs/offset_for_leader_epoch.yaml (versions 0-4).
//
// replica_id: the follower's broker id; -1 for a consumer; -2 (the default) for a debugging
// client, which may see past the high watermark.
#pragma once

#include "generated/protocol/offset_for_leader_epoch.h"
