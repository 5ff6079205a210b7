// Heartbeat (api key 12): a group member tells its coordinator it is alive; the answer tells it
// whether a rebalance has started (REBALANCE_IN_PROGRESS). The messages are generated from
// specs/heartbeat.yaml (versions 0-4).
#pragma once

#include "generated/protocol/heartbeat.h"
