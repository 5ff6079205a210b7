// Records inside a RecordBatch v2, and their codec.
//
// Each record (DefaultRecord.java) is, with zig-zag varints (protobuf sint32/sint64):
//
//   length          varint   bytes of the record after this field
//   attributes      int8     unused, 0
//   timestampDelta  varlong  from the batch's baseTimestamp
//   offsetDelta     varint   from the batch's baseOffset
//   keyLength       varint   -1 for a null key
//   key             bytes
//   valueLength     varint   -1 for a null value
//   value           bytes
//   headersCount    varint
//   headers         [headerKeyLength varint, headerKey (UTF-8), headerValueLength varint (-1 null), value]
//
// The broker stores batches opaquely; these functions are for producers, consumers, tests and
// tools. Decoding never trusts its input: every length is checked against the bytes left.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/record/record_batch.h"

namespace gregor::record {

struct RecordHeader {
  std::string key;
  std::optional<Bytes> value;
  bool operator==(const RecordHeader&) const = default;
};

struct Record {
  int64_t offset = 0;
  int64_t timestamp = kNoTimestamp;  // milliseconds, as the producer stamped it (CreateTime)
  std::optional<Bytes> key;
  std::optional<Bytes> value;
  std::vector<RecordHeader> headers;
  bool operator==(const Record&) const = default;
};

// The records of a batch, decompressed first when it is compressed (engine/record/compression.h),
// with absolute offsets and timestamps (a LogAppendTime batch gives every record the batch's
// maxTimestamp, as Kafka's consumers see it). Validates the header and CRC first. Errors:
// kCorruption for malformed or undecompressable records or a count that does not match.
Result<std::vector<Record>> decode_records(ByteView batch);

// The structural checks of decode_records without building the records (decompressing a compressed
// batch). Assumes the header was parsed (and the CRC checked) already.
Status validate_records(ByteView batch, const BatchHeader& header);

}  // namespace gregor::record
