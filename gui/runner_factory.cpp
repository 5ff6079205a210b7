#include "gui/runner_factory.h"

#include <fstream>

#include "gui/scenario_runner.h"

namespace gregor::gui {

std::string default_scenario() { return "scenarios/leader-failover.yaml"; }

Result<RunnerFactory> runner_factory_for(const std::string& scenario) {
  sim::Scenario s;
  if (scenario == "builtin:bench") {
    s = bench_scenario();
  } else {
    std::string path = scenario;
    // A library name alone ("leader-failover") means the file in scenarios/.
    if (!std::ifstream(path).good() && path.find('/') == std::string::npos && std::ifstream("scenarios/" + path + ".yaml").good())
      path = "scenarios/" + path + ".yaml";
    auto loaded = sim::load_scenario(path);
    if (!loaded.is_ok()) return loaded.status();
    s = std::move(loaded).value();
  }
  RunnerFactory f = [s](uint64_t seed, std::function<void(const TraceEvent&)> listener) -> Result<std::unique_ptr<LiveRunner>> {
    return std::unique_ptr<LiveRunner>(std::make_unique<ScenarioRunner>(s, seed, std::move(listener)));
  };
  return f;
}

}  // namespace gregor::gui
