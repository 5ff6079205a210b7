// Fixes of issue 18, each checked on its regression scenario in tests/regressions/ (whose story
// says what went wrong): what the scenario's checkers cannot see, its timing and its timeline.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_run.h"

using namespace gregor;

namespace {

struct Recorded {
  std::vector<TraceEvent> events;
  std::vector<sim::TimelineEntry> timeline;
};

Recorded run_regression(const std::string& file) {
  auto s = sim::load_scenario(std::string(GREGOR_SOURCE_DIR) + "/tests/regressions/" + file);
  REQUIRE(s.is_ok());
  sim::ScenarioRun run(*s, s->seed);
  Recorded out;
  run.add_listener([&out](const TraceEvent& e) { out.events.push_back(e); });
  run.run_to_end();
  REQUIRE(run.verdicts().all_hold());
  out.timeline = run.timeline().entries();
  return out;
}

bool lists(const std::string& list, int32_t id) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (list.substr(start, comma - start) == std::to_string(id)) return true;
    start = comma + 1;
  }
  return false;
}

}  // namespace

TEST_CASE("one-way cut: after the heal the follower rejoins the ISR at once, not after replica.socket.timeout.ms",
          "[library][regression]") {
  const Recorded r = run_regression("one-way-cut-follower-rejoins-isr-after-heal.yaml");
  const Time heal = Time{0} + Duration::seconds(20);
  std::optional<Time> shrunk, rejoined;
  for (const auto& e : r.events) {
    if (e.kind != "isr_change" || e.get_string("topic") != "orders") continue;
    if (e.get_string("direction") == "shrink" && !lists(e.get_string("isr"), 2) && !shrunk) shrunk = e.time;
    if (e.get_string("direction") == "expand" && lists(e.get_string("isr"), 2) && e.time >= heal && !rejoined) rejoined = e.time;
  }
  // The cut is long enough for broker-2 to leave the ISR (replica.lag.time.max.ms 5s) ...
  REQUIRE(shrunk);
  CHECK(*shrunk < heal);
  // ... and the answers held in the cut arrive after the heal: it is back within a second (it used
  // to wait out its fetch's 30.5s timeout, until about 41s).
  REQUIRE(rejoined);
  CHECK(*rejoined < heal + Duration::seconds(1));
}
