// The checkers a scenario run attaches: sim/check's invariant checkers plus the ones defined here,
// which look at the end state of a run rather than at each event.
//
//   replicas-converge   at the end of the run, every live replica of a partition holds the same
//                       batches as its live leader below both their high watermarks. Fails when
//                       logs diverged for good (KIP-101 scenario 2, KIP-279): each replica believes
//                       its own, different records are committed. Unlike log-matching it forgives
//                       history (a committed record lost with the whole ISR is acked-write-lost's
//                       business); it asks whether the replicas agree now.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/check/checkers.h"

namespace gregor::sim {

class ReplicasConvergeChecker final : public Checker {
 public:
  const char* name() const override { return "replicas-converge"; }
  const char* description() const override {
    return "at the end, live replicas agree with their leader below the high watermarks";
  }
  void on_event(const TraceEvent&, const ClusterModel&) override {}
  void finish(const ClusterModel& model, Time end) override;
};

// Adds the checkers defined outside sim/check to a set.
void add_scenario_checkers(CheckerSet& set);

// Every checker name a scenario may name in `expect`, in report order.
std::vector<std::string> known_checker_names();

}  // namespace gregor::sim
