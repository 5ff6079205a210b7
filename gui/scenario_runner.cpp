#include "gui/scenario_runner.h"

#include <algorithm>

namespace gregor::gui {

namespace {

// The quiet-instant search steps over at most this many busy microseconds.
constexpr int kQuietSearchMax = 100000;

std::string setting(const sim::ConfigMap& m, const std::string& key, const std::string& fallback) {
  auto it = m.find(key);
  return it == m.end() ? fallback : it->second;
}

}  // namespace

ScenarioRunner::ScenarioRunner(sim::Scenario scenario, uint64_t seed, std::function<void(const TraceEvent&)> listener)
    : scenario_(std::move(scenario)), seed_(seed) {
  run_ = std::make_unique<sim::ScenarioRun>(scenario_, seed_);
  if (listener) {
    // The nodes that started while the run was being built did so before any listener could be
    // attached: their node_start events are given to the listener as the simulator emitted them.
    sim::Simulator& s = run_->sim();
    for (NodeId id : s.node_ids()) {
      if (s.incarnation(id) == 0) continue;
      listener(TraceEvent{s.now(), sim::Simulator::kWorld,
                          ev::NodeStart{.target = id.value,
                                        .name = s.node_name(id),
                                        .incarnation = static_cast<int64_t>(s.incarnation(id))}});
    }
    run_->add_listener(std::move(listener));
  }
}

ScenarioRunner::~ScenarioRunner() = default;

Result<sim::FaultAction> ScenarioRunner::to_fault(const UserAction& a) const {
  auto names = [&](const std::vector<int32_t>& ids) {
    std::vector<std::string> out;
    for (int32_t id : ids) out.push_back(run_->name_of(NodeId{id}));
    return out;
  };
  auto bad = [&](const std::string& why) { return Status::error(StatusCode::kInvalidArgument, a.describe() + ": " + why); };
  for (int32_t id : a.targets)
    if (id <= 0 || !run_->sim().has_node(NodeId{id})) return bad("no node " + std::to_string(id));
  for (int32_t id : a.others)
    if (id <= 0 || !run_->sim().has_node(NodeId{id})) return bad("no node " + std::to_string(id));
  sim::FaultAction f;
  f.at = run_->now();
  f.kind = a.kind;
  switch (a.kind) {
    case sim::FaultKind::kPartition:
    case sim::FaultKind::kHeal:
      if (a.targets.empty()) {
        if (a.kind == sim::FaultKind::kHeal) break;  // heal every link
        return bad("no target");
      }
      f.groups = {names(a.targets), a.others.empty() ? std::vector<std::string>{"others"} : names(a.others)};
      break;
    case sim::FaultKind::kSetConfig:
      // acks is the producers' (every producer of the scenario); the rest are topic configs (every
      // topic of the scenario), as the dashboard's durability controls mean them.
      if (a.key.empty() || a.value.empty()) return bad("set-config needs a key and a value");
      f.config[a.key] = a.value;
      if (a.key == "acks") {
        for (const auto& p : run_->scenario().producers) f.targets.push_back(p.name);
        if (f.targets.empty()) return bad("this scenario has no producer");
      } else {
        for (const auto& t : run_->scenario().topics) f.topics.push_back(t.name);
        if (f.topics.empty()) return bad("this scenario has no topic");
      }
      break;
    default:
      if (!sim::takes_targets(a.kind)) return bad("not a dashboard action");
      if (a.targets.empty()) return bad("no target");
      f.targets = names(a.targets);
  }
  return f;
}

Status ScenarioRunner::apply(UserAction a) {
  auto fault = to_fault(a);
  if (!fault.is_ok()) return fault.status();
  // A quiet instant: the first microsecond after now with nothing pending at it.
  auto& loop = run_->sim().loop();
  for (int i = 0; i < kQuietSearchMax && !run_->finished(); i++) {
    const Time next = run_->now() + Duration::micros(1);
    if (loop.empty() || loop.next_time() > next) break;
    run_->run_until(next);
  }
  const Time at = run_->now() + Duration::micros(1);
  if (run_->finished() || at >= run_->end_time()) return Status::error(StatusCode::kInvalidArgument, "the run has ended");
  run_->run_until(at);  // runs nothing: no event is due at or before `at`
  fault->at = at;
  GREGOR_RETURN_IF_ERROR(run_->try_apply(*fault));
  a.at = at;
  user_actions_.push_back(std::move(a));
  user_faults_.push_back(run_->applied().back());
  return Status::ok();
}

std::vector<StoryStep> ScenarioRunner::story() const {
  if (scenario_.story.empty()) return {};
  return {{Time{0}, scenario_.story}};
}

std::vector<std::pair<Time, std::string>> ScenarioRunner::schedule() const {
  std::vector<std::pair<Time, std::string>> out;
  // A triggered fault has no time ahead of the run: it shows when it fires.
  for (const auto& f : scenario_.faults)
    if (!f.when) out.push_back({f.at, f.describe()});
  return out;
}

ModelDefaults ScenarioRunner::defaults() const {
  ModelDefaults d;
  const auto& c = run_->cluster().broker_config(1);
  d.min_insync_replicas = c.topic_defaults.min_insync_replicas;
  d.unclean_leader_election = c.topic_defaults.unclean_leader_election_enable;
  d.replica_lag_time_max_ms = c.replica_lag_time_max_ms;
  return d;
}

std::map<std::string, std::string> ScenarioRunner::settings() const {
  const ModelDefaults d = defaults();
  std::map<std::string, std::string> out;
  out["acks"] = scenario_.producers.empty() ? "all" : setting(scenario_.producers.front().config, "acks", "all");
  out["min.insync.replicas"] = std::to_string(d.min_insync_replicas);
  out["unclean.leader.election.enable"] = d.unclean_leader_election ? "true" : "false";
  if (!scenario_.topics.empty()) {
    const auto& tc = scenario_.topics.front().config;
    out["min.insync.replicas"] = setting(tc, "min.insync.replicas", out["min.insync.replicas"]);
    out["unclean.leader.election.enable"] = setting(tc, "unclean.leader.election.enable", out["unclean.leader.election.enable"]);
  }
  return out;
}

std::vector<ExpectationVerdict> ScenarioRunner::expectations() const {
  std::vector<ExpectationVerdict> out;
  for (const auto& e : run_->verdicts().expectations) {
    ExpectationVerdict v;
    v.name = e.text;
    v.state = !e.holds ? VerdictState::kPending : *e.holds ? VerdictState::kPass : VerdictState::kFail;
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::string> ScenarioRunner::scenario_text() const {
  sim::Scenario out = scenario_;
  for (const auto& f : user_faults_) {
    sim::FaultAction c = f.concrete();
    c.line = 0;
    out.faults.push_back(std::move(c));
  }
  std::stable_sort(out.faults.begin(), out.faults.end(), [](const sim::FaultAction& a, const sim::FaultAction& b) { return a.at < b.at; });
  out.file.clear();
  out.seed = seed_;
  return sim::to_yaml(out);
}

std::unique_ptr<LiveRunner> ScenarioRunner::fork(Time t, std::function<void(const TraceEvent&)> listener) const {
  auto r = std::make_unique<ScenarioRunner>(scenario_, seed_, std::move(listener));
  for (const UserAction& a : user_actions_) {
    if (a.at > t) break;
    // Nothing was due at a.at when it was taken, so running to it and acting is the same world.
    r->run_->run_until(a.at);
    auto f = r->to_fault(a);
    GREGOR_ASSERT_MSG(f.is_ok(), f.status().to_string());
    f->at = a.at;
    Status s = r->run_->try_apply(*f);
    GREGOR_ASSERT_MSG(s.is_ok(), s.to_string());
    r->user_actions_.push_back(a);
    r->user_faults_.push_back(r->run_->applied().back());
  }
  r->run_until(t);
  return r;
}

sim::Scenario bench_scenario() {
  sim::Scenario s;
  s.name = "bench: 5 brokers, 100 partitions";
  s.story =
      "The dashboard's load test: five brokers, topics orders and payments with 50 partitions each "
      "(replication factor 3, min.insync.replicas=2), two producers writing with acks=all. broker-3 "
      "crashes at 15s and comes back at 35s: a fifth of the partitions change leader twice.";
  s.brokers = 5;
  s.zk_servers = 1;
  s.broker_config = {{"zookeeper.session.timeout.ms", "6000"}};
  for (const char* name : {"orders", "payments"}) {
    sim::TopicSpec t;
    t.name = name;
    t.partitions = 50;
    t.replication_factor = 3;
    t.config = {{"min.insync.replicas", "2"}};
    s.topics.push_back(t);
    sim::ProducerSpec p;
    p.name = std::string("producer-") + name;
    p.topic = name;
    p.rate_per_sec = 500;
    p.keys = "seq";
    p.start = Time{Duration::seconds(2).us};
    p.config = {{"acks", "all"}};
    s.producers.push_back(p);
  }
  sim::FaultAction crash;
  crash.at = Time{Duration::seconds(15).us};
  crash.kind = sim::FaultKind::kCrash;
  crash.targets = {"broker-3"};
  sim::FaultAction restart = crash;
  restart.at = Time{Duration::seconds(35).us};
  restart.kind = sim::FaultKind::kRestart;
  s.faults = {crash, restart};
  s.length = Duration::seconds(60);
  s.expect.pass_all = true;
  Status ok = sim::validate_scenario(s);
  GREGOR_ASSERT_MSG(ok.is_ok(), ok.to_string());
  return s;
}

}  // namespace gregor::gui
