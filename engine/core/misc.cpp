#include <cstdio>

#include "engine/core/bytes.h"
#include "engine/core/disk.h"
#include "engine/core/types.h"

namespace gregor {

std::string format_time(Time t) {
  char buf[40];
  // The magnitude as unsigned, so that the most negative time does not overflow on negation.
  const uint64_t magnitude = t.us < 0 ? 0 - static_cast<uint64_t>(t.us) : static_cast<uint64_t>(t.us);
  std::snprintf(buf, sizeof buf, "%s%llu.%06llus", t.us < 0 ? "-" : "",
                static_cast<unsigned long long>(magnitude / 1000000),
                static_cast<unsigned long long>(magnitude % 1000000));
  return buf;
}

std::string hex(ByteView b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (uint8_t c : b) {
    s.push_back(digits[c >> 4]);
    s.push_back(digits[c & 15]);
  }
  return s;
}

Result<uint64_t> Disk::append_parts(const std::string& path, std::span<const ByteView> parts) {
  if (parts.size() == 1) return append(path, parts[0]);
  Bytes all;
  size_t n = 0;
  for (ByteView p : parts) n += p.size();
  all.reserve(n);
  for (ByteView p : parts) all.insert(all.end(), p.begin(), p.end());
  return append(path, as_view(all));
}

Result<SharedBytes> Disk::read_shared(const std::string& path, uint64_t offset, size_t len) {
  auto bytes = read(path, offset, len);
  if (!bytes) return bytes.status();
  return SharedBytes(std::move(*bytes));
}

Result<Bytes> Disk::read_all(const std::string& path) {
  auto sz = size(path);
  if (!sz) return sz.status();
  return read(path, 0, static_cast<size_t>(*sz));
}

Status Disk::write_file_atomic(const std::string& path, ByteView data) {
  const std::string tmp = path + ".tmp";
  if (exists(tmp)) GREGOR_RETURN_IF_ERROR(remove(tmp));
  GREGOR_RETURN_IF_ERROR(create(tmp));
  auto pos = append(tmp, data);
  if (!pos) return pos.status();
  GREGOR_RETURN_IF_ERROR(fsync(tmp));
  return rename(tmp, path);
}

}  // namespace gregor
