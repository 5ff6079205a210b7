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
size_t record_body_size(const Record& r, int64_t timestamp_delta, int64_t offset_delta) {
  size_t n = 1 + varlong_size(timestamp_delta) + varint_size(static_cast<int32_t>(offset_delta)) + nullable_size(r.key) +
             nullable_size(r.value) + varint_size(static_cast<int32_t>(r.headers.size()));
  for (const RecordHeader& h : r.headers)
    n += varint_size(static_cast<int32_t>(h.key.size())) + h.key.size() + nullable_size(h.value);
  return n;
}

}  // namespace

Bytes build_batch(const BatchBuildOptions& options, const std::vector<Record>& records) {
  GREGOR_ASSERT(!records.empty());
  GREGOR_ASSERT((options.attributes & kCompressionCodecMask) == 0);
  const int64_t base_timestamp = records.front().timestamp;
  int64_t max_timestamp = kNoTimestamp;
  for (const Record& r : records) max_timestamp = std::max(max_timestamp, r.timestamp);

  auto offset_delta = [&](size_t i) {
    return options.use_record_offsets ? records[i].offset - options.base_offset : static_cast<int64_t>(i);
  };
  // One allocation of the final size: records are written in place, not built apart and copied.
  size_t total = kRecordsPosition;
  for (size_t i = 0; i < records.size(); i++) {
    const size_t body = record_body_size(records[i], records[i].timestamp - base_timestamp, offset_delta(i));
    total += varint_size(static_cast<int32_t>(body)) + body;
  }
  Bytes buffer;
  buffer.reserve(total);
  ByteWriter w(std::move(buffer));
  w.i64(options.base_offset);
  w.i32(0);  // batchLength, patched below
  w.i32(options.partition_leader_epoch);
  w.i8(kMagicV2);
  w.u32(0);  // crc, patched below
  w.i16(options.attributes);
  w.i32(0);  // lastOffsetDelta, patched below
  w.i64(base_timestamp);
  w.i64(max_timestamp);
  w.i64(options.producer_id);
  w.i16(options.producer_epoch);
  w.i32(options.base_sequence);
  w.i32(static_cast<int32_t>(records.size()));
  GREGOR_ASSERT(w.size() == kRecordsPosition);

  int32_t last_offset_delta = -1;
  for (size_t i = 0; i < records.size(); i++) {
    const Record& r = records[i];
    const int64_t delta = offset_delta(i);
    if (options.use_record_offsets) GREGOR_ASSERT(delta > last_offset_delta && delta <= INT32_MAX);
    const size_t body = record_body_size(r, r.timestamp - base_timestamp, delta);
    w.varint(static_cast<int32_t>(body));
    const size_t body_start = w.size();
    w.i8(0);
    w.varlong(r.timestamp - base_timestamp);
    w.varint(static_cast<int32_t>(delta));
    write_nullable(w, r.key);
    write_nullable(w, r.value);
    w.varint(static_cast<int32_t>(r.headers.size()));
    for (const RecordHeader& h : r.headers) {
      w.varint(static_cast<int32_t>(h.key.size()));
      w.raw(h.key);
      write_nullable(w, h.value);
    }
    GREGOR_ASSERT_MSG(w.size() - body_start == body, "a record's length field disagrees with its bytes");
    last_offset_delta = static_cast<int32_t>(delta);
  }
  GREGOR_ASSERT(w.size() == total);
  GREGOR_ASSERT(w.size() - kLogOverhead <= static_cast<size_t>(kBatchBytesMax));
  w.patch_u32(kBatchLengthPosition, static_cast<uint32_t>(w.size() - kLogOverhead));
  w.patch_u32(kLastOffsetDeltaPosition, static_cast<uint32_t>(last_offset_delta));
  if (options.compression == CompressionType::kNone) {
    w.patch_u32(kCrcPosition, compute_batch_crc(as_view(w.bytes_ref())));
    return w.take();
  }
  // Compressed: the same header over the records compressed as one block.
  Bytes plain = w.take();
  const Bytes packed = compress(options.compression, ByteView(plain).subspan(kRecordsPosition));
  plain.resize(kRecordsPosition);
  plain.insert(plain.end(), packed.begin(), packed.end());
  GREGOR_ASSERT_MSG(plain.size() - kLogOverhead <= static_cast<size_t>(kBatchBytesMax), "compressed batch too large");
  ByteWriter c(std::move(plain));
  c.patch_u32(kBatchLengthPosition, static_cast<uint32_t>(c.size() - kLogOverhead));
  const int16_t attributes = static_cast<int16_t>(options.attributes | static_cast<int16_t>(options.compression));
  Bytes out = c.take();
  out[kAttributesPosition] = static_cast<uint8_t>(static_cast<uint16_t>(attributes) >> 8);
  out[kAttributesPosition + 1] = static_cast<uint8_t>(attributes);
  ByteWriter d(std::move(out));
  d.patch_u32(kCrcPosition, compute_batch_crc(as_view(d.bytes_ref())));
  return d.take();
}

}  // namespace gregor::record
