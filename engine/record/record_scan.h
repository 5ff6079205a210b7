// What a leader needs to know of a produced batch's records, without building them.
#pragma once

#include <cstdint>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/record/record_batch.h"

namespace gregor::record {

struct RecordsScan {
  // The largest record timestamp as decode_records would give it (kNoTimestamp for no records).
  int64_t max_timestamp = kNoTimestamp;
  // The first record whose offset delta is not its index (-1: none), and that delta.
  int first_gap = -1;
  int32_t gap_delta = 0;
};

// The checks of decode_records (decompressing a compressed batch) without building the records, and
// the figures above. Assumes the header was parsed (and the CRC checked) already. Errors: those of
// decode_records, with the same messages.
Result<RecordsScan> scan_records(ByteView batch, const BatchHeader& header);

}  // namespace gregor::record
