#include "sim/cluster.h"

namespace gregor::sim {

Cluster::Cluster(Simulator& sim, ClusterSpec spec) : sim_(sim), spec_(std::move(spec)) {
  for (NodeId z : zk_ids()) {
    coord::ZkServerConfig zc;
    // More than one server: a replicated ensemble (engine/coord/zk_ensemble.cpp); one server is
    // the single server it always was.
    if (spec_.zk_servers > 1) zc.ensemble = zk_ids();
    sim_.add_node(z, "zk-" + std::to_string(z.value - kFirstZkNodeId + 1),
                  [zc](Runtime& rt) { return std::make_unique<coord::ZkServer>(rt, zc); });
  }
  for (NodeId b : broker_ids()) {
    broker::BrokerConfig c;
    // As Kafka's single-node development configs do: a cluster smaller than the default
    // offsets.topic.replication.factor (3) gets one that fits, unless the scenario sets it.
    if (spec_.brokers < c.offsets_topic_replication_factor && !spec_.broker_config.count("offsets.topic.replication.factor"))
      c.offsets_topic_replication_factor = static_cast<int16_t>(std::max(1, spec_.brokers));
    Status s = c.apply(spec_.broker_config);
    GREGOR_ASSERT_MSG(s.is_ok(), s.to_string());
    c.broker_id = b.value;
    c.zookeeper_servers = zk_ids();
    c.advertised_host = "broker-" + std::to_string(b.value);
    c.log_dir = "/sim/broker-" + std::to_string(b.value);
    c.advertised_port = 9092;
    configs_[b.value] = c;
    auto delay = spec_.broker_start_delay.find(b.value);
    const bool start_now = delay == spec_.broker_start_delay.end() || delay->second.us <= 0;
    sim_.add_node(b, "broker-" + std::to_string(b.value),
                  [this, id = b.value](Runtime& rt) { return std::make_unique<broker::Broker>(rt, configs_.at(id)); },
                  start_now);
    if (!start_now)
      sim_.loop().schedule_after(delay->second, [this, b] {
        if (sim_.state(b) == NodeState::kCrashed && sim_.incarnation(b) == 0) sim_.start(b);
      });
  }
}

std::vector<NodeId> Cluster::zk_ids() const {
  std::vector<NodeId> ids;
  for (int i = 0; i < spec_.zk_servers; i++) ids.push_back(NodeId{kFirstZkNodeId + i});
  return ids;
}

std::vector<NodeId> Cluster::broker_ids() const {
  std::vector<NodeId> ids;
  for (int i = 1; i <= spec_.brokers; i++) ids.push_back(NodeId{i});
  return ids;
}

broker::Broker* Cluster::broker(int32_t id) { return sim_.node_as<broker::Broker>(NodeId{id}); }

coord::ZkServer* Cluster::zk(int index) { return sim_.node_as<coord::ZkServer>(NodeId{kFirstZkNodeId + index}); }

std::optional<int32_t> Cluster::zk_leader() {
  std::optional<int32_t> best;
  int64_t best_epoch = -1;
  for (NodeId z : zk_ids()) {
    coord::ZkServer* s = sim_.node_as<coord::ZkServer>(z);
    if (!s || !s->serving()) continue;
    const bool leads = !s->replicated() || (s->active() && s->peer_state() == coord::PeerState::kLeading);
    if (leads && s->current_epoch() > best_epoch) {
      best = z.value;
      best_epoch = s->current_epoch();
    }
  }
  return best;
}

std::optional<int32_t> Cluster::controller() {
  // A controller cut off from zk still believes it is one until it hears its session expired; the
  // controller is the active one with the newest epoch (the one zk elected last).
  std::optional<int32_t> best;
  int32_t best_epoch = -1;
  for (NodeId b : broker_ids()) {
    broker::Broker* br = broker(b.value);
    if (br && br->controller().is_active() && br->controller().epoch() > best_epoch) {
      best = b.value;
      best_epoch = br->controller().epoch();
    }
  }
  return best;
}

bool Cluster::ready() {
  auto c = controller();
  return c && broker(*c)->controller().live_brokers().size() == static_cast<size_t>(spec_.brokers);
}

std::optional<int32_t> Cluster::leader(const TopicPartition& tp) {
  auto c = controller();
  if (!c) return std::nullopt;
  const auto& parts = broker(*c)->controller().partitions();
  auto it = parts.find(tp);
  if (it == parts.end() || it->second.zk_version < 0) return std::nullopt;
  return it->second.state.leader;
}

bool Cluster::topic_ready(const std::string& topic, int partitions) {
  for (int p = 0; p < partitions; p++) {
    auto l = leader(TopicPartition{topic, p});
    if (!l || *l < 0) return false;
    broker::Broker* b = broker(*l);
    if (!b) return false;
    broker::Partition* part = b->partition(TopicPartition{topic, p});
    if (!part || !part->is_leader()) return false;
  }
  return true;
}

void Cluster::shutdown_broker(int32_t id) {
  broker::Broker* b = broker(id);
  if (!b) return;
  uint64_t inc = sim_.incarnation(NodeId{id});
  b->controlled_shutdown([this, id, inc](bool) {
    // Stop the process once leadership has moved (or the retries ran out), unless it was already
    // restarted meanwhile. Deferred: the broker must not be destroyed inside its own callback.
    sim_.loop().schedule_after(Duration{0}, [this, id, inc] {
      if (sim_.incarnation(NodeId{id}) == inc) sim_.crash(NodeId{id});
    });
  });
}

}  // namespace gregor::sim
