// Broker epochs (KIP-380) and controller requests from where they may come. Issue 17 saw a
// StopReplica (delete=true, controller epoch INT32_MAX) from an ordinary client delete a topic's
// data on every replica and fence the real controller; these tests are the simulator's half of
// the regression (tests/real/controller_requests.sh forges the same over real sockets).
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/broker/broker.h"
#include "engine/broker/zk_data.h"
#include "engine/coord/zk_server.h"
#include "engine/protocol/controlled_shutdown.h"
#include "engine/protocol/leader_and_isr.h"
#include "engine/protocol/stop_replica.h"
#include "engine/protocol/update_metadata.h"

using namespace gregor;
using namespace gregor::test;
using protocol::ErrorCode;

namespace {

int64_t registration_czxid(ClusterFixture& f, int32_t broker) {
  const auto* node = f.cluster.zk()->tree().find(broker::zk_paths::broker(broker));
  REQUIRE(node != nullptr);
  return node->stat.czxid;
}

protocol::StopReplicaRequest forged_stop_replica(int64_t broker_epoch) {
  protocol::StopReplicaRequest req;
  req.controller_id = 1;
  req.controller_epoch = INT32_MAX;
  req.broker_epoch = broker_epoch;
  req.delete_partitions = true;
  req.topics.push_back({"victims", {0, 1}});
  return req;
}

}  // namespace

TEST_CASE("broker epoch: a broker's epoch is the czxid of its registration, and a re-registration raises it",
          "[broker][broker-epoch]") {
  ClusterFixture f(1701);
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  std::map<int32_t, int64_t> before;
  for (int32_t b : {1, 2, 3}) {
    before[b] = f.cluster.broker(b)->controller().broker_epoch();
    CHECK(before[b] > 0);
    CHECK(before[b] == registration_czxid(f, b));
  }
  // A session expiry makes the broker register again: a new znode, a higher epoch.
  f.sim.pause(NodeId{2});
  f.sim.run_for(Duration::seconds(30));
  f.sim.resume(NodeId{2});
  REQUIRE(f.run_until([&] { return f.cluster.broker(2)->registered() && f.cluster.ready(); }));
  const int64_t after = f.cluster.broker(2)->controller().broker_epoch();
  CHECK(after > before[2]);
  CHECK(after == registration_czxid(f, 2));
}

TEST_CASE("forged StopReplica with a stale broker epoch deletes nothing and does not fence the controller",
          "[broker][broker-epoch][regression]") {
  ClusterFixture f(1702);
  f.create_topic("victims", 2, 3);
  const int32_t controller_epoch = f.cluster.broker(1)->controller().epoch() > 0
                                       ? f.cluster.broker(1)->controller().epoch()
                                       : f.cluster.broker(*f.cluster.controller())->controller().epoch();
  for (int32_t b : {1, 2, 3}) {
    const int64_t epoch = f.cluster.broker(b)->controller().broker_epoch();
    for (int64_t stale : {int64_t{0}, epoch - 1}) {
      auto resp = f.call<protocol::StopReplicaRequest, protocol::StopReplicaResponse>(b, forged_stop_replica(stale), 1);
      REQUIRE(resp);
      CHECK(resp->error_code == ErrorCode::STALE_BROKER_EPOCH);
    }
    protocol::UpdateMetadataRequest um;
    um.controller_id = 1;
    um.controller_epoch = INT32_MAX;
    um.broker_epoch = 0;
    auto um_resp = f.call<protocol::UpdateMetadataRequest, protocol::UpdateMetadataResponse>(b, um, 5);
    REQUIRE(um_resp);
    CHECK(um_resp->error_code == ErrorCode::STALE_BROKER_EPOCH);
    protocol::LeaderAndIsrRequest lai;
    lai.controller_id = 1;
    lai.controller_epoch = INT32_MAX;
    lai.broker_epoch = 0;
    auto lai_resp = f.call<protocol::LeaderAndIsrRequest, protocol::LeaderAndIsrResponse>(b, lai, 3);
    REQUIRE(lai_resp);
    CHECK(lai_resp->error_code == ErrorCode::STALE_BROKER_EPOCH);
  }
  size_t refusals = 0;
  for (const auto& e : f.events)
    if (e.kind() == std::string_view("stale_broker_epoch")) refusals++;
  CHECK(refusals == 3 * 4);
  // Nothing deleted, and the real controller still leads: no broker adopted INT32_MAX.
  for (int32_t b : {1, 2, 3}) {
    CHECK(f.cluster.broker(b)->partition(TopicPartition{"victims", 0}) != nullptr);
    CHECK(f.cluster.broker(b)->partition(TopicPartition{"victims", 1}) != nullptr);
  }
  f.create_topic("after", 1, 3);
  REQUIRE(f.run_until([&] { return f.cluster.topic_ready("after", 1); }));
  for (int32_t b : {1, 2, 3}) CHECK(f.cluster.broker(b)->partition(TopicPartition{"after", 0}) != nullptr);
  CHECK(controller_epoch > 0);
}

