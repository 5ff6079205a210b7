// JoinGroup (api key 11): a consumer joins (or rejoins) a group; the coordinator answers when the
// rebalance completes, electing a leader that receives every member's metadata. The messages are
// generated from specs/join_group.yaml (versions 0-9).
//
// From v4 a join with an empty member_id may be answered MEMBER_ID_REQUIRED with the member id to
// rejoin with (KIP-394). Protocol metadata is opaque to the broker (the assignors run on clients).
#pragma once

#include "generated/protocol/join_group.h"
