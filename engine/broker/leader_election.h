// Leader election as pure rules: Kafka's PartitionLeaderElectionAlgorithms, and the partition
// state changes the controller makes with them. No zk, no clock, no controller: a partition's
// assignment and state and the brokers' liveness in, the state to write out. The controller
// (engine/broker/controller.cpp) writes what these return; tests/broker/leader_election_test.cpp
// tables them.
//
// A replica is eligible to lead when its broker is live and not shutting down. Every change of
// leader or ISR bumps the leader epoch and carries the controller's epoch.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "engine/broker/zk_data.h"
#include "engine/core/topic_partition.h"

namespace gregor::broker {

// A partition as the controller knows it: its replicas in preference order (the first is the
// preferred leader) and its state znode.
struct ControllerPartition {
  std::vector<int32_t> replicas;  // under reassignment: the target's replicas, then the original's
  // A reassignment in progress (KIP-455): the replicas being added and removed; both empty when none.
  std::vector<int32_t> adding;
  std::vector<int32_t> removing;
  bool reassigning() const { return !adding.empty() || !removing.empty(); }
  LeaderIsrState state;
  int32_t zk_version = -1;  // -1: no state znode yet (a new partition)
};

namespace election {

// What an election may rely on besides the partition.
struct Brokers {
  std::set<int32_t> live;
  std::set<int32_t> shutting_down;
  bool eligible(int32_t broker) const { return live.count(broker) && !shutting_down.count(broker); }
};

// Kafka's algorithms. Each returns the new leader, or nullopt when no replica qualifies.
//
// Offline (the leader died or there is none): the first replica in assignment order that is
// eligible and in the ISR; failing that, when unclean election is enabled, the first eligible
// replica (`unclean` says which it was).
struct OfflineLeader {
  int32_t leader = -1;
  bool unclean = false;
};
// A damaged replica (one whose broker registered its log as damaged: it lost data that may have
// been acknowledged) is never a clean leader; an unclean election takes one only when no intact
// replica is eligible.
std::optional<OfflineLeader> offline_partition_leader(const std::vector<int32_t>& assignment, const std::vector<int32_t>& isr,
                                                      const Brokers& brokers, bool unclean_enabled,
                                                      const std::set<int32_t>& damaged = {});
// Reassignment: the first replica of the target assignment that is eligible and in the ISR.
std::optional<int32_t> reassign_partition_leader(const std::vector<int32_t>& reassignment, const std::vector<int32_t>& isr,
                                                 const Brokers& brokers);
// Preferred: the first replica of the assignment, if it is eligible and in the ISR.
std::optional<int32_t> preferred_replica_partition_leader(const std::vector<int32_t>& assignment,
                                                          const std::vector<int32_t>& isr, const Brokers& brokers);
// Controlled shutdown: the first replica in assignment order that is eligible and in the ISR (the
// broker shutting down is in brokers.shutting_down, so it is not).
std::optional<int32_t> controlled_shutdown_partition_leader(const std::vector<int32_t>& assignment,
                                                            const std::vector<int32_t>& isr, const Brokers& brokers);

// The state changes. Each returns the state to write and why, or nullopt for no change.
struct Change {
  LeaderIsrState state;
  const char* reason;
};

// After brokers came or went (and for new partitions): a new partition gets its first live replica
// as leader and every live replica in sync ("new_partition"); a partition whose leader is live but
// some ISR members died drops them ("replica_offline"); one without a live leader elects one
// (`reason`, or "unclean"); one without any goes offline, leader -1, keeping the last ISR so that
// it can come back as leader ("offline").
// Damaged replicas (`damaged`, see offline_partition_leader) leave the ISR like dead ones, even the
// last member ("replica_damaged"): a partition whose only in-sync replicas are damaged goes offline,
// with an empty ISR when they were all, until an intact in-sync replica returns or unclean election
// is enabled. KIP-966 does the same with a replica that registers after an unclean shutdown.
std::optional<Change> on_brokers_changed(const ControllerPartition& p, const Brokers& brokers, bool unclean_enabled,
                                         int32_t controller_epoch, const char* reason,
                                         const std::set<int32_t>& damaged = {});
// Broker `shutting_down` asked to stop: its leaderships move to another in-sync replica (none
// eligible: it keeps them and they go offline when it stops), and it leaves the ISRs it is in
// unless it is their last member. `follower` says whether it only left the ISR.
struct ShutdownChange {
  Change change;
  bool follower = false;
};
std::optional<ShutdownChange> on_controlled_shutdown(const ControllerPartition& p, int32_t shutting_down,
                                                     const Brokers& brokers, int32_t controller_epoch);
// A leader wrote an ISR (an expansion) with members that may not be in it: brokers that are not
// live, or in controlled shutdown. Kafka 3.x's controller refuses such an ISR (AlterPartition,
// INELIGIBLE_REPLICA); here leaders write the ISR to zk themselves, so the controller takes those
// members out again. The leader itself always stays.
std::optional<Change> on_isr_expanded(const ControllerPartition& p, const Brokers& brokers, int32_t controller_epoch);
// Leadership back to the preferred replica, when it is eligible, in sync and not leading.
std::optional<Change> on_preferred_election(const ControllerPartition& p, const Brokers& brokers, int32_t controller_epoch);

// leader.imbalance.per.broker.percentage = 10: the partitions whose preferred leader leads
// elsewhere, of every broker whose preferred partitions are led elsewhere more than 10% of the time.
std::vector<TopicPartition> imbalanced_partitions(const std::map<TopicPartition, ControllerPartition>& partitions);

}  // namespace election
}  // namespace gregor::broker