TEST_CASE("ControlledShutdown from an older registration of the broker is refused by the controller",
          "[broker][broker-epoch]") {
  ClusterFixture f(1703);
  f.create_topic("t", 3, 3);
  const int32_t controller = *f.cluster.controller();
  const int32_t other = controller == 1 ? 2 : 1;
  protocol::ControlledShutdownRequest req;
  req.broker_id = other;
  req.broker_epoch = f.cluster.broker(other)->controller().broker_epoch() - 1;
  auto resp = f.call<protocol::ControlledShutdownRequest, protocol::ControlledShutdownResponse>(controller, req, 2);
  REQUIRE(resp);
  CHECK(resp->error_code == ErrorCode::STALE_BROKER_EPOCH);
  // Its leaderships stayed where they were: the broker is not "shutting down".
  size_t led = 0;
  for (int p = 0; p < 3; p++)
    if (f.cluster.leader(TopicPartition{"t", p}) == other) led++;
  // With the current epoch the same request is served (and moves them away).
  req.broker_epoch = f.cluster.broker(other)->controller().broker_epoch();
  resp = f.call<protocol::ControlledShutdownRequest, protocol::ControlledShutdownResponse>(controller, req, 2);
  REQUIRE(resp);
  CHECK(resp->error_code == ErrorCode::NONE);
  CHECK(resp->remaining_partitions.empty());
  (void)led;
}

