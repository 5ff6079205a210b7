#include "engine/record/batch_builder.h"

#include <algorithm>

#include "engine/record/compression.h"

namespace gregor::record {
namespace {

void write_nullable(ByteWriter& w, const std::optional<Bytes>& b) {
  if (!b) return w.varint(-1);
  w.varint(static_cast<int32_t>(b->size()));
  w.raw(as_view(*b));
}

// Encoded sizes, as ByteWriter writes them, so that a record's length (which precedes it) is known
// before it is written and the batch is built in one buffer of the right size.
size_t uvarint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) n++;
  return n;
}
size_t varint_size(int32_t v) {
  return uvarint_size(static_cast<uint64_t>((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31)));
}
size_t varlong_size(int64_t v) { return uvarint_size((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
size_t nullable_size(const std::optional<Bytes>& b) {
  return b ? varint_size(static_cast<int32_t>(b->size())) + b->size() : varint_size(-1);
}

// The bytes of one record after its length field.
size_t record_body_size(int64_t timestamp_delta, int64_t offset_delta, const std::optional<Bytes>& key,
                        const std::optional<Bytes>& value, const std::vector<RecordHeader>& headers) {
  size_t n = 1 + varlong_size(timestamp_delta) + varint_size(static_cast<int32_t>(offset_delta)) + nullable_size(key) +
             nullable_size(value) + varint_size(static_cast<int32_t>(headers.size()));
  for (const RecordHeader& h : headers)
    n += varint_size(static_cast<int32_t>(h.key.size())) + h.key.size() + nullable_size(h.value);
  return n;
}

// A buffer that holds the header's room, with room for reserve_bytes of records after it.
Bytes header_room(size_t reserve_bytes) {
  Bytes buffer;
  buffer.reserve(kRecordsPosition + reserve_bytes);
  buffer.resize(kRecordsPosition);
  return buffer;
}

}  // namespace

BatchBuilder::BatchBuilder(size_t reserve_bytes) : w_(header_room(reserve_bytes)) {}

void BatchBuilder::append(int64_t offset_delta, int64_t timestamp, const std::optional<Bytes>& key,
                          const std::optional<Bytes>& value, const std::vector<RecordHeader>& headers) {
  GREGOR_ASSERT_MSG(w_.size() >= kRecordsPosition, "a record appended to a finished batch");
  GREGOR_ASSERT(offset_delta > last_offset_delta_ && offset_delta <= INT32_MAX);
  if (count_ == 0) base_timestamp_ = timestamp;
  max_timestamp_ = std::max(max_timestamp_, timestamp);
  const int64_t timestamp_delta = timestamp - base_timestamp_;
  const size_t body = record_body_size(timestamp_delta, offset_delta, key, value, headers);
  w_.varint(static_cast<int32_t>(body));
  const size_t body_start = w_.size();
  w_.i8(0);
  w_.varlong(timestamp_delta);
  w_.varint(static_cast<int32_t>(offset_delta));
  write_nullable(w_, key);
  write_nullable(w_, value);
  w_.varint(static_cast<int32_t>(headers.size()));
  for (const RecordHeader& h : headers) {
    w_.varint(static_cast<int32_t>(h.key.size()));
    w_.raw(h.key);
    write_nullable(w_, h.value);
  }
  GREGOR_ASSERT_MSG(w_.size() - body_start == body, "a record's length field disagrees with its bytes");
  last_offset_delta_ = offset_delta;
  count_++;
}

Bytes BatchBuilder::finish(const BatchBuildOptions& options) {
  GREGOR_ASSERT(count_ > 0);
  GREGOR_ASSERT((options.attributes & kCompressionCodecMask) == 0);
  Bytes out = w_.take();
  if (options.compression != CompressionType::kNone) {
    // The records compressed as one block, after the same header.
    const Bytes packed = compress(options.compression, ByteView(out).subspan(kRecordsPosition));
    out.resize(kRecordsPosition);
    out.insert(out.end(), packed.begin(), packed.end());
  }
  GREGOR_ASSERT_MSG(out.size() - kLogOverhead <= static_cast<size_t>(kBatchBytesMax), "batch too large");
  const int16_t attributes = static_cast<int16_t>(options.attributes | static_cast<int16_t>(options.compression));
  uint8_t* h = out.data();
  put_be(h + kBaseOffsetPosition, static_cast<uint64_t>(options.base_offset), 8);
  put_be(h + kBatchLengthPosition, static_cast<uint32_t>(out.size() - kLogOverhead), 4);
  put_be(h + kPartitionLeaderEpochPosition, static_cast<uint32_t>(options.partition_leader_epoch), 4);
  h[kMagicPosition] = static_cast<uint8_t>(kMagicV2);
  put_be(h + kAttributesPosition, static_cast<uint16_t>(attributes), 2);
  put_be(h + kLastOffsetDeltaPosition, static_cast<uint32_t>(last_offset_delta_), 4);
  put_be(h + kBaseTimestampPosition, static_cast<uint64_t>(base_timestamp_), 8);
  put_be(h + kMaxTimestampPosition, static_cast<uint64_t>(max_timestamp_), 8);
  put_be(h + kProducerIdPosition, static_cast<uint64_t>(options.producer_id), 8);
  put_be(h + kProducerEpochPosition, static_cast<uint16_t>(options.producer_epoch), 2);
  put_be(h + kBaseSequencePosition, static_cast<uint32_t>(options.base_sequence), 4);
  put_be(h + kRecordCountPosition, static_cast<uint32_t>(count_), 4);
  put_be(h + kCrcPosition, compute_batch_crc(as_view(out)), 4);
  count_ = 0;
  return out;
}

Bytes build_batch(const BatchBuildOptions& options, const std::vector<Record>& records) {
  GREGOR_ASSERT(!records.empty());
  // One allocation of the final size: the records are measured first.
  size_t bytes = 0;
  for (size_t i = 0; i < records.size(); i++) {
    const int64_t delta = options.use_record_offsets ? records[i].offset - options.base_offset : static_cast<int64_t>(i);
    const size_t body = record_body_size(records[i].timestamp - records.front().timestamp, delta, records[i].key,
                                         records[i].value, records[i].headers);
    bytes += varint_size(static_cast<int32_t>(body)) + body;
  }
  BatchBuilder builder(bytes);
  for (size_t i = 0; i < records.size(); i++)
    builder.append(options.use_record_offsets ? records[i].offset - options.base_offset : static_cast<int64_t>(i), records[i]);
  return builder.finish(options);
}

}  // namespace gregor::record
