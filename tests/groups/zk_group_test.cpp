// The ZooKeeper-coordinated consumer group (Kafka 0.8's high-level consumer,
// engine/client/zk_group_consumer.h) in whole simulated runs: its znodes, its claims, its offsets,
// its rebalance when a member's session expires, and rebalance.max.retries running out.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/client/zk_group_consumer.h"
#include "engine/coord/zk_server.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_run.h"

using namespace gregor;

namespace {

// Two members of a zk group reading a 4-partition topic that a producer fills for 10 s.
std::string zk_group_scenario(const std::string& group_extra, const std::string& faults, const std::string& length = "40s") {
  return R"(name: zk-group
cluster:
  brokers: 3
topics:
  - name: orders
    partitions: 4
    replication-factor: 3
producers:
  - name: producer-1
    topic: orders
    rate: 100/s
    start: 2s
    stop: 12s
    config: {acks: all, enable.idempotence: true}
groups:
  - name: billing
    coordination: zookeeper
    topics: [orders]
    members: 2
    delivery: at-least-once
    start: 1s
)" + group_extra +
         faults + "length: " + length + "\nexpect:\n  pass: all\n  min-acked: 500\n";
}

struct Run {
  std::unique_ptr<sim::ScenarioRun> run;
  std::map<std::string, int64_t> group_errors;  // error -> count (consumer_group_error)
  std::map<std::string, std::string> group_error_member;
  int64_t refused_claims = 0;                    // zk_refused NodeExists on owners/
  int64_t consumes = 0;
  // consumer_assignment of the zk members (protocol zookeeper-range): each member's, in order.
  std::map<std::string, std::vector<std::vector<std::string>>> assignments;
};

std::unique_ptr<Run> run_scenario(const std::string& text, uint64_t seed = 1) {
  auto s = sim::parse_scenario(text, "zk-group.yaml");
  INFO(s.status().message());
  REQUIRE(s.is_ok());
  auto r = std::make_unique<Run>();
  r->run = std::make_unique<sim::ScenarioRun>(*s, seed);
  Run* raw = r.get();
  r->run->add_listener([raw](const TraceEvent& e) {
    if (const auto* g = e.as<ev::ConsumerGroupError>()) {
      raw->group_errors[g->error]++;
      raw->group_error_member[g->error] = g->member.value_or("");
    }
    if (const auto* z = e.as<ev::ZkRefused>())
      if (z->error == "NodeExists" && z->path.find("/consumers/billing/owners/orders/") == 0) raw->refused_claims++;
    if (e.as<ev::Consume>()) raw->consumes++;
    if (const auto* a = e.as<ev::ConsumerAssignment>()) {
      CHECK(a->protocol == "zookeeper-range");
      CHECK(a->generation == -1);
      std::vector<std::string> names;
      for (const PartitionName& tp : a->partitions) names.push_back(tp.str());
      std::sort(names.begin(), names.end());
      raw->assignments[a->member].push_back(std::move(names));
    }
  });
  r->run->run_to_end();
  return r;
}

std::string data_of(const coord::ZnodeTree& tree, const std::string& path) {
  const coord::Znode* n = tree.find(path);
  return n ? std::string(n->data.begin(), n->data.end()) : std::string("<none>");
}

void require_expectations(sim::ScenarioRun& run) {
  const sim::Verdicts v = run.verdicts();
  std::string failed;
  for (const auto& x : v.expectations)
    if (!x.holds.value_or(false)) failed += "\n  " + x.text;
  INFO("seed " << run.seed() << failed);
  CHECK(v.finished);
  CHECK(v.all_hold());
}

}  // namespace

TEST_CASE("zk group: range assignment as Kafka 0.8 computed it", "[groups][zk-group]") {
  using client::ZkGroupConsumerNode;
  // 5 partitions over 2 members: the first gets one more.
  CHECK(ZkGroupConsumerNode::range_share(5, {"b", "a"}, "a") == std::vector<int32_t>{0, 1, 2});
  CHECK(ZkGroupConsumerNode::range_share(5, {"b", "a"}, "b") == std::vector<int32_t>{3, 4});
  // More members than partitions: the last ones get nothing.
  CHECK(ZkGroupConsumerNode::range_share(2, {"a", "b", "c"}, "c").empty());
  // A member not registered gets nothing.
  CHECK(ZkGroupConsumerNode::range_share(4, {"a", "b"}, "x").empty());
}

