// RecordBatch v2 (magic 2): the unit Kafka stores, replicates and serves, byte for byte.
//
// Layout (big-endian; DefaultRecordBatch.java, Kafka's docs/implementation.html section 5.3):
//
//   offset  field                 type
//   0       baseOffset            int64
//   8       batchLength           int32   bytes after this field (the whole batch is 12 + batchLength)
//   12      partitionLeaderEpoch  int32
//   16      magic                 int8    = 2
//   17      crc                   uint32  CRC-32C of bytes 21 .. end
//   21      attributes            int16   bits 0-2 codec (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd),
//                                         bit 3 timestampType (1 = LogAppendTime), bit 4 transactional,
//                                         bit 5 control, bit 6 delete horizon
//   23      lastOffsetDelta       int32
//   27      baseTimestamp         int64
//   35      maxTimestamp          int64
//   43      producerId            int64   -1 when not idempotent
//   51      producerEpoch         int16   -1
//   53      baseSequence          int32   -1
//   57      recordCount           int32
//   61      records               (compressed as a whole when the codec bits say so)
//
// The CRC starts at attributes, so the broker may overwrite baseOffset and partitionLeaderEpoch
// (which it does on every leader append) without recomputing it. The same fact means those two
// fields are not protected by the checksum; the log checks offsets for continuity instead.
#pragma once

#include <cstdint>

#include "engine/core/bytes.h"
#include "engine/core/status.h"

namespace gregor::record {

inline constexpr size_t kBaseOffsetPosition = 0;
inline constexpr size_t kBatchLengthPosition = 8;
inline constexpr size_t kPartitionLeaderEpochPosition = 12;
inline constexpr size_t kMagicPosition = 16;
inline constexpr size_t kCrcPosition = 17;
inline constexpr size_t kAttributesPosition = 21;
inline constexpr size_t kLastOffsetDeltaPosition = 23;
inline constexpr size_t kBaseTimestampPosition = 27;
inline constexpr size_t kMaxTimestampPosition = 35;
inline constexpr size_t kProducerIdPosition = 43;
inline constexpr size_t kProducerEpochPosition = 51;
inline constexpr size_t kBaseSequencePosition = 53;
inline constexpr size_t kRecordCountPosition = 57;
inline constexpr size_t kRecordsPosition = 61;
// Bytes before batchLength's count starts: baseOffset and batchLength themselves.
inline constexpr size_t kLogOverhead = 12;
// The smallest batch: a header with no records (Kafka's RECORD_BATCH_OVERHEAD).
inline constexpr size_t kBatchHeaderBytes = kRecordsPosition;
inline constexpr int8_t kMagicV2 = 2;

// A limit on any one batch, far above max.message.bytes' default (1048588) and its usual settings,
// so that a corrupt length field cannot make a reader allocate gigabytes.
inline constexpr int32_t kBatchBytesMax = 64 * 1024 * 1024;

inline constexpr int64_t kNoProducerId = -1;
inline constexpr int16_t kNoProducerEpoch = -1;
inline constexpr int32_t kNoSequence = -1;
inline constexpr int32_t kNoPartitionLeaderEpoch = -1;
inline constexpr int64_t kNoTimestamp = -1;

// Attribute bits.
inline constexpr int16_t kCompressionCodecMask = 0x07;
inline constexpr int16_t kTimestampTypeMask = 0x08;
inline constexpr int16_t kTransactionalFlagMask = 0x10;
inline constexpr int16_t kControlFlagMask = 0x20;
inline constexpr int16_t kDeleteHorizonFlagMask = 0x40;

enum class CompressionType : int { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

struct BatchHeader {
  int64_t base_offset = 0;
  int32_t batch_length = 0;
  int32_t partition_leader_epoch = kNoPartitionLeaderEpoch;
  int8_t magic = kMagicV2;
  uint32_t crc = 0;
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = kNoTimestamp;
  int64_t max_timestamp = kNoTimestamp;
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  int32_t base_sequence = kNoSequence;
  int32_t record_count = 0;

  int64_t last_offset() const { return base_offset + last_offset_delta; }
  int64_t next_offset() const { return last_offset() + 1; }
  // The whole batch on disk or on the wire, length field included.
  size_t size_bytes() const { return kLogOverhead + static_cast<size_t>(batch_length); }
  bool is_transactional() const { return (attributes & kTransactionalFlagMask) != 0; }
  bool is_control() const { return (attributes & kControlFlagMask) != 0; }
  bool is_log_append_time() const { return (attributes & kTimestampTypeMask) != 0; }
  int compression() const { return attributes & kCompressionCodecMask; }
};

// Parses the header of the batch that starts at batch[0] and validates it without trusting a byte:
// the view holds the whole batch (12 + batchLength bytes; anything after it is ignored),
// batchLength is at least a header and at most kBatchBytesMax, magic is 2, recordCount and
// lastOffsetDelta are not negative, and (when verify_crc) the CRC matches.
// Errors: kCorruption (bad CRC, bad length, bad magic, malformed) or kOutOfRange (the view is shorter
// than the batch: a truncated batch, which the caller may treat differently from a corrupt one).
Result<BatchHeader> parse_batch_header(ByteView batch, bool verify_crc);

// The header fields alone, from the first 61 bytes of a batch (the rest need not be there): checks
// the length bounds, magic and counts, not the size of the view beyond the header nor the CRC.
// Errors: kOutOfRange (fewer than 61 bytes), kCorruption.
Result<BatchHeader> peek_batch_header(ByteView header_bytes);

// The CRC-32C a batch should carry: over bytes 21 .. 12 + batchLength.
// REQUIRES: the view holds at least the whole batch as its batchLength field says.
uint32_t compute_batch_crc(ByteView batch);

// Sets maxTimestamp and the timestamp type bit, and recomputes the CRC (they are inside it): what a
// leader does on append (Kafka recomputes the max timestamp from the records; under LogAppendTime it
// is the append time). REQUIRES: the view holds the whole batch.
void set_max_timestamp(Bytes& batch, int64_t max_timestamp, bool log_append_time);

// Sets producerId, producerEpoch and baseSequence, and recomputes the CRC: what Kafka's producer does
// to a batch it built under a producer id it has since reset (ProducerBatch.resetProducerState).
// REQUIRES: the view holds the whole batch.
void set_producer_state(Bytes& batch, int64_t producer_id, int16_t producer_epoch, int32_t base_sequence);

// Overwrite fields outside the CRC, in place. REQUIRES: batch holds at least a batch header.
void set_base_offset(Bytes& batch, int64_t base_offset);
void set_partition_leader_epoch(Bytes& batch, int32_t epoch);
// The same on a raw buffer (a batch inside a larger blob).
void set_base_offset(uint8_t* batch, int64_t base_offset);
void set_partition_leader_epoch(uint8_t* batch, int32_t epoch);

}  // namespace gregor::record
