// ScenarioRunner: the LiveRunner over sim::ScenarioRun, so the dashboard runs scenario files
// (scenarios/*.yaml) and scenarios built in code (the frame-time benchmark's).
//
// User actions become the scenario's own FaultActions (crash broker-2, partition [broker-1] |
// [others], ...) and are applied at a "quiet instant": the first microsecond after the view time
// at which the simulator has nothing pending. A scenario fault fires before anything else at its
// time, so an action taken where nothing else happens at the same microsecond replays exactly,
// from a saved scenario file as from a fork.
#pragma once

#include <memory>

#include "gui/live_runner.h"
#include "sim/scenario/scenario_run.h"

namespace gregor::gui {

class ScenarioRunner final : public LiveRunner {
 public:
  // REQUIRES: the scenario passed validation.
  ScenarioRunner(sim::Scenario scenario, uint64_t seed, std::function<void(const TraceEvent&)> listener);
  ~ScenarioRunner() override;

  std::string name() const override { return scenario_.name; }
  uint64_t seed() const override { return seed_; }
  Time now() const override { return run_->now(); }
  Time end_time() const override { return run_->end_time(); }
  bool finished() const override { return run_->finished(); }
  void run_until(Time t) override { run_->run_until(t); }
  Status apply(UserAction a) override;
  const std::vector<UserAction>& applied() const override { return user_actions_; }
  sim::Simulator& sim() override { return run_->sim(); }
  sim::Cluster& cluster() override { return run_->cluster(); }
  std::vector<StoryStep> story() const override;
  std::vector<std::pair<Time, std::string>> schedule() const override;
  ModelDefaults defaults() const override;
  std::map<std::string, std::string> settings() const override;
  std::vector<ExpectationVerdict> expectations() const override;
  Result<std::string> scenario_text() const override;
  std::unique_ptr<LiveRunner> fork(Time t, std::function<void(const TraceEvent&)> listener) const override;

  sim::ScenarioRun& run() { return *run_; }
  // The user's action in the scenario's own terms (names, not ids).
  Result<sim::FaultAction> to_fault(const UserAction& a) const;

 private:
  sim::Scenario scenario_;
  uint64_t seed_;
  std::unique_ptr<sim::ScenarioRun> run_;
  std::vector<UserAction> user_actions_;
  std::vector<sim::FaultAction> user_faults_;
};

// The frame-time benchmark's world: 5 brokers, 2 topics of 50 partitions (RF 3), two producers,
// one broker crashing at 15 s and coming back at 35 s.
sim::Scenario bench_scenario();

}  // namespace gregor::gui
