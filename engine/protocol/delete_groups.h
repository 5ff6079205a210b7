// DeleteGroups (api key 42): delete empty consumer groups and their committed offsets
// (kafka-consumer-groups --delete, AdminClient.deleteConsumerGroups). Kafka 3.9: versions 0-2,
// flexible from 2. The messages are generated from specs/delete_groups.yaml.
#pragma once

#include "generated/protocol/delete_groups.h"
