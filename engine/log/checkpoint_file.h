// Kafka's small text checkpoint files (CheckpointFile.java), written whole and atomically
// (Disk::write_file_atomic: temp file, fsync, rename):
//
//   0                 version
//   N                 number of entries
//   entry ...         N lines, fields separated by one space
//
// Two kinds live in a partition's log directory:
//   leader-epoch-checkpoint      entries "epoch startOffset" (LeaderEpochCheckpointFile)
//   recovery-point-checkpoint,   entries "topic partition offset" (OffsetCheckpointFile). Kafka keeps
//   log-start-offset-checkpoint  one such file per log root for all partitions; Gregor keeps one per
//                                partition directory, in the same format, holding that one entry.
// Parsing never trusts the file: anything malformed is kCorruption, and the caller decides what to
// rebuild.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"

namespace gregor::log {

inline constexpr size_t kCheckpointEntriesMax = 1 << 20;

Bytes format_epoch_checkpoint(const std::vector<std::pair<int32_t, int64_t>>& entries);
Result<std::vector<std::pair<int32_t, int64_t>>> parse_epoch_checkpoint(ByteView file);

Bytes format_offset_checkpoint(const std::string& topic, int32_t partition, int64_t offset);
// The offset recorded for (topic, partition); kNotFound when the file has no entry for it.
Result<int64_t> parse_offset_checkpoint(ByteView file, const std::string& topic, int32_t partition);

}  // namespace gregor::log
