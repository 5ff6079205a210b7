// What the dashboard shows of transactions and of a replicated zk ensemble, checked against the
// trace and the simulator: the LSO of each partition (the one txn_marker_append states, and the
// leader's own), the markers in every replica's log, the transactions list with its states and a
// fenced zombie; each zk server's role, epoch and leader, and the new leader after z1's crash.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "engine/broker/broker.h"
#include "gui/dashboard.h"
#include "gui/headless.h"
#include "gui/model_builder.h"
#include "gui_test_support.h"

using namespace gregor;

namespace {

// The LSO the dashboard shows against the leader's own (Partition::last_stable_offset), for the
// scenario's topics. Returns how many partitions were compared.
int check_lso_against_simulator(gui::Session& session, const gui::DashboardModel& m) {
  sim::Cluster& c = session.runner()->cluster();
  int compared = 0;
  for (const auto& p : m.partitions) {
    if (p.internal || p.leader < 0) continue;
    INFO(p.topic << "-" << p.partition << " at " << format_time(m.now));
    broker::Broker* b = c.broker(p.leader);
    if (!b) continue;
    broker::Partition* part = b->partition({p.topic, p.partition});
    if (!part || !part->is_leader() || part->leader_epoch() != LeaderEpoch{p.leader_epoch}) continue;
    auto lso = part->last_stable_offset();
    if (!lso.is_ok()) continue;
    CHECK(p.lso == lso->value);
    CHECK(p.lso <= p.hw);
    compared++;
  }
  return compared;
}

const char* peer_state_name(coord::PeerState s) {
  switch (s) {
    case coord::PeerState::kLooking: return "looking";
    case coord::PeerState::kFollowing: return "following";
    case coord::PeerState::kLeading: return "leading";
  }
  return "?";
}

// Each zk server's row against the server in the simulator: its role, epoch and leader.
void check_ensemble_against_simulator(gui::Session& session, const gui::DashboardModel& m) {
  sim::Simulator& s = session.runner()->sim();
  sim::Cluster& c = session.runner()->cluster();
  REQUIRE(m.zk.ensemble.size() == c.zk_ids().size());
  for (NodeId id : c.zk_ids()) {
    INFO("zk server " << id.value << " at " << format_time(m.now));
    const gui::ZkServerModel* z = m.zk.server_model(id.value);
    REQUIRE(z != nullptr);
    auto* server = s.node_as<coord::ZkServer>(id);
    if (!server || s.state(id) != sim::NodeState::kRunning) {
      CHECK(z->role == "down");
      continue;
    }
    // A server that is looking again has said so (zk_election); one that leads or follows has too.
    CHECK(z->role == peer_state_name(server->peer_state()));
    if (server->peer_state() != coord::PeerState::kLooking) {
      CHECK(z->epoch == server->current_epoch());
      CHECK(z->leader == server->leader_id());
    }
    CHECK(z->zxid <= server->last_logged_zxid());
  }
}

}  // namespace

TEST_CASE("the LSO each txn_marker_append states is the one the dashboard model shows", "[gui][txn]") {
  for (const char* scenario : {"s12-transactions", "s13-zombie-producer"}) {
    INFO(scenario);
    auto session = test::live_session(test::scenario_path(scenario));
    session->run_to(Time{40'000'000});
    // A model built from the trace, event by event; after each marker the LSO it shows for that
    // partition is the one the leader computed (the event's lso field; the builder does not read it).
    gui::ModelBuilder b(session->runner()->defaults());
    int markers = 0, held_back = 0, commits = 0, aborts = 0;
    for (const TraceEvent& e : session->history().events()) {
      b.apply(e);
      const auto* mk = e.as<ev::TxnMarkerAppend>();
      if (!mk || gui::is_internal_topic(mk->topic)) continue;
      const gui::DashboardModel m = b.snapshot(e.time, Duration::millis(100));
      const gui::PartitionModel* p = m.partition(mk->topic, mk->partition);
      REQUIRE(p != nullptr);
      INFO(mk->topic << "-" << mk->partition << " marker at " << mk->offset << " at " << format_time(e.time));
      CHECK(p->lso == mk->lso);
      held_back += p->lso < p->hw;
      markers++;
      (mk->result == "commit" ? commits : aborts)++;
      // The marker is in the leader's row, in its own color.
      for (const auto& row : p->rows) {
        if (row.broker != e.node.value) continue;
        const auto& list = mk->result == "commit" ? row.commit_markers : row.abort_markers;
        CHECK(std::find(list.begin(), list.end(), mk->offset) != list.end());
      }
    }
    CHECK(markers > 100);
    CHECK(commits > 0);
    CHECK(aborts > 0);
    // Markers of one partition go in while the producer's next transaction is open on another
    // only rarely; the LSO equal to the HW at every marker would mean none was ever held back.
    INFO("markers " << markers << ", LSO below the HW at " << held_back);
  }
}

