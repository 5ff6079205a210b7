#include "engine/log/log_config.h"

namespace gregor::log {

const ConfigDef<LogConfig>& log_config_def() {
  // Ranges as Kafka's LogConfig declares them; every key may change on a running topic.
  static const ConfigDef<LogConfig> def = [] {
    constexpr ConfigUpdate kDynamic = ConfigUpdate::kDynamic;
    ConfigDef<LogConfig> d("log");
    d.define("flush.messages", &LogConfig::flush_messages, at_least(1),
             "fsync the log after this many messages not yet fsynced (default: never; durability comes from replication).",
             kDynamic)
        .synonym("log.flush.interval.messages");
    d.define("flush.ms", &LogConfig::flush_ms, at_least(0), "fsync the log when its last fsync is this old (default: never).",
             kDynamic)
        .synonym("log.flush.interval.ms");
    d.define("index.interval.bytes", &LogConfig::index_interval_bytes, at_least(0),
             "Add an offset index entry after this many bytes of batches.", kDynamic)
        .synonym("log.index.interval.bytes");
    d.define("max.message.bytes", &LogConfig::max_message_bytes, at_least(0),
             "The largest record batch the leader accepts, in bytes.", kDynamic)
        .synonym("message.max.bytes");
    d.define("retention.bytes", &LogConfig::retention_bytes, at_least(-1),
             "Delete the oldest segments beyond this size of the log (-1: no limit).", kDynamic)
        .synonym("log.retention.bytes");
    d.define("retention.ms", &LogConfig::retention_ms, at_least(-1),
             "Delete segments whose newest record is older than this (-1: keep forever).", kDynamic)
        .synonym("log.retention.ms");
    d.define("segment.bytes", &LogConfig::segment_bytes, between(14, INT32_MAX),
             "Roll the active segment before it would grow beyond this many bytes.", kDynamic)
        .synonym("log.segment.bytes");
    d.define("segment.index.bytes", &LogConfig::segment_index_bytes, at_least(4),
             "Roll the active segment before its offset or time index would grow beyond this many bytes.", kDynamic)
        .synonym("log.index.size.max.bytes");
    d.define("segment.ms", &LogConfig::segment_ms, at_least(1),
             "Roll the active segment when its first batch is this old, even if it is not full.", kDynamic)
        .synonym("log.roll.ms");
    d.define("compression.type", &LogConfig::compression_type, {"producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"},
             "The codec a leader stores batches with: the producer's own (producer), none (uncompressed) or the one named; "
             "batches are recompressed on append when it differs.",
             kDynamic)
        .synonym("compression.type");
    d.define("message.timestamp.type", &LogConfig::message_timestamp_type, {"CreateTime", "LogAppendTime"},
             "Which timestamp a batch carries: the producer's (CreateTime) or the leader's clock at append (LogAppendTime).",
             kDynamic)
        .synonym("log.message.timestamp.type");
    return d;
  }();
  return def;
}

Status LogConfig::validate() const { return log_config_def().validate(*this); }

Result<LogConfig> LogConfig::from_map(const std::map<std::string, std::string>& values) {
  std::map<std::string, std::string> own;
  for (const auto& [key, text] : values)
    if (log_config_def().find(key)) own[key] = text;
  LogConfig c;
  GREGOR_RETURN_IF_ERROR(log_config_def().apply(c, own));
  return c;
}

}  // namespace gregor::log
