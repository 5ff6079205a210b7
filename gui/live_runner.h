// LiveRunner: what the dashboard needs from a running simulation. The dashboard never changes the
// world directly: every click becomes a UserAction handed to apply(), which the runner performs at
// its current virtual time and records, so that the session can be saved as a scenario file that
// replays it exactly, and re-run (fork) from any earlier time with the same seed.
//
// Actions (Kafka's and the simulator's words):
//   crash, restart, pause, resume, power_loss   targets: nodes
//   shutdown                                    a controlled shutdown of one broker
//   isolate                                     targets: nodes cut from every other node
//   partition                                   targets | others (others empty: every other node)
//   heal                                        targets | others;  heal_all: every cut
//   set_config                                  key = value: acks (the producers'),
//                                               min.insync.replicas, unclean.leader.election.enable
//                                               (the topics')
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/trace_event.h"
#include "gui/model_builder.h"
#include "sim/cluster.h"
#include "sim/scenario/scenario.h"
#include "sim/simulator.h"

namespace gregor::gui {

// A dashboard user's action: a fault of the scenario's kinds (sim/scenario/scenario.h) on nodes
// by id. A heal with no targets heals every link; set-config sets `key` to `value`.
struct UserAction {
  Time at{0};
  sim::FaultKind kind = sim::FaultKind::kCrash;
  std::vector<int32_t> targets;
  std::vector<int32_t> others;
  std::string key, value;  // set-config

  // "crash broker 2", "partition 1 | 2,3", "set acks=1": for the event log and the timeline.
  std::string describe() const;
  bool operator==(const UserAction&) const = default;
};

// A caption of the scenario's story, shown from `at` on.
struct StoryStep {
  Time at{0};
  std::string text;
};

// A verdict the scenario itself decides (its expectations), beside the checkers.
struct ExpectationVerdict {
  std::string name;
  VerdictState state = VerdictState::kPending;
  std::string detail;
};

class LiveRunner {
 public:
  virtual ~LiveRunner() = default;

  virtual std::string name() const = 0;
  virtual uint64_t seed() const = 0;
  virtual Time now() const = 0;
  virtual Time end_time() const = 0;
  virtual bool finished() const { return now() >= end_time(); }
  // Runs the world up to t (bounded by end_time()).
  virtual void run_until(Time t) = 0;
  // Performs the action now (a.at is set to now) and records it; bad actions change nothing.
  virtual Status apply(UserAction a) = 0;
  virtual const std::vector<UserAction>& applied() const = 0;

  virtual sim::Simulator& sim() = 0;
  virtual sim::Cluster& cluster() = 0;

  virtual std::vector<StoryStep> story() const = 0;
  // Faults the scenario has scheduled, with their times (shown on the timeline ahead of time).
  virtual std::vector<std::pair<Time, std::string>> schedule() const = 0;
  virtual ModelDefaults defaults() const = 0;
  // The current producer and topic settings the fault panel edits (acks, min.insync.replicas,
  // unclean.leader.election.enable).
  virtual std::map<std::string, std::string> settings() const = 0;
  virtual std::vector<ExpectationVerdict> expectations() const { return {}; }
  // The session as a scenario file: the scenario with the user's actions in its fault schedule.
  virtual Result<std::string> scenario_text() const = 0;
  // A fresh run of the same scenario and seed with the actions applied at or before t replayed at
  // their times, run to t. Because the simulation is deterministic it is the same world as this
  // one was at t; the actions after t are dropped ("fork from here"). `listener` sees every event
  // from the start.
  virtual std::unique_ptr<LiveRunner> fork(Time t, std::function<void(const TraceEvent&)> listener) const = 0;
};

// Builds a runner and attaches `listener` before the first node starts, so it sees every event.
using RunnerFactory =
    std::function<Result<std::unique_ptr<LiveRunner>>(uint64_t seed, std::function<void(const TraceEvent&)> listener)>;

}  // namespace gregor::gui
