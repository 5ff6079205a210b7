// StopReplica (api key 5), inter-broker: the controller tells a broker to stop replicating
// partitions, and to delete them when a topic is deleted or a replica reassigned away. The
// messages are generated from specs/stop_replica.yaml (versions 0-4, flexible from 2).
//
// v0-2 use `topics` and one delete_partitions flag (v0 written ungrouped and regrouped by
// consecutive topic on reading); v3+ use topic_states with a leader epoch and a delete flag per
// partition.
#pragma once

#include "generated/protocol/stop_replica.h"
