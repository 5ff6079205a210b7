// Swarm testing: a random cluster, configuration, workload and fault schedule from each seed (as
// TigerBeetle's VOPR and FoundationDB's simulation draw theirs), run with the checkers; and a
// shrinker that turns a failing seed's scenario into a small one that still fails.
//
// Profiles:
//   safe           Kafka's safe configuration: RF=3, min.insync.replicas=2, acks=all, no unclean
//                  election, leader-epoch truncation; crashes, restarts, pauses, partitions,
//                  clogs, latency, controlled shutdowns, zk restarts. Every checker must hold.
//   unclean        the same with unclean.leader.election.enable=true and min.insync.replicas=1
//   hw-truncation  the same with replication.truncation=high-watermark (before KIP-101)
//   power-loss     the safe profile plus power losses of brokers that never fsync (the default
//                  flush settings): replication is the only durability, and it is not enough when
//                  replicas lose power one after the other
//   acks1          producers with acks=1, whose acknowledged writes must survive too
//   transactions   the safe profile with transactional producers (transactional.id, transactions
//                  of 5-100 records, some aborting), read_committed groups (and a read_uncommitted
//                  one now and then), and faults on the transaction messages: EndTxn requests
//                  duplicated with the copy arriving late (the stale EndTxn of KAFKA-17754),
//                  delayed or lost; AddPartitionsToTxn, InitProducerId, WriteTxnMarkers delayed or
//                  lost. transaction.version 2: the transaction checkers must hold too
//   transactions-v1  the same on transaction.version 1, where a late EndTxn ends the next
//                  transaction (txn-outcome, read-committed-no-aborted catch it)
// Every generated run ends with a quiet phase (heal, resume, restart everything) so that the
// end-of-run checks see a cluster that had a chance to converge.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace gregor::sim {

struct SwarmProfile {
  std::string name;
  std::string description;
};
const std::vector<SwarmProfile>& swarm_profiles();
bool is_swarm_profile(const std::string& name);

// The scenario of one seed. REQUIRES: is_swarm_profile(profile). Always valid.
Scenario generate_swarm_scenario(const std::string& profile, uint64_t seed);

// The outcome of one run, as the swarm reports it.
struct SeedOutcome {
  uint64_t seed = 0;
  bool ok = true;
  std::string broken;   // the first expectation that does not hold ("acked-write-lost must pass")
  std::string checker;  // its checker, when it is one
  std::string message;  // the violation
  Time violation_time{0};
  std::string fingerprint;
  int64_t acked = 0;
  uint64_t events = 0;
  Time virtual_end{0};
};
SeedOutcome run_seed(const Scenario& s, uint64_t seed);

struct ShrinkResult {
  Scenario minimal;
  SeedOutcome outcome;  // the minimal scenario's run
  size_t faults_before = 0, faults_after = 0;
  Duration length_before{0}, length_after{0};
  int runs = 0;
  bool still_fails = false;  // false when the original did not fail to begin with
};
// Removes faults and shortens the run while the same expectation stays broken (greedy, one fault
// at a time, repeated until nothing more can go), with at most max_runs runs.
ShrinkResult shrink_scenario(const Scenario& failing, uint64_t seed, int max_runs = 150);

}  // namespace gregor::sim
