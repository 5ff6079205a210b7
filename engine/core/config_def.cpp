#include "engine/core/config_def.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace gregor {

namespace {
// Kafka's ConfigDef trims a value before it parses it.
std::string trimmed(const std::string& value) {
  const size_t first = value.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return value.substr(first, value.find_last_not_of(" \t") - first + 1);
}
}  // namespace

Result<int64_t> parse_config_long(const std::string& key, const std::string& value) {
  const std::string text = trimmed(value);
  if (text.empty()) return Status::error(StatusCode::kInvalidArgument, key + ": empty value");
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE)
    return Status::error(StatusCode::kInvalidArgument, key + ": not an integer: '" + value + "'");
  return static_cast<int64_t>(v);
}

// As Kafka's: true or false in any case.
Result<bool> parse_config_bool(const std::string& key, const std::string& value) {
  std::string text = trimmed(value);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text == "true") return true;
  if (text == "false") return false;
  return Status::error(StatusCode::kInvalidArgument, key + ": expected true or false, got '" + value + "'");
}

std::vector<std::string> split_config_list(const std::string& value) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string item = value.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) items.push_back(std::move(item));
    start = comma + 1;
  }
  return items;
}

std::string join_config_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

const char* config_type_name(ConfigType type) {
  switch (type) {
    case ConfigType::kBoolean: return "boolean";
    case ConfigType::kShort: return "short";
    case ConfigType::kInt: return "int";
    case ConfigType::kLong: return "long";
    case ConfigType::kString: return "string";
    case ConfigType::kList: return "list";
  }
  return "?";
}

std::string describe_range(ConfigRange range) {
  const bool low = range.min != std::numeric_limits<int64_t>::min();
  const bool high = range.max != std::numeric_limits<int64_t>::max();
  if (low && high) return std::to_string(range.min) + ".." + std::to_string(range.max);
  if (low) return "at least " + std::to_string(range.min);
  if (high) return "at most " + std::to_string(range.max);
  return "any";
}

Status check_range(const std::string& key, int64_t value, ConfigRange range) {
  if (value < range.min) return Status::error(StatusCode::kInvalidArgument, key + ": must be at least " + std::to_string(range.min));
  if (value > range.max) return Status::error(StatusCode::kInvalidArgument, key + ": must be at most " + std::to_string(range.max));
  return Status::ok();
}

}  // namespace gregor
