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
    if (e.kind() != "isr_change" || e.get_string("topic") != "orders") continue;
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

TEST_CASE("controlled shutdown closes the zk session: a new controller at once, a stopped broker gone at once",
          "[library][regression]") {
  const Recorded r = run_regression("controlled-shutdown-closes-zk-session.yaml");
  const Time first = Time{0} + Duration::seconds(10), second = Time{0} + Duration::seconds(20);
  std::optional<Time> new_controller, stopped_gone;
  int32_t controller = 0;
  Time last_ack{0};
  Duration longest_gap{0};
  for (const auto& e : r.events) {
    if (e.kind() == "controller_elected" && e.time >= first && !new_controller) new_controller = e.time;
    if (e.kind() == "controller_elected" && e.time < second) controller = static_cast<int32_t>(e.get_int("broker"));
    // broker-2 stops at 20s; the controller then (it must not be broker-2) sees it gone.
    if (e.kind() == "broker_change" && e.time >= second && lists(e.get_string("dead"), 2) && !stopped_gone) stopped_gone = e.time;
    if (e.kind() == "produce_ack" && e.time < second) {
      if (last_ack.us > 0 && e.time - last_ack > longest_gap) longest_gap = e.time - last_ack;
      last_ack = e.time;
    }
  }
  REQUIRE(new_controller);
  CHECK(*new_controller < first + Duration::millis(100));
  CHECK(controller != 2);
  REQUIRE(stopped_gone);
  CHECK(*stopped_gone < second + Duration::millis(100));
  // Writes go on across the controller's shutdown (they used to stop until its session expired).
  CHECK(longest_gap < Duration::seconds(1));
  CHECK(last_ack > second - Duration::seconds(1));
}

TEST_CASE("controller failover timeline: no second 'topic created' or '(new_partition)'; heal all matched",
          "[library][regression]") {
  const Recorded r = run_regression("controller-failover-timeline.yaml");
  int created = 0, new_partition = 0, leader_failure = 0;
  bool healed = false;
  for (const auto& e : r.timeline) {
    INFO(e.text);
    if (e.text.find("topic orders created") != std::string::npos) created++;
    if (e.text.find("orders-0: leader") != std::string::npos && e.text.find("(new_partition)") != std::string::npos) new_partition++;
    if (e.text.find("orders-0: leader") != std::string::npos && e.text.find("(leader_failure)") != std::string::npos) leader_failure++;
    if (e.text.rfind("FAULT heal all", 0) == 0) {
      healed = true;
      CHECK(e.text.find("no node matched") == std::string::npos);
    }
  }
  CHECK(created == 1);
  CHECK(new_partition == 1);
  CHECK(leader_failure == 1);
  CHECK(healed);
}
