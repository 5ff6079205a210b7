// The replication protocol under faults: ISR shrink and expansion, a zombie leader, and the KIP-101
// loss story with and without leader-epoch truncation.
#include "cluster_fixture.h"
#include "engine/client/producer_node.h"
#include "engine/record/checked_batches.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

// An RF 3 topic "t" whose follower `slow` falls out of the ISR: its fetches are held for 6 s while
// the leader takes more writes (acks=1). Returns the leader and the slow follower.
std::pair<int32_t, int32_t> drop_slow_follower(test::ClusterFixture& f) {
  f.create_topic("t", 1, 3);
  const int32_t leader = f.leader_of("t", 0);
  const int32_t slow = leader == 1 ? 2 : 1;
  REQUIRE(f.produce(leader, "t", 0, -1, "a") == ErrorCode::NONE);
  f.sim.clog(NodeId{slow}, NodeId{leader}, Duration::seconds(6));
  for (int i = 0; i < 5; i++) REQUIRE(f.produce(leader, "t", 0, 1, "b" + std::to_string(i)) == ErrorCode::NONE);
  REQUIRE(f.run_until([&] { return f.replica(leader, "t", 0)->isr().size() == 2; }, Duration::seconds(10)));
  return {leader, slow};
}

}  // namespace

TEST_CASE("a slow follower drops out of the ISR and rejoins when it catches up", "[broker][isr]") {
  test::ClusterFixture f(11, {{"replica.lag.time.max.ms", "2000"}});
  const auto [leader_id, slow_id] = drop_slow_follower(f);
  const int32_t leader = leader_id, slow = slow_id;  // captured by lambdas below
  auto* lp = f.replica(leader, "t", 0);
  CHECK(std::find(lp->isr().begin(), lp->isr().end(), NodeId{slow}) == lp->isr().end());
  CHECK(f.count("isr_change", leader) == 1);
  // The clog ends; the follower catches up and is taken back.
  REQUIRE(f.run_until([&] { return f.replica(leader, "t", 0)->isr().size() == 3; }, Duration::seconds(20)));
  CHECK(f.replica(slow, "t", 0)->log_end_offset() == lp->log_end_offset());
  // The controller propagated both changes: metadata on every broker shows the full ISR again.
  f.sim.run_for(Duration::seconds(1));
  for (int b = 1; b <= 3; b++) {
    const auto* pm = f.cluster.broker(b)->metadata().partition(TopicPartition{"t", 0});
    REQUIRE(pm);
    CHECK(pm->isr.size() == 3);
  }
  f.checkers.finish(f.sim.now());
  for (const auto& c : f.checkers.checkers()) CHECK_FALSE(c->violation());
}

TEST_CASE("acks=all with min.insync.replicas=2 is refused when the ISR shrinks to the leader", "[broker][isr]") {
  test::ClusterFixture f(12, {{"replica.lag.time.max.ms", "2000"}, {"min.insync.replicas", "2"}});
  f.create_topic("t", 1, 3);
  const int32_t leader = f.leader_of("t", 0);
  std::set<NodeId> others;
  for (int b = 1; b <= 3; b++)
    if (b != leader) others.insert(NodeId{b});
  // Followers cut off from the leader (but not from zk): the leader shrinks the ISR to itself.
  f.sim.partition({NodeId{leader}}, others);
  // A follower that has the leader's whole log stays in sync however long it is silent (Kafka's
  // isCaughtUp); one write the followers cannot fetch makes them fall behind.
  REQUIRE(f.produce(leader, "t", 0, 1, "w") == ErrorCode::NONE);
  REQUIRE(f.run_until([&] { return f.replica(leader, "t", 0)->isr().size() == 1; }, Duration::seconds(10)));
  CHECK(f.produce(leader, "t", 0, -1, "x") == ErrorCode::NOT_ENOUGH_REPLICAS);
  CHECK(f.produce(leader, "t", 0, 1, "y") == ErrorCode::NONE);  // acks=1 does not care
}

