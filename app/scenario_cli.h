// What `gregor run`, `gregor check-determinism` and `gregor swarm` share: loading a scenario with
// its variant (bad input exits 2 with "file:line: key: problem"), the text and JSON reports.
#pragma once

#include <optional>
#include <string>

#include "engine/core/json.h"
#include "sim/scenario/scenario_run.h"

namespace gregor::app {

// Loads `path` and applies `variant` (if not empty). Prints the error and returns nullopt on bad
// input.
std::optional<sim::Scenario> load_scenario_or_report(const std::string& command, const std::string& path,
                                                     const std::string& variant);

// "12.345s"
std::string seconds_text(Time t);

// The verdicts and expectations as lines of text (what `gregor run` prints after the timeline).
std::string verdicts_text(const sim::Verdicts& v);

// A whole run as JSON: scenario, seed, fingerprint, verdicts, expectations, timeline, figures.
Json run_report_json(sim::ScenarioRun& run, double wall_seconds);

// The command that replays a run: "gregor run FILE --seed N [--variant V]".
std::string replay_command(const std::string& file, uint64_t seed, const std::string& variant);

}  // namespace gregor::app
