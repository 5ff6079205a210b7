// IndexFile: what a segment's offset index and time index share. Both are arrays of fixed-size
// big-endian entries (their formats are in offset_index.h and time_index.h), held in memory and
// written to their file in bulk: when kIndexPendingEntriesMax are pending, and always before the
// segment is fsynced (write_pending).
//
// Index is the concrete index (CRTP): it provides
//   static void encode(ByteWriter&, const Entry&, Offset base_offset);
// and reads its own entries in load (with load_entries).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/disk.h"
#include "engine/core/types.h"

namespace gregor::log {

// Entries held back before they are written out together.
inline constexpr size_t kIndexPendingEntriesMax = 512;

template <typename Index, typename EntryType, size_t kEntryBytes>
class IndexFile {
 public:
  using Entry = EntryType;

  // Writes the entries not yet in the file.
  Status write_pending() {
    if (written_ == entries_.size()) return Status::ok();
    ByteWriter w;
    for (size_t i = written_; i < entries_.size(); i++) Index::encode(w, entries_[i], base_offset_);
    auto at = disk_->append(path_, as_view(w.bytes_ref()));
    if (!at) return at.status();
    GREGOR_ASSERT_MSG(*at == written_ * kEntryBytes, path_ + " changed size under the index");
    written_ = entries_.size();
    return Status::ok();
  }

  bool is_full() const { return entries_.size() >= max_entries_; }
  size_t entry_count() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  const std::string& path() const { return path_; }

 protected:
  IndexFile(Disk& disk, std::string path, Offset base_offset, size_t max_entries)
      : disk_(&disk), path_(std::move(path)), base_offset_(base_offset), max_entries_(max_entries) {}

  // Reads the file entry by entry: read(reader, entry) decodes one and returns why it is wrong
  // ("" when it is not). A file whose size is not a multiple of the entry size, or a wrong entry,
  // is kCorruption and leaves the index empty.
  template <typename Read>
  Status load_entries(Read read) {
    entries_.clear();
    written_ = 0;
    auto file = disk_->read_all(path_);
    if (!file) return file.status();
    if (file->size() % kEntryBytes != 0) return corrupt("size is not a multiple of " + std::to_string(kEntryBytes));
    ByteReader r(as_view(*file));
    entries_.reserve(file->size() / kEntryBytes);
    while (!r.at_end()) {
      Entry e{};
      if (std::string why = read(r, e); !why.empty()) return corrupt(why);
      entries_.push_back(e);
    }
    written_ = entries_.size();
    return Status::ok();
  }

  // Adds an entry; an error is about writing pending entries, which the next write_pending retries.
  Status add(const Entry& e) {
    entries_.push_back(e);
    if (entries_.size() - written_ >= kIndexPendingEntriesMax) return write_pending();
    return Status::ok();
  }

  // Keeps the first `kept` entries, in memory and on disk.
  Status keep_first(size_t kept) {
    if (kept < written_ || (kept == 0 && written_ == 0)) {
      GREGOR_RETURN_IF_ERROR(disk_->truncate(path_, kept * kEntryBytes));
      written_ = kept;
    }
    entries_.resize(kept);
    return Status::ok();
  }

  Disk* disk_;
  std::string path_;
  Offset base_offset_;
  size_t max_entries_;
  std::vector<Entry> entries_;
  size_t written_ = 0;  // entries_[0, written_) are in the file

 private:
  Status corrupt(const std::string& why) {
    entries_.clear();
    written_ = 0;
    return Status::error(StatusCode::kCorruption, path_ + ": " + why);
  }
};

}  // namespace gregor::log
