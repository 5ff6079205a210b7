// LogConfig: the per-topic settings of a partition's log, with Kafka's keys and defaults
// (LogConfig.java / TopicConfig.java).
//
//   segment.bytes          1073741824   roll the active segment before it would exceed this
//   segment.ms             604800000    roll when the active segment's first batch is this old
//   segment.index.bytes    10485760     roll when the offset or time index would exceed this
//   index.interval.bytes   4096         add an offset index entry after this many bytes
//   flush.messages         Long.MAX     fsync after this many unflushed messages
//   flush.ms               Long.MAX     fsync when the last flush is this old
//   retention.ms           604800000    delete segments whose newest timestamp is older (-1: never)
//   retention.bytes        -1           delete the oldest segments beyond this size (-1: unlimited)
//   max.message.bytes      1048588      the largest batch a leader accepts
//   compression.type       producer     the codec batches are stored with: producer (the producer's
//                                       own), uncompressed, gzip, snappy, lz4 or zstd
//   message.timestamp.type CreateTime   CreateTime (the producer's timestamps) or LogAppendTime (the
//                                       leader stamps each batch with its append time)
//
// Kafka's default is to never fsync explicitly (durability through replication); the log still
// fsyncs a segment when it rolls, as Kafka does, so recovery only rescans the active segment.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "engine/core/config_def.h"
#include "engine/core/status.h"

namespace gregor::log {

struct LogConfig {
  int64_t segment_bytes = 1073741824;
  int64_t segment_ms = 604800000;
  int32_t segment_index_bytes = 10485760;
  int32_t index_interval_bytes = 4096;
  int64_t flush_messages = INT64_MAX;
  int64_t flush_ms = INT64_MAX;
  int64_t retention_ms = 604800000;
  int64_t retention_bytes = -1;
  int32_t max_message_bytes = 1048588;
  std::string compression_type = "producer";
  std::string message_timestamp_type = "CreateTime";
  bool log_append_time() const { return message_timestamp_type == "LogAppendTime"; }

  // Reads the keys above from a topic's config map; other keys (min.insync.replicas,
  // cleanup.policy, ...) belong to other components and are ignored. A value that does not parse or
  // is outside Kafka's valid range is kInvalidArgument, naming the key.
  static Result<LogConfig> from_map(const std::map<std::string, std::string>& values);
  // The same ranges, for a config built in code.
  Status validate() const;
};

// The keys above, declared once (engine/core/config_def.h); topic configs include them.
const ConfigDef<LogConfig>& log_config_def();

}  // namespace gregor::log