TEST_CASE("the dashboard's LSO is the leader's and markers are in every in-sync replica's log", "[gui][txn]") {
  auto session = test::live_session(test::scenario_path("s12-transactions"));
  int compared = 0, below_hw = 0;
  for (int ms = 3000; ms <= 40000; ms += 773) {
    session->run_to(Time{ms * 1000LL});
    const gui::DashboardModel m = session->model();
    compared += check_lso_against_simulator(*session, m);
    for (const auto& p : m.partitions)
      if (!p.internal) below_hw += p.lso < p.hw;
  }
  CHECK(compared > 100);
  // Transactions of 40 records at 200/s are open most of the time: the LSO trails the HW.
  CHECK(below_hw > 10);

  // At the end, every replica that caught up holds the leader's markers, and aborted records.
  session->run_to(Time{44'000'000});
  const gui::DashboardModel m = session->model();
  const gui::PartitionModel* p = m.partition("orders", 0);
  REQUIRE(p != nullptr);
  CHECK(p->commit_markers > 10);
  CHECK(p->abort_markers > 5);
  for (const auto& row : p->rows) {
    INFO("broker " << row.broker);
    if (!row.in_isr) continue;
    CHECK(row.commit_markers.size() == static_cast<size_t>(p->commit_markers));
    CHECK(row.abort_markers.size() == static_cast<size_t>(p->abort_markers));
    CHECK_FALSE(row.aborted.empty());
    // Aborted records lie below an abort marker, never after the last one.
    CHECK(row.aborted.back().end <= row.abort_markers.back());
  }
}

