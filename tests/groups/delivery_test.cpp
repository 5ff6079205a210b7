// The three delivery guarantees, each made to fail the way its mode allows and checked by the
// consumption checkers (sim/check/consume_checkers.h) -- and deliberately broken modes, to show
// that the checkers catch a guarantee that does not hold.
#include <catch2/catch.hpp>

#include "group_fixture.h"

using namespace gregor;
using client::DeliveryMode;

namespace {

constexpr int32_t kProducer = 2100;

// Crashes `node` the first time `pred` holds for one of its events after `after`.
void crash_on(test::GroupFixture& f, int32_t node, Time after, std::function<bool(const TraceEvent&)> pred, bool* fired) {
  f.hooks.push_back([&f, node, after, pred, fired](const TraceEvent& e) {
    if (*fired || e.node.value != node || e.time < after || !pred(e)) return;
    *fired = true;
    f.sim.crash(NodeId{node});
  });
}

// A cluster, a topic of 6 partitions, a producer and two consumers of `mode` (behaving as
// `behaviour`), consuming until stable.
void start_run(test::GroupFixture& f, DeliveryMode mode, std::optional<DeliveryMode> behaviour, int64_t records, bool idempotent) {
  f.create_topic("orders", 6, 3);
  if (behaviour.value_or(mode) == DeliveryMode::kExactlyOnce) f.add_sink();
  f.add_producer(kProducer, 200, records, idempotent);
  f.add_consumer(2201, "g", mode, {}, behaviour);
  f.add_consumer(2202, "g", mode, {}, behaviour);
}

bool done(test::GroupFixture& f, int64_t records) {
  auto* p = f.producer(kProducer);
  return p && p->acked() == records && f.caught_up("g");
}

}  // namespace

TEST_CASE("at-least-once: a consumer dying between processing and commit causes duplicates, never loss", "[groups][delivery]") {
  test::GroupFixture f(31);
  bool crashed = false;
  crash_on(f, 2201, Time{0} + Duration::seconds(12), [](const TraceEvent& e) { return e.kind() == "consume"; }, &crashed);
  start_run(f, DeliveryMode::kAtLeastOnce, std::nullopt, 4000, false);
  REQUIRE(f.run_until([&] { return crashed; }, Duration::seconds(60)));
  REQUIRE(f.run_until([&] { return done(f, 4000); }, Duration::seconds(120)));
  CHECK(f.ledger.lost("g") == 0);
  CHECK(f.ledger.duplicates("g") > 0);  // what 2201 processed but never committed came again
  CHECK(f.ledger.unique_consumed("g") == 4000);
  f.require_checkers_pass();
}

TEST_CASE("at-most-once: a consumer dying between commit and processing loses records, never duplicates", "[groups][delivery]") {
  test::GroupFixture f(32);
  bool crashed = false;
  crash_on(f, 2201, Time{0} + Duration::seconds(12), [](const TraceEvent& e) { return e.kind() == "commit"; }, &crashed);
  start_run(f, DeliveryMode::kAtMostOnce, std::nullopt, 4000, false);
  REQUIRE(f.run_until([&] { return crashed; }, Duration::seconds(60)));
  REQUIRE(f.run_until(
      [&] {
        auto* p = f.producer(kProducer);
        const auto* g = f.ledger.group("g");
        // Done when the log's end is consumed (what was lost is never coming).
        return p && p->acked() == 4000 && g && f.ledger.unique_consumed("g") + f.ledger.lost("g") == 4000 &&
               f.ledger.unique_consumed("g") > 3000;
      },
      Duration::seconds(120)));
  f.sim.run_for(Duration::seconds(5));
  CHECK(f.ledger.lost("g") > 0);  // the batch 2201 committed but never processed
  CHECK(f.ledger.duplicates("g") == 0);
  f.require_checkers_pass();  // consume-duplicate holds; consume-lost does not apply to at-most-once
}

