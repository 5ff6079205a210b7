// Leader election as pure rules (engine/broker/leader_election.h), table by table: Kafka's four
// algorithms, then the partition state changes the controller writes with them. No zk, no cluster.
#include <catch2/catch.hpp>

#include "engine/broker/leader_election.h"

using namespace gregor;
using namespace gregor::broker;
using namespace gregor::broker::election;

namespace {

using Ids = std::vector<int32_t>;

Brokers brokers(std::set<int32_t> live, std::set<int32_t> shutting_down = {}) { return Brokers{std::move(live), std::move(shutting_down)}; }

ControllerPartition partition(Ids replicas, int32_t leader, int32_t leader_epoch, Ids isr, int32_t zk_version = 3) {
  ControllerPartition p;
  p.replicas = std::move(replicas);
  p.state.leader = leader;
  p.state.leader_epoch = leader_epoch;
  p.state.isr = std::move(isr);
  p.state.controller_epoch = 4;
  p.zk_version = zk_version;
  return p;
}

}  // namespace

TEST_CASE("offline election: the first live in-sync replica in assignment order, else unclean, else none", "[election]") {
  struct Row {
    const char* what;
    Ids assignment, isr;
    std::set<int32_t> live, shutting_down;
    bool unclean_enabled;
    int32_t leader;  // -1: none
    bool unclean;
  };
  const std::vector<Row> rows = {
      {"first of the assignment that is live and in sync", {1, 2, 3}, {2, 3}, {1, 2, 3}, {}, false, 2, false},
      {"assignment order, not ISR order", {3, 1, 2}, {1, 2, 3}, {1, 2}, {}, false, 1, false},
      {"a shutting-down broker is not eligible", {1, 2, 3}, {1, 2}, {1, 2, 3}, {1}, false, 2, false},
      {"no live ISR member and unclean off: none", {1, 2, 3}, {1}, {2, 3}, {}, false, -1, false},
      {"no live ISR member and unclean on: the first live replica", {1, 2, 3}, {1}, {2, 3}, {}, true, 2, true},
      {"unclean skips shutting-down brokers too", {1, 2, 3}, {1}, {2, 3}, {2}, true, 3, true},
      {"nobody live: none, even unclean", {1, 2, 3}, {1, 2}, {4}, {}, true, -1, false},
      {"a clean choice wins over unclean", {1, 2, 3}, {3}, {1, 2, 3}, {}, true, 3, false},
  };
  for (const auto& r : rows) {
    INFO(r.what);
    auto got = offline_partition_leader(r.assignment, r.isr, brokers(r.live, r.shutting_down), r.unclean_enabled);
    if (r.leader < 0) {
      CHECK_FALSE(got.has_value());
      continue;
    }
    REQUIRE(got.has_value());
    CHECK(got->leader == r.leader);
    CHECK(got->unclean == r.unclean);
  }
}

TEST_CASE("preferred, reassignment and controlled shutdown elections", "[election]") {
  // Preferred: only the assignment's head, and only when live, not shutting down, and in sync.
  CHECK(preferred_replica_partition_leader({1, 2, 3}, {1, 2}, brokers({1, 2, 3})) == 1);
  CHECK_FALSE(preferred_replica_partition_leader({1, 2, 3}, {2, 3}, brokers({1, 2, 3})));
  CHECK_FALSE(preferred_replica_partition_leader({1, 2, 3}, {1, 2}, brokers({2, 3})));
  CHECK_FALSE(preferred_replica_partition_leader({1, 2, 3}, {1, 2}, brokers({1, 2, 3}, {1})));
  CHECK_FALSE(preferred_replica_partition_leader({}, {1}, brokers({1})));
  // Reassignment: the first of the new assignment that is live and in sync.
  CHECK(reassign_partition_leader({4, 5, 1}, {1, 5}, brokers({1, 4, 5})) == 5);
  CHECK_FALSE(reassign_partition_leader({4, 5}, {1}, brokers({1, 4, 5})));
  // Controlled shutdown: the broker leaving is among those shutting down, so it is never chosen.
  CHECK(controlled_shutdown_partition_leader({1, 2, 3}, {1, 2, 3}, brokers({1, 2, 3}, {1})) == 2);
  CHECK_FALSE(controlled_shutdown_partition_leader({1, 2, 3}, {1}, brokers({1, 2, 3}, {1})));
}

