// Log: finding records by timestamp (ListOffsets), as Kafka's UnifiedLog.fetchOffsetByTimestamp.
#include <algorithm>

#include "engine/log/log.h"
#include "engine/record/record.h"

namespace gregor::log {

namespace {

// The first record of the batch starting `batch` (one whole batch) that `accept` takes, at or
// after `from` and below max_offset.
template <typename Accept>
Result<std::optional<TimestampAndOffset>> first_record(ByteView batch, Offset from, Offset max_offset, Accept accept) {
  auto records = record::decode_records(batch);
  if (!records) return records.status();
  for (const record::Record& r : *records) {
    if (r.offset < from.value || r.offset >= max_offset.value) continue;
    if (accept(r)) return std::optional<TimestampAndOffset>(TimestampAndOffset{r.timestamp, Offset{r.offset}});
  }
  return std::optional<TimestampAndOffset>();
}

}  // namespace

Result<std::optional<TimestampAndOffset>> Log::offset_for_timestamp(int64_t timestamp, Offset max_offset) {
  // The first segment whose largest timestamp reaches the target; earlier ones cannot hold it.
  size_t i = 0;
  while (i < segments_.size() && segments_[i]->max_timestamp() < timestamp) i++;
  if (i == segments_.size()) return std::optional<TimestampAndOffset>();
  Offset from = std::max(segments_[i]->time_index_floor(timestamp), log_start_offset_);
  // Batch by batch from there: the first whose max timestamp reaches the target holds the record
  // (a leader recomputes max timestamps on append), unless its records lie below the log start.
  while (from < max_offset && from < log_end_offset()) {
    auto read = this->read(from, 1, max_offset);
    if (!read) return read.status();
    if (read->records.empty()) break;
    auto header = record::parse_batch_header(as_view(read->records), false);
    if (!header) return header.status();
    if (header->max_timestamp >= timestamp) {
      auto found = first_record(ByteView(read->records).first(header->size_bytes()), from, max_offset,
                                [timestamp](const record::Record& r) { return r.timestamp >= timestamp; });
      if (!found || *found) return found;
    }
    from = Offset{header->next_offset()};
  }
  return std::optional<TimestampAndOffset>();
}

Result<std::optional<TimestampAndOffset>> Log::offset_of_max_timestamp(Offset max_offset) {
  // The segment with the largest timestamp (the first of equals) below max_offset.
  const LogSegment* best = nullptr;
  for (const auto& s : segments_) {
    if (s->base_offset() >= max_offset || s->max_timestamp() < 0) continue;
    if (s->offset_of_max_timestamp() >= max_offset || s->offset_of_max_timestamp() < log_start_offset_) continue;
    if (!best || s->max_timestamp() > best->max_timestamp()) best = s.get();
  }
  if (!best) return std::optional<TimestampAndOffset>();
  const int64_t max_timestamp = best->max_timestamp();
  auto read = this->read(best->offset_of_max_timestamp(), 1, max_offset);
  if (!read) return read.status();
  if (read->records.empty()) return std::optional<TimestampAndOffset>();
  auto header = record::parse_batch_header(as_view(read->records), false);
  if (!header) return header.status();
  return first_record(ByteView(read->records).first(header->size_bytes()), log_start_offset_, max_offset,
                      [max_timestamp](const record::Record& r) { return r.timestamp == max_timestamp; });
}

}  // namespace gregor::log
