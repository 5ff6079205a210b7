// The offset index of a segment: `<base offset>.index`.
//
// File format (Kafka's OffsetIndex): entries of 8 bytes, big-endian,
//   relative offset  int32   the indexed batch's LAST offset minus the segment's base offset
//   position         int32   where that batch starts in the `.log` file
// Sparse: the segment adds an entry once more than index.interval.bytes were appended since the
// last one. lookup(target) returns the last entry whose offset is <= target: the batch holding target
// starts at that position or after it, so a reader scans forward from there.
//
// Entries are kept in memory too (Kafka maps the file); the file is what survives a restart, and
// recovery rebuilds it from the log whenever it is missing, unsynced or fails its sanity check.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/disk.h"
#include "engine/core/types.h"

namespace gregor::log {

inline constexpr size_t kOffsetIndexEntryBytes = 8;

class OffsetIndex {
 public:
  struct Entry {
    Offset offset;      // absolute: base offset + relative offset
    uint32_t position;  // of the batch's first byte in the .log file
  };

  OffsetIndex(Disk& disk, std::string path, Offset base_offset, size_t max_entries)
      : disk_(&disk), path_(std::move(path)), base_offset_(base_offset), max_entries_(max_entries) {}

  // Reads the file and checks it (size a multiple of 8, offsets and positions strictly increasing,
  // positions inside a log of log_size bytes). kCorruption when it fails; the index is then empty.
  Status load(uint64_t log_size);
  // REQUIRES: !is_full(), offset and position above the last entry's.
  Status append(Offset last_offset, uint32_t position);
  Entry lookup(Offset target) const;
  // Drops the entries at or after position (the log was truncated there), in memory and on disk.
  Status truncate_to_position(uint32_t position);
  Status reset() { return truncate_to_position(0); }
  bool is_full() const { return entries_.size() >= max_entries_; }
  size_t entry_count() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  const std::string& path() const { return path_; }

 private:
  Disk* disk_;
  std::string path_;
  Offset base_offset_;
  size_t max_entries_;
  std::vector<Entry> entries_;
};

}  // namespace gregor::log
