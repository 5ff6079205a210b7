// DescribeCluster (api key 60): the cluster id, the controller and the live brokers, as
// AdminClient.describeCluster asks them (Kafka 3.9: versions 0-1, flexible from 0; v1 adds the
// endpoint type, KIP-919). The messages are generated from specs/describe_cluster.yaml.
#pragma once

#include "generated/protocol/describe_cluster.h"
