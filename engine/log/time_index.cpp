#include "engine/log/time_index.h"

#include <algorithm>

namespace gregor::log {

Status TimeIndex::load(Offset next_offset) {
  return load_entries([&](ByteReader& r, Entry& e) -> std::string {
    const int64_t timestamp = r.i64();
    const int32_t relative = r.i32();
    if (relative < 0) return "negative relative offset";
    e = Entry{timestamp, base_offset_ + relative};
    if (e.timestamp < 0) return "negative timestamp";
    if (!entries_.empty() && (e.timestamp <= entries_.back().timestamp || e.offset < entries_.back().offset))
      return "entries are not increasing";
    if (e.offset >= next_offset) return "entry past the end of the log";
    return "";
  });
}

Status TimeIndex::maybe_append(int64_t timestamp, Offset offset, bool skip_full_check) {
  // An empty index behaves as if its last entry were (NO_TIMESTAMP, base offset), as in Kafka.
  const int64_t last_timestamp = entries_.empty() ? -1 : entries_.back().timestamp;
  if (timestamp <= last_timestamp) return Status::ok();
  if (!skip_full_check && is_full()) return Status::ok();  // the segment rolls before this matters
  GREGOR_ASSERT(entries_.empty() || offset >= entries_.back().offset);
  const int64_t relative = offset - base_offset_;
  GREGOR_ASSERT(relative >= 0 && relative <= INT32_MAX);
  return add(Entry{timestamp, offset});
}

void TimeIndex::encode(ByteWriter& w, const Entry& e, Offset base_offset) {
  w.i64(e.timestamp);
  w.i32(static_cast<int32_t>(e.offset - base_offset));
}

Status TimeIndex::truncate_to(Offset offset) {
  auto first_dropped = std::lower_bound(entries_.begin(), entries_.end(), offset,
                                        [](const Entry& e, Offset o) { return e.offset < o; });
  return keep_first(static_cast<size_t>(first_dropped - entries_.begin()));
}

Status TimeIndex::reset() {
  GREGOR_RETURN_IF_ERROR(disk_->truncate(path_, 0));
  entries_.clear();
  written_ = 0;
  return Status::ok();
}

}  // namespace gregor::log
