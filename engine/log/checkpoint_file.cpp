#include "engine/log/checkpoint_file.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace gregor::log {
namespace {

Status corrupt(const std::string& why) { return Status::error(StatusCode::kCorruption, "checkpoint file: " + why); }

// Splits into lines; the last line must end with '\n' (a file cut short is not accepted).
Result<std::vector<std::string_view>> split_lines(ByteView file) {
  std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) return corrupt("last line has no newline");
    lines.push_back(text.substr(start, end - start));
    if (lines.size() > kCheckpointEntriesMax + 2) return corrupt("too many lines");
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t end = line.find(' ', start);
    fields.push_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return fields;
}

bool parse_int(std::string_view text, int64_t lo, int64_t hi, int64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Checks the version and count lines and returns the entry lines.
Result<std::vector<std::string_view>> entry_lines(ByteView file) {
  auto lines = split_lines(file);
  if (!lines) return lines.status();
  if (lines->size() < 2) return corrupt("missing version or count line");
  int64_t version = 0;
  int64_t count = 0;
  if (!parse_int((*lines)[0], 0, 0, &version)) return corrupt("unknown version");
  if (!parse_int((*lines)[1], 0, static_cast<int64_t>(kCheckpointEntriesMax), &count)) return corrupt("bad count");
  if (static_cast<int64_t>(lines->size()) - 2 != count) return corrupt("count does not match the entries");
  return std::vector<std::string_view>(lines->begin() + 2, lines->end());
}

}  // namespace

Bytes format_epoch_checkpoint(const std::vector<std::pair<int32_t, int64_t>>& entries) {
  std::string s = "0\n" + std::to_string(entries.size()) + "\n";
  for (const auto& [epoch, offset] : entries) s += std::to_string(epoch) + " " + std::to_string(offset) + "\n";
  return to_bytes(s);
}

Result<std::vector<std::pair<int32_t, int64_t>>> parse_epoch_checkpoint(ByteView file) {
  auto lines = entry_lines(file);
  if (!lines) return lines.status();
  std::vector<std::pair<int32_t, int64_t>> entries;
  for (std::string_view line : *lines) {
    auto fields = split_fields(line);
    int64_t epoch = 0;
    int64_t offset = 0;
    if (fields.size() != 2 || !parse_int(fields[0], 0, INT32_MAX, &epoch) || !parse_int(fields[1], 0, INT64_MAX, &offset))
      return corrupt("malformed entry '" + std::string(line) + "'");
    entries.emplace_back(static_cast<int32_t>(epoch), offset);
  }
  return entries;
}

Bytes format_offset_checkpoint(const std::string& topic, int32_t partition, int64_t offset) {
  return to_bytes("0\n1\n" + topic + " " + std::to_string(partition) + " " + std::to_string(offset) + "\n");
}

Result<int64_t> parse_offset_checkpoint(ByteView file, const std::string& topic, int32_t partition) {
  auto lines = entry_lines(file);
  if (!lines) return lines.status();
  for (std::string_view line : *lines) {
    auto fields = split_fields(line);
    int64_t p = 0;
    int64_t offset = 0;
    if (fields.size() != 3 || !parse_int(fields[1], 0, INT32_MAX, &p) || !parse_int(fields[2], 0, INT64_MAX, &offset))
      return corrupt("malformed entry '" + std::string(line) + "'");
    if (fields[0] == topic && p == partition) return offset;
  }
  return Status::error(StatusCode::kNotFound, "no entry for " + topic + "-" + std::to_string(partition));
}

}  // namespace gregor::log
