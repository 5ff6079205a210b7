// Control batches (KIP-98): the transaction markers a partition leader writes when a transaction
// ends (Kafka's ControlRecordType and EndTransactionMarker).
//
// A control batch is a RecordBatch v2 with the control bit (attributes bit 5) and the
// transactional bit (bit 4) set, the producer id and epoch of the transaction it ends, base
// sequence -1, and exactly one record:
//
//   key    int16 version (0), int16 type (0 ABORT, 1 COMMIT)
//   value  int16 version (0), int32 coordinatorEpoch
//
// Consumers never hand a control record to the application; a read_committed consumer uses the
// markers' positions (and the fetch response's aborted transactions) to drop aborted records.
#pragma once

#include <cstdint>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/record/record_batch.h"

namespace gregor::record {

enum class ControlType : int16_t { kAbort = 0, kCommit = 1 };

inline constexpr int16_t kControlKeyVersion = 0;
inline constexpr int16_t kEndTxnMarkerValueVersion = 0;

struct EndTxnMarker {
  ControlType type = ControlType::kAbort;
  int32_t coordinator_epoch = 0;
};

// A whole control batch as a producer would build one (base offset 0; the leader assigns it).
Bytes build_end_txn_marker_batch(int64_t producer_id, int16_t producer_epoch, const EndTxnMarker& marker,
                                 int64_t timestamp_ms);

// The marker in a control batch (the header parsed and CRC checked by the caller, or not: this
// reads the one record). kCorruption when the batch is not a control batch, holds other than one
// record, or its key or value do not parse; kInvalidArgument for a control type other than
// ABORT/COMMIT (Kafka ignores unknown control types; callers skip them).
Result<EndTxnMarker> parse_end_txn_marker(ByteView batch);

}  // namespace gregor::record
