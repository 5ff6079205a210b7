// The engine's own nodes on real sockets: a zk server, three brokers and a producer in one
// AsioWorld, the same classes the simulator runs. This is the end-to-end check that the transport
// keeps the Runtime contract well enough for the real protocol code (sessions, controller election,
// LeaderAndIsr, replica fetching, Metadata-driven client connections, acks=all produce).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "engine/broker/broker.h"
#include "engine/client/producer_node.h"
#include "engine/coord/zk_server.h"
#include "net_test_util.h"

using namespace gregor;

namespace {
constexpr Duration kWait = Duration::seconds(30);
const NodeId kZk{1001};
const NodeId kProducer{2001};
const std::vector<NodeId> kBrokers = {NodeId{1}, NodeId{2}, NodeId{3}};

std::optional<int32_t> active_controller(net::AsioWorld& world) {
  for (NodeId b : kBrokers) {
    auto* broker = world.node_as<broker::Broker>(b);
    if (broker && broker->controller().is_active()) return b.value;
  }
  return std::nullopt;
}
}  // namespace

TEST_CASE("Cluster on real sockets: zk server and three brokers elect a controller, replicate, take acks=all") {
  test::TempDir dir;
  net::AsioWorld world(dir.path());
  world.add_node(test::node_config(kZk.value),
                 [](Runtime& rt) { return std::make_unique<coord::ZkServer>(rt, coord::ZkServerConfig{}); });
  std::map<int32_t, broker::BrokerConfig> configs;
  for (NodeId b : kBrokers) {
    net::AsioRuntime& rt = world.add_node(test::node_config(b.value), [&configs, b](Runtime& r) {
      return std::make_unique<broker::Broker>(r, configs.at(b.value));
    });
    broker::BrokerConfig c;
    c.broker_id = b.value;
    c.zookeeper_servers = {kZk};
    c.advertised_host = "127.0.0.1";
    c.advertised_port = rt.bound_port();  // Metadata tells clients the real address
    c.offsets_topic_replication_factor = 3;
    configs[b.value] = c;
  }
  world.start_all();

  REQUIRE(world.run_until(
      [&] {
        auto c = active_controller(world);
        return c && world.node_as<broker::Broker>(NodeId{*c})->controller().live_brokers().size() == kBrokers.size();
      },
      kWait));

  bool created = false;
  world.node_as<broker::Broker>(kBrokers[0])->create_topic("orders", 3, 3, {}, [&](protocol::ErrorCode error, std::string) {
    CHECK(error == protocol::ErrorCode::NONE);
    created = true;
  });
  auto all_replicated = [&] {
    for (int32_t p = 0; p < 3; p++) {
      int leaders = 0;
      for (NodeId b : kBrokers) {
        broker::Partition* part = world.node_as<broker::Broker>(b)->partition(TopicPartition{"orders", p});
        if (!part) return false;
        if (part->is_leader()) {
          leaders++;
          if (part->isr().size() != 3) return false;
        }
      }
      if (leaders != 1) return false;
    }
    return true;
  };
  REQUIRE(world.run_until([&] { return created && all_replicated(); }, kWait));

  client::ProducerConfig pc;
  pc.bootstrap_servers = kBrokers;
  client::ProducerWorkload workload;
  workload.rate_per_sec = 2000;
  workload.max_records = 300;
  world.add_node(test::node_config(kProducer.value, /*listen=*/false),
                 [pc, workload](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, workload); });
  world.start(kProducer);
  auto* producer = world.node_as<client::ProducerNode>(kProducer);
  REQUIRE(world.run_until([&] { return producer->acked() + producer->failed() == 300; }, kWait));
  CHECK(producer->acked() == 300);

  // acks=all: every acknowledged record is below the high watermark, on every replica in time.
  auto replicas_caught_up = [&] {
    int64_t total = 0;
    for (int32_t p = 0; p < 3; p++) {
      std::set<int64_t> ends;
      for (NodeId b : kBrokers) ends.insert(world.node_as<broker::Broker>(b)->partition(TopicPartition{"orders", p})->log_end_offset().value);
      if (ends.size() != 1) return false;
      total += *ends.begin();
    }
    return total == 300;
  };
  REQUIRE(world.run_until(replicas_caught_up, kWait));
  // The followers' fetches were answered from the segment files: the leaders sent the records with
  // sendfile (engine/core/file_slice.h), none read into memory.
  uint64_t sent_from_files = 0;
  for (NodeId b : kBrokers) sent_from_files += world.runtime(b).stats().file_slice_bytes;
  CHECK(sent_from_files > 0);
  // Nobody broke the framing or overflowed a queue on the way.
  CHECK_FALSE(world.logged("socket.request.max.bytes"));
  CHECK_FALSE(world.logged("negative size"));
  CHECK_FALSE(world.logged("send queue full"));
  for (NodeId id : {kZk, kBrokers[0], kBrokers[1], kBrokers[2]}) CHECK(world.runtime(id).stats().protocol_errors == 0);
  if (std::getenv("GREGOR_NET_TEST_LOG"))
    for (const auto& line : world.log_lines()) std::fprintf(stderr, "%s\n", line.c_str());
}