TEST_CASE("a leader partitioned from the controller and zk never acknowledges acks=all writes", "[broker][zombie]") {
  test::ClusterFixture f(13, {{"replica.lag.time.max.ms", "3000"}, {"zookeeper.session.timeout.ms", "6000"}});
  f.create_topic("t", 1, 3);
  int32_t old_leader = f.leader_of("t", 0);
  if (f.cluster.controller() == old_leader) {
    // Keep the story about a partitioned leader, not a partitioned controller: move leadership.
    f.cluster.shutdown_broker(old_leader);
    // The controller goes with its broker: until another is elected nobody knows the leader.
    REQUIRE(f.run_until([&] {
      auto l = f.cluster.leader(TopicPartition{"t", 0});
      return l && *l >= 0 && *l != old_leader && f.cluster.topic_ready("t", 1);
    }));
    f.sim.restart(NodeId{old_leader});
    REQUIRE(f.run_until([&] { return f.cluster.ready() && f.replica(f.leader_of("t", 0), "t", 0)->isr().size() == 3; }));
    old_leader = f.leader_of("t", 0);
  }
  REQUIRE(f.produce(old_leader, "t", 0, -1, "before") == ErrorCode::NONE);
  // Cut the leader from every broker and from zk; the client still reaches it.
  std::set<NodeId> rest;
  for (NodeId n : f.sim.node_ids())
    if (n.value != old_leader && n.value != sim::kFirstClientNodeId) rest.insert(n);
  f.sim.partition({NodeId{old_leader}}, rest);
  int64_t offset = -1;
  ErrorCode zombie = f.produce(old_leader, "t", 0, -1, "to-zombie", &offset, 20000);
  CHECK(zombie != ErrorCode::NONE);  // timed out or refused: never acknowledged
  // Meanwhile the controller elected a new leader among the others.
  REQUIRE(f.run_until([&] {
    auto l = f.cluster.leader(TopicPartition{"t", 0});
    return l && *l >= 0 && *l != old_leader && f.cluster.topic_ready("t", 1);
  }));
  const int32_t new_leader = f.leader_of("t", 0);
  CHECK(f.produce(new_leader, "t", 0, -1, "after") == ErrorCode::NONE);
  // The zombie tried to shrink the ISR to itself (its followers stopped fetching) and never got it.
  int proposed = 0, shrunk = 0;
  for (const auto& e : f.events) {
    if (e.node.value != old_leader) continue;
    if (e.kind() == "isr_change_proposed" && e.get_string("proposed_isr") == std::to_string(old_leader)) proposed++;
    if (e.kind() == "isr_change" && e.get_string("isr") == std::to_string(old_leader)) shrunk++;
  }
  CHECK(proposed > 0);
  CHECK(shrunk == 0);
  f.sim.heal_all();
  REQUIRE(f.run_until([&] { return f.replica(new_leader, "t", 0)->isr().size() == 3; }));
  f.checkers.finish(f.sim.now());
  CHECK_FALSE(f.checker("acked-write-lost").violation());
  CHECK_FALSE(f.checker("single-leader").violation());
  CHECK_FALSE(f.checker("log-matching").violation());
}