TEST_CASE("zk group: members register claim their partitions and keep offsets in zk", "[groups][zk-group]") {
  auto r = run_scenario(zk_group_scenario("", ""));
  require_expectations(*r->run);
  const coord::ZnodeTree& tree = r->run->cluster().zk(0)->tree();
  // Registrations: ephemeral, with 0.8's JSON.
  for (const std::string m : {"billing-1", "billing-2"}) {
    const coord::Znode* reg = tree.find("/consumers/billing/ids/" + m);
    REQUIRE(reg != nullptr);
    CHECK(reg->stat.ephemeral_owner != 0);
    const std::string json = data_of(tree, "/consumers/billing/ids/" + m);
    CHECK(json.find("\"subscription\":{\"orders\":1}") != std::string::npos);
    CHECK(json.find("\"pattern\":\"static\"") != std::string::npos);
    CHECK(json.find("\"version\":1") != std::string::npos);
  }
  // Owners by range: billing-1 has 0 and 1, billing-2 has 2 and 3, each an ephemeral of its session.
  for (int p = 0; p < 4; p++) {
    const std::string path = "/consumers/billing/owners/orders/" + std::to_string(p);
    REQUIRE(tree.find(path) != nullptr);
    CHECK(tree.find(path)->stat.ephemeral_owner != 0);
    CHECK(data_of(tree, path) == (p < 2 ? "billing-1" : "billing-2"));
  }
  // Offsets: persistent decimal text, at the end of each partition (everything was consumed).
  int64_t total = 0;
  for (int p = 0; p < 4; p++) {
    const std::string path = "/consumers/billing/offsets/orders/" + std::to_string(p);
    REQUIRE(tree.find(path) != nullptr);
    CHECK(tree.find(path)->stat.ephemeral_owner == 0);
    const int64_t offset = std::stoll(data_of(tree, path));
    CHECK(offset > 0);
    total += offset;
  }
  CHECK(total == r->run->acked());
  CHECK(r->consumes >= r->run->acked());
  CHECK(r->group_errors.empty());
}

TEST_CASE("zk group: a member whose session expires loses its partitions to the other", "[groups][zk-group]") {
  // billing-1 stops (a long pause) at 8s: its session expires 6 s later, its ephemerals go, the
  // watch on ids/ fires at billing-2, which claims all four partitions and resumes them from the
  // offsets in zk.
  auto r = run_scenario(zk_group_scenario("", "faults:\n  - at: 8s\n    pause: billing-1\n"));
  require_expectations(*r->run);
  const coord::ZnodeTree& tree = r->run->cluster().zk(0)->tree();
  CHECK(tree.find("/consumers/billing/ids/billing-1") == nullptr);
  CHECK(tree.find("/consumers/billing/ids/billing-2") != nullptr);
  for (int p = 0; p < 4; p++) CHECK(data_of(tree, "/consumers/billing/owners/orders/" + std::to_string(p)) == "billing-2");
  auto* b2 = r->run->sim().node_as<client::ZkGroupConsumerNode>(*r->run->node_named("billing-2"));
  REQUIRE(b2 != nullptr);
  CHECK(b2->owned().size() == 4);
  CHECK(b2->rebalances_done() >= 2);
}

TEST_CASE("zk group: rebalance.max.retries running out is reported and the next watch recovers", "[groups][zk-group]") {
  // billing-2 is cut from zk until 5s, so billing-1 claims all four partitions alone; billing-1 is
  // paused at 4s, its session alive until about 10s. At 5s billing-2 registers, and its claims of
  // partitions 2 and 3 find billing-1's owner znodes: its 2 attempts (500 ms apart) fail, and it
  // reports ConsumerRebalanceFailedException. When billing-1's session expires the ids/ watch
  // fires and billing-2 takes every partition.
  auto r = run_scenario(zk_group_scenario(
      "    config: {rebalance.max.retries: 2, rebalance.backoff.ms: 500, zookeeper.session.timeout.ms: 6000}\n",
      "faults:\n  - at: 0s\n    partition: [[billing-2], [zookeeper]]\n  - at: 4s\n    pause: billing-1\n"
      "  - at: 5s\n    heal: all\n"));
  CHECK(r->group_errors["ConsumerRebalanceFailedException"] == 1);
  CHECK(r->group_error_member["ConsumerRebalanceFailedException"] == "billing-2");
  CHECK(r->refused_claims >= 2);
  const coord::ZnodeTree& tree = r->run->cluster().zk(0)->tree();
  for (int p = 0; p < 4; p++) CHECK(data_of(tree, "/consumers/billing/owners/orders/" + std::to_string(p)) == "billing-2");
  require_expectations(*r->run);
}

