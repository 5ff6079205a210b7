// Topic names and partition counts a broker refuses, as Kafka does (or where Kafka has no limit,
// before anything is allocated): regressions of the issue-17 report, where `produce --topic a/b`
// waited 120 s for REQUEST_TIMED_OUT, `du.p` and `du_p` could coexist, and a CreateTopics of
// 2,147,483,647 partitions made the controller grow until the kernel killed it.
#include <catch2/catch.hpp>

#include "engine/client/producer.h"
#include "engine/protocol/create_topics.h"
#include "engine/protocol/metadata.h"
#include "engine/protocol/topic_name.h"
#include "sim/cluster.h"
#include "request_client.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

struct Fixture {
  sim::Simulator sim{17};
  sim::Cluster cluster{sim, sim::ClusterSpec{3, 1, {}, {}}};
  test::RequestClient* client = nullptr;
  Fixture() {
    sim.add_node(NodeId{sim::kFirstClientNodeId}, "client", [](Runtime& rt) { return std::make_unique<test::RequestClient>(rt); });
    client = sim.node_as<test::RequestClient>(NodeId{sim::kFirstClientNodeId});
    REQUIRE(sim.run_until_pred([&] { return cluster.ready(); }, sim.now() + Duration::seconds(30)) == sim::RunOutcome::kPredicateMet);
  }
  template <typename Req, typename Resp>
  std::optional<Resp> call(int32_t broker, const Req& req, int16_t version) {
    std::optional<Resp> out;
    bool done = false;
    client->call<Req, Resp>(NodeId{broker}, req, version, &out, &done);
    sim.run_until_pred([&] { return done; }, sim.now() + Duration::seconds(60));
    return out;
  }
  // One CreateTopics of the given (name, partitions) to the controller; the per-topic answers.
  std::vector<protocol::CreateTopicsResponse::CreatableTopicResult> create(
      const std::vector<std::pair<std::string, int32_t>>& topics, bool validate_only = false) {
    protocol::CreateTopicsRequest req;
    req.validate_only = validate_only;
    for (const auto& [name, partitions] : topics) {
      protocol::CreateTopicsRequest::CreatableTopic t;
      t.name = name;
      t.num_partitions = partitions;
      t.replication_factor = 1;
      req.topics.push_back(t);
    }
    auto resp = call<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(*cluster.controller(), req, 3);
    REQUIRE(resp);
    REQUIRE(resp->topics.size() == topics.size());
    return resp->topics;
  }
};

}  // namespace

TEST_CASE("Topic names: Kafka's legal characters, length, '.' and '..', and the '.'/'_' collision", "[topics]") {
  CHECK(protocol::valid_topic_name("orders"));
  CHECK(protocol::valid_topic_name("a.b_c-D9"));
  CHECK(protocol::valid_topic_name(std::string(249, 'x')));
  CHECK_FALSE(protocol::valid_topic_name(std::string(250, 'x')));
  CHECK_FALSE(protocol::valid_topic_name(""));
  CHECK_FALSE(protocol::valid_topic_name("."));
  CHECK_FALSE(protocol::valid_topic_name(".."));
  CHECK(protocol::valid_topic_name("..."));  // only "." and ".." themselves are reserved
  for (const char* bad : {"or/ders", "a b", "a\\b", "tö", "a:b", "a\nb", "a*"}) {
    INFO(bad);
    CHECK_FALSE(protocol::valid_topic_name(bad));
  }
  CHECK(protocol::topic_names_collide("du.p", "du_p"));
  CHECK(protocol::topic_names_collide("a.b_c", "a_b.c"));
  CHECK_FALSE(protocol::topic_names_collide("du.p", "du.p"));  // the same name is not a collision
  CHECK_FALSE(protocol::topic_names_collide("du.p", "du-p"));
}

TEST_CASE("CreateTopics refuses illegal and colliding names with INVALID_TOPIC_EXCEPTION", "[topics]") {
  Fixture f;
  auto first = f.create({{"du.p", 1}});
  CHECK(first[0].error_code == ErrorCode::NONE);
  REQUIRE(f.sim.run_until_pred([&] { return f.cluster.topic_ready("du.p", 1); }, f.sim.now() + Duration::seconds(30)) ==
          sim::RunOutcome::kPredicateMet);
  auto answers = f.create({{"du_p", 1}, {"or/ders", 1}, {"..", 1}, {std::string(250, 'x'), 1}, {"fine", 1}});
  CHECK(answers[0].error_code == ErrorCode::INVALID_TOPIC_EXCEPTION);  // collides with du.p
  REQUIRE(answers[0].error_message);
  CHECK(answers[0].error_message->find("du.p") != std::string::npos);
  CHECK(answers[1].error_code == ErrorCode::INVALID_TOPIC_EXCEPTION);
  CHECK(answers[2].error_code == ErrorCode::INVALID_TOPIC_EXCEPTION);
  CHECK(answers[3].error_code == ErrorCode::INVALID_TOPIC_EXCEPTION);
  CHECK(answers[4].error_code == ErrorCode::NONE);
  f.sim.run_for(Duration::seconds(2));
  CHECK_FALSE(f.cluster.broker(*f.cluster.controller())->metadata().has_topic("du_p"));
}

