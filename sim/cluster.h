// Cluster: a Kafka cluster in the simulator: zk servers and brokers as nodes of a Simulator, with
// Gregor's node id conventions (brokers 1..N by broker.id, zk servers from 1001, clients from
// 2001), and views that tests, checkers, scenarios and the dashboard share.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/broker/broker.h"
#include "engine/coord/zk_server.h"
#include "sim/simulator.h"

namespace gregor::sim {

inline constexpr int32_t kFirstZkNodeId = 1001;
inline constexpr int32_t kFirstClientNodeId = 2001;

struct ClusterSpec {
  int brokers = 3;
  int zk_servers = 1;
  // Broker configs with Kafka's keys (applied to every broker).
  std::map<std::string, std::string> broker_config;
  // Brokers that start later than the others (broker id -> delay from the cluster's creation): a
  // broker joining a running cluster, or a head start that decides who wins /controller.
  std::map<int32_t, Duration> broker_start_delay;
};

class Cluster {
 public:
  // Adds the nodes to `sim` and starts them. Bad broker configs are an assertion: callers validate
  // them first (Scenario does, with file and line).
  Cluster(Simulator& sim, ClusterSpec spec);

  Simulator& sim() { return sim_; }
  const ClusterSpec& spec() const { return spec_; }
  std::vector<NodeId> zk_ids() const;
  std::vector<NodeId> broker_ids() const;
  const broker::BrokerConfig& broker_config(int32_t id) const { return configs_.at(id); }

  // The live broker object, or nullptr when it is down.
  broker::Broker* broker(int32_t id);
  coord::ZkServer* zk(int index = 0);
  // The zk server that leads a serving quorum, the newest epoch's if two think so (one cut off
  // has not noticed yet); with one server, that server while it runs.
  std::optional<int32_t> zk_leader();
  // The active controller with the newest epoch, if any (a controller cut off from zk may still
  // think it is one).
  std::optional<int32_t> controller();
  // True once a controller runs and knows every broker as live.
  bool ready();
  // The leader of a partition as the controller last wrote it (-1 offline, nullopt unknown).
  std::optional<int32_t> leader(const TopicPartition& tp);
  // True once every partition of `topic` has a live leader that believes it leads.
  bool topic_ready(const std::string& topic, int partitions);

  // A gentle stop: ControlledShutdown first, then the process stops (a crash, as far as the disk is
  // concerned, after leadership moved away).
  void shutdown_broker(int32_t id);

 private:
  Simulator& sim_;
  ClusterSpec spec_;
  std::map<int32_t, broker::BrokerConfig> configs_;
};

}  // namespace gregor::sim
