// What a leader does to a produced RECORDS field before appending it: Kafka's LogValidator.
//
// Produce v3 and later carry exactly one RecordBatch v2; v0-v2 carry message sets of magic 0 or 1
// (engine/record/legacy_records.h), which are converted to one RecordBatch v2 here (Kafka 3.9's log
// is always v2). Then, as LogValidator does:
//   - the records are read (decompressed when compressed) and checked: CORRUPT_MESSAGE for a bad
//     CRC or records that do not parse or decompress, INVALID_RECORD for offsets that are not 0, 1,
//     2, ... or counts that disagree, a control batch from a client, or more than one batch;
//   - zstd needs Produce v7 (UNSUPPORTED_COMPRESSION_TYPE below it);
//   - the batch is stored with the topic's compression.type (producer: the producer's codec), so a
//     batch is recompressed when they differ;
//   - its maxTimestamp is recomputed from the records (a producer may write -1 there), or under
//     message.timestamp.type=LogAppendTime set to the append time with the timestamp type bit;
//   - MESSAGE_TOO_LARGE when the batch (as produced or as stored) exceeds max.message.bytes.
// Offsets and the partition leader epoch are assigned later, by Log::append_validated.
#pragma once

#include "engine/core/bytes.h"
#include "engine/core/shared_bytes.h"
#include "engine/core/types.h"
#include "engine/log/log_config.h"
#include "engine/log/log_types.h"

namespace gregor::log {

// The newest Produce version: what a caller that is not a Produce request (the group coordinator,
// tools, tests) validates as.
inline constexpr int16_t kProduceVersionLatest = 11;
// The first Produce version that may carry zstd (KIP-110).
inline constexpr int16_t kProduceVersionZstdMin = 7;
// The first Produce version whose records must be one RecordBatch v2.
inline constexpr int16_t kProduceVersionMagicV2Min = 3;

// append_time_ms: the wall clock in milliseconds since the Unix epoch (Runtime::wall_time_ms), the
// timestamp of a batch under LogAppendTime.
// `records` is shared, not copied: a batch that needs no rewrite is returned as the same view.
BatchValidation validate_produced_records(SharedBytes records, int16_t produce_version, const LogConfig& config,
                                          int64_t append_time_ms);
inline BatchValidation validate_produced_records(Bytes records, int16_t produce_version, const LogConfig& config,
                                                 int64_t append_time_ms) {
  return validate_produced_records(SharedBytes(std::move(records)), produce_version, config, append_time_ms);
}

}  // namespace gregor::log