TEST_CASE("after brokers change: new partitions, dead ISR members, failover, unclean and offline", "[election]") {
  struct Row {
    const char* what;
    ControllerPartition p;
    std::set<int32_t> live;
    bool unclean_enabled;
    bool changes;
    int32_t leader;
    int32_t leader_epoch;
    Ids isr;
    std::string reason;
  };
  const std::vector<Row> rows = {
      {"a new partition: the first live replica leads, every live replica in sync", partition({2, 1, 3}, -1, 0, {}, -1),
       {1, 3}, false, true, 1, 0, {1, 3}, "new_partition"},
      {"a new partition with no live replica waits", partition({2, 1}, -1, 0, {}, -1), {3}, false, false, 0, 0, {}, ""},
      {"all is well: no change", partition({1, 2, 3}, 1, 5, {1, 2, 3}), {1, 2, 3}, false, false, 0, 0, {}, ""},
      {"a dead follower leaves the ISR, the leader stays", partition({1, 2, 3}, 1, 5, {1, 2, 3}), {1, 3}, false, true, 1, 6,
       {1, 3}, "replica_offline"},
      {"the leader died: the next in-sync replica leads, the dead leave the ISR", partition({1, 2, 3}, 1, 5, {1, 2, 3}),
       {2, 3}, false, true, 2, 6, {2, 3}, "leader_failure"},
      {"no in-sync replica alive, unclean on: the first live replica, alone in the ISR", partition({1, 2, 3}, 1, 5, {1}),
       {3}, true, true, 3, 6, {3}, "unclean"},
      {"no in-sync replica alive, unclean off: offline, the last ISR kept", partition({1, 2, 3}, 1, 5, {1}), {3}, false,
       true, -1, 6, {1}, "offline"},
      {"offline already: no change", partition({1, 2, 3}, -1, 6, {1}), {3}, false, false, 0, 0, {}, ""},
      {"an offline partition's last ISR member comes back and leads", partition({1, 2, 3}, -1, 6, {1}), {1, 3}, false, true,
       1, 7, {1}, "leader_failure"},
  };
  for (const auto& r : rows) {
    INFO(r.what);
    auto c = on_brokers_changed(r.p, brokers(r.live), r.unclean_enabled, 9, "leader_failure");
    REQUIRE(c.has_value() == r.changes);
    if (!c) continue;
    CHECK(c->state.leader == r.leader);
    CHECK(c->state.leader_epoch == r.leader_epoch);
    CHECK(c->state.isr == r.isr);
    CHECK(c->state.controller_epoch == 9);
    CHECK(std::string(c->reason) == r.reason);
  }
}

TEST_CASE("controlled shutdown moves leaderships and leaves ISRs, but never empties one", "[election]") {
  const Brokers b = brokers({1, 2, 3}, {1});
  auto leader = on_controlled_shutdown(partition({1, 2, 3}, 1, 5, {1, 2, 3}), 1, b, 9);
  REQUIRE(leader);
  CHECK_FALSE(leader->follower);
  CHECK(leader->change.state.leader == 2);
  CHECK(leader->change.state.isr == Ids{2, 3});
  CHECK(leader->change.state.leader_epoch == 6);
  auto follower = on_controlled_shutdown(partition({2, 1, 3}, 2, 5, {2, 1}), 1, b, 9);
  REQUIRE(follower);
  CHECK(follower->follower);
  CHECK(follower->change.state.leader == 2);
  CHECK(follower->change.state.isr == Ids{2});
  // Nobody else in sync: it keeps leading until it stops. Its last ISR membership stays.
  CHECK_FALSE(on_controlled_shutdown(partition({1, 2, 3}, 1, 5, {1}), 1, b, 9));
  CHECK_FALSE(on_controlled_shutdown(partition({2, 1}, 2, 5, {1}), 1, b, 9));
  // Not a replica, or no state yet: nothing to do.
  CHECK_FALSE(on_controlled_shutdown(partition({2, 3}, 2, 5, {2, 3}), 1, b, 9));
  CHECK_FALSE(on_controlled_shutdown(partition({1, 2}, -1, 0, {}, -1), 1, b, 9));
}

TEST_CASE("an ISR a leader expanded loses members that are gone or shutting down but never its leader", "[election]") {
  // Broker 1 in controlled shutdown followed the new leader 2 and was added back: it leaves again.
  auto shutting = on_isr_expanded(partition({1, 2, 3}, 2, 6, {2, 3, 1}), brokers({1, 2, 3}, {1}), 9);
  REQUIRE(shutting);
  CHECK(shutting->state.leader == 2);
  CHECK(shutting->state.isr == Ids{2, 3});
  CHECK(shutting->state.leader_epoch == 7);
  CHECK(std::string(shutting->reason) == "ineligible_replica");
  // Broker 3 is gone (its session ended after the leader wrote the ISR).
  auto gone = on_isr_expanded(partition({1, 2, 3}, 1, 2, {1, 2, 3}), brokers({1, 2}), 9);
  REQUIRE(gone);
  CHECK(gone->state.isr == Ids{1, 2});
  // Every member eligible: nothing to do. The leader itself is never taken out, nor is anything
  // done for a partition without a leader or state.
  CHECK_FALSE(on_isr_expanded(partition({1, 2, 3}, 1, 2, {1, 2, 3}), brokers({1, 2, 3}), 9));
  CHECK_FALSE(on_isr_expanded(partition({1, 2}, 1, 2, {1}), brokers({2, 3}, {1}), 9));
  CHECK_FALSE(on_isr_expanded(partition({1, 2}, -1, 2, {1, 2}), brokers({2}), 9));
  CHECK_FALSE(on_isr_expanded(partition({1, 2}, 1, 0, {1, 2}, -1), brokers({1}), 9));
}

