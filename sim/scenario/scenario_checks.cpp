#include "sim/scenario/scenario_checks.h"

#include <algorithm>

#include "sim/check/consume_checkers.h"

namespace gregor::sim {

void ReplicasConvergeChecker::on_event(const TraceEvent& e, const ReplicaModel&) {
  if (e.node.value != 0) return;
  if (e.kind() == "node_crash" || e.kind() == "power_loss")
    down_.insert(static_cast<int32_t>(e.get_int("target")));
  else if (e.kind() == "node_start" || e.kind() == "node_restart")
    down_.erase(static_cast<int32_t>(e.get_int("target")));
}

void ReplicasConvergeChecker::finish(const ReplicaModel& model, Time end) {
  for (const auto& [tp, view] : model.partitions()) {
    if (view.leader < 0 || down_.count(view.leader)) continue;
    const ReplicaLog* leader = model.replica(view.leader, tp);
    if (!leader) continue;
    for (const auto& [key, replica] : model.replicas()) {
      const auto& [broker, rtp] = key;
      if (rtp != tp || broker == view.leader || down_.count(broker)) continue;
      const int64_t bound = std::min(replica.hw, leader->hw);
      for (auto it = replica.batches.begin(); it != replica.batches.end() && it->first < bound; ++it) {
        auto lb = leader->batches.find(it->first);
        if (lb == leader->batches.end() || lb->second.crc != it->second.crc ||
            lb->second.last_offset != it->second.last_offset) {
          report(end, "replica " + std::to_string(broker) + " of " + tp.first + "-" + std::to_string(tp.second) +
                          " holds a different batch at offset " + std::to_string(it->first) + " (epoch " +
                          std::to_string(it->second.epoch) + ") than its leader " + std::to_string(view.leader) +
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
}

std::vector<std::string> known_checker_names() {
  CheckerSet set;
  add_scenario_checkers(set);
  return set.names();
}

}  // namespace gregor::sim
