// SyncGroup (api key 14): after a join, the leader sends every member's assignment and each member
// receives its own; followers' requests are held until the leader's arrives. The messages are
// generated from specs/sync_group.yaml (versions 0-5).
#pragma once

#include "generated/protocol/sync_group.h"
