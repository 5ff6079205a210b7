// Partition reassignment (KIP-455): AlterPartitionReassignments and ListPartitionReassignments,
// the controller's steps in their order, Kafka's errors, a cancellation, and a move that survives a
// crash of the added broker and of the controller.
#include <algorithm>
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/protocol/alter_partition_reassignments.h"
#include "engine/protocol/list_partition_reassignments.h"
#include "engine/protocol/metadata.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_run.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

using Targets = std::vector<std::pair<TopicPartition, std::optional<std::vector<int32_t>>>>;

protocol::AlterPartitionReassignmentsResponse alter(test::ClusterFixture& f, const Targets& targets, int32_t broker = -1) {
  protocol::AlterPartitionReassignmentsRequest req;
  req.timeout_ms = 30000;
  for (const auto& [tp, replicas] : targets) {
    if (req.topics.empty() || req.topics.back().name != tp.topic) req.topics.push_back({.name = tp.topic});
    req.topics.back().partitions.push_back({.partition_index = tp.partition, .replicas = replicas});
  }
  auto r = f.call<protocol::AlterPartitionReassignmentsRequest, protocol::AlterPartitionReassignmentsResponse>(
      broker < 0 ? *f.cluster.controller() : broker, req, 0);
  REQUIRE(r);
  return *r;
}

ErrorCode alter_one(test::ClusterFixture& f, const TopicPartition& tp, std::optional<std::vector<int32_t>> replicas) {
  auto r = alter(f, {{tp, replicas}});
  REQUIRE(r.error_code == ErrorCode::NONE);
  REQUIRE(r.responses.size() == 1);
  REQUIRE(r.responses[0].partitions.size() == 1);
  return r.responses[0].partitions[0].error_code;
}

protocol::ListPartitionReassignmentsResponse list(test::ClusterFixture& f, int32_t broker = -1) {
  protocol::ListPartitionReassignmentsRequest req;
  req.timeout_ms = 30000;
  auto r = f.call<protocol::ListPartitionReassignmentsRequest, protocol::ListPartitionReassignmentsResponse>(
      broker < 0 ? *f.cluster.controller() : broker, req, 0);
  REQUIRE(r);
  return *r;
}

// The index of the first event of `kind` (with the partition's topic, if it has one) at or after
// `from`; events.size() when none.
size_t find_event(const test::ClusterFixture& f, const std::string& kind, size_t from = 0, int32_t node = -1) {
  for (size_t i = from; i < f.events.size(); i++)
    if (f.events[i].kind() == kind && (node < 0 || f.events[i].node.value == node)) return i;
  return f.events.size();
}

std::vector<int32_t> sorted(std::vector<int32_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool reassignment_done(test::ClusterFixture& f, const TopicPartition& tp) {
  auto c = f.cluster.controller();
  if (!c) return false;
  auto& parts = f.cluster.broker(*c)->controller().partitions();
  auto it = parts.find(tp);
  return it != parts.end() && !it->second.reassigning();
}

}  // namespace