TEST_CASE("the transactions list follows the coordinator and shows the fenced zombie", "[gui][txn]") {
  auto session = test::live_session(test::scenario_path("s13-zombie-producer"));
  session->run_to(Time{15'000'000});
  {
    const gui::DashboardModel m = session->model();
    REQUIRE(m.transactions.size() == 1);
    const gui::TransactionModel& t = m.transactions.front();
    CHECK(t.transactional_id == "orders-writer");
    CHECK(t.producer_epoch == 0);
    CHECK(t.commits > 5);
    CHECK(t.aborts > 2);
    const std::set<std::string> states{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort"};
    CHECK(states.count(t.state) == 1);
    CHECK(t.coordinator > 0);
    REQUIRE(t.clients.size() == 1);
    // The history shows every step of a commit and of an abort.
    std::set<std::string> seen;
    for (const auto& h : t.history) seen.insert(h.state);
    for (const char* s : {"Ongoing", "PrepareCommit", "CompleteCommit", "PrepareAbort", "CompleteAbort"}) CHECK(seen.count(s) == 1);
  }
  session->run_to(Time{30'000'000});
  const gui::DashboardModel m = session->model();
  const gui::TransactionModel* t = m.transaction("orders-writer");
  REQUIRE(t != nullptr);
  // producer-2's InitProducerId bumped the epoch; producer-1 is the zombie, fenced.
  CHECK(t->producer_epoch >= 1);
  REQUIRE(t->clients.size() == 2);
  int fenced_zombie = 0, current = 0;
  for (const auto& c : t->clients) {
    INFO("client " << c.client << " epoch " << c.epoch << " outcome " << c.outcome);
    fenced_zombie += c.fenced && c.client == t->clients.front().client;
    current += c.producer_id == t->producer_id && c.epoch == t->producer_epoch && !c.fenced;
  }
  CHECK(fenced_zombie == 1);  // producer-1, the first instance
  CHECK(current == 1);
  // The coordinator's history shows the epoch bump of producer-2's InitProducerId.
  bool bumped = false;
  for (size_t i = 1; i < t->history.size(); i++) bumped |= t->history[i].producer_epoch > t->history[i - 1].producer_epoch;
  CHECK(bumped);
  // The coordinator in the list is the one in the simulator.
  broker::Broker* coordinator = session->runner()->cluster().broker(t->coordinator);
  REQUIRE(coordinator != nullptr);
}

TEST_CASE("the ensemble view shows each zk server's role and the new leader after z1's crash", "[gui][zk]") {
  auto session = test::live_session(test::scenario_path("z1-zk-leader-crash"));
  session->run_to(Time{9'000'000});
  int32_t old_leader = -1;
  int64_t old_epoch = 0;
  {
    const gui::DashboardModel m = session->model();
    check_ensemble_against_simulator(*session, m);
    REQUIRE(m.zk.ensemble.size() == 3);
    old_leader = m.zk.ensemble_leader;
    old_epoch = m.zk.ensemble_epoch;
    REQUIRE(old_leader > 1000);
    CHECK(old_leader == session->runner()->cluster().zk_leader().value_or(-1));
    int followers = 0, sessions = 0;
    for (const auto& z : m.zk.ensemble) {
      followers += z.role == "following" && z.leader == old_leader;
      sessions += z.sessions;
    }
    CHECK(followers == 2);
    CHECK(sessions >= 3);  // the three brokers (and the clients that use zk) are connected somewhere
    CHECK(m.zk.last_commit_zxid > 0);
    CHECK(m.zk.last_commit_acks.size() >= 2);  // a quorum of three, the leader included
  }
  // 10 s: the zk leader crashes. The two others elect a new leader in a newer epoch.
  session->run_to(Time{20'000'000});
  {
    const gui::DashboardModel m = session->model();
    check_ensemble_against_simulator(*session, m);
    CHECK(m.zk.server_model(old_leader)->role == "down");
    CHECK(m.zk.ensemble_leader > 1000);
    CHECK(m.zk.ensemble_leader != old_leader);
    CHECK(m.zk.ensemble_leader == session->runner()->cluster().zk_leader().value_or(-1));
    CHECK(m.zk.ensemble_epoch > old_epoch);
    // The survivors went looking, and their role history says so.
    for (const auto& z : m.zk.ensemble) {
      if (z.id == old_leader) continue;
      CHECK(z.elections >= 1);
      bool looked = false;
      for (const auto& span : z.spans) looked |= span.role == "looking" && span.from >= Time{10'000'000};
      CHECK(looked);
    }
    // Nobody is connected to the crashed server.
    CHECK(m.zk.server_model(old_leader)->sessions == 0);
  }
  // 25 s: the old leader comes back, is synced and follows.
  session->run_to(Time{32'000'000});
  const gui::DashboardModel m = session->model();
  check_ensemble_against_simulator(*session, m);
  const gui::ZkServerModel* back = m.zk.server_model(old_leader);
  REQUIRE(back != nullptr);
  CHECK(back->role == "following");
  CHECK(back->leader == m.zk.ensemble_leader);
  CHECK_FALSE(back->last_sync.empty());
}

TEST_CASE("the transactions and ensemble views draw headless", "[gui][txn][zk]") {
  struct Case {
    const char* scenario;
    double at;
    const char* view;
  };
  for (Case k : {Case{"s12-transactions", 14, "txn"}, Case{"s12-transactions", 14, "partition"},
                 Case{"s13-zombie-producer", 25, "txn"}, Case{"z1-zk-leader-crash", 27, "zk"}}) {
    INFO(k.scenario << " " << k.view);
    auto session = test::live_session(test::scenario_path(k.scenario));
    session->run_to(Time{static_cast<int64_t>(k.at * 1e6)});
    gui::DashboardOptions options;
    options.view = k.view;
    gui::Dashboard dashboard(std::move(session), options);
    gui::HeadlessDriver driver(dashboard, 1600, 900);
    const gui::HeadlessReport r = driver.settle();
    CHECK(r.draw_data_valid);
    CHECK(r.vertices > 1000);
  }
}
