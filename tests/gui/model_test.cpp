// The dashboard model, without a window: built from events, checked against the simulator, equal
// between a live run and its recorded trace, exact when seeking back, and the user's actions
// recorded so that forks and saved scenarios replay them.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gui/scenario_runner.h"
#include "gui/text_report.h"
#include "gui_test_support.h"
#include "sim/scenario/scenario.h"

using namespace gregor;

namespace {

std::string temp_path(const std::string& name) { return std::string(GREGOR_BINARY_DIR) + "/tests/gui-" + name; }

// The fields of the model that the views draw as facts: compared between two models.
void check_same_model(const gui::DashboardModel& a, const gui::DashboardModel& b) {
  REQUIRE(a.partitions.size() == b.partitions.size());
  CHECK(a.controller == b.controller);
  for (size_t i = 0; i < a.partitions.size(); i++) {
    const auto& p = a.partitions[i];
    const auto& q = b.partitions[i];
    INFO(p.topic << "-" << p.partition);
    CHECK(p.leader == q.leader);
    CHECK(p.leader_epoch == q.leader_epoch);
    CHECK(p.isr == q.isr);
    CHECK(p.replicas == q.replicas);
    CHECK(p.hw == q.hw);
    CHECK(p.leo == q.leo);
    REQUIRE(p.rows.size() == q.rows.size());
    for (size_t j = 0; j < p.rows.size(); j++) {
      CHECK(p.rows[j].leo == q.rows[j].leo);
      CHECK(p.rows[j].hw == q.rows[j].hw);
      // The runs are cached and extended as logs grow (ModelBuilder::epoch_runs); a model built
      // from scratch at the same time must have the same ones, through truncations and restarts.
      REQUIRE(p.rows[j].runs.size() == q.rows[j].runs.size());
      for (size_t k = 0; k < p.rows[j].runs.size(); k++) {
        CHECK(p.rows[j].runs[k].start == q.rows[j].runs[k].start);
        CHECK(p.rows[j].runs[k].end == q.rows[j].runs[k].end);
        CHECK(p.rows[j].runs[k].epoch == q.rows[j].runs[k].epoch);
      }
      CHECK(p.rows[j].since_caught_up_ms == q.rows[j].since_caught_up_ms);
    }
  }
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); i++) CHECK(a.nodes[i].status == b.nodes[i].status);
  // The ZooKeeper view: the same tree, the same writers, sessions and activity.
  REQUIRE(a.zk.znodes.size() == b.zk.znodes.size());
  for (size_t i = 0; i < a.zk.znodes.size(); i++) {
    const auto& x = a.zk.znodes[i];
    const auto& y = b.zk.znodes[i];
    INFO("znode " << x.path);
    CHECK(x.path == y.path);
    CHECK(x.data == y.data);
    CHECK(x.version == y.version);
    CHECK(x.cversion == y.cversion);
    CHECK(x.ephemeral_owner == y.ephemeral_owner);
    CHECK(x.owner_node == y.owner_node);
    CHECK(x.written_by == y.written_by);
    CHECK(x.mzxid == y.mzxid);
  }
  REQUIRE(a.zk.sessions.size() == b.zk.sessions.size());
  for (size_t i = 0; i < a.zk.sessions.size(); i++) {
    CHECK(a.zk.sessions[i].session == b.zk.sessions[i].session);
    CHECK(a.zk.sessions[i].node == b.zk.sessions[i].node);
    CHECK(a.zk.sessions[i].state == b.zk.sessions[i].state);
  }
  REQUIRE(a.zk.activity.size() == b.zk.activity.size());
  for (size_t i = 0; i < a.zk.activity.size(); i++) {
    CHECK(a.zk.activity[i].what == b.zk.activity[i].what);
    CHECK(a.zk.activity[i].path == b.zk.activity[i].path);
    CHECK(a.zk.activity[i].node == b.zk.activity[i].node);
  }
  CHECK(a.zk.watches_fired == b.zk.watches_fired);
  CHECK(a.health.under_replicated == b.health.under_replicated);
  CHECK(a.health.produce_acked == b.health.produce_acked);
}

}  // namespace