TEST_CASE("AlterPartitionReassignments moves a partition's replicas in Kafka's steps, through crashes of the added broker and the controller",
          "[broker][reassignment]") {
  test::ClusterFixture f(61, {{"auto.leader.rebalance.enable", "false"}}, 4);
  f.create_topic("move", 1, 3);
  const TopicPartition tp{"move", 0};
  const std::vector<int32_t> original = f.cluster.broker(1)->metadata().partition(tp)->replicas;
  REQUIRE(original.size() == 3);
  const int32_t old_leader = f.leader_of("move", 0);
  int32_t added = -1;
  for (int32_t b = 1; b <= 4; b++)
    if (std::find(original.begin(), original.end(), b) == original.end()) added = b;
  // The target drops the current leader and adds the fourth broker: the leadership must move.
  std::vector<int32_t> target;
  for (int32_t r : original)
    if (r != old_leader) target.push_back(r);
  target.push_back(added);
  for (int i = 0; i < 5; i++) REQUIRE(f.produce(old_leader, "move", 0, -1, "before-" + std::to_string(i)) == ErrorCode::NONE);
  const int32_t epoch_before = f.cluster.broker(1)->metadata().partition(tp)->leader_epoch;

  REQUIRE(alter_one(f, tp, target) == ErrorCode::NONE);
  // The added broker dies before it catches up: the move waits for it.
  f.sim.crash(NodeId{added});
  const size_t started = find_event(f, "reassignment_started");
  REQUIRE(started < f.events.size());
  {
    const auto* e = f.events[started].as<ev::ReassignmentStarted>();
    REQUIRE(e);
    CHECK(e->target == target);
    CHECK(e->adding == std::vector<int32_t>{added});
    CHECK(e->removing == std::vector<int32_t>{old_leader});
    std::vector<int32_t> all = target;
    all.push_back(old_leader);
    CHECK(e->replicas == all);  // RS = TRS + ORS
  }
  auto listed = list(f);
  REQUIRE(listed.error_code == ErrorCode::NONE);
  REQUIRE(listed.topics.size() == 1);
  REQUIRE(listed.topics[0].partitions.size() == 1);
  CHECK(listed.topics[0].partitions[0].adding_replicas == std::vector<int32_t>{added});
  CHECK(listed.topics[0].partitions[0].removing_replicas == std::vector<int32_t>{old_leader});
  CHECK(listed.topics[0].partitions[0].replicas.size() == 4);
  // Not the controller: NOT_CONTROLLER at the top.
  int32_t other = 1;
  while (other == *f.cluster.controller() || other == added) other++;
  CHECK(list(f, other).error_code == ErrorCode::NOT_CONTROLLER);
  CHECK(alter(f, {{tp, target}}, other).error_code == ErrorCode::NOT_CONTROLLER);
  // Every broker knows the partition's replicas as RS, with a new leader epoch.
  REQUIRE(f.run_until([&] {
    const auto* pm = f.cluster.broker(other)->metadata().partition(tp);
    return pm && pm->replicas.size() == 4;
  }));
  CHECK(f.cluster.broker(other)->metadata().partition(tp)->leader_epoch > epoch_before);

  // acks=all writes go on meanwhile (the ISR is the original replicas).
  for (int i = 0; i < 5; i++) REQUIRE(f.produce(f.leader_of("move", 0), "move", 0, -1, "during-" + std::to_string(i)) == ErrorCode::NONE);

  // The controller fails over: the new one resumes the move from the assignment znode.
  const int32_t first_controller = *f.cluster.controller();
  f.sim.crash(NodeId{first_controller});
  REQUIRE(f.run_until([&] {
    auto c = f.cluster.controller();
    return c && *c != first_controller && f.cluster.broker(*c)->controller().is_active() &&
           f.cluster.broker(*c)->controller().partitions().count(tp);
  }));
  {
    auto& parts = f.cluster.broker(*f.cluster.controller())->controller().partitions();
    CHECK(parts.at(tp).adding == std::vector<int32_t>{added});
    CHECK(parts.at(tp).removing == std::vector<int32_t>{old_leader});
  }
  f.sim.restart(NodeId{added});
  f.sim.restart(NodeId{first_controller});
  REQUIRE(f.run_until([&] { return f.count("reassignment_completed") == 1; }));
  REQUIRE(f.run_until([&] { return reassignment_done(f, tp); }));

  // The steps, in order: started, then (the added replica in the ISR) the leader moves off the
  // removed replica, completed, and the removed replica deletes its copy.
  const size_t completed = find_event(f, "reassignment_completed");
  CHECK(started < completed);
  {
    const auto* e = f.events[completed].as<ev::ReassignmentCompleted>();
    REQUIRE(e);
    CHECK(e->replicas == target);
    CHECK(e->removed == std::vector<int32_t>{old_leader});
  }
  size_t isr_with_added = f.events.size();
  for (size_t i = started; i < completed; i++)
    if (const auto* c = f.events[i].as<ev::IsrChange>())
      if (c->topic == "move" && std::find(c->isr.begin(), c->isr.end(), added) != c->isr.end()) {
        isr_with_added = i;
        break;
      }
  CHECK(isr_with_added < completed);
  REQUIRE(f.run_until([&] { return f.replica(old_leader, "move", 0) == nullptr; }));
  CHECK(find_event(f, "partition_deleted", completed, old_leader) < f.events.size());

  // Every broker knows the target alone, led by one of its replicas.
  REQUIRE(f.run_until([&] {
    for (int32_t b = 1; b <= 4; b++) {
      const auto* pm = f.cluster.broker(b)->metadata().partition(tp);
      if (!pm || pm->replicas != target) return false;
    }
    return true;
  }));
  const int32_t new_leader = f.leader_of("move", 0);
  CHECK(std::find(target.begin(), target.end(), new_leader) != target.end());
  CHECK(list(f).topics.empty());
  CHECK(sorted(f.cluster.broker(*f.cluster.controller())->controller().partitions().at(tp).state.isr) == sorted(target));
  for (int i = 0; i < 5; i++) REQUIRE(f.produce(new_leader, "move", 0, -1, "after-" + std::to_string(i)) == ErrorCode::NONE);
  f.sim.run_for(Duration::seconds(2));
  f.checkers.finish(f.sim.now());
  CHECK_FALSE(f.checker("acked-write-lost").violation());
  CHECK_FALSE(f.checker("single-leader").violation());
  CHECK_FALSE(f.checker("log-matching").violation());
}

