// ListPartitionReassignments (api key 46, KIP-455): the moves in progress, with each partition's
// replicas and the ones being added and removed (null topics: every partition);
// kafka-reassign-partitions --verify/--list and AdminClient.listPartitionReassignments send it.
// Kafka 3.9: version 0, flexible. The messages are generated from specs/list_partition_reassignments.yaml.
#pragma once

#include "generated/protocol/list_partition_reassignments.h"