TEST_CASE("the model matches the simulator through the leader-failover story", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"));
  int32_t first_leader = -1;
  bool saw_shrink = false, saw_new_leader = false, saw_expand = false;
  // Before the crash (10 s), while the controller has not noticed (its zk session lasts 6 s),
  // after the failover, after the restart (25 s) and at the end.
  for (double seconds : {5.0, 9.5, 12.0, 17.0, 22.0, 27.0, 33.0, 40.0}) {
    session->run_to(Time{static_cast<int64_t>(seconds * 1e6)});
    const gui::DashboardModel m = session->model();
    test::check_model_against_simulator(*session, m);
    const gui::PartitionModel* p = m.partition("orders", 0);
    REQUIRE(p != nullptr);
    CHECK(p->replicas.size() == 3);
    CHECK(p->min_insync_replicas == 2);
    if (seconds == 5.0) {
      first_leader = p->leader;
      CHECK(p->isr.size() == 3);
      CHECK(p->hw > 0);
      CHECK_FALSE(p->under_replicated);
    }
    if (seconds == 12.0) {
      // The leader is dead and the controller does not know yet.
      CHECK(p->leader == first_leader);
      CHECK_FALSE(p->leader_alive);
      CHECK(m.node(first_leader)->status == gui::NodeStatus::kCrashed);
    }
    if (p->leader >= 0 && p->leader != first_leader) saw_new_leader = true;
    if (p->isr.size() == 2) saw_shrink = true;
    if (saw_shrink && p->isr.size() == 3) saw_expand = true;
  }
  CHECK(saw_new_leader);
  CHECK(saw_shrink);
  CHECK(saw_expand);
  // The verdicts are decided at the end: the story says every checker passes.
  const gui::DashboardModel end = session->model();
  REQUIRE_FALSE(end.verdicts.empty());
  for (const auto& v : end.verdicts) {
    INFO(v.checker << ": " << v.message);
    CHECK(v.state == gui::VerdictState::kPass);
  }
  for (const auto& e : session->expectations()) {
    INFO(e.name);
    CHECK(e.state == gui::VerdictState::kPass);
  }
  // The timeline has the story's turns: the crash, the new leader, the ISR shrinking and growing.
  int faults = 0, leaders = 0, shrinks = 0, expands = 0;
  for (const auto& mk : session->history().markers()) {
    faults += mk.kind == gui::MarkerKind::kFault;
    leaders += mk.kind == gui::MarkerKind::kLeader;
    shrinks += mk.kind == gui::MarkerKind::kIsrShrink;
    expands += mk.kind == gui::MarkerKind::kIsrExpand;
  }
  CHECK(faults == 1);
  CHECK(leaders >= 2);
  CHECK(shrinks >= 1);
  CHECK(expands >= 1);
  REQUIRE(session->history().fault_periods().size() == 1);
  CHECK(session->history().fault_periods()[0].start == Time{Duration::seconds(10).us});
  CHECK(session->history().fault_periods()[0].end == Time{Duration::seconds(25).us});
}

