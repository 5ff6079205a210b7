// ScenarioRun: one run of a scenario with one seed, event for event reproducible.
//
// It builds the world (Simulator, Cluster of zk servers and brokers, producer and consumer-group
// nodes), attaches the checkers, creates the topics once a controller is up, starts the workloads
// when the topics have leaders, and fires the fault schedule at its virtual times, resolving role
// targets ("leader of orders-0") at that moment. The dashboard drives it step by step
// (run_until), injects a user's actions (apply) and saves what happened as a scenario
// (recorded_scenario). `gregor run`, `gregor check-determinism` and `gregor swarm` run it to the
// end and read its verdicts.
//
// Same scenario + same seed => same events, same fingerprint (docs/scenarios.md, DESIGN.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/client/producer.h"
#include "sim/check/checkers.h"
#include "sim/scenario/availability.h"
#include "sim/cluster.h"
#include "sim/scenario/message_faults.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/targets.h"
#include "sim/scenario/triggers.h"
#include "sim/scenario/timeline.h"
#include "sim/simulator.h"

namespace gregor::sim {

struct RunOptions {
  // End the run here instead of at the scenario's length (the checkers' end-of-run checks run then).
  std::optional<Duration> until;
  bool verbose = false;         // node log lines to stderr
  uint64_t event_limit = 0;     // 0: the simulator's default
};

enum class CheckerState { kPending, kPass, kFail };
const char* checker_state_name(CheckerState s);

struct CheckerVerdict {
  std::string name;
  std::string description;
  CheckerState state = CheckerState::kPending;
  std::optional<Violation> violation;  // the first one
};

struct ExpectationVerdict {
  std::string text;           // "acked-write-lost must pass", "at least 100 records acknowledged"
  std::optional<bool> holds;  // nullopt while the run has not decided it
};

struct Verdicts {
  bool finished = false;
  std::vector<CheckerVerdict> checkers;
  std::vector<ExpectationVerdict> expectations;
  int64_t acked = 0;
  // By topic of the scenario: the longest stretches without an ack, a leader, a whole ISR.
  std::map<std::string, AvailabilityFigures> availability;
  // Every expectation holds (a pending one does not).
  bool all_hold() const;
};

class ScenarioRun {
 public:
  // REQUIRES: the scenario passed validation (load_scenario / validate_scenario).
  ScenarioRun(const Scenario& s, uint64_t seed, RunOptions opts = {});
  ~ScenarioRun();
  ScenarioRun(const ScenarioRun&) = delete;
  ScenarioRun& operator=(const ScenarioRun&) = delete;

  Simulator& sim() { return *sim_; }
  Cluster& cluster() { return *cluster_; }
  CheckerSet& checkers() { return checkers_; }
  const CheckerSet& checkers() const { return checkers_; }
  const Scenario& scenario() const { return scenario_; }
  uint64_t seed() const { return seed_; }
  Timeline& timeline() { return timeline_; }

  // Advances the simulation to t (at most to the end); faults fire at their times. When the end is
  // reached the checkers' end-of-run checks run.
  void run_until(Time t);
  void run_to_end() { run_until(end_time()); }
  bool finished() const { return finished_; }
  Time end_time() const { return end_; }
  Time now() const { return sim_->now(); }
  // The run stopped early: the simulator's event limit was hit (a livelock or a timer storm).
  bool event_limit_hit() const { return event_limit_hit_; }

  // A user's action now (the dashboard's right-click): resolved, fired, recorded in applied().
  // Unknown targets are reported in the timeline and change nothing; try_apply says why.
  void apply(const FaultAction& a);
  Status try_apply(const FaultAction& a);
  // Every fault that fired so far, from the schedule or from apply(), with `resolved` filled.
  const std::vector<FaultAction>& applied() const { return applied_; }
  // The scenario with the faults that actually fired as its schedule, targets made concrete: what
  // "save as scenario" writes.
  Scenario recorded_scenario() const;

  Verdicts verdicts() const;
  void add_listener(TraceListener l) { sim_->add_listener(std::move(l)); }

  std::string fingerprint() const { return sim_->fingerprint().hex(); }
  int64_t acked() const { return acked_; }
  // Node names of this run: broker-1, zk-1, producer-1, readers-2, ...
  std::string name_of(NodeId id) const;
  std::optional<NodeId> node_named(const std::string& name) const;

 private:
  void on_event(const TraceEvent& e);
  void setup_tick();
  void create_topics();
  void start_clients();
  void fire(FaultAction a);
  // The nodes a fault hits: its targets (and `to` nodes), or the sides of a partition or heal.
  struct Hit {
    std::vector<NodeId> nodes;
    std::vector<std::vector<NodeId>> sides;
    std::vector<NodeId> to;
  };
  Status resolve_and_apply(FaultAction& a);
  Status check_targets(const FaultAction& a) const;
  Hit resolve(const FaultAction& a) const;
  std::string describe_hit(FaultAction& a, const Hit& hit);
  void apply(const FaultAction& a, const Hit& hit);
  void apply_cut(const FaultAction& a, const Hit& hit);
  void apply_latency(const FaultAction& a, const Hit& hit);
  Status check_set_config(const FaultAction& a, const std::vector<NodeId>& hit) const;
  void set_config(const FaultAction& a, const std::vector<NodeId>& hit);
  // reassign: AlterPartitionReassignments of a.partition to the brokers hit, through the controller.
  void reassign(const FaultAction& a, const std::vector<NodeId>& hit);
  std::optional<NodeId> config_broker();  // the broker a topic set-config goes through
  void finish();
  // Triggered faults (`when:`): armed at their `at`, fired (after their delay) by matches.
  void arm(size_t fault);
  void triggered(size_t fault);
  // The message faults, installed into the simulator on first use.
  MessageFaults& message_faults();
  MessageFaults::Selector selector(const std::string& api, bool response, const std::vector<std::string>* from,
                                   const std::vector<std::string>* to) const;
  std::vector<NodeId> resolve_list(const std::vector<std::string>& targets, const std::set<NodeId>& exclude = {}) const;

  Scenario scenario_;
  uint64_t seed_;
  RunOptions options_;
  Time end_;
  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<Cluster> cluster_;
  CheckerSet checkers_;
  Timeline timeline_;
  std::map<std::string, NodeId> names_;
  std::set<std::string> labels_;  // groups and `as` labels
  std::unique_ptr<TargetResolver> resolver_;
  std::vector<FaultAction> applied_;
  std::vector<NodeId> client_ids_;
  // Each producer's config as it is now (set-config changes it; a restarted producer starts with it).
  std::map<NodeId, client::ProducerConfig> producer_configs_;
  std::vector<bool> reported_;  // per checker: its violation is in the timeline
  struct ArmedTrigger {
    size_t fault;  // index in scenario_.faults
    EventMatcher matcher;
  };
  std::vector<ArmedTrigger> event_triggers_;  // armed triggers on trace events
  std::vector<int64_t> trigger_left_;         // per fault of the schedule: matches that still fire it
  std::unique_ptr<MessageFaults> message_faults_;
  std::unique_ptr<AvailabilityMonitor> availability_;
  int64_t acked_ = 0;
  bool topics_requested_ = false;
  bool topics_ready_ = false;
  bool finished_ = false;
  bool event_limit_hit_ = false;
};

}  // namespace gregor::sim
