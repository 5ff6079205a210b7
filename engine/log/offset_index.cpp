#include "engine/log/offset_index.h"

#include <algorithm>

namespace gregor::log {

Status OffsetIndex::load(uint64_t log_size) {
  return load_entries([&](ByteReader& r, Entry& e) -> std::string {
    const int32_t relative = r.i32();
    const uint32_t position = r.u32();
    if (relative < 0) return "negative relative offset";
    e = Entry{base_offset_ + relative, position};
    if (!entries_.empty() && (e.offset <= entries_.back().offset || e.position <= entries_.back().position))
      return "entries are not increasing";
    if (e.position >= log_size) return "entry points past the end of the log";
    return "";
  });
}

Status OffsetIndex::append(Offset last_offset, uint32_t position) {
  GREGOR_ASSERT(!is_full());
  GREGOR_ASSERT(entries_.empty() || (last_offset > entries_.back().offset && position > entries_.back().position));
  const int64_t relative = last_offset - base_offset_;
  GREGOR_ASSERT(relative >= 0 && relative <= INT32_MAX);
  return add(Entry{last_offset, position});
}

void OffsetIndex::encode(ByteWriter& w, const Entry& e, Offset base_offset) {
  w.i32(static_cast<int32_t>(e.offset - base_offset));
  w.u32(e.position);
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
  return keep_first(static_cast<size_t>(first_dropped - entries_.begin()));
}

}  // namespace gregor::log
