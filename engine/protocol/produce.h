// Produce (api key 0): a producer appends record batches to partition leaders.
//
// The messages are generated from specs/produce.yaml (ProduceRequest, ProduceResponse; Kafka 3.9's
// versions 0-11). Requests of v0-2 carry message sets of magic 0 and 1, v3+ exactly one
// RecordBatch v2 per partition; which versions a Gregor broker serves is api_versions_table.h's.
// `records` is opaque here (records_field.h; engine/record/ parses it). With acks = 0 the broker
// sends no response at all.
#pragma once

#include "generated/protocol/produce.h"
