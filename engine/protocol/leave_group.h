// LeaveGroup (api key 13): members leave their group at once instead of waiting for their sessions
// to time out, so the rebalance starts immediately. The messages are generated from
// specs/leave_group.yaml (versions 0-5; v0-2 one member_id, v3+ a batch of members).
#pragma once

#include "generated/protocol/leave_group.h"