TEST_CASE("exactly-once: no loss and no duplicates across producer retries, broker failover and consumer crashes",
          "[groups][delivery]") {
  test::GroupFixture f(33);
  // Producer retries: cut the producer off from a leader right after it appended one of its
  // batches, so the acknowledgement is lost and the batch is sent again.
  bool cut = false;
  f.hooks.push_back([&](const TraceEvent& e) {
    if (cut || e.kind() != "log_append" || e.get_string("topic") != "orders" || e.get_string("role") != "leader" ||
        e.time < Time{0} + Duration::seconds(8))
      return;
    cut = true;
    const NodeId leader = e.node;
    f.sim.partition({leader}, {NodeId{kProducer}});
    f.sim.loop().schedule_after(Duration::seconds(1), [&f, leader] { f.sim.heal({leader}, {NodeId{kProducer}}); });
  });
  // Consumer crashes: 2201 right after the sink made its batch durable (before its group commit);
  // 2202 in the middle of processing a batch.
  bool crashed_2201 = false, crashed_2202 = false;
  f.hooks.push_back([&](const TraceEvent& e) {
    if (crashed_2201 || e.kind() != "sink_write" || e.time < Time{0} + Duration::seconds(14) || e.get_int("applied") == 0) return;
    auto* c = f.consumer(2201);
    if (!c || e.get_string("member") != c->consumer().member_id()) return;
    crashed_2201 = true;
    f.sim.crash(NodeId{2201});
  });
  crash_on(f, 2202, Time{0} + Duration::seconds(30), [](const TraceEvent& e) { return e.kind() == "consumer_position" || e.kind() == "commit"; },
           &crashed_2202);
  start_run(f, DeliveryMode::kExactlyOnce, std::nullopt, 6000, true);
  f.add_consumer(2203, "g", DeliveryMode::kExactlyOnce);

  REQUIRE(f.run_until([&] { return cut && crashed_2201; }, Duration::seconds(60)));
  f.sim.restart(NodeId{2201});
  // Broker failover: the leader of orders-0 dies and comes back.
  const int32_t leader = *f.cluster.leader({"orders", 0});
  f.sim.crash(NodeId{leader});
  REQUIRE(f.run_until([&] { return crashed_2202; }, Duration::seconds(60)));
  f.sim.restart(NodeId{2202});
  f.sim.run_for(Duration::seconds(10));
  f.sim.restart(NodeId{leader});
  REQUIRE(f.run_until([&] { return done(f, 6000); }, Duration::seconds(180)));

  CHECK(f.kinds["produce_duplicate"] >= 1);  // a retried batch the broker acknowledged without appending
  CHECK(f.kinds["produce_error"] >= 1);
  CHECK(f.kinds["become_leader"] > 0);
  CHECK(f.ledger.lost("g") == 0);
  CHECK(f.ledger.duplicates("g") == 0);
  CHECK(f.ledger.unique_consumed("g") == 6000);
  auto* sink = f.sim.node_as<client::TransactionalSinkNode>(NodeId{test::kSinkNodeId});
  REQUIRE(sink);
  CHECK(sink->records_stored() == 6000);
  f.require_checkers_pass();
}

TEST_CASE("exactly-once needs the idempotent producer: without it the retried batch is output twice", "[groups][delivery]") {
  test::GroupFixture f(33);
  bool cut = false;
  f.hooks.push_back([&](const TraceEvent& e) {
    if (cut || e.kind() != "log_append" || e.get_string("topic") != "orders" || e.get_string("role") != "leader" ||
        e.time < Time{0} + Duration::seconds(8))
      return;
    cut = true;
    const NodeId leader = e.node;
    f.sim.partition({leader}, {NodeId{kProducer}});
    f.sim.loop().schedule_after(Duration::seconds(1), [&f, leader] { f.sim.heal({leader}, {NodeId{kProducer}}); });
  });
  start_run(f, DeliveryMode::kExactlyOnce, std::nullopt, 3000, false);
  REQUIRE(f.run_until([&] { return cut; }, Duration::seconds(60)));
  REQUIRE(f.run_until([&] { return done(f, 3000); }, Duration::seconds(120)));
  CHECK(f.kinds["produce_duplicate"] == 0);
  CHECK(f.ledger.duplicates("g") > 0);
  const sim::Violation* v = f.violation("consume-duplicate");
  REQUIRE(v != nullptr);
  CHECK(v->message.find("twice") != std::string::npos);
}

TEST_CASE("the checkers catch a deliberately broken mode: 'exactly-once' that commits after processing", "[groups][delivery]") {
  test::GroupFixture f(34);
  bool crashed = false;
  crash_on(f, 2201, Time{0} + Duration::seconds(12), [](const TraceEvent& e) { return e.kind() == "consume"; }, &crashed);
  start_run(f, DeliveryMode::kExactlyOnce, DeliveryMode::kAtLeastOnce, 3000, true);
  REQUIRE(f.run_until([&] { return crashed; }, Duration::seconds(60)));
  REQUIRE(f.run_until([&] { return done(f, 3000); }, Duration::seconds(120)));
  const sim::Violation* v = f.violation("consume-duplicate");
  REQUIRE(v != nullptr);
  CHECK(v->message.find("exactly-once") != std::string::npos);
  CHECK(f.violation("consume-lost") == nullptr);
}

TEST_CASE("the checkers catch a deliberately broken mode: 'at-least-once' that commits before processing", "[groups][delivery]") {
  test::GroupFixture f(35);
  bool crashed = false;
  crash_on(f, 2201, Time{0} + Duration::seconds(12), [](const TraceEvent& e) { return e.kind() == "commit"; }, &crashed);
  start_run(f, DeliveryMode::kAtLeastOnce, DeliveryMode::kAtMostOnce, 3000, false);
  REQUIRE(f.run_until([&] { return crashed; }, Duration::seconds(60)));
  REQUIRE(f.run_until([&] { auto* p = f.producer(kProducer); return p && p->acked() == 3000; }, Duration::seconds(120)));
  f.sim.run_for(Duration::seconds(20));
  const sim::Violation* v = f.violation("consume-lost");
  REQUIRE(v != nullptr);
  CHECK(v->message.find("never consumed") != std::string::npos);
  CHECK(f.violation("consume-duplicate") == nullptr);
}
