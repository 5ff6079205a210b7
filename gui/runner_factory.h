// Which world `gregor gui SCENARIO` runs: a scenario file (scenarios/*.yaml, or a library name such
// as "leader-failover"), or "builtin:bench", the frame-time benchmark's world (gui/scenario_runner.h).
#pragma once

#include <string>

#include "gui/live_runner.h"

namespace gregor::gui {

// The scenario `gregor gui` and `make demo` open when none is named.
std::string default_scenario();

Result<RunnerFactory> runner_factory_for(const std::string& scenario);

}  // namespace gregor::gui
