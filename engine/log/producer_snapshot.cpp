#include "engine/log/producer_snapshot.h"

#include <string>

#include "engine/core/assert.h"
#include "engine/record/crc32c.h"

namespace gregor::log {
namespace {
constexpr size_t kCrcPosition = 2;
constexpr size_t kEntriesPosition = 6;  // Kafka's PRODUCER_ENTRIES_OFFSET

Status corrupt(const std::string& why) { return Status::error(StatusCode::kCorruption, "producer snapshot: " + why); }
}  // namespace

Bytes encode_producer_snapshot(const std::vector<ProducerSnapshotEntry>& entries) {
  GREGOR_ASSERT(entries.size() <= kProducerSnapshotEntriesMax);
  ByteWriter w;
  w.i16(kProducerSnapshotVersion);
  w.u32(0);  // the CRC, filled in below
  w.i32(static_cast<int32_t>(entries.size()));
  for (const ProducerSnapshotEntry& e : entries) {
    w.i64(e.producer_id);
    w.i16(e.epoch);
    w.i32(e.last_sequence);
    w.i64(e.last_offset);
    w.i32(e.offset_delta);
    w.i64(e.timestamp);
    w.i32(e.coordinator_epoch);
    w.i64(e.current_txn_first_offset);
  }
  const ByteView body = as_view(w.bytes_ref()).subspan(kEntriesPosition);
  w.patch_u32(kCrcPosition, record::crc32c(body));
  Bytes out = w.take();
  GREGOR_ASSERT(out.size() == kEntriesPosition + 4 + entries.size() * kProducerSnapshotEntryBytes);
  return out;
}

Result<std::vector<ProducerSnapshotEntry>> decode_producer_snapshot(ByteView bytes) {
  if (bytes.size() < kEntriesPosition + 4) return corrupt("only " + std::to_string(bytes.size()) + " bytes");
  ByteReader r(bytes);
  const int16_t version = r.i16();
  if (version != kProducerSnapshotVersion) return corrupt("version " + std::to_string(version));
  const uint32_t crc = r.u32();
  const uint32_t computed = record::crc32c(bytes.subspan(kEntriesPosition));
  if (crc != computed) return corrupt("CRC mismatch (stored " + std::to_string(crc) + ", computed " + std::to_string(computed) + ")");
  const int32_t count = r.i32();
  if (count < 0 || static_cast<size_t>(count) > kProducerSnapshotEntriesMax ||
      r.remaining() != static_cast<size_t>(count) * kProducerSnapshotEntryBytes)
    return corrupt("entry count " + std::to_string(count) + " does not match the size " + std::to_string(bytes.size()));
  std::vector<ProducerSnapshotEntry> entries(static_cast<size_t>(count));
  for (ProducerSnapshotEntry& e : entries) {
    e.producer_id = r.i64();
    e.epoch = r.i16();
    e.last_sequence = r.i32();
    e.last_offset = r.i64();
    e.offset_delta = r.i32();
    e.timestamp = r.i64();
    e.coordinator_epoch = r.i32();
    e.current_txn_first_offset = r.i64();
  }
  GREGOR_ASSERT(r.ok() && r.at_end());
  return entries;
}

}  // namespace gregor::log
