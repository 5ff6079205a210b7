// The offset index of a segment: `<base offset>.index`.
//
// File format (Kafka's OffsetIndex): entries of 8 bytes, big-endian,
//   relative offset  int32   the indexed batch's LAST offset minus the segment's base offset
//   position         int32   where that batch starts in the `.log` file
// Sparse: the segment adds an entry once more than index.interval.bytes were appended since the
// last one. lookup(target) returns the last entry whose offset is <= target: the batch holding target
// starts at that position or after it, so a reader scans forward from there.
//
// Entries live in memory (Kafka maps the file) and reach the file in bulk: when enough are pending,
// and always before the segment is fsynced (write_pending, called by LogSegment::flush). That is
// enough because only the indexes of segments below the recovery point are trusted on restart;
// recovery rebuilds the others from the log, as it does an index that is missing or fails its
// sanity check.
#pragma once

#include <cstdint>
#include <string>

#include "engine/log/index_file.h"

namespace gregor::log {

inline constexpr size_t kOffsetIndexEntryBytes = 8;

struct OffsetIndexEntry {
  Offset offset;      // absolute: base offset + relative offset
  uint32_t position;  // of the batch's first byte in the .log file
};

class OffsetIndex : public IndexFile<OffsetIndex, OffsetIndexEntry, kOffsetIndexEntryBytes> {
 public:
  OffsetIndex(Disk& disk, std::string path, Offset base_offset, size_t max_entries)
      : IndexFile(disk, std::move(path), base_offset, max_entries) {}

  // Reads the file and checks it (size a multiple of 8, offsets and positions strictly increasing,
  // positions inside a log of log_size bytes). kCorruption when it fails; the index is then empty.
  Status load(uint64_t log_size);
  // REQUIRES: !is_full(), offset and position above the last entry's. The entry is in at once;
  // an error is about writing pending entries to the file, which the next write_pending retries.
  Status append(Offset last_offset, uint32_t position);
  Entry lookup(Offset target) const;
  // Drops the entries at or after position (the log was truncated there), in memory and on disk.
  Status truncate_to_position(uint32_t position);
  Status reset() { return truncate_to_position(0); }

  static void encode(ByteWriter& w, const Entry& e, Offset base_offset);
};

}  // namespace gregor::log
