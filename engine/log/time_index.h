// The time index of a segment: `<base offset>.timeindex`.
//
// File format (Kafka's TimeIndex): entries of 12 bytes, big-endian,
//   timestamp        int64   the largest batch timestamp appended so far
//   relative offset  int32   offset of the batch holding it (its last offset) minus the base offset
// An entry is added alongside an offset index entry when the largest timestamp grew, and once more
// when the segment stops being active, so the last entry of an inactive segment holds its largest
// timestamp (what time-based retention compares with retention.ms).
#pragma once

#include <cstdint>
#include <string>

#include "engine/log/index_file.h"

namespace gregor::log {

inline constexpr size_t kTimeIndexEntryBytes = 12;

struct TimeIndexEntry {
  int64_t timestamp;
  Offset offset;
};

class TimeIndex : public IndexFile<TimeIndex, TimeIndexEntry, kTimeIndexEntryBytes> {
 public:
  TimeIndex(Disk& disk, std::string path, Offset base_offset, size_t max_entries)
      : IndexFile(disk, std::move(path), base_offset, max_entries) {}

  // Reads and checks the file (size a multiple of 12, timestamps and offsets increasing, offsets
  // below next_offset). kCorruption when it fails; the index is then empty.
  Status load(Offset next_offset);
  // Appends when timestamp is above the last entry's (above -1 when empty); otherwise does nothing.
  // skip_full_check lets the final entry of a rolled segment in, as Kafka does.
  // Like the offset index, entries reach the file in bulk (write_pending) before any fsync.
  Status maybe_append(int64_t timestamp, Offset offset, bool skip_full_check = false);
  // Drops entries for offsets at or after `offset`, in memory and on disk.
  Status truncate_to(Offset offset);
  Status reset();

  static void encode(ByteWriter& w, const Entry& e, Offset base_offset);
};

}  // namespace gregor::log
