#include "engine/record/batch_builder.h"

#include <algorithm>

namespace gregor::record {
namespace {

void write_nullable(ByteWriter& w, const std::optional<Bytes>& b) {
  if (!b) return w.varint(-1);
  w.varint(static_cast<int32_t>(b->size()));
  w.raw(as_view(*b));
}

}  // namespace

Bytes build_batch(const BatchBuildOptions& options, const std::vector<Record>& records) {
  GREGOR_ASSERT(!records.empty());
  GREGOR_ASSERT((options.attributes & kCompressionCodecMask) == 0);
  const int64_t base_timestamp = records.front().timestamp;
  int64_t max_timestamp = kNoTimestamp;
  for (const Record& r : records) max_timestamp = std::max(max_timestamp, r.timestamp);

  ByteWriter w;
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
  ByteWriter body;
  for (size_t i = 0; i < records.size(); i++) {
    const Record& r = records[i];
    int64_t delta = static_cast<int64_t>(i);
    if (options.use_record_offsets) {
      delta = r.offset - options.base_offset;
      GREGOR_ASSERT(delta > last_offset_delta && delta <= INT32_MAX);
    }
    body = ByteWriter();
    body.i8(0);
    body.varlong(r.timestamp - base_timestamp);
    body.varint(static_cast<int32_t>(delta));
    write_nullable(body, r.key);
    write_nullable(body, r.value);
    body.varint(static_cast<int32_t>(r.headers.size()));
    for (const RecordHeader& h : r.headers) {
      body.varint(static_cast<int32_t>(h.key.size()));
      body.raw(h.key);
      write_nullable(body, h.value);
    }
    w.varint(static_cast<int32_t>(body.size()));
    w.raw(as_view(body.bytes_ref()));
    last_offset_delta = static_cast<int32_t>(delta);
  }
  GREGOR_ASSERT(w.size() - kLogOverhead <= static_cast<size_t>(kBatchBytesMax));
  w.patch_u32(kBatchLengthPosition, static_cast<uint32_t>(w.size() - kLogOverhead));
  w.patch_u32(kLastOffsetDeltaPosition, static_cast<uint32_t>(last_offset_delta));
  w.patch_u32(kCrcPosition, compute_batch_crc(as_view(w.bytes_ref())));
  return w.take();
}

}  // namespace gregor::record
