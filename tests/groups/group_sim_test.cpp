// Consumer groups end to end in the simulator: real consumers (engine/client/consumer_node.h)
// rebalancing over a 3-broker cluster, with every checker attached.
#include <catch2/catch.hpp>

#include "engine/group/offsets_topic.h"
#include "group_fixture.h"

using namespace gregor;
using client::DeliveryMode;

namespace {

bool assigned(test::GroupFixture& f, std::initializer_list<int32_t> ids, size_t each) {
  for (int32_t id : ids) {
    auto* c = f.consumer(id);
    if (!c || c->consumer().assignment().size() != each || !c->consumer().group().stable()) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("a group of 3 consumers over 6 partitions rebalances when one crashes and when one joins", "[groups][sim]") {
  const std::string strategy = GENERATE(as<std::string>{}, "range", "roundrobin", "cooperative-sticky");
  INFO("partition.assignment.strategy=" << strategy);
  test::GroupFixture f(21);
  f.create_topic("orders", 6, 3);
  f.add_producer(2100, 300, 9000, false);
  for (int32_t id : {2201, 2202, 2203})
    f.add_consumer(id, "g", DeliveryMode::kAtLeastOnce, {{"partition.assignment.strategy", strategy}});

  REQUIRE(f.run_until([&] { return f.stable_with("g", 3) && assigned(f, {2201, 2202, 2203}, 2); }, Duration::seconds(30)));
  const int32_t first_generation = f.group_state("g")->generation;
  f.sim.run_for(Duration::seconds(3));

  // One crashes: after its session (6 s) the two others share its partitions.
  f.sim.crash(NodeId{2202});
  REQUIRE(f.run_until([&] { return f.stable_with("g", 2) && assigned(f, {2201, 2203}, 3); }, Duration::seconds(30)));
  CHECK(f.kinds["member_leave"] >= 1);
  const int32_t second_generation = f.group_state("g")->generation;
  CHECK(second_generation > first_generation);
  f.sim.run_for(Duration::seconds(3));

  // One joins (the crashed process comes back as a new member): 2 partitions each again.
  f.sim.restart(NodeId{2202});
  REQUIRE(f.run_until([&] { return f.stable_with("g", 3) && assigned(f, {2201, 2202, 2203}, 2); }, Duration::seconds(30)));
  CHECK(f.group_state("g")->generation > second_generation);

  // Everything produced is consumed, and no checker objects (single-owner: no partition owned twice
  // in a generation; consume-lost: nothing acknowledged was missed; commit-monotonic; order).
  REQUIRE(f.run_until([&] { return f.producer(2100)->acked() == 9000 && f.caught_up("g"); }, Duration::seconds(120)));
  CHECK(f.kinds["consumer_assignment"] >= 8);
  f.require_checkers_pass();
  if (strategy == "cooperative-sticky") {
    // Cooperative rebalances keep partitions where they were: the join took a follow-up rebalance
    // (revoke first, assign after), and nobody was ever stripped of everything.
    CHECK(f.kinds["consumer_revoke"] >= 2);
  }
}

TEST_CASE("a member that leaves (LeaveGroup) is rebalanced away at once, without waiting for its session", "[groups][sim]") {
  test::GroupFixture f(22);
  f.create_topic("orders", 6, 3);
  for (int32_t id : {2201, 2202}) f.add_consumer(id, "g", DeliveryMode::kAtLeastOnce);
  REQUIRE(f.run_until([&] { return f.stable_with("g", 2) && assigned(f, {2201, 2202}, 3); }, Duration::seconds(30)));
  bool left = false;
  f.consumer(2202)->stop([&] { left = true; });
  const Time asked = f.sim.now();
  REQUIRE(f.run_until([&] { return f.stable_with("g", 1) && assigned(f, {2201}, 6); }, Duration::seconds(30)));
  CHECK(left);
  CHECK(f.sim.now() - asked < Duration::seconds(3));  // far below session.timeout.ms
  f.require_checkers_pass();
}

TEST_CASE("coordinator failover keeps committed offsets and the group goes on consuming", "[groups][sim]") {
  test::GroupFixture f(23);
  f.create_topic("orders", 6, 3);
  f.add_producer(2100, 200, 8000, false);
  for (int32_t id : {2201, 2202}) f.add_consumer(id, "g", DeliveryMode::kAtLeastOnce);
  REQUIRE(f.run_until([&] { return f.stable_with("g", 2); }, Duration::seconds(30)));
  f.sim.run_for(Duration::seconds(5));

  int32_t coordinator = -1;
  const group::GroupMetadata* before = f.group_state("g", &coordinator);
  REQUIRE(before);
  REQUIRE(before->offsets.size() == 6);
  const auto committed = before->offsets;
  f.sim.crash(NodeId{coordinator});

  // A new coordinator loads the group from __consumer_offsets: the offsets are the ones committed
  // before the crash (or later ones), never older.
  const int32_t p = group::partition_for_group("g", 4);
  REQUIRE(f.run_until(
      [&] {
        auto l = f.cluster.leader({group::kOffsetsTopic, p});
        if (!l || *l < 0 || *l == coordinator) return false;
        const auto& gc = f.cluster.broker(*l)->group_coordinator();
        return !gc.is_loading(p) && gc.group("g") != nullptr;
      },
      Duration::seconds(60)));
  int32_t next = -1;
  const group::GroupMetadata* after = f.group_state("g", &next);
  REQUIRE(after);
  CHECK(next != coordinator);
  for (const auto& [tp, c] : committed) {
    INFO(tp.str());
    REQUIRE(after->offsets.count(tp));
    CHECK(after->offsets.at(tp).offset >= c.offset);
  }
  CHECK(f.kinds["offsets_load"] >= 1);
  // The group goes on: everything acknowledged is consumed, and every checker passes.
  f.sim.restart(NodeId{coordinator});
  REQUIRE(f.run_until([&] { return f.producer(2100)->acked() == 8000 && f.caught_up("g"); }, Duration::seconds(180)));
  f.require_checkers_pass();
}