TEST_CASE("the ZooKeeper view shows who wrote what: registrations, the election, ISR writes, watches", "[gui][zk]") {
  auto session = test::live_session(test::scenario_path("leader-failover"));
  session->run_to(Time{Duration::seconds(5).us});
  gui::DashboardModel m = session->model();
  test::check_model_against_simulator(*session, m);
  // Each broker's registration is its own ephemeral znode, held by its session.
  for (int32_t b = 1; b <= 3; b++) {
    const gui::ZnodeModel* z = m.zk.znode("/brokers/ids/" + std::to_string(b));
    REQUIRE(z != nullptr);
    CHECK(z->owner_node == b);
    CHECK(z->created_by == b);
    CHECK(z->data.find("\"endpoints\"") != std::string::npos);
  }
  // The controller's election: /controller and /controller_epoch written by it, in one multi (one zxid).
  const gui::ZnodeModel* controller = m.zk.znode("/controller");
  const gui::ZnodeModel* epoch = m.zk.znode("/controller_epoch");
  REQUIRE(controller != nullptr);
  REQUIRE(epoch != nullptr);
  CHECK(controller->created_by == m.controller);
  CHECK(controller->owner_node == m.controller);
  CHECK(epoch->written_by == m.controller);
  CHECK(epoch->mzxid == controller->czxid);
  CHECK(m.zk.znode("/zookeeper/quota") != nullptr);  // restored at the server's start
  // The leader crashes at 10 s; its session expires; the controller moves the leadership, and the
  // watch on /brokers/ids fires at the controller.
  session->run_to(Time{Duration::seconds(17).us});
  m = session->model();
  test::check_model_against_simulator(*session, m);
  const gui::PartitionModel* p = m.partition("orders", 0);
  REQUIRE(p != nullptr);
  CHECK(m.zk.znode("/brokers/ids/" + std::to_string(p->leader)) != nullptr);
  const gui::ZnodeModel* state = m.zk.znode("/brokers/topics/orders/partitions/0/state");
  REQUIRE(state != nullptr);
  CHECK(state->version >= 1);
  CHECK(state->written_by == m.controller);  // the controller's conditional write of the new leader
  bool expired = false, watch_at_controller = false, expiry_delete = false;
  for (const auto& a : m.zk.activity) {
    expired = expired || (a.what == "session" && a.detail.rfind("expired", 0) == 0);
    watch_at_controller = watch_at_controller || (a.what == "watch" && a.path == "/brokers/ids" && a.node == m.controller);
    expiry_delete = expiry_delete || (a.what == "delete" && a.detail == "(its session expired)");
  }
  CHECK(expired);
  CHECK(watch_at_controller);
  CHECK(expiry_delete);
  CHECK(m.zk.watches_fired > 0);
  size_t live = 0;
  for (const auto& s : m.zk.sessions) live += s.state == "open";
  CHECK(live == 2);
}

TEST_CASE("a replayed trace gives the same model as the live run, at every time", "[gui]") {
  const std::string db = temp_path("replay.db");
  std::remove(db.c_str());
  auto live = test::live_session(test::scenario_path("leader-failover"), 7);
  REQUIRE(live->record_to(db).is_ok());
  live->run_to(live->end_time());
  REQUIRE(live->close_recording().is_ok());
  auto replay = gui::Session::replay(db);
  REQUIRE(replay.is_ok());
  gui::Session& r = **replay;
  CHECK_FALSE(r.is_live());
  CHECK(r.history().events().size() == live->history().events().size());
  CHECK(r.end_time() == live->end_time());
  CHECK(r.seed() == 7);
  for (double seconds : {3.0, 10.5, 16.0, 26.0, 39.0}) {
    const Time t{static_cast<int64_t>(seconds * 1e6)};
    r.seek(t);
    INFO("at " << seconds << " s");
    check_same_model(live->history().model_at(t, Duration::millis(100)), r.model());
  }
  // Replays are read-only.
  gui::UserAction crash;
  crash.kind = sim::FaultKind::kCrash;
  crash.targets = {1};
  CHECK_FALSE(r.act(crash).is_ok());
  std::remove(db.c_str());
}

TEST_CASE("seeking back rebuilds the model from checkpoints exactly as it was", "[gui]") {
  auto factory = gui::runner_factory_for(test::scenario_path("leader-failover"));
  REQUIRE(factory.is_ok());
  // A history with a checkpoint every 500 events, fed by the run, next to snapshots taken live.
  gui::History history({}, 4'000'000, 500);
  auto runner = (*factory)(3, [&](const TraceEvent& e) { history.add(e); });
  REQUIRE(runner.is_ok());
  history.set_defaults((*runner)->defaults());
  std::vector<std::pair<Time, gui::DashboardModel>> taken;
  for (double seconds : {4.0, 8.0, 11.0, 15.0, 19.0, 26.5, 31.0}) {
    const Time t{static_cast<int64_t>(seconds * 1e6)};
    (*runner)->run_until(t);
    taken.push_back({t, history.model_at(t, Duration::millis(50))});
  }
  (*runner)->run_until((*runner)->end_time());
  CHECK(history.checkpoints() > 10);
  for (const auto& [t, model] : taken) {
    INFO("at " << format_time(t));
    check_same_model(model, history.model_at(t, Duration::millis(50)));
  }
  // The builder at a time has exactly the events up to it.
  CHECK(history.builder_at(Time{Duration::seconds(8).us}).applied() == history.events_until(Time{Duration::seconds(8).us}));
}

