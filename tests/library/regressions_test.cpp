// Swarm finds kept as regression tests: every file in tests/regressions/ is a shrunk scenario that
// once broke an expectation (its story says what and why) and must hold them all at its seed now.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_run.h"

using namespace gregor;

TEST_CASE("regressions: every swarm find in tests/regressions/ holds its expectations", "[library][regression]") {
  const std::filesystem::path dir = std::filesystem::path(GREGOR_SOURCE_DIR) / "tests" / "regressions";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    files++;
    DYNAMIC_SECTION(entry.path().filename().string()) {
      auto s = sim::load_scenario(entry.path().string());
      REQUIRE(s.is_ok());
      sim::ScenarioRun run(*s, s->seed);
      run.run_to_end();
      const sim::Verdicts v = run.verdicts();
      std::string broken;
      for (const auto& e : v.expectations)
        if (!e.holds.value_or(false)) broken += "\n  " + e.text;
      INFO("gregor run " << entry.path().string() << " --seed " << s->seed << broken);
      CHECK(v.finished);
      CHECK(v.all_hold());
      CHECK_FALSE(v.expectations.empty());
    }
  }
  CHECK(files >= 1);
}