TEST_CASE("listeners: keys parsed and checked together, registration JSON as Kafka writes it", "[broker][listeners]") {
  broker::BrokerConfig c;
  REQUIRE(c.apply({}).is_ok());
  CHECK(c.advertised_endpoints() == std::vector<broker::ListenerEndpoint>{{"PLAINTEXT", "127.0.0.1", 9092, "PLAINTEXT"}});
  CHECK(c.serves_controller_requests("PLAINTEXT"));
  CHECK(c.serves_controller_requests(""));

  broker::BrokerConfig two;
  REQUIRE(two.apply({{"listeners", "CLIENT://127.0.0.1:9092,REPLICATION://127.0.0.1:9093"},
                     {"listener.security.protocol.map", "CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT"},
                     {"inter.broker.listener.name", "REPLICATION"}})
              .is_ok());
  CHECK(two.serves_controller_requests("REPLICATION"));
  CHECK_FALSE(two.serves_controller_requests("CLIENT"));
  CHECK_FALSE(two.serves_controller_requests("?"));
  auto endpoints = two.advertised_endpoints();
  REQUIRE(endpoints.size() == 2);
  CHECK(endpoints[1].name == "REPLICATION");
  CHECK(endpoints[1].port == 9093);

  auto refused = [](std::map<std::string, std::string> kv, const std::string& words) {
    broker::BrokerConfig x;
    Status s = x.apply(kv);
    INFO(s.message());
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find(words) != std::string::npos);
  };
  refused({{"listeners", "CLIENT://127.0.0.1:9092"}}, "has no protocol for listener CLIENT");
  refused({{"listeners", "CLIENT://127.0.0.1:9092"}, {"listener.security.protocol.map", "CLIENT:PLAINTEXT"}},
          "inter.broker.listener.name");
  refused({{"listeners", "A://h:1,A://h:2"}, {"listener.security.protocol.map", "A:PLAINTEXT"}}, "appears twice");
  refused({{"listeners", "CLIENT:9092"}}, "NAME://HOST:PORT");
  refused({{"listeners", "PLAINTEXT://h:1,S://h:2"}, {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,S:SASL_SSL"}},
          "only PLAINTEXT and SASL_PLAINTEXT listeners");
  // A SASL_PLAINTEXT inter-broker listener needs the broker's own credentials (its JAAS key).
  refused({{"listeners", "S://h:1"}, {"listener.security.protocol.map", "S:SASL_PLAINTEXT"}, {"inter.broker.listener.name", "S"}},
          "listener.name.s.plain.sasl.jaas.config");
  // The controller reaches brokers on the inter-broker listener: a control-plane one stays PLAINTEXT.
  refused({{"listeners", "PLAINTEXT://h:1,C://h:2"}, {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,C:SASL_PLAINTEXT"},
           {"control.plane.listener.name", "C"}},
          "the control-plane listener must be PLAINTEXT");
  refused({{"sasl.enabled.mechanisms", "PLAIN,GSSAPI"}}, "'GSSAPI' is not served");
  refused({{"sasl.plain.users", "alice"}}, "not user:password");
  {
    broker::BrokerConfig ok;
    CHECK(ok.apply({{"listeners", "PLAINTEXT://h:1,S://h:2"}, {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,S:SASL_PLAINTEXT"},
                    {"sasl.plain.users", "alice:secret"}})
              .is_ok());
    CHECK(ok.bind_endpoints().at(1).security_protocol == "SASL_PLAINTEXT");
  }
  refused({{"listeners", "PLAINTEXT://h:1,C://h:2"}, {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,C:PLAINTEXT"},
           {"control.plane.listener.name", "PLAINTEXT"}},
          "must differ");
  refused({{"listeners", "PLAINTEXT://h:1"}, {"advertised.listeners", "OTHER://h:1"}}, "not one of listeners");
  refused({{"listener.security.protocol.map", "X:NOPE"}}, "not a security protocol");

  // The registration: every endpoint, the map, host/port of the first PLAINTEXT one.
  broker::BrokerRegistration reg;
  reg.id = 4;
  reg.timestamp_ms = 5;
  reg.endpoints = endpoints;
  const std::string json = to_string(as_view(reg.encode()));
  CHECK(json.find(R"("endpoints":["CLIENT://127.0.0.1:9092","REPLICATION://127.0.0.1:9093"])") != std::string::npos);
  CHECK(json.find(R"("listener_security_protocol_map":{"CLIENT":"PLAINTEXT","REPLICATION":"PLAINTEXT"})") !=
        std::string::npos);
  CHECK(json.find(R"("host":"127.0.0.1",)") != std::string::npos);
  CHECK(json.find(R"("port":9092,)") != std::string::npos);
  auto back = broker::BrokerRegistration::decode(4, as_view(reg.encode()));
  REQUIRE(back);
  CHECK(back->endpoints == endpoints);
  // One PLAINTEXT listener: the very JSON Gregor wrote before listeners were configurable.
  broker::BrokerRegistration plain;
  plain.endpoints = c.advertised_endpoints();
  CHECK(to_string(as_view(plain.encode())).find(R"("endpoints":["PLAINTEXT://127.0.0.1:9092"])") != std::string::npos);
}