TEST_CASE("user actions are recorded; a fork and a saved scenario replay them exactly", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"), 5);
  session->run_to(Time{Duration::seconds(6).us});
  // Partition a follower away from everyone, then heal, as clicks would.
  const gui::DashboardModel m = session->model();
  const gui::PartitionModel* p = m.partition("orders", 0);
  REQUIRE(p != nullptr);
  int32_t follower = -1;
  for (int32_t b : p->replicas)
    if (b != p->leader) follower = b;
  REQUIRE(follower > 0);
  gui::UserAction cut;
  cut.kind = sim::FaultKind::kPartition;
  cut.targets = {follower};
  REQUIRE(session->act(cut).is_ok());
  CHECK(session->model().node(follower)->cut_links > 0);
  session->run_to(Time{Duration::seconds(18).us});
  // Cut off for longer than replica.lag.time.max.ms (10 s here): out of the ISR.
  const gui::PartitionModel* cut_off = session->model().partition("orders", 0);
  CHECK(std::find(cut_off->isr.begin(), cut_off->isr.end(), follower) == cut_off->isr.end());
  gui::UserAction heal;
  heal.kind = sim::FaultKind::kHeal;
  REQUIRE(session->act(heal).is_ok());
  session->run_to(Time{Duration::seconds(22).us});
  REQUIRE(session->runner()->applied().size() == 2);
  CHECK(session->runner()->applied()[0].at > Time{Duration::seconds(6).us});
  const auto& events = session->history().events();
  const std::string fingerprint = session->runner()->sim().fingerprint().hex();

  // A fork at 20 s is the same world up to 20 s, and keeps both actions.
  std::vector<TraceEvent> forked;
  auto fork = session->runner()->fork(Time{Duration::seconds(20).us}, [&](const TraceEvent& e) { forked.push_back(e); });
  REQUIRE(fork->applied().size() == 2);
  fork->run_until(Time{Duration::seconds(22).us});
  REQUIRE(forked.size() == events.size());
  CHECK(forked == events);
  CHECK(fork->sim().fingerprint().hex() == fingerprint);

  // Saved as a scenario file and run again: the same events, the same fingerprint.
  const std::string path = temp_path("session.yaml");
  REQUIRE(session->save_scenario(path).is_ok());
  auto loaded = sim::load_scenario(path);
  REQUIRE(loaded.is_ok());
  CHECK(loaded->faults.size() == 4);  // the story's crash and restart, and the user's two
  sim::ScenarioRun again(*loaded, 5);
  again.run_until(Time{Duration::seconds(22).us});
  CHECK(again.fingerprint() == fingerprint);

  // A fork in the past drops what came after.
  session->seek(Time{Duration::seconds(9).us});
  CHECK(session->in_past());
  REQUIRE(session->fork_here().is_ok());
  CHECK(session->runner()->applied().size() == 1);
  CHECK(session->view_time() == Time{Duration::seconds(9).us});
  CHECK_FALSE(session->in_past());
  std::remove(path.c_str());
}

