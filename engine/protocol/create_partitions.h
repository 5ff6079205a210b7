// CreatePartitions (api key 37): add partitions to existing topics (kafka-topics --alter
// --partitions, AdminClient.createPartitions), optionally placing the new replicas by hand. Kafka
// 3.9: versions 0-3, flexible from 2. The messages are generated from specs/create_partitions.yaml.
#pragma once

#include "generated/protocol/create_partitions.h"
