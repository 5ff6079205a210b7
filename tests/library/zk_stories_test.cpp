// The replicated zk ensemble's stories (scenarios/z*.yaml) hold their expectations at each of 20
// seeds, not only at the seed they are told with: the ensemble's election, sync and failover must
// not depend on a lucky interleaving. And they show what they say: the zk leader changes where it
// should, and a minority never commits.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_run.h"

using namespace gregor;

namespace {

struct Seen {
  std::map<int64_t, int32_t> leaders;  // epoch -> zk leader
  int64_t commits = 0;
  int64_t syncs = 0;
};

void check_story_over_seeds(const std::string& file, int64_t min_epochs) {
  auto s = sim::load_scenario(std::string(GREGOR_SOURCE_DIR) + "/scenarios/" + file);
  REQUIRE(s.is_ok());
  for (uint64_t seed = 1; seed <= 20; seed++) {
    sim::ScenarioRun run(*s, seed);
    Seen seen;
    run.sim().add_listener([&seen](const TraceEvent& e) {
      if (const auto* l = e.as<ev::ZkLeader>()) seen.leaders[l->epoch] = l->leader;
      if (e.as<ev::ZkCommit>()) seen.commits++;
      if (e.as<ev::ZkSync>()) seen.syncs++;
    });
    run.run_to_end();
    const sim::Verdicts v = run.verdicts();
    std::string failed;
    for (const auto& x : v.expectations)
      if (!x.holds.value_or(false)) failed += "\n  " + x.text;
    INFO("gregor run scenarios/" << file << " --seed " << seed << failed);
    CHECK(v.finished);
    CHECK(v.all_hold());
    CHECK(static_cast<int64_t>(seen.leaders.size()) >= min_epochs);
    CHECK(seen.commits > 0);
    CHECK(seen.syncs > 0);
  }
}

}  // namespace

TEST_CASE("zk stories: the zk leader crashes and a new one is elected over 20 seeds", "[library][zk]") {
  check_story_over_seeds("z1-zk-leader-crash.yaml", 2);
}
TEST_CASE("zk stories: quorum lost then regained over 20 seeds", "[library][zk]") {
  check_story_over_seeds("z2-zk-quorum-lost.yaml", 2);
}
TEST_CASE("zk stories: a 2 to 1 split over 20 seeds", "[library][zk]") { check_story_over_seeds("z3-zk-split.yaml", 2); }
TEST_CASE("zk stories: a broker cut from the ensemble over 20 seeds", "[library][zk]") {
  check_story_over_seeds("z4-broker-cut-from-zk.yaml", 1);
}