TEST_CASE("the durability controls change acks and topic configs of the running scenario", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"), 5);
  session->run_to(Time{Duration::seconds(5).us});
  REQUIRE(session->model().partition("orders", 0)->min_insync_replicas == 2);
  std::vector<TraceEvent> acks;
  session->runner()->sim().add_listener([&](const TraceEvent& e) {
    if (e.kind() == "produce_ack") acks.push_back(e);
  });

  // min.insync.replicas 2 -> 3 and unclean election on, for every topic of the scenario.
  gui::UserAction min_isr{Time{0}, sim::FaultKind::kSetConfig, {}, {}, "min.insync.replicas", "3"};
  REQUIRE(session->act(min_isr).is_ok());
  gui::UserAction unclean{Time{0}, sim::FaultKind::kSetConfig, {}, {}, "unclean.leader.election.enable", "true"};
  REQUIRE(session->act(unclean).is_ok());
  // acks=all -> 1 for every producer.
  gui::UserAction acks1{Time{0}, sim::FaultKind::kSetConfig, {}, {}, "acks", "1"};
  REQUIRE(session->act(acks1).is_ok());
  const Time acted = session->runner()->applied().back().at;
  session->run_to(Time{Duration::seconds(7).us});

  // The dashboard shows the new topic config (read from the zk write in the trace) ...
  const gui::PartitionModel* p = session->model().partition("orders", 0);
  CHECK(p->min_insync_replicas == 3);
  CHECK(p->unclean_leader_election);
  CHECK(p->at_min_isr);  // ISR 3 of min 3
  // ... which every broker applies, as the simulator holds it.
  auto& cluster = session->runner()->cluster();
  for (int32_t b = 1; b <= 3; b++) {
    auto* r = cluster.broker(b)->partition(TopicPartition{"orders", 0});
    REQUIRE(r != nullptr);
    CHECK(r->config().min_insync_replicas == 3);
    CHECK(r->config().unclean_leader_election_enable);
  }
  // The producer acknowledges with acks=1 from the change on.
  size_t before = 0, after = 0;
  for (const auto& e : acks) {
    const int64_t a = e.get_int("acks", 0);
    if (e.time <= acted) before += a == -1;
    if (e.time > acted + Duration::millis(200)) {
      after++;
      CHECK(a == 1);
    }
  }
  CHECK(after > 100);
  (void)before;

  // A bad value is refused and recorded nowhere.
  gui::UserAction bad{Time{0}, sim::FaultKind::kSetConfig, {}, {}, "min.insync.replicas", "0"};
  CHECK_FALSE(session->act(bad).is_ok());
  REQUIRE(session->runner()->applied().size() == 3);

  // Saved as a scenario file and run again: the same fingerprint.
  const std::string fingerprint = session->runner()->sim().fingerprint().hex();
  const std::string path = temp_path("set-config.yaml");
  REQUIRE(session->save_scenario(path).is_ok());
  auto loaded = sim::load_scenario(path);
  REQUIRE(loaded.is_ok());
  size_t set_configs = 0;
  for (const auto& f : loaded->faults) set_configs += f.kind == sim::FaultKind::kSetConfig;
  CHECK(set_configs == 3);
  sim::ScenarioRun again(*loaded, 5);
  again.run_until(session->runner()->now());
  CHECK(again.fingerprint() == fingerprint);
  std::remove(path.c_str());
}

TEST_CASE("the text report tells the failover story with its verdicts", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"));
  std::ostringstream out;
  gui::print_text_report(*session, out);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find("crash broker-") != std::string::npos);
  CHECK(text.find("leader_failure") != std::string::npos);
  CHECK(text.find("ISR shrinks") != std::string::npos);
  CHECK(text.find("pass  acked-write-lost") != std::string::npos);
  CHECK(text.find("No checker found a violation.") != std::string::npos);
}

TEST_CASE("times parse with units", "[gui]") {
  CHECK(*gui::parse_time("20") == Time{20'000'000});
  CHECK(*gui::parse_time("20s") == Time{20'000'000});
  CHECK(*gui::parse_time("1500ms") == Time{1'500'000});
  CHECK(*gui::parse_time("2.5s") == Time{2'500'000});
  CHECK_FALSE(gui::parse_time("soon").is_ok());
  CHECK_FALSE(gui::parse_time("-3s").is_ok());
  CHECK_FALSE(gui::parse_time("").is_ok());
}
