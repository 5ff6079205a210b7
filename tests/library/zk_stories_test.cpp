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

// Z5, Kafka 0.8's zk-coordinated consumer: over 20 seeds its expectations hold, and it shows what
// it says: each membership change fires the ids/ watch at every member (the herd), and the member
// whose session expired while it went on consuming makes duplicates. Ownership conflicts depend on
// how the members' rebalances interleave: some seeds have them, and all 20 together must.
TEST_CASE("zk stories: the zk-coordinated consumer's herd conflicts and duplicates over 20 seeds", "[library][zk]") {
  auto s = sim::load_scenario(std::string(GREGOR_SOURCE_DIR) + "/scenarios/z5-zk-consumer-rebalance.yaml");
  REQUIRE(s.is_ok());
  int64_t conflicts_all = 0;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    sim::ScenarioRun run(*s, seed);
    int64_t ids_watches = 0, conflicts = 0, duplicates = 0, expired = 0;
    std::map<std::string, int64_t> times;
    run.sim().add_listener([&](const TraceEvent& e) {
      if (const auto* w = e.as<ev::ZkWatchFire>())
        if (w->path == "/consumers/billing/ids") ids_watches++;
      if (const auto* z = e.as<ev::ZkRefused>())
        if (z->error == "NodeExists" && z->path.rfind("/consumers/billing/owners/orders/", 0) == 0) conflicts++;
      if (const auto* c = e.as<ev::Consume>())
        if (++times[c->value] == 2) duplicates++;
      if (const auto* r = e.as<ev::ConsumerRejoinNeeded>())
        if (r->member == "billing-1" && r->reason == "zk session expired") expired++;
    });
    run.run_to_end();
    const sim::Verdicts v = run.verdicts();
    std::string failed;
    for (const auto& x : v.expectations)
      if (!x.holds.value_or(false)) failed += "\n  " + x.text;
    INFO("gregor run scenarios/z5-zk-consumer-rebalance.yaml --seed " << seed << failed << "\nids watches " << ids_watches
                                                                     << " conflicts " << conflicts << " duplicates " << duplicates);
    CHECK(v.finished);
    CHECK(v.all_hold());
    // Four members joining fire 0 + 1 + 2 + 3 watches; billing-1's expiry and its return 3 each.
    CHECK(ids_watches >= 12);
    CHECK(expired == 1);
    CHECK(duplicates > 0);
    conflicts_all += conflicts;
  }
  CHECK(conflicts_all > 0);
}