TEST_CASE("Metadata with auto-creation answers INVALID_TOPIC_EXCEPTION for an illegal or colliding name", "[topics]") {
  Fixture f;
  REQUIRE(f.create({{"du.p", 1}})[0].error_code == ErrorCode::NONE);
  REQUIRE(f.sim.run_until_pred([&] { return f.cluster.topic_ready("du.p", 1); }, f.sim.now() + Duration::seconds(30)) ==
          sim::RunOutcome::kPredicateMet);
  f.sim.run_for(Duration::seconds(1));
  protocol::MetadataRequest req;
  req.allow_auto_topic_creation = true;
  req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.name = "a/b"}, {.name = "du_p"}, {.name = "new-one"}};
  auto m = f.call<protocol::MetadataRequest, protocol::MetadataResponse>(1, req, 4);
  REQUIRE(m);
  REQUIRE(m->topics.size() == 3);
  CHECK(m->topics[0].error_code == ErrorCode::INVALID_TOPIC_EXCEPTION);
  CHECK(m->topics[1].error_code == ErrorCode::INVALID_TOPIC_EXCEPTION);
  CHECK(m->topics[2].error_code == ErrorCode::LEADER_NOT_AVAILABLE);  // being created
}

TEST_CASE("A producer fails a record to an illegal topic at once with INVALID_TOPIC_EXCEPTION", "[topics]") {
  Fixture f;
  struct ProducerHost final : Node {
    explicit ProducerHost(Runtime& rt, client::ProducerConfig c) : producer(rt, std::move(c)) {}
    void start() override { producer.start(); }
    void on_message(NodeId from, Bytes frame) override { producer.on_message(from, frame); }
    void on_disconnect(NodeId peer) override { producer.on_disconnect(peer); }
    client::Producer producer;
  };
  client::ProducerConfig pc;
  pc.bootstrap_servers = f.cluster.broker_ids();
  const NodeId id{sim::kFirstClientNodeId + 1};
  f.sim.add_node(id, "producer", [pc](Runtime& rt) { return std::make_unique<ProducerHost>(rt, pc); });
  auto& producer = f.sim.node_as<ProducerHost>(id)->producer;
  std::vector<ErrorCode> results;
  const Time sent_at = f.sim.now();
  for (int i = 0; i < 3; i++) {
    client::ProducerRecord r;
    r.topic = "a/b";
    r.value = to_bytes("v" + std::to_string(i));
    producer.send(std::move(r), [&](const client::RecordMetadata& md) { results.push_back(md.error); });
  }
  REQUIRE(f.sim.run_until_pred([&] { return results.size() == 3; }, f.sim.now() + Duration::seconds(120)) ==
          sim::RunOutcome::kPredicateMet);
  for (ErrorCode e : results) CHECK(e == ErrorCode::INVALID_TOPIC_EXCEPTION);
  CHECK(f.sim.now() - sent_at < Duration::seconds(5));  // not delivery.timeout.ms (120 s)
  // A later record to the same topic fails without waiting at all.
  bool failed_now = false;
  client::ProducerRecord again;
  again.topic = "a/b";
  producer.send(std::move(again), [&](const client::RecordMetadata& md) { failed_now = md.error == ErrorCode::INVALID_TOPIC_EXCEPTION; });
  CHECK(failed_now);
}

TEST_CASE("CreateTopics refuses huge partition counts before allocating anything", "[topics]") {
  Fixture f;
  const uint64_t events_before = f.sim.events_emitted();
  auto answers = f.create({{"huge", 2147483647}, {"big", 10001}, {"zero", 0}});
  CHECK(answers[0].error_code == ErrorCode::INVALID_PARTITIONS);
  CHECK(answers[1].error_code == ErrorCode::INVALID_PARTITIONS);
  CHECK(answers[2].error_code == ErrorCode::INVALID_PARTITIONS);
  CHECK(f.sim.events_emitted() - events_before < 100);  // nothing was created
  // The cluster-wide limit counts what the same request already accepted: ten topics of 10,000
  // fit, the eleventh would make 110,000 partitions (POLICY_VIOLATION). validate_only keeps the
  // test small: nothing is written.
  std::vector<std::pair<std::string, int32_t>> many;
  for (int i = 0; i < 11; i++) many.push_back({"t" + std::to_string(i), 10000});
  auto checked = f.create(many, /*validate_only=*/true);
  for (int i = 0; i < 10; i++) CHECK(checked[static_cast<size_t>(i)].error_code == ErrorCode::NONE);
  CHECK(checked[10].error_code == ErrorCode::POLICY_VIOLATION);
  // The cluster still works.
  CHECK(f.create({{"after", 2}})[0].error_code == ErrorCode::NONE);
}
