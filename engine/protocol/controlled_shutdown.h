// ControlledShutdown (api key 7), inter-broker: a broker about to stop asks the controller to move
// its partition leaderships away first; remaining_partitions lists those it still leads (empty:
// it may shut down). The messages are generated from specs/controlled_shutdown.yaml (versions
// 0-3; v0 uses request header v0, without client id).
#pragma once

#include "generated/protocol/controlled_shutdown.h"