namespace {

// KIP-101 scenario 1 (../shared/reference/kafka-replication.md S1), adapted to the ZooKeeper-era
// controller: follower A has m2 but its high watermark still says 1 (the fetch response that
// would carry HW=2 is still held by the leader's long poll) when a leader-epoch bump reaches it
// (here: a third replica's controlled shutdown). Before KIP-101 A truncates to its HW and loses m2;
// the leader B then crashes and A, still in the ISR, is elected. Returns whether the acked m2 was
// lost, as the checker sees it.
bool run_kip101_story(const std::string& truncation, uint64_t seed) {
  test::ClusterFixture f(seed, {{"replication.truncation", truncation},
                                {"replica.lag.time.max.ms", "30000"},
                                {"zookeeper.session.timeout.ms", "6000"},
                                {"auto.leader.rebalance.enable", "false"}});
  f.create_topic("t", 1, 3);
  const int32_t b = f.leader_of("t", 0);
  const int32_t controller = *f.cluster.controller();
  // A: a follower that is not the controller (the controller must survive to elect); C: the third.
  int32_t a = -1, c = -1;
  for (int32_t r : broker::to_ids(f.replica(b, "t", 0)->replicas()))
    if (r != b) {
      if (a < 0 && r != controller) a = r;
      else c = r;
    }
  if (a < 0 || c < 0) return false;  // no suitable layout for this seed (the caller checks)
  REQUIRE(f.produce(b, "t", 0, -1, "m1") == ErrorCode::NONE);
  f.sim.run_for(Duration::seconds(1));  // everyone has m1 and HW=1
  // m2, acknowledged with acks=all: both followers fetched it; their HW is still 1 while their
  // next fetch (at offset 2) waits in B's purgatory for new data.
  REQUIRE(f.produce(b, "t", 0, -1, "m2") == ErrorCode::NONE);
  auto* pa = f.replica(a, "t", 0);
  REQUIRE(pa->log_end_offset() == Offset{2});
  REQUIRE(pa->high_watermark() == Offset{1});
  // An epoch bump reaches A now: C shuts down cleanly, the controller removes it from the ISR.
  f.cluster.shutdown_broker(c);
  const size_t follows = f.count("become_follower", a);
  REQUIRE(f.run_until([&] { return f.count("become_follower", a) > follows; }, Duration::seconds(5)));
  // Before A can fetch m2 again (or, with KIP-101, before the leader answers it), B crashes.
  f.sim.crash(NodeId{b});
  REQUIRE(f.run_until([&] {
    auto l = f.cluster.leader(TopicPartition{"t", 0});
    return l && *l == a && f.cluster.topic_ready("t", 1);
  }));
  f.checkers.finish(f.sim.now());
  return f.checker("acked-write-lost").violation().has_value();
}

}  // namespace

TEST_CASE("KIP-101 story: high-watermark truncation loses an acked write, leader-epoch truncation does not",
          "[broker][kip101]") {
  // Seeds with a layout where the controller is a follower or the third replica, as the story needs.
  int checked = 0;
  for (uint64_t seed = 100; seed < 140 && checked < 3; seed++) {
    bool lost_hw = run_kip101_story("high-watermark", seed);
    bool lost_epoch = run_kip101_story("leader-epoch", seed);
    if (!lost_hw && !lost_epoch) continue;  // layout unsuitable or timing missed: try another seed
    INFO("seed " << seed);
    CHECK(lost_hw);
    CHECK_FALSE(lost_epoch);
    checked++;
  }
  CHECK(checked >= 1);
}

TEST_CASE("a follower's progress is recorded when its fetch arrives, not when a delayed fetch reads again (Kafka's updateFetchState)",
          "[broker][isr]") {
  test::ClusterFixture f(11, {{"replica.lag.time.max.ms", "2000"}});
  const auto [leader_id, slow_id] = drop_slow_follower(f);
  const int32_t leader = leader_id, slow = slow_id;  // captured by lambdas below
  broker::Partition* lp = f.replica(leader, "t", 0);
  REQUIRE_FALSE(lp->isr_change_in_flight());
  const Offset leo = lp->log_end_offset();
  const size_t proposed = f.count("isr_change_proposed", leader);
  // A read at the log end as the purgatory makes it (a try, or the final read): nothing is recorded,
  // so the follower is not taken back.
  broker::LeaderRead r = lp->fetch_for_follower(NodeId{slow}, leo, lp->leader_epoch(), LeaderEpoch{-1}, 1 << 20, f.sim.now(),
                                                broker::ReadLog::kNo, false);
  CHECK(r.error == ErrorCode::NONE);
  CHECK_FALSE(r.records_available);
  CHECK_FALSE(lp->isr_change_in_flight());
  CHECK(f.count("isr_change_proposed", leader) == proposed);
  // The same read as a fetch's arrival records that the follower reached the log end: it rejoins.
  r = lp->fetch_for_follower(NodeId{slow}, leo, lp->leader_epoch(), LeaderEpoch{-1}, 1 << 20, f.sim.now(), broker::ReadLog::kNo, true);
  CHECK(r.error == ErrorCode::NONE);
  CHECK(lp->isr_change_in_flight());
  CHECK(f.count("isr_change_proposed", leader) == proposed + 1);
}

