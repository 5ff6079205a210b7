#include <cstdio>

#include "engine/core/bytes.h"
#include "engine/core/disk.h"
#include "engine/core/types.h"

namespace gregor {

std::string format_time(Time t) {
  char buf[40];
  int64_t us = t.us;
  const char* sign = "";
  if (us < 0) {
    sign = "-";
    us = -us;
  }
  std::snprintf(buf, sizeof buf, "%s%lld.%06llds", sign, static_cast<long long>(us / 1000000),
                static_cast<long long>(us % 1000000));
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
