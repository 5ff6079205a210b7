// Metadata (api key 3): the cluster's brokers, its controller and every requested topic's
// partitions with leader, replicas and ISR. The messages are generated from specs/metadata.yaml
// (versions 0-12).
//
// v0: an empty topic list means all topics; v1+: null means all, empty means none. From v10 a
// topic may be named by id with a null name (answered from v12), hence the optional names.
// kafkajs throws on any topic or partition error: use LEADER_NOT_AVAILABLE (retriable) during an
// election, never REPLICA_NOT_AVAILABLE for a healthy partition.
#pragma once

#include "generated/protocol/metadata.h"
