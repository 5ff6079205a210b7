// A real-socket world for the fuzz tests: a zk server and one broker (node 1) on loopback, with a
// topic "fuzz" of two partitions that the broker leads, ready before the test sends anything.
#pragma once

#include <catch2/catch.hpp>

#include <memory>

#include "engine/broker/broker.h"
#include "engine/coord/zk_server.h"
#include "net_test_util.h"

namespace gregor::test {

class FuzzBrokerWorld {
 public:
  static constexpr NodeId kZk{1001};
  static constexpr NodeId kBroker{1};

  // `node` is the broker's node config (its transport limits); its id is kBroker's.
  FuzzBrokerWorld(net::NodeConfig node, Duration wait) : world_(dir_.path()) {
    world_.add_node(node_config(kZk.value),
                    [](Runtime& rt) { return std::make_unique<coord::ZkServer>(rt, coord::ZkServerConfig{}); });
    net::AsioRuntime& broker_rt =
        world_.add_node(node, [this](Runtime& r) { return std::make_unique<broker::Broker>(r, config_); });
    config_.broker_id = kBroker.value;
    config_.zookeeper_servers = {kZk};
    config_.advertised_port = broker_rt.bound_port();
    config_.offsets_topic_replication_factor = 1;
    world_.start_all();
    broker_ = world_.node_as<broker::Broker>(kBroker);
    REQUIRE(world_.run_until(
        [&] { return broker_->controller().is_active() && broker_->controller().live_brokers().size() == 1; }, wait));
    bool created = false;
    broker_->create_topic("fuzz", 2, 1, {}, [&](protocol::ErrorCode e, std::string) { created = e == protocol::ErrorCode::NONE; });
    REQUIRE(world_.run_until([&] {
      auto* p0 = broker_->partition({"fuzz", 0});
      auto* p1 = broker_->partition({"fuzz", 1});
      return created && p0 && p0->is_leader() && p1 && p1->is_leader();
    }, wait));
  }

  net::AsioWorld& world() { return world_; }
  broker::Broker* broker() { return broker_; }

 private:
  TempDir dir_;
  net::AsioWorld world_;
  broker::BrokerConfig config_;
  broker::Broker* broker_ = nullptr;
};

}  // namespace gregor::test
