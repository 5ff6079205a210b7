#include "engine/log/time_index.h"

#include <algorithm>

#include "engine/log/offset_index.h"

namespace gregor::log {

Status TimeIndex::load(Offset next_offset) {
  entries_.clear();
  written_ = 0;
  auto file = disk_->read_all(path_);
  if (!file) return file.status();
  auto corrupt = [&](const std::string& why) {
    entries_.clear();
    written_ = 0;
    return Status::error(StatusCode::kCorruption, path_ + ": " + why);
  };
  if (file->size() % kTimeIndexEntryBytes != 0) return corrupt("size is not a multiple of 12");
  ByteReader r(as_view(*file));
  entries_.reserve(file->size() / kTimeIndexEntryBytes);
  while (!r.at_end()) {
    const int64_t timestamp = r.i64();
    const int32_t relative = r.i32();
    if (relative < 0) return corrupt("negative relative offset");
    const Entry e{timestamp, base_offset_ + relative};
    if (e.timestamp < 0) return corrupt("negative timestamp");
    if (!entries_.empty() && (e.timestamp <= entries_.back().timestamp || e.offset < entries_.back().offset))
      return corrupt("entries are not increasing");
    if (e.offset >= next_offset) return corrupt("entry past the end of the log");
    entries_.push_back(e);
  }
  written_ = entries_.size();
  return Status::ok();
}

Status TimeIndex::maybe_append(int64_t timestamp, Offset offset, bool skip_full_check) {
  // An empty index behaves as if its last entry were (NO_TIMESTAMP, base offset), as in Kafka.
  const int64_t last_timestamp = entries_.empty() ? -1 : entries_.back().timestamp;
  if (timestamp <= last_timestamp) return Status::ok();
  if (!skip_full_check && is_full()) return Status::ok();  // the segment rolls before this matters
  GREGOR_ASSERT(entries_.empty() || offset >= entries_.back().offset);
  const int64_t relative = offset - base_offset_;
  GREGOR_ASSERT(relative >= 0 && relative <= INT32_MAX);
  entries_.push_back(Entry{timestamp, offset});
  if (entries_.size() - written_ >= kIndexPendingEntriesMax) return write_pending();
  return Status::ok();
}

Status TimeIndex::write_pending() {
  if (written_ == entries_.size()) return Status::ok();
  ByteWriter w;
  for (size_t i = written_; i < entries_.size(); i++) {
    w.i64(entries_[i].timestamp);
    w.i32(static_cast<int32_t>(entries_[i].offset - base_offset_));
  }
  auto at = disk_->append(path_, as_view(w.bytes_ref()));
  if (!at) return at.status();
  GREGOR_ASSERT_MSG(*at == written_ * kTimeIndexEntryBytes, path_ + " changed size under the index");
  written_ = entries_.size();
  return Status::ok();
}

Status TimeIndex::truncate_to(Offset offset) {
  auto first_dropped = std::lower_bound(entries_.begin(), entries_.end(), offset,
                                        [](const Entry& e, Offset o) { return e.offset < o; });
  const size_t kept = static_cast<size_t>(first_dropped - entries_.begin());
  if (kept < written_ || (kept == 0 && written_ == 0)) {
    GREGOR_RETURN_IF_ERROR(disk_->truncate(path_, kept * kTimeIndexEntryBytes));
    written_ = kept;
  }
  entries_.resize(kept);
  return Status::ok();
}

Status TimeIndex::reset() {
  GREGOR_RETURN_IF_ERROR(disk_->truncate(path_, 0));
  entries_.clear();
  written_ = 0;
  return Status::ok();
}

}  // namespace gregor::log
