// The replication-offset-checkpoint file: every partition's high watermark, written by the broker
// every replica.high.watermark.checkpoint.interval.ms (5000) and read at startup. Kafka's text
// format: a version line "0", a count line, then "topic partition offset" lines. Written
// atomically (temp file, fsync, rename), so a crash leaves the old or the new file, never half.
#pragma once

#include <map>

#include "engine/core/topic_partition.h"
#include "engine/core/disk.h"
#include "engine/core/types.h"

namespace gregor::broker {

inline constexpr const char* kHwCheckpointFile = "replication-offset-checkpoint";

Status write_hw_checkpoint(Disk& disk, const std::map<TopicPartition, int64_t>& hws);
// A missing file is an empty map; a malformed one is kCorruption.
Result<std::map<TopicPartition, int64_t>> read_hw_checkpoint(Disk& disk);

}  // namespace gregor::broker
