// Helpers for the dashboard tests: a live session over a library scenario, and the comparison of
// the model the dashboard draws with the simulator's own state.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "engine/broker/broker.h"
#include "engine/coord/zk_server.h"
#include "gui/runner_factory.h"
#include "gui/session.h"

namespace gregor::test {

inline std::string scenario_path(const std::string& name) {
  return std::string(GREGOR_SOURCE_DIR) + "/scenarios/" + name + ".yaml";
}

inline std::unique_ptr<gui::Session> live_session(const std::string& scenario, uint64_t seed = 1) {
  auto factory = gui::runner_factory_for(scenario);
  REQUIRE(factory.is_ok());
  auto s = gui::Session::live(*factory, seed);
  REQUIRE(s.is_ok());
  return std::move(s).value();
}

// Checks what the dashboard shows against the simulator at the session's current time: node
// states, the controller, and per partition the leader (the controller's), the ISR (the leader's,
// once written to zk), the HW (the leader's) and every live replica's LEO.
inline void check_model_against_simulator(gui::Session& session, const gui::DashboardModel& m) {
  gui::LiveRunner* r = session.runner();
  REQUIRE(r != nullptr);
  REQUIRE(m.now == r->now());
  sim::Simulator& s = r->sim();
  sim::Cluster& c = r->cluster();
  for (NodeId id : s.node_ids()) {
    if (s.incarnation(id) == 0) continue;  // not started yet
    const gui::NodeModel* n = m.node(id.value);
    INFO("node " << id.value);
    REQUIRE(n != nullptr);
    const sim::NodeState st = s.state(id);
    CHECK((st == sim::NodeState::kRunning) == (n->status == gui::NodeStatus::kAlive));
    CHECK((st == sim::NodeState::kPaused) == (n->status == gui::NodeStatus::kPaused));
  }
  auto controller = c.controller();
  if (controller) CHECK(m.controller == *controller);
  // The ZooKeeper view's tree is the zk server's, znode for znode (data as the trace carries it).
  if (coord::ZkServer* zk = c.zk(); zk && zk->serving()) {
    REQUIRE(m.zk.znodes.size() == zk->tree().node_count());
    for (const auto& [path, node] : zk->tree().nodes()) {
      INFO("znode " << path);
      const gui::ZnodeModel* z = m.zk.znode(path);
      REQUIRE(z != nullptr);
      CHECK(z->version == node.stat.version);
      CHECK(z->cversion == node.stat.cversion);
      CHECK(z->ephemeral_owner == node.stat.ephemeral_owner);
      CHECK(z->data == coord::printable_data(as_view(node.data)));
      if (node.stat.ephemeral_owner != 0) CHECK(z->owner_node >= 0);
    }
  }
  for (const auto& p : m.partitions) {
    INFO("partition " << p.topic << "-" << p.partition << " at " << format_time(m.now));
    const TopicPartition tp{p.topic, p.partition};
    auto leader = c.leader(tp);
    if (leader) CHECK(p.leader == *leader);
    if (p.leader < 0) continue;
    broker::Broker* b = c.broker(p.leader);
    if (!b) continue;  // the leader is down: the controller has not moved leadership yet
    broker::Partition* part = b->partition(tp);
    REQUIRE(part != nullptr);
    if (!part->is_leader() || part->leader_epoch() != LeaderEpoch{p.leader_epoch}) continue;  // LeaderAndIsr on its way
    CHECK(p.isr == broker::to_ids(part->isr()));
    CHECK(p.hw == part->high_watermark().value);
    CHECK(p.leo == part->log_end_offset().value);
    for (const auto& row : p.rows) {
      broker::Broker* rb = c.broker(row.broker);
      if (!rb || !rb->partition(tp)) continue;
      INFO("replica on broker " << row.broker);
      CHECK(row.leo == rb->partition(tp)->log_end_offset().value);
      CHECK(row.in_isr == (std::find(p.isr.begin(), p.isr.end(), row.broker) != p.isr.end()));
    }
  }
}

}  // namespace gregor::test
