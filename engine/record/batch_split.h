// Splitting a RECORDS blob (concatenated batches, as in Produce and Fetch) into whole batches.
//
// A fetch response may end with a batch cut short by the byte limit; Kafka's consumers skip it. So a
// truncated final batch is not an error here: it is reported separately (truncated_tail_bytes) and
// left out. Anything else malformed (a bad length, magic or CRC) is kCorruption.
#pragma once

#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/record/record_batch.h"

namespace gregor::record {

struct BatchView {
  BatchHeader header;
  ByteView bytes;  // the whole batch, into the blob that was split
};

struct SplitBatches {
  std::vector<BatchView> batches;
  size_t truncated_tail_bytes = 0;  // bytes of an incomplete final batch, not in `batches`
};

// A limit on batches per blob; a blob with more is refused as kCorruption.
inline constexpr size_t kBatchesPerBlobMax = 1 << 20;

Result<SplitBatches> split_batches(ByteView records, bool verify_crc);

}  // namespace gregor::record
