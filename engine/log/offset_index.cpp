#include "engine/log/offset_index.h"

#include <algorithm>

namespace gregor::log {

Status OffsetIndex::load(uint64_t log_size) {
  entries_.clear();
  written_ = 0;
  auto file = disk_->read_all(path_);
  if (!file) return file.status();
  auto corrupt = [&](const std::string& why) {
    entries_.clear();
    written_ = 0;
    return Status::error(StatusCode::kCorruption, path_ + ": " + why);
  };
  if (file->size() % kOffsetIndexEntryBytes != 0) return corrupt("size is not a multiple of 8");
  ByteReader r(as_view(*file));
  entries_.reserve(file->size() / kOffsetIndexEntryBytes);
  while (!r.at_end()) {
    const int32_t relative = r.i32();
    const uint32_t position = r.u32();
    if (relative < 0) return corrupt("negative relative offset");
    const Entry e{base_offset_ + relative, position};
    if (!entries_.empty() && (e.offset <= entries_.back().offset || e.position <= entries_.back().position))
      return corrupt("entries are not increasing");
    if (e.position >= log_size) return corrupt("entry points past the end of the log");
    entries_.push_back(e);
  }
  written_ = entries_.size();
  return Status::ok();
}

Status OffsetIndex::append(Offset last_offset, uint32_t position) {
  GREGOR_ASSERT(!is_full());
  GREGOR_ASSERT(entries_.empty() || (last_offset > entries_.back().offset && position > entries_.back().position));
  const int64_t relative = last_offset - base_offset_;
  GREGOR_ASSERT(relative >= 0 && relative <= INT32_MAX);
  entries_.push_back(Entry{last_offset, position});
  if (entries_.size() - written_ >= kIndexPendingEntriesMax) return write_pending();
  return Status::ok();
}

Status OffsetIndex::write_pending() {
  if (written_ == entries_.size()) return Status::ok();
  ByteWriter w;
  for (size_t i = written_; i < entries_.size(); i++) {
    w.i32(static_cast<int32_t>(entries_[i].offset - base_offset_));
    w.u32(entries_[i].position);
  }
  auto at = disk_->append(path_, as_view(w.bytes_ref()));
  if (!at) return at.status();
  GREGOR_ASSERT_MSG(*at == written_ * kOffsetIndexEntryBytes, path_ + " changed size under the index");
  written_ = entries_.size();
  return Status::ok();
}

OffsetIndex::Entry OffsetIndex::lookup(Offset target) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), target,
                                [](Offset t, const Entry& e) { return t < e.offset; });
  if (after == entries_.begin()) return Entry{base_offset_, 0};
  return *std::prev(after);
}

Status OffsetIndex::truncate_to_position(uint32_t position) {
  auto first_dropped = std::lower_bound(entries_.begin(), entries_.end(), position,
                                        [](const Entry& e, uint32_t p) { return e.position < p; });
  const size_t kept = static_cast<size_t>(first_dropped - entries_.begin());
  if (kept < written_ || (kept == 0 && written_ == 0)) {
    GREGOR_RETURN_IF_ERROR(disk_->truncate(path_, kept * kOffsetIndexEntryBytes));
    written_ = kept;
  }
  entries_.resize(kept);
  return Status::ok();
}

}  // namespace gregor::log
