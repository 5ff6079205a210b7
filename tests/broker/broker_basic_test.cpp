#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "engine/protocol/create_topics.h"
#include "engine/protocol/fetch.h"
#include "engine/protocol/metadata.h"
#include "engine/protocol/produce.h"
#include "sim/cluster.h"
#include "request_client.h"

using namespace gregor;

namespace {

sim::SimConfig debug_config() {
  sim::SimConfig c;
  c.verbose = std::getenv("GREGOR_TRACE") != nullptr;
  return c;
}

struct Fixture {
  sim::Simulator sim;
  sim::Cluster cluster;
  test::RequestClient* client = nullptr;
  explicit Fixture(uint64_t seed, std::map<std::string, std::string> cfg = {})
      : sim(seed, debug_config()), cluster(sim, sim::ClusterSpec{3, 1, std::move(cfg), {}}) {
    if (std::getenv("GREGOR_TRACE")) sim.add_listener([](const TraceEvent& e) { std::fprintf(stderr, "%s\n", e.to_string().c_str()); });
    sim.add_node(NodeId{sim::kFirstClientNodeId}, "client",
                 [this](Runtime& rt) { return std::make_unique<test::RequestClient>(rt); });
    client = sim.node_as<test::RequestClient>(NodeId{sim::kFirstClientNodeId});
  }
  template <typename Req, typename Resp>
  std::optional<Resp> call(int32_t broker, const Req& req, int16_t version) {
    std::optional<Resp> out;
    bool done = false;
    client->call<Req, Resp>(NodeId{broker}, req, version, &out, &done);
    sim.run_until_pred([&] { return done; }, sim.now() + Duration::seconds(60));
    return out;
  }
  void create_topic(const std::string& name, int partitions, int rf, std::map<std::string, std::string> configs = {}) {
    REQUIRE(sim.run_until_pred([&] { return cluster.ready(); }, sim.now() + Duration::seconds(30)) ==
            sim::RunOutcome::kPredicateMet);
    protocol::CreateTopicsRequest req;
    protocol::CreateTopicsRequest::CreatableTopic t;
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = static_cast<int16_t>(rf);
    for (auto& [k, v] : configs) t.configs.push_back({k, v});
    req.topics.push_back(t);
    auto resp = call<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(*cluster.controller(), req, 3);
    REQUIRE(resp);
    REQUIRE(resp->topics.size() == 1);
    REQUIRE(resp->topics[0].error_code == protocol::ErrorCode::NONE);
    REQUIRE(sim.run_until_pred([&] { return cluster.topic_ready(name, partitions); }, sim.now() + Duration::seconds(30)) ==
            sim::RunOutcome::kPredicateMet);
  }
  std::optional<protocol::ProduceResponse> produce(int32_t broker, const std::string& topic, int partition, int16_t acks,
                                                   const std::string& value) {
    protocol::ProduceRequest req;
    req.acks = acks;
    req.timeout_ms = 30000;
    req.topic_data.push_back({topic, {{partition, SharedBytes(test::make_batch(value))}}});
    return call<protocol::ProduceRequest, protocol::ProduceResponse>(broker, req, 7);
  }
};

}  // namespace

TEST_CASE("a controller is elected and a topic is created with leaders on live brokers", "[broker]") {
  Fixture f(1);
  f.create_topic("orders", 6, 3);
  int controllers = 0;
  for (int b = 1; b <= 3; b++)
    if (f.cluster.broker(b)->controller().is_active()) controllers++;
  CHECK(controllers == 1);
  // Replica assignment is spread: every broker leads some partitions of 6 (first replicas rotate).
  std::map<int32_t, int> leads;
  for (int p = 0; p < 6; p++) leads[*f.cluster.leader(TopicPartition{"orders", p})]++;
  CHECK(leads.size() == 3);
  // Metadata from any broker shows the topic with 6 partitions, 3 replicas and a full ISR.
  f.sim.run_for(Duration::seconds(1));
  protocol::MetadataRequest mreq;
  mreq.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.name = "orders"}};
  auto m = f.call<protocol::MetadataRequest, protocol::MetadataResponse>(2, mreq, 4);
  REQUIRE(m);
  REQUIRE(m->topics.size() == 1);
  CHECK(m->topics[0].partitions.size() == 6);
  for (const auto& p : m->topics[0].partitions) {
    CHECK(p.replica_nodes.size() == 3);
    CHECK(p.isr_nodes.size() == 3);
    CHECK(p.error_code == protocol::ErrorCode::NONE);
  }
  CHECK(m->brokers.size() == 3);
}

