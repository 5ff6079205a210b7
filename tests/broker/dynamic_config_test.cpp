// Topic configs changed while the cluster runs (kafka-configs --alter): /config/topics/T is
// rewritten, a /config/changes notification follows, and every broker applies it; the controller
// elects offline partitions at once when unclean.leader.election.enable becomes true.
#include "cluster_fixture.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

// Alters `topic` through `broker` and runs until the answer; the error code.
ErrorCode alter(test::ClusterFixture& f, int32_t broker, const std::string& topic,
                std::map<std::string, std::optional<std::string>> changes, std::string* message = nullptr) {
  std::optional<ErrorCode> code;
  f.cluster.broker(broker)->alter_topic_config(topic, changes, [&](ErrorCode c, std::string m) {
    code = c;
    if (message) *message = m;
  });
  REQUIRE(f.run_until([&] { return code.has_value(); }, Duration::seconds(10)));
  return *code;
}

}  // namespace

TEST_CASE("min.insync.replicas raised and lowered at run time applies on every replica", "[broker][config]") {
  test::ClusterFixture f(21);
  f.create_topic("t", 2, 3);
  const int32_t leader = f.leader_of("t", 0);
  REQUIRE(f.produce(leader, "t", 0, -1, "a") == ErrorCode::NONE);

  // More in-sync replicas than the topic has: every acks=all produce is refused from now on.
  const int32_t via = leader == 1 ? 2 : 1;  // any broker takes the change, not only the leader
  REQUIRE(alter(f, via, "t", {{"min.insync.replicas", "4"}}) == ErrorCode::NONE);
  REQUIRE(f.run_until([&] {
    for (int b = 1; b <= 3; b++)
      for (int p = 0; p < 2; p++)
        if (f.replica(b, "t", p)->config().min_insync_replicas != 4) return false;
    return true;
  }, Duration::seconds(5)));
  CHECK(f.count("topic_config_change") == 3);  // one per broker hosting t
  CHECK(f.produce(leader, "t", 0, -1, "b") == ErrorCode::NOT_ENOUGH_REPLICAS);
  CHECK(f.produce(leader, "t", 0, 1, "c") == ErrorCode::NONE);  // acks=1 does not care

  // Deleting the override goes back to the broker default (1).
  REQUIRE(alter(f, leader, "t", {{"min.insync.replicas", std::nullopt}}) == ErrorCode::NONE);
  REQUIRE(f.run_until([&] { return f.replica(leader, "t", 0)->config().min_insync_replicas == 1; }, Duration::seconds(5)));
  CHECK(f.produce(leader, "t", 0, -1, "d") == ErrorCode::NONE);
  f.checkers.finish(f.sim.now());
  for (const auto& c : f.checkers.checkers()) CHECK_FALSE(c->violation());
}

TEST_CASE("a bad config change is refused and changes nothing", "[broker][config]") {
  test::ClusterFixture f(22);
  f.create_topic("t", 1, 3, {{"min.insync.replicas", "2"}});
  std::string message;
  CHECK(alter(f, 1, "t", {{"min.insync.replicas", "0"}}, &message) == ErrorCode::INVALID_CONFIG);
  CHECK_FALSE(message.empty());
  CHECK(alter(f, 1, "t", {{"no.such.key", "1"}}) == ErrorCode::INVALID_CONFIG);
  CHECK(alter(f, 1, "missing", {{"min.insync.replicas", "1"}}) == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  f.sim.run_for(Duration::seconds(2));
  CHECK(f.count("topic_config_change") == 0);
  for (int b = 1; b <= 3; b++) CHECK(f.replica(b, "t", 0)->config().min_insync_replicas == 2);
}

TEST_CASE("enabling unclean.leader.election.enable elects an offline partition's out-of-sync replica", "[broker][config]") {
  test::ClusterFixture f(23);
  f.create_topic("u", 1, 2);
  const int32_t first = f.leader_of("u", 0);
  const auto replicas = broker::to_ids(f.replica(first, "u", 0)->replicas());
  REQUIRE(replicas.size() == 2);
  const int32_t second = replicas[0] == first ? replicas[1] : replicas[0];
  REQUIRE(f.produce(first, "u", 0, -1, "a") == ErrorCode::NONE);
  // The follower dies and leaves the ISR; then the leader dies: offline, ISR {first}.
  f.sim.crash(NodeId{second});
  REQUIRE(f.run_until([&] { return f.replica(first, "u", 0)->isr().size() == 1; }, Duration::seconds(30)));
  REQUIRE(f.produce(first, "u", 0, -1, "b") == ErrorCode::NONE);  // only `first` has it
  f.sim.crash(NodeId{first});
  f.sim.restart(NodeId{second});
  // The controller sees `first` gone once its zk session expires, and `second` back.
  REQUIRE(f.run_until([&] {
    auto c = f.cluster.controller();
    if (!c || *c == first) return false;
    const auto& live = f.cluster.broker(*c)->controller().live_brokers();
    return !live.count(first) && live.count(second);
  }, Duration::seconds(60)));
  f.sim.run_for(Duration::seconds(5));
  // Clean election is impossible: the only ISR member is down, so the partition stays offline.
  CHECK(f.cluster.leader(TopicPartition{"u", 0}) == -1);

  const int32_t controller = *f.cluster.controller();
  REQUIRE(alter(f, controller, "u", {{"unclean.leader.election.enable", "true"}}) == ErrorCode::NONE);
  REQUIRE(f.run_until([&] {
    auto l = f.cluster.leader(TopicPartition{"u", 0});
    return l && *l == second;
  }, Duration::seconds(10)));
  REQUIRE(f.run_until([&] {
    auto* r = f.replica(second, "u", 0);
    return r && r->leader() == NodeId{second};
  }, Duration::seconds(10)));
  // The unclean leader never had "b": an acknowledged write is lost, and the checker says so.
  f.checkers.finish(f.sim.now());
  CHECK(f.checker("acked-write-lost").violation());
}