TEST_CASE("zk group: a bad coordination value is a FILE:LINE error", "[groups][zk-group]") {
  std::string text = zk_group_scenario("", "");
  const std::string from = "coordination: zookeeper";
  text.replace(text.find(from), from.size(), "coordination: zk");
  auto s = sim::parse_scenario(text, "zk-group.yaml");
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.status().message().find("zk-group.yaml:17") != std::string::npos);
  CHECK(s.status().message().find("coordinator or zookeeper") != std::string::npos);
  // Exactly-once needs transactions, which 0.8 did not have.
  std::string eos = zk_group_scenario("", "");
  const std::string alo = "delivery: at-least-once";
  eos.replace(eos.find(alo), alo.size(), "delivery: exactly-once");
  CHECK_FALSE(sim::parse_scenario(eos, "zk-group.yaml").is_ok());
  // 0.8's keys are checked.
  CHECK_FALSE(sim::parse_scenario(zk_group_scenario("    config: {rebalance.max.retries: zero}\n", ""), "zk-group.yaml").is_ok());
}

TEST_CASE("zk group: coordination survives saving a scenario", "[groups][zk-group]") {
  auto s = sim::parse_scenario(zk_group_scenario("", ""), "zk-group.yaml");
  REQUIRE(s.is_ok());
  REQUIRE(s->groups.size() == 1);
  CHECK(s->groups[0].zookeeper);
  auto again = sim::parse_scenario(sim::to_yaml(*s), "saved.yaml");
  REQUIRE(again.is_ok());
  CHECK(again->groups[0].zookeeper);
  // The default is the group coordinator.
  std::string text = zk_group_scenario("", "");
  const std::string from = "    coordination: zookeeper\n";
  text.erase(text.find(from), from.size());
  auto plain = sim::parse_scenario(text, "zk-group.yaml");
  REQUIRE(plain.is_ok());
  CHECK_FALSE(plain->groups[0].zookeeper);
  CHECK(sim::to_yaml(*plain).find("coordination") == std::string::npos);
}

TEST_CASE("zk group: each member announces what it owns with consumer_assignment", "[groups][zk-group]") {
  // As a coordinator group's members do after SyncGroup, so that the cluster model, the checkers and
  // the dashboard see both kinds of group alike. billing-1's session expires at 14 s (paused at 8 s):
  // billing-2 then announces all four partitions, which its owner znodes hold.
  auto r = run_scenario(zk_group_scenario("", "faults:\n  - at: 8s\n    pause: billing-1\n"));
  require_expectations(*r->run);  // single-owner among them: a zk group has no generation to check
  REQUIRE(r->assignments.count("billing-1") == 1);
  REQUIRE(r->assignments.count("billing-2") == 1);
  // At the start: the range shares (each member may rebalance again when the other registers).
  CHECK(r->assignments["billing-1"].back() == std::vector<std::string>{"orders-0", "orders-1"});
  const auto& b2 = r->assignments["billing-2"];
  REQUIRE(b2.size() >= 2);
  CHECK(b2.back() == std::vector<std::string>{"orders-0", "orders-1", "orders-2", "orders-3"});
  auto* node = r->run->sim().node_as<client::ZkGroupConsumerNode>(*r->run->node_named("billing-2"));
  REQUIRE(node != nullptr);
  std::vector<std::string> owned;
  for (const auto& tp : node->owned()) owned.push_back(tp.topic + "-" + std::to_string(tp.partition));
  std::sort(owned.begin(), owned.end());
  CHECK(owned == b2.back());
  // One announcement per completed rebalance.
  CHECK(static_cast<int64_t>(b2.size()) == node->rebalances_done());
}
