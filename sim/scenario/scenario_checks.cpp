#include "sim/scenario/scenario_checks.h"

#include <algorithm>

#include "sim/check/consume_checkers.h"
#include "sim/check/eos_checkers.h"
#include "sim/check/txn_checkers.h"
#include "sim/check/txn_outcome_checker.h"
#include "sim/check/zk_checkers.h"

namespace gregor::sim {

void ReplicasConvergeChecker::finish(const ClusterModel& model, Time end) {
  // Crashed and powered-off nodes are left out (a paused one counts: it holds its state).
  for (const auto& [tp, view] : model.partitions()) {
    const int32_t leader_id = view.acting.leader;
    if (leader_id < 0 || model.down(leader_id)) continue;
    const ReplicaLog* leader = model.replica(leader_id, tp);
    if (!leader) continue;
    for (const auto& [key, replica] : model.replicas()) {
      const auto& [broker, rtp] = key;
      if (rtp != tp || broker == leader_id || model.down(broker)) continue;
      const int64_t bound = std::min(replica.hw, leader->hw);
      for (auto it = replica.batches.begin(); it != replica.batches.end() && it->first < bound; ++it) {
        auto lb = leader->batches.find(it->first);
        if (lb == leader->batches.end() || lb->second.crc != it->second.crc ||
            lb->second.last_offset != it->second.last_offset) {
          report(end, "replica " + std::to_string(broker) + " of " + tp.first + "-" + std::to_string(tp.second) +
                          " holds a different batch at offset " + std::to_string(it->first) + " (epoch " +
                          std::to_string(it->second.epoch) + ") than its leader " + std::to_string(leader_id) +
                          (lb == leader->batches.end() ? " (which has no batch there)"
                                                       : " (epoch " + std::to_string(lb->second.epoch) + ")") +
                          ", below both high watermarks (" + std::to_string(replica.hw) + ", " +
                          std::to_string(leader->hw) + "): the logs diverged");
          return;
        }
      }
    }
  }
}

void add_scenario_checkers(CheckerSet& set) {
  set.add(std::make_unique<ReplicasConvergeChecker>());
  // The delivery guarantees of consumer groups; they pass trivially in a run without groups.
  add_consume_checkers(set);
  // The coordination service's guarantees; they matter for a replicated zk ensemble.
  add_zk_checkers(set);
  add_txn_checkers(set);
  add_txn_outcome_checker(set);
  // The consume-transform-produce loop's (delivery: exactly-once-txn).
  add_eos_checkers(set);
}

std::vector<std::string> known_checker_names() {
  CheckerSet set;
  add_scenario_checkers(set);
  return set.names();
}

}  // namespace gregor::sim
