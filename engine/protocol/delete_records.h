// DeleteRecords (api key 21): advance partitions' log start offsets (kafka-delete-records,
// AdminClient.deleteRecords). Kafka 3.9: versions 0-2, flexible from 2. The messages are generated
// from specs/delete_records.yaml.
#pragma once

#include "generated/protocol/delete_records.h"
