#include "sim/scenario/duration.h"

#include <cstdint>

namespace gregor::sim {

Result<Duration> parse_duration(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Status::error(StatusCode::kInvalidArgument, "'" + text + "' is not a duration: " + why +
                                                           " (write it with a unit: 250us, 500ms, 30s, 2m, 1h)");
  };
  size_t i = 0;
  int64_t whole = 0;
  int64_t fraction = 0, fraction_scale = 1;
  bool digits = false;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    whole = whole * 10 + (text[i] - '0');
    if (whole > 1'000'000'000'000) return bad("too large");
    digits = true;
    i++;
  }
  if (i < text.size() && text[i] == '.') {
    i++;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (fraction_scale < 1'000'000) {  // more than six decimals cannot matter at microsecond resolution
        fraction = fraction * 10 + (text[i] - '0');
        fraction_scale *= 10;
      }
      digits = true;
      i++;
    }
  }
  if (!digits) return bad("no number");
  const std::string unit = text.substr(i);
  int64_t unit_us = 0;
  if (unit == "us") unit_us = 1;
  else if (unit == "ms") unit_us = 1000;
  else if (unit == "s") unit_us = 1'000'000;
  else if (unit == "m" || unit == "min") unit_us = 60'000'000;
  else if (unit == "h") unit_us = 3'600'000'000;
  else if (unit.empty()) return bad("no unit");
  else return bad("unknown unit '" + unit + "'");
  if (whole > kDurationMax.us / unit_us) return bad("longer than a day");
  const int64_t us = whole * unit_us + fraction * unit_us / fraction_scale;
  if (fraction * unit_us % fraction_scale != 0) return bad("finer than a microsecond");
  if (us > kDurationMax.us) return bad("longer than a day");
  return Duration{us};
}

std::string format_duration(Duration d) {
  const int64_t us = d.us;
  if (us == 0) return "0s";
  if (us % 3'600'000'000 == 0) return std::to_string(us / 3'600'000'000) + "h";
  if (us % 60'000'000 == 0) return std::to_string(us / 60'000'000) + "m";
  if (us % 1'000'000 == 0) return std::to_string(us / 1'000'000) + "s";
  if (us % 1000 == 0) return std::to_string(us / 1000) + "ms";
  return std::to_string(us) + "us";
}

}  // namespace gregor::sim