TEST_CASE("AlterPartitionReassignments refuses what Kafka refuses", "[broker][reassignment]") {
  test::ClusterFixture f(62, {}, 4);
  f.create_topic("fixed", 2, 2);
  const TopicPartition tp{"fixed", 0};
  CHECK(alter_one(f, tp, std::vector<int32_t>{}) == ErrorCode::INVALID_REPLICA_ASSIGNMENT);
  CHECK(alter_one(f, tp, std::vector<int32_t>{1, 1}) == ErrorCode::INVALID_REPLICA_ASSIGNMENT);
  CHECK(alter_one(f, tp, std::vector<int32_t>{1, -2}) == ErrorCode::INVALID_REPLICA_ASSIGNMENT);
  CHECK(alter_one(f, tp, std::vector<int32_t>{1, 9}) == ErrorCode::INVALID_REPLICA_ASSIGNMENT);
  CHECK(alter_one(f, TopicPartition{"fixed", 7}, std::vector<int32_t>{1, 2}) == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  CHECK(alter_one(f, TopicPartition{"none", 0}, std::vector<int32_t>{1, 2}) == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  CHECK(alter_one(f, tp, std::nullopt) == ErrorCode::NO_REASSIGNMENT_IN_PROGRESS);
  // A broker that is not live cannot be added.
  f.sim.crash(NodeId{4});
  REQUIRE(f.run_until([&] {
    auto c = f.cluster.controller();
    return c && *c != 4 && f.cluster.broker(*c)->controller().live_brokers().count(4) == 0;
  }));
  const auto replicas = f.cluster.broker(*f.cluster.controller())->controller().partitions().at(tp).replicas;
  if (std::find(replicas.begin(), replicas.end(), 4) == replicas.end())
    CHECK(alter_one(f, tp, std::vector<int32_t>{replicas[0], 4}) == ErrorCode::INVALID_REPLICA_ASSIGNMENT);
  // Several partitions in one request: each gets its own answer; nothing refused moved.
  auto r = alter(f, {{tp, std::vector<int32_t>{3, 3}}, {TopicPartition{"fixed", 1}, std::nullopt}});
  REQUIRE(r.responses.size() == 1);
  REQUIRE(r.responses[0].partitions.size() == 2);
  CHECK(r.responses[0].partitions[0].error_code == ErrorCode::INVALID_REPLICA_ASSIGNMENT);
  CHECK(r.responses[0].partitions[0].error_message.has_value());
  CHECK(r.responses[0].partitions[1].error_code == ErrorCode::NO_REASSIGNMENT_IN_PROGRESS);
  CHECK(f.count("reassignment_started") == 0);
}

TEST_CASE("A cancelled reassignment goes back to the original replicas and deletes the added one", "[broker][reassignment]") {
  test::ClusterFixture f(63, {{"auto.leader.rebalance.enable", "false"}}, 4);
  f.create_topic("back", 1, 2);
  const TopicPartition tp{"back", 0};
  const std::vector<int32_t> original = f.cluster.broker(1)->metadata().partition(tp)->replicas;
  int32_t added = -1;
  for (int32_t b = 4; b >= 1 && added < 0; b--)
    if (std::find(original.begin(), original.end(), b) == original.end() && b != *f.cluster.controller()) added = b;
  REQUIRE(added > 0);
  for (int i = 0; i < 3; i++) REQUIRE(f.produce(f.leader_of("back", 0), "back", 0, -1, "v" + std::to_string(i)) == ErrorCode::NONE);
  // The added broker is paused (still registered): the move cannot complete.
  f.sim.pause(NodeId{added});
  REQUIRE(alter_one(f, tp, std::vector<int32_t>{original[0], added}) == ErrorCode::NONE);
  CHECK(list(f).topics.size() == 1);
  REQUIRE(alter_one(f, tp, std::nullopt) == ErrorCode::NONE);
  CHECK(f.count("reassignment_cancelled") == 1);
  CHECK(f.count("reassignment_completed") == 0);
  CHECK(list(f).topics.empty());
  CHECK(f.cluster.broker(*f.cluster.controller())->controller().partitions().at(tp).replicas == original);
  f.sim.resume(NodeId{added});
  // The added broker's copy is deleted (StopReplica with delete), the others keep serving.
  REQUIRE(f.run_until([&] { return f.replica(added, "back", 0) == nullptr; }));
  REQUIRE(f.run_until([&] {
    for (int32_t b = 1; b <= 4; b++) {
      const auto* pm = f.cluster.broker(b)->metadata().partition(tp);
      if (!pm || pm->replicas != original) return false;
    }
    return true;
  }));
  CHECK(f.produce(f.leader_of("back", 0), "back", 0, -1, "after") == ErrorCode::NONE);
}

TEST_CASE("A scenario's reassign action moves a partition under acks=all load through a crash of the added broker",
          "[broker][reassignment]") {
  auto s = sim::load_scenario(std::string(GREGOR_SOURCE_DIR) + "/tests/regressions/reassign-under-load-with-crash.yaml");
  REQUIRE(s.is_ok());
  sim::ScenarioRun run(*s, s->seed);
  std::vector<TraceEvent> events;
  run.add_listener([&events](const TraceEvent& e) { events.push_back(e); });
  run.run_to_end();
  CHECK(run.verdicts().all_hold());
  // Started at 6 s, completed only after broker-4 came back at 14 s, with the leader off broker-1.
  const ev::ReassignmentStarted* started = nullptr;
  const ev::ReassignmentCompleted* completed = nullptr;
  Time started_at{0}, completed_at{0};
  int32_t last_leader = -1;
  for (const auto& e : events) {
    if (const auto* x = e.as<ev::ReassignmentStarted>()) started = x, started_at = e.time;
    if (const auto* x = e.as<ev::ReassignmentCompleted>()) completed = x, completed_at = e.time;
    if (const auto* l = e.as<ev::LeaderChange>(); l && l->topic == "orders") last_leader = l->leader;
  }
  REQUIRE(started);
  REQUIRE(completed);
  CHECK(started->replicas == std::vector<int32_t>{2, 3, 4, 1});
  CHECK(completed->replicas == std::vector<int32_t>{2, 3, 4});
  CHECK(completed->removed == std::vector<int32_t>{1});
  CHECK(started_at < Time{0} + Duration::seconds(7));
  CHECK(completed_at > Time{0} + Duration::seconds(14));
  CHECK(last_leader != 1);
  CHECK(run.cluster().broker(1)->partition(TopicPartition{"orders", 0}) == nullptr);
}
