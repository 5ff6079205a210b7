// Fault targets: the names and roles a fault schedule uses, parsed when the file is loaded and
// resolved to nodes only when the fault fires, because who leads a partition depends on what
// happened before ("leader of orders-0" at 10s is whoever leads then).
//
//   broker-2, zk-1, producer-1, readers-1   a node by name
//   leader of orders-0                      the broker that leads the partition (highest epoch)
//   follower of orders-0                    its first in-sync follower, in replica order (else the
//                                           first other replica)
//   followers of orders-0                   every replica but the leader
//   replicas of orders-0, isr of orders-0   every replica; the in-sync ones
//   controller                              the active controller
//   zk leader, zk followers                 the serving zk leader (newest epoch); every other zk server
//   brokers, zookeeper, clients, all        every broker, zk server, client node, node
//   crashed, paused                         every node that is down, or paused, at that moment
//   others                                  (partition groups only) every node in no other group
//   <label>                                 the nodes an earlier fault hit, named with `as: label`
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/types.h"

namespace gregor::sim {

class Simulator;
class Cluster;
class ClusterModel;

struct TargetSpec {
  enum class Kind {
    kName,
    kLeader,
    kFollower,
    kFollowers,
    kReplicas,
    kIsr,
    kController,
    kBrokers,
    kZookeeper,
    kClients,
    kAll,
    kCrashed,
    kPaused,
    kOthers,
    kLabel,
    kZkLeader,
    kZkFollowers,
    kCoordinator,  // the group coordinator of group `name`: the leader of its __consumer_offsets partition
  };
  Kind kind = Kind::kName;
  std::string name;   // kName, kLabel, kCoordinator (the group)
  std::string topic;  // partition roles
  int32_t partition = 0;
};

// Parses one target. `names` are the node names of the scenario, `labels` the labels defined by
// earlier faults, `partitions` the partition count per topic (role targets must name one).
Result<TargetSpec> parse_target(const std::string& text, const std::set<std::string>& names,
                                const std::set<std::string>& labels,
                                const std::map<std::string, int32_t>& partitions);

// Resolves targets against the world as it is now: node states from the simulator; a partition's
// leader, ISR and replicas from the cluster model the checkers keep (the trace's picture,
// sim/check/cluster_model.h); the controller from the brokers themselves: the first broker whose
// controller acts as the active one, which may be a zombie (paused or cut off from zk after its
// session expired, it has not noticed), something the trace cannot tell.
class TargetResolver {
 public:
  TargetResolver(Simulator& sim, Cluster& cluster, const ClusterModel& model, std::map<std::string, NodeId> names);
  // The nodes a target means now (possibly none: "leader of orders-0" while it has none), in a
  // stable order. `exclude` is used by "others".
  std::vector<NodeId> resolve(const TargetSpec& t, const std::set<NodeId>& exclude = {}) const;
  std::vector<NodeId> resolve_all(const std::vector<TargetSpec>& ts) const;
  void set_label(const std::string& label, std::vector<NodeId> nodes) { labels_[label] = std::move(nodes); }
  std::optional<NodeId> find(const std::string& name) const;
  std::string name_of(NodeId id) const;

 private:
  Simulator& sim_;
  Cluster& cluster_;
  const ClusterModel& model_;
  std::map<std::string, NodeId> names_;
  std::map<std::string, std::vector<NodeId>> labels_;
};

}  // namespace gregor::sim
