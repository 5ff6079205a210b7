// Building one uncompressed RecordBatch v2 from records, as a producer does
// (MemoryRecordsBuilder.java): baseTimestamp is the first record's timestamp, maxTimestamp the
// largest, offset deltas count from 0 (or follow the records' own offsets when asked), the CRC is
// computed last.
#pragma once

#include <vector>

#include "engine/core/bytes.h"
#include "engine/record/record.h"
#include "engine/record/record_batch.h"

namespace gregor::record {

struct BatchBuildOptions {
  int64_t base_offset = 0;  // a producer writes 0; the leader overwrites it
  int32_t partition_leader_epoch = kNoPartitionLeaderEpoch;
  // Timestamp type, transactional and control bits are kept; the codec bits must be 0 (the codec is
  // `compression`).
  int16_t attributes = 0;
  CompressionType compression = CompressionType::kNone;  // the records compressed as a whole
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  int32_t base_sequence = kNoSequence;
  // false: offset deltas 0, 1, 2, ... (what a producer writes; Record::offset is ignored).
  // true: delta = record.offset - base_offset. REQUIRES then: strictly increasing, >= base_offset.
  bool use_record_offsets = false;
};

// REQUIRES: records is not empty.
Bytes build_batch(const BatchBuildOptions& options, const std::vector<Record>& records);

}  // namespace gregor::record