TEST_CASE("a busy producer leaves no superseded drain timers waiting in the event queue", "[broker][timers]") {
  // After a drain with batches in flight the producer's next wake is delivery.timeout.ms (120 s)
  // away; the next record schedules an earlier drain. The replaced wake must be cancelled, not left
  // queued to fire for nothing: at this rate 20 s left about 2,000 of them.
  test::ClusterFixture f(7);
  f.create_topic("orders", 3, 3);
  client::ProducerConfig pc;
  pc.bootstrap_servers = f.cluster.broker_ids();
  pc.acks = -1;
  client::ProducerWorkload w;
  w.topic = "orders";
  w.rate_per_sec = 2000;
  const NodeId id{sim::kFirstClientNodeId + 1};
  f.sim.add_node(id, "producer", [&](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, w); });
  const size_t pending_before = f.sim.loop().pending();
  f.sim.run_for(Duration::seconds(20));
  const auto* p = f.sim.node_as<client::ProducerNode>(id);
  CHECK(p->acked() > 30000);
  CHECK(p->failed() == 0);
  // What stays queued: each node's periodic timers and the requests in flight, a few dozen.
  INFO("pending before " << pending_before << ", after " << f.sim.loop().pending());
  CHECK(f.sim.loop().pending() < pending_before + 200);
}

TEST_CASE("a follower's disk takes its leader's log pages by their address: fetch responses carry the pages",
          "[broker][replication][sim_disk]") {
  // In the simulator the leader reads fetched batches as views of its disk's pages, the Fetch
  // response travels with those views, and the follower's append writes the very bytes of the
  // leader's page: its disk takes that page without comparing (SimDiskStats::bytes_compared).
  test::ClusterFixture f(21);
  f.create_topic("t", 1, 3);
  const int32_t leader = f.leader_of("t", 0);
  for (int i = 0; i < 40; i++) REQUIRE(f.produce(leader, "t", 0, -1, std::string(500, static_cast<char>('a' + i % 26))) == ErrorCode::NONE);
  REQUIRE(f.run_until([&] {
    for (int b = 1; b <= 3; b++)
      if (f.replica(b, "t", 0)->log_end_offset() != f.replica(leader, "t", 0)->log_end_offset()) return false;
    return true;
  }));
  for (int b = 1; b <= 3; b++) {
    if (b == leader) continue;
    const sim::SimDiskStats& s = f.sim.disk(NodeId{b}).stats();
    INFO("follower " << b << ": " << s.pages_taken << " pages taken, " << s.bytes_compared << " of " << s.bytes_appended
                     << " bytes compared");
    CHECK(s.pages_taken > 0);
    // The log's 40 batches (over 20 KB) are taken by address; what is compared is the small files
    // both replicas write alike (indexes, checkpoints).
    CHECK(s.bytes_compared * 4 < s.bytes_appended);
    CHECK(s.bytes_appended > 20000);
  }
}

TEST_CASE("a produced batch reaches the leader as the producer's own buffer, whose CRC it computed", "[broker][replication]") {
  // In the simulator a Produce request travels with views of the batches it carries, as a Fetch
  // response does, and the producer remembers each batch it built as checked (it has just computed
  // its CRC over those very bytes). The leader's validation of the batch is then a check of the
  // same bytes at the same address, and is spared (record::checks_spared).
  test::ClusterFixture f(5);
  f.create_topic("solo", 2, 1);  // no followers: nothing else reads or checks the batches
  client::ProducerConfig pc;
  pc.bootstrap_servers = f.cluster.broker_ids();
  pc.acks = 1;
  client::ProducerWorkload w;
  w.topic = "solo";
  w.rate_per_sec = 500;
  const NodeId id{sim::kFirstClientNodeId + 1};
  const uint64_t spared_before = record::checks_spared();
  const size_t acks_before = f.count("produce_ack");
  f.sim.add_node(id, "producer", [&](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, w); });
  f.sim.run_for(Duration::seconds(5));
  const auto* p = f.sim.node_as<client::ProducerNode>(id);
  REQUIRE(p->acked() > 2000);
  const size_t batches = f.count("produce_ack") - acks_before;
  const uint64_t spared = record::checks_spared() - spared_before;
  INFO(batches << " batches acknowledged, " << spared << " checks spared");
  CHECK(batches > 100);
  // Each acknowledged batch was validated by its leader; every one of those checks was spared.
  CHECK(spared >= batches);
}