TEST_CASE("preferred election and the imbalance rule", "[election]") {
  auto c = on_preferred_election(partition({1, 2, 3}, 2, 5, {1, 2, 3}), brokers({1, 2, 3}), 9);
  REQUIRE(c);
  CHECK(c->state.leader == 1);
  CHECK(c->state.isr == Ids{1, 2, 3});
  CHECK(c->state.leader_epoch == 6);
  CHECK(std::string(c->reason) == "preferred");
  CHECK_FALSE(on_preferred_election(partition({1, 2, 3}, 1, 5, {1, 2, 3}), brokers({1, 2, 3}), 9));  // leads already
  CHECK_FALSE(on_preferred_election(partition({1, 2, 3}, 2, 5, {2, 3}), brokers({1, 2, 3}), 9));     // not in sync

  // Broker 1 prefers 10 partitions and leads 9 of them: 10% away is not more than 10%. Leading 8 is.
  std::map<TopicPartition, ControllerPartition> parts;
  for (int32_t i = 0; i < 10; i++) parts[TopicPartition{"t", i}] = partition({1, 2}, i == 0 ? 2 : 1, 1, {1, 2});
  CHECK(imbalanced_partitions(parts).empty());
  parts[TopicPartition{"t", 1}].state.leader = 2;
  CHECK(imbalanced_partitions(parts) == std::vector<TopicPartition>{{"t", 0}, {"t", 1}});
}

TEST_CASE("damaged replicas leave the ISR, even the last member, and lead only uncleanly", "[election]") {
  const char* reason = "broker_startup";
  SECTION("a damaged last ISR member: offline with an empty ISR, not elected") {
    auto c = on_brokers_changed(partition({1, 2, 3}, 3, 2, {3}), brokers({3}), false, 5, reason, {3});
    REQUIRE(c);
    CHECK(c->state.leader == -1);
    CHECK(c->state.isr.empty());
    CHECK(std::string(c->reason) == "replica_damaged");
  }
  SECTION("an intact in-sync replica is elected; the damaged one leaves the ISR") {
    auto c = on_brokers_changed(partition({1, 2, 3}, -1, 2, {1, 3}), brokers({1, 3}), false, 5, reason, {3});
    REQUIRE(c);
    CHECK(c->state.leader == 1);
    CHECK(c->state.isr == Ids{1});
  }
  SECTION("a live intact leader drops the damaged follower from its ISR") {
    auto c = on_brokers_changed(partition({1, 2, 3}, 1, 2, {1, 2, 3}), brokers({1, 2, 3}), false, 5, reason, {2});
    REQUIRE(c);
    CHECK(c->state.leader == 1);
    CHECK(c->state.isr == (Ids{1, 3}));
    CHECK(std::string(c->reason) == "replica_damaged");
  }
  SECTION("a damaged live leader loses its leadership") {
    auto c = on_brokers_changed(partition({1, 2, 3}, 3, 2, {2, 3}), brokers({2, 3}), false, 5, reason, {3});
    REQUIRE(c);
    CHECK(c->state.leader == 2);
    CHECK(c->state.isr == Ids{2});
  }
  SECTION("unclean election prefers an intact replica, and takes a damaged one only when none is") {
    auto intact = offline_partition_leader({3, 1, 2}, {}, brokers({1, 3}), true, {3});
    REQUIRE(intact);
    CHECK(intact->leader == 1);
    CHECK(intact->unclean);
    auto last = offline_partition_leader({3, 1, 2}, {}, brokers({3}), true, {3});
    REQUIRE(last);
    CHECK(last->leader == 3);
    CHECK(!offline_partition_leader({3, 1, 2}, {3}, brokers({3}), false, {3}));
  }
  SECTION("offline already without damaged members: no change") {
    CHECK(!on_brokers_changed(partition({1, 2, 3}, -1, 2, {3}), brokers({}), false, 5, reason, {1}));
  }
}
