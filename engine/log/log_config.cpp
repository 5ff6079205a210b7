#include "engine/log/log_config.h"

#include <cerrno>
#include <cstdlib>

namespace gregor::log {
namespace {

Status bad(const std::string& key, const std::string& why) {
  return Status::error(StatusCode::kInvalidArgument, "invalid value for " + key + ": " + why);
}

Result<int64_t> parse_long(const std::string& key, const std::string& text) {
  if (text.empty()) return bad(key, "empty");
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return bad(key, "'" + text + "' is not a number");
  return static_cast<int64_t>(v);
}

Status check_at_least(const char* key, int64_t value, int64_t minimum) {
  if (value < minimum)
    return bad(key, std::to_string(value) + " is below the minimum " + std::to_string(minimum));
  return Status::ok();
}

}  // namespace

Status LogConfig::validate() const {
  // Minimums as Kafka's ConfigDef declares them.
  GREGOR_RETURN_IF_ERROR(check_at_least("segment.bytes", segment_bytes, 14));
  if (segment_bytes > INT32_MAX) return bad("segment.bytes", "above " + std::to_string(INT32_MAX));
  GREGOR_RETURN_IF_ERROR(check_at_least("segment.ms", segment_ms, 1));
  GREGOR_RETURN_IF_ERROR(check_at_least("segment.index.bytes", segment_index_bytes, 4));
  GREGOR_RETURN_IF_ERROR(check_at_least("index.interval.bytes", index_interval_bytes, 0));
  GREGOR_RETURN_IF_ERROR(check_at_least("flush.messages", flush_messages, 1));
  GREGOR_RETURN_IF_ERROR(check_at_least("flush.ms", flush_ms, 0));
  GREGOR_RETURN_IF_ERROR(check_at_least("retention.ms", retention_ms, -1));
  GREGOR_RETURN_IF_ERROR(check_at_least("max.message.bytes", max_message_bytes, 0));
  return Status::ok();
}

Result<LogConfig> LogConfig::from_map(const std::map<std::string, std::string>& values) {
  LogConfig c;
  for (const auto& [key, text] : values) {
    int64_t* long_field = nullptr;
    int32_t* int_field = nullptr;
    if (key == "segment.bytes") long_field = &c.segment_bytes;
    else if (key == "segment.ms") long_field = &c.segment_ms;
    else if (key == "segment.index.bytes") int_field = &c.segment_index_bytes;
    else if (key == "index.interval.bytes") int_field = &c.index_interval_bytes;
    else if (key == "flush.messages") long_field = &c.flush_messages;
    else if (key == "flush.ms") long_field = &c.flush_ms;
    else if (key == "retention.ms") long_field = &c.retention_ms;
    else if (key == "retention.bytes") long_field = &c.retention_bytes;
    else if (key == "max.message.bytes") int_field = &c.max_message_bytes;
    else continue;
    auto v = parse_long(key, text);
    if (!v) return v.status();
    if (long_field) *long_field = *v;
    if (int_field) {
      if (*v < INT32_MIN || *v > INT32_MAX) return bad(key, "'" + text + "' does not fit an int");
      *int_field = static_cast<int32_t>(*v);
    }
  }
  GREGOR_RETURN_IF_ERROR(c.validate());
  return c;
}

}  // namespace gregor::log
