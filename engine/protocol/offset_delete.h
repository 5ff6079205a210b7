// OffsetDelete (api key 47): delete a group's committed offsets of some partitions
// (kafka-consumer-groups --delete-offsets, AdminClient.deleteConsumerGroupOffsets). Kafka 3.9:
// version 0 only, never flexible. The messages are generated from specs/offset_delete.yaml.
#pragma once

#include "generated/protocol/offset_delete.h"