TEST_CASE("CreateTopics answers once the answering broker's metadata has every new partition's leader", "[broker]") {
  // Kafka's DelayedCreatePartitions: with timeout_ms > 0 the response waits for the leaders, so a
  // client's next Metadata request to the same broker finds the topic ready.
  Fixture f(3);
  REQUIRE(f.sim.run_until_pred([&] { return f.cluster.ready(); }, f.sim.now() + Duration::seconds(30)) ==
          sim::RunOutcome::kPredicateMet);
  const int32_t controller = *f.cluster.controller();
  for (int32_t timeout_ms : {30000, 0}) {
    const std::string name = "t" + std::to_string(timeout_ms);
    protocol::CreateTopicsRequest req;
    req.timeout_ms = timeout_ms;
    req.topics.push_back({});
    req.topics[0].name = name;
    req.topics[0].num_partitions = 4;
    req.topics[0].replication_factor = 3;
    auto resp = f.call<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(controller, req, 3);
    REQUIRE(resp);
    REQUIRE(resp->topics.size() == 1);
    CHECK(resp->topics[0].error_code == protocol::ErrorCode::NONE);
    auto parts = f.cluster.broker(controller)->metadata().topic_partitions(name);
    if (timeout_ms > 0) {
      REQUIRE(parts.size() == 4);
      for (const auto& [index, pm] : parts) CHECK(pm.leader >= 0);
    } else {
      // timeout_ms 0: answered as soon as the topic is written to zk, before any election.
      CHECK(parts.empty());
    }
  }
}

TEST_CASE("acks=all produce is acknowledged once the ISR has it, and followers replicate", "[broker]") {
  Fixture f(2);
  f.create_topic("t", 1, 3);
  int32_t leader = *f.cluster.leader(TopicPartition{"t", 0});
  for (int i = 0; i < 5; i++) {
    auto r = f.produce(leader, "t", 0, -1, "m" + std::to_string(i));
    REQUIRE(r);
    REQUIRE(r->responses[0].partition_responses[0].error_code == protocol::ErrorCode::NONE);
    CHECK(r->responses[0].partition_responses[0].base_offset == i);
  }
  f.sim.run_for(Duration::seconds(2));
  for (int b = 1; b <= 3; b++) {
    auto* p = f.cluster.broker(b)->partition(TopicPartition{"t", 0});
    REQUIRE(p);
    CHECK(p->log_end_offset() == Offset{5});
    CHECK(p->high_watermark() == Offset{5});
  }
  // A produce to a follower is refused.
  int32_t follower = leader == 1 ? 2 : 1;
  auto r = f.produce(follower, "t", 0, 1, "x");
  REQUIRE(r);
  CHECK(r->responses[0].partition_responses[0].error_code == protocol::ErrorCode::NOT_LEADER_OR_FOLLOWER);
}

TEST_CASE("leader crash: an ISR follower takes over and no acks=all write is lost", "[broker]") {
  Fixture f(3);
  f.create_topic("t", 1, 3);
  int32_t leader = *f.cluster.leader(TopicPartition{"t", 0});
  for (int i = 0; i < 10; i++) {
    auto r = f.produce(leader, "t", 0, -1, "m" + std::to_string(i));
    REQUIRE(r);
    REQUIRE(r->responses[0].partition_responses[0].error_code == protocol::ErrorCode::NONE);
  }
  f.sim.crash(NodeId{leader});
  // The controller notices when the zk session of the dead broker expires (18 s by default).
  REQUIRE(f.sim.run_until_pred(
              [&] {
                auto l = f.cluster.leader(TopicPartition{"t", 0});
                return l && *l >= 0 && *l != leader && f.cluster.topic_ready("t", 1);
              },
              f.sim.now() + Duration::seconds(60)) == sim::RunOutcome::kPredicateMet);
  int32_t new_leader = *f.cluster.leader(TopicPartition{"t", 0});
  auto* p = f.cluster.broker(new_leader)->partition(TopicPartition{"t", 0});
  CHECK(p->log_end_offset() >= Offset{10});
  auto r = f.produce(new_leader, "t", 0, -1, "after");
  REQUIRE(r);
  CHECK(r->responses[0].partition_responses[0].error_code == protocol::ErrorCode::NONE);
  CHECK(r->responses[0].partition_responses[0].base_offset == 10);
  CHECK(p->leader_epoch() >= LeaderEpoch{1});
}
