// Client-side partition assignors (Kafka's ConsumerPartitionAssignor): the group leader runs the one
// the coordinator selected over every member's subscription. Names are the protocol names the Java
// client and librdkafka put in JoinGroup, so mixed groups agree on them:
//
//   range               per topic, the members subscribed to it (sorted by member id) get
//                       contiguous ranges; the first n % members get one extra (RangeAssignor)
//   roundrobin          every partition of every subscribed topic, sorted by (topic, partition),
//                       dealt in turn to the sorted members subscribed to its topic
//                       (RoundRobinAssignor)
//   cooperative-sticky  balanced and sticky: members keep what they own (from their subscription's
//                       owned partitions, claims of the latest generation win), the rest is spread
//                       to balance counts; a partition that moves to another member is left out of
//                       this generation so its owner revokes it first, and a follow-up rebalance
//                       hands it over (KIP-429, the cooperative rebalance protocol)
//
// range and roundrobin are EAGER: a member revokes everything before it rejoins.
// cooperative-sticky is COOPERATIVE: a member keeps its partitions through the rebalance and revokes
// only those its new assignment lacks. The sticky algorithm here is Gregor's own (balanced counts,
// kept ownership); it is not Kafka's AbstractStickyAssignor step for step.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/protocol/consumer_protocol.h"

namespace gregor::client {

// The embedded consumer protocol (engine/protocol/consumer_protocol.h).
using protocol::Assignment;
using protocol::PartitionsByTopic;
using protocol::Subscription;

enum class RebalanceProtocol { kEager, kCooperative };

class Assignor {
 public:
  virtual ~Assignor() = default;
  virtual const char* name() const = 0;
  virtual RebalanceProtocol protocol() const { return RebalanceProtocol::kEager; }
  // The user data a member puts in its subscription (cooperative-sticky: its generation).
  virtual std::optional<Bytes> subscription_user_data(int32_t generation) const {
    (void)generation;
    return std::nullopt;
  }
  // partitions_per_topic: the partition count of each topic the leader knows (topics it does not
  // know get no assignment). Returns an assignment for every member in `subscriptions`.
  virtual std::map<std::string, Assignment> assign(const std::map<std::string, int32_t>& partitions_per_topic,
                                                   const std::map<std::string, Subscription>& subscriptions) const = 0;
};

// nullptr for an unknown name.
std::unique_ptr<Assignor> make_assignor(const std::string& name);

}  // namespace gregor::client
