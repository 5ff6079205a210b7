// AlterPartitionReassignments (api key 45, KIP-455): move partitions' replicas to target lists, or
// cancel a move (null replicas); kafka-reassign-partitions --execute/--cancel and
// AdminClient.alterPartitionReassignments send it. Kafka 3.9: version 0, flexible. The messages are
// generated from specs/alter_partition_reassignments.yaml.
#pragma once

#include "generated/protocol/alter_partition_reassignments.h"
