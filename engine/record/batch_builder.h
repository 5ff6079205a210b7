// Building one uncompressed RecordBatch v2 from records, as a producer does
// (MemoryRecordsBuilder.java): baseTimestamp is the first record's timestamp, maxTimestamp the
// largest, offset deltas count from 0 (or follow the records' own offsets when asked), the CRC is
// computed last.
#pragma once

#include <optional>
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

// Builds one batch record by record, as Kafka's producer does (MemoryRecordsBuilder): each record
// is written when it is appended, after room left for the header; finish() writes the header,
// compresses the records when asked, and computes the CRC last. A producer appends a record to its
// partition's open batch in send(), so it keeps no copy of the record itself.
class BatchBuilder {
 public:
  // reserve_bytes: bytes of records the buffer holds before it grows (a producer reserves batch.size,
  // as Kafka's producer allocates its batch's buffer).
  explicit BatchBuilder(size_t reserve_bytes = 0);

  // Appends a record. offset_delta: the record's offset less the batch's base offset (a producer's
  // records: 0, 1, 2, ..., which next_offset_delta() gives). The first record's timestamp is the
  // batch's baseTimestamp. REQUIRES: offset_delta greater than the last record's, <= INT32_MAX.
  void append(int64_t offset_delta, int64_t timestamp, const std::optional<Bytes>& key,
              const std::optional<Bytes>& value, const std::vector<RecordHeader>& headers);
  void append(int64_t offset_delta, const Record& r) { append(offset_delta, r.timestamp, r.key, r.value, r.headers); }

  int32_t count() const { return count_; }
  int64_t next_offset_delta() const { return last_offset_delta_ + 1; }

  // The batch of the records appended, with the options' header fields (use_record_offsets is
  // build_batch's alone). REQUIRES: count() > 0. The builder is spent afterwards.
  Bytes finish(const BatchBuildOptions& options);

 private:
  ByteWriter w_;  // kRecordsPosition bytes kept for the header, then the records
  int32_t count_ = 0;
  int64_t base_timestamp_ = kNoTimestamp;
  int64_t max_timestamp_ = kNoTimestamp;
  int64_t last_offset_delta_ = -1;
};

// The batch of `records`, built by a BatchBuilder. REQUIRES: records is not empty.
Bytes build_batch(const BatchBuildOptions& options, const std::vector<Record>& records);

}  // namespace gregor::record
