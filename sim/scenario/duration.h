// Durations as scenario files write them: a number and a unit, "250us", "500ms", "30s", "2m", "1h",
// "1.5s". A bare number is refused: a file that says `at: 10` could mean ten seconds or ten
// milliseconds, and a teaching file must not leave the reader guessing.
#pragma once

#include <string>

#include "engine/core/status.h"
#include "engine/core/types.h"

namespace gregor::sim {

// The longest duration a scenario may name (a day of virtual time): a limit on every run.
inline constexpr Duration kDurationMax = Duration::seconds(24 * 3600);

// Parses "<number><unit>" with unit us, ms, s, m or h. Errors say what was expected.
Result<Duration> parse_duration(const std::string& text);

// The shortest exact spelling: 1500000us -> "1500ms", 120s -> "2m", 250us -> "250us".
std::string format_duration(Duration d);

}  // namespace gregor::sim
