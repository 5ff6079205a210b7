// Message sets of magic 0 and 1: the record formats before RecordBatch v2, which Produce v0-v2 carry
// and Fetch v0-v3 must answer with (Kafka 3.9 converts both ways; 4.0 dropped them, KIP-896).
//
// A message set is a sequence of entries (LegacyRecord.java, Kafka's docs "Old Message Format"):
//
//   offset       int64
//   message_size int32   bytes of the message that follows
//   crc          uint32  CRC-32 (IEEE, java.util.zip.CRC32) of magic .. end of the message
//   magic        int8    0 or 1
//   attributes   int8    bits 0-2 codec (0 none, 1 gzip, 2 snappy, 3 lz4); magic 1: bit 3 timestamp
//                        type (1 = LogAppendTime)
//   timestamp    int64   magic 1 only
//   key          int32 length (-1 null) + bytes
//   value        int32 length (-1 null) + bytes
//
// A compressed message is a wrapper: its key is null and its value is a compressed message set of
// inner messages of the same magic, none of them compressed. Magic 0 inner offsets are absolute;
// magic 1 inner offsets are relative (0, 1, 2, ...) and the wrapper's offset is the absolute offset
// of the last inner message, its timestamp the largest inner one (or the log append time).
//
// Byte 16 of an entry is its magic in both the old formats and RecordBatch v2, so a reader can tell
// the format of a RECORDS field from its first entry (peek_magic).
#pragma once

#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/record/record.h"
#include "engine/record/record_batch.h"

namespace gregor::record {

inline constexpr int8_t kMagicV0 = 0;
inline constexpr int8_t kMagicV1 = 1;
inline constexpr size_t kLegacyMagicPosition = 16;

// The magic of the first entry of a RECORDS blob. Errors: kCorruption (shorter than 17 bytes).
Result<int8_t> peek_magic(ByteView records);

struct LegacyMessageSet {
  int8_t magic = kMagicV0;
  CompressionType compression = CompressionType::kNone;  // of the first wrapper (none: not compressed)
  bool log_append_time = false;                          // the first message's timestamp type (magic 1)
  // Every message, wrappers opened: offsets as the producer wrote them (inner offsets of a magic 1
  // wrapper made absolute), timestamps (-1 for magic 0; a LogAppendTime wrapper's for its inner
  // messages). Headers are always empty: the old formats have none.
  std::vector<Record> records;
};

// Parses a whole message set, checking every message's CRC, inner ones included. Errors:
// kCorruption (a bad CRC, length or codec; a truncated entry; data that does not decompress) and
// kInvalidArgument (magics that differ, a compressed inner message, a wrapper with a key, no message
// at all), which Kafka answers with CORRUPT_MESSAGE and INVALID_RECORD.
Result<LegacyMessageSet> parse_legacy_message_set(ByteView data);

// Writes records as a message set of `magic`. Uncompressed: one message per record at its offset.
// Compressed: one wrapper holding them all (see above). Headers are dropped (the format has none).
// REQUIRES: magic 0 or 1, records not empty, compression not zstd.
Bytes build_legacy_message_set(int8_t magic, CompressionType compression, const std::vector<Record>& records,
                               bool log_append_time);

// Converts RecordBatch v2 batches (as a log read returns them) to a message set of to_magic, as
// Kafka's RecordsUtil.downConvert does for Fetch v0-v3: control batches are dropped, a compressed
// batch becomes one wrapper with the same codec (lz4 under magic 0 is written uncompressed: Kafka's
// magic-0 lz4 framing had a broken checksum that today's lz4 refuses), an uncompressed batch loses
// its records below fetch_offset, headers are dropped. A truncated final batch is left out.
// Errors: kInvalidArgument for a zstd batch (UNSUPPORTED_COMPRESSION_TYPE), kCorruption.
// REQUIRES: to_magic 0 or 1.
Result<Bytes> down_convert(ByteView batches, int8_t to_magic, int64_t fetch_offset);

// CRC-32 (IEEE 802.3), the checksum of the old formats.
uint32_t crc32_ieee(ByteView data);

}  // namespace gregor::record
