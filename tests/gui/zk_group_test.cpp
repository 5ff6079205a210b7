// What the Groups tab shows of a ZooKeeper-coordinated consumer group (Kafka 0.8's consumer,
// scenarios/z5-zk-consumer-rebalance.yaml), checked against the simulator: the owner of each
// partition and its offset as the zk server's tree holds them, each member's registration, session
// and what it consumes as its own, and the story's rebalances, herd, claim conflicts and the stale
// member that consumes partitions others own after its session expired. Seeking back gives the
// same group as it was.
#include <catch2/catch.hpp>

#include <cstdio>
#include <set>

#include "engine/client/zk_group_consumer.h"
#include "gui/dashboard.h"
#include "gui/headless.h"
#include "gui/model_builder.h"
#include "gui_test_support.h"

using namespace gregor;

namespace {

const std::string kGroup = "billing";

const gui::GroupModel& zk_group(const gui::DashboardModel& m) {
  const gui::GroupModel* g = m.group(kGroup);
  REQUIRE(g != nullptr);
  REQUIRE(g->coordination == "zookeeper");
  return *g;
}

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// The group in the model against the zk server's tree and the members' own state.
void check_zk_group_against_simulator(gui::Session& session, const gui::DashboardModel& m, size_t partitions = 8,
                                      int members_min = 3) {
  INFO("at " << format_time(m.now));
  sim::Simulator& s = session.runner()->sim();
  sim::Cluster& c = session.runner()->cluster();
  const gui::GroupModel& g = zk_group(m);
  CHECK(g.coordinator == -1);
  CHECK(g.generation == -1);
  coord::ZkServer* zk = c.zk();
  REQUIRE(zk != nullptr);
  const auto& tree = zk->tree();
  int owned = 0;
  for (const auto& p : g.zk.partitions) {
    INFO(p.topic << "-" << p.partition);
    const TopicPartition tp{p.topic, p.partition};
    const auto* owner = tree.find(client::ZkGroupConsumerNode::owner_path(kGroup, tp));
    if (owner) {
      CHECK(p.owner == coord::printable_data(as_view(owner->data)));
      owned++;
    } else {
      CHECK(p.owner.empty());
    }
    const auto* offset = tree.find(client::ZkGroupConsumerNode::offset_path(kGroup, tp));
    if (offset) CHECK(std::to_string(p.committed) == coord::printable_data(as_view(offset->data)));
    else CHECK(p.committed == -1);
    if (p.committed >= 0 && p.log_end >= 0) CHECK(p.lag == std::max<int64_t>(0, p.log_end - p.committed));
  }
  CHECK(g.zk.partitions.size() == partitions);
  CHECK(owned > 0);
  int members_seen = 0;
  for (NodeId id : s.node_ids()) {
    auto* node = s.node_as<client::ZkGroupConsumerNode>(id);
    if (!node) continue;
    members_seen++;
    INFO("member " << node->member_id());
    const gui::ZkGroupMemberModel* mm = g.zk.member(node->member_id());
    REQUIRE(mm != nullptr);
    CHECK(mm->client == id.value);
    CHECK(mm->alive);
    const bool registered = tree.find(client::ZkGroupConsumerNode::ids_path(kGroup) + "/" + node->member_id()) != nullptr;
    CHECK(mm->registered == registered);
    if (registered) CHECK(mm->session_state == "open");
    // What the member itself holds as owned is what it consumes as its own, except after its
    // session expired: it has forgotten them, but it still fetches them until it rebalances.
    std::set<std::string> holds;
    for (const auto& tp : node->owned()) holds.insert(tp.topic + "-" + std::to_string(tp.partition));
    const std::set<std::string> believed = as_set(mm->believed);
    for (const auto& tp : holds) CHECK(believed.count(tp) == 1);
    if (mm->session_state == "open" && !mm->rebalancing) CHECK(believed == holds);
    CHECK(mm->rebalancing == node->rebalancing());
    CHECK(mm->rebalances >= node->rebalances_done());
  }
  CHECK(members_seen >= members_min);
}

}  // namespace

TEST_CASE("the groups tab shows z5's ZooKeeper group: owners and offsets from zk and sessions", "[gui][zk]") {
  auto session = test::live_session(test::scenario_path("z5-zk-consumer-rebalance"));
  // 5 s: four members registered, each owns its range share; one rebalance (the start).
  session->run_to(Time{5'000'000});
  {
    const gui::DashboardModel m = session->model();
    check_zk_group_against_simulator(*session, m);
    const gui::GroupModel& g = zk_group(m);
    CHECK(g.state == "Stable");
    REQUIRE(g.zk.members.size() == 4);
    for (const auto& mem : g.zk.members) {
      INFO(mem.member_id);
      CHECK(mem.registered);
      CHECK(mem.owned.size() == 2);
      CHECK(as_set(mem.owned) == as_set(mem.believed));
    }
    CHECK(as_set(g.zk.member("billing-1")->owned) == std::set<std::string>{"orders-0", "orders-1"});
    CHECK(as_set(g.zk.member("billing-4")->owned) == std::set<std::string>{"orders-6", "orders-7"});
    CHECK(g.zk.rebalance_count >= 1);
    CHECK(g.zk.conflicting_partitions == 0);
  }
  // 12 s: billing-4 crashed at 8 s; its session lives on (6 s), so zk still lists it as owner.
  session->run_to(Time{12'000'000});
  int64_t rebalances_before_expiry = 0;
  {
    const gui::DashboardModel m = session->model();
    const gui::GroupModel& g = zk_group(m);
    const gui::ZkGroupMemberModel* b4 = g.zk.member("billing-4");
    REQUIRE(b4 != nullptr);
    CHECK_FALSE(b4->alive);
    CHECK(b4->registered);
    CHECK(b4->session_state == "open");
    CHECK(g.zk.partition("orders", 6)->owner == "billing-4");
    rebalances_before_expiry = g.zk.rebalance_count;
  }
  // 15 s: its session expired; the ids watch fired at each of the three others (the herd), and
  // they shared its partitions.
  session->run_to(Time{15'000'000});
  {
    const gui::DashboardModel m = session->model();
    check_zk_group_against_simulator(*session, m);
    const gui::GroupModel& g = zk_group(m);
    const gui::ZkGroupMemberModel* b4 = g.zk.member("billing-4");
    CHECK(b4->session_state == "expired");
    CHECK_FALSE(b4->registered);
    CHECK(b4->owned.empty());
    CHECK(g.zk.rebalance_count == rebalances_before_expiry + 1);
    REQUIRE_FALSE(g.zk.rebalances.empty());
    const gui::ZkRebalanceModel& r = g.zk.rebalances.back();
    CHECK_FALSE(r.open);
    CHECK(r.trigger == "members changed");
    CHECK(r.members == 3);
    CHECK(r.watches_fired == 3);
    for (int p = 0; p < 8; p++) {
      INFO("orders-" << p);
      CHECK_FALSE(g.zk.partition("orders", p)->owner.empty());
      CHECK(g.zk.partition("orders", p)->owner != "billing-4");
    }
  }
  // 21 s: billing-4 came back while billing-2 was paused; claims met NodeExists and were retried.
  session->run_to(Time{21'000'000});
  {
    const gui::DashboardModel m = session->model();
    check_zk_group_against_simulator(*session, m);
    const gui::GroupModel& g = zk_group(m);
    CHECK(g.zk.conflicts > 0);
    CHECK(g.zk.retries > 0);
    bool retried = false;
    for (const auto& r : g.zk.rebalances) retried |= r.conflicts > 0 && r.retries > 0 && r.start >= Time{16'000'000};
    CHECK(retried);
    CHECK(g.zk.member("billing-4")->session_state == "open");
    CHECK(g.zk.member("billing-4")->registered);
    CHECK(g.zk.conflicting_partitions == 0);
  }
  // 30 s: billing-1, cut from zk at 22 s, has an expired session: others own its partitions, but it
  // still consumes them. Two members consume the same partitions; records are processed again.
  session->run_to(Time{30'000'000});
  {
    const gui::DashboardModel m = session->model();
    check_zk_group_against_simulator(*session, m);
    const gui::GroupModel& g = zk_group(m);
    const gui::ZkGroupMemberModel* b1 = g.zk.member("billing-1");
    REQUIRE(b1 != nullptr);
    CHECK(b1->alive);
    CHECK(b1->session_state == "expired");
    CHECK_FALSE(b1->registered);
    CHECK(b1->owned.empty());
    CHECK(b1->stale);
    CHECK_FALSE(b1->believed.empty());
    CHECK(g.zk.conflicting_partitions > 0);
    for (const auto& p : g.zk.partitions) {
      if (!p.conflict) continue;
      INFO(p.topic << "-" << p.partition);
      CHECK(p.owner != "billing-1");
      CHECK_FALSE(p.owner.empty());
    }
    CHECK(g.zk.duplicates > 0);
  }
  // 40 s: healed at 32 s; billing-1 has a new session, registered again, and the herd rebalanced.
  session->run_to(Time{40'000'000});
  const gui::DashboardModel m = session->model();
  check_zk_group_against_simulator(*session, m);
  const gui::GroupModel& g = zk_group(m);
  const gui::ZkGroupMemberModel* b1 = g.zk.member("billing-1");
  CHECK(b1->session_state == "open");
  CHECK(b1->registered);
  CHECK_FALSE(b1->stale);
  CHECK(g.zk.conflicting_partitions == 0);
  CHECK(g.state == "Stable");
  // The herd: every rebalance after the start ran on three or four members.
  CHECK(g.zk.member_rebalances >= 3 * (g.zk.rebalance_count - 1));
  CHECK(g.zk.watches_fired >= 9);
  // The kafka-consumer-groups rows of the tab are the zk group's: owner and offset per partition.
  REQUIRE(g.offsets.size() == g.zk.partitions.size());
  for (size_t i = 0; i < g.offsets.size(); i++) {
    CHECK(g.offsets[i].member == g.zk.partitions[i].owner);
    CHECK(g.offsets[i].committed == g.zk.partitions[i].committed);
  }
  CHECK(m.group("") == nullptr);
}

TEST_CASE("seeking back shows the ZooKeeper group as it was", "[gui][zk]") {
  auto session = test::live_session(test::scenario_path("z5-zk-consumer-rebalance"));
  session->run_to(Time{30'000'000});
  const gui::DashboardModel at30 = session->model();
  session->run_to(Time{45'000'000});
  const gui::DashboardModel back = session->history().model_at(Time{30'000'000}, Duration::millis(50));
  const gui::GroupModel& a = zk_group(at30);
  const gui::GroupModel& b = zk_group(back);
  CHECK(b.zk.member("billing-1")->session_state == "expired");
  CHECK(b.zk.conflicting_partitions == a.zk.conflicting_partitions);
  CHECK(b.zk.rebalance_count == a.zk.rebalance_count);
  CHECK(b.zk.duplicates == a.zk.duplicates);
  REQUIRE(b.zk.partitions.size() == a.zk.partitions.size());
  for (size_t i = 0; i < a.zk.partitions.size(); i++) {
    CHECK(b.zk.partitions[i].owner == a.zk.partitions[i].owner);
    CHECK(b.zk.partitions[i].committed == a.zk.partitions[i].committed);
    CHECK(b.zk.partitions[i].consumers == a.zk.partitions[i].consumers);
  }
  // And the present is different: billing-1 registered again.
  CHECK(zk_group(session->model()).zk.member("billing-1")->session_state == "open");
}

TEST_CASE("a replayed z5 trace shows the same ZooKeeper group as the live run", "[gui][zk]") {
  const std::string db = std::string(GREGOR_BINARY_DIR) + "/tests/gui-zk-group-replay.db";
  std::remove(db.c_str());
  auto live = test::live_session(test::scenario_path("z5-zk-consumer-rebalance"));
  REQUIRE(live->record_to(db).is_ok());
  live->run_to(Time{45'000'000});
  REQUIRE(live->close_recording().is_ok());
  auto replay = gui::Session::replay(db);
  REQUIRE(replay.is_ok());
  gui::Session& r = **replay;
  for (double seconds : {5.0, 15.0, 17.0, 30.0, 44.0}) {
    const Time t{static_cast<int64_t>(seconds * 1e6)};
    r.seek(t);
    INFO("at " << seconds << " s");
    const gui::DashboardModel live_model = live->history().model_at(t, Duration::millis(100));
    const gui::DashboardModel replay_model = r.model();
    const gui::GroupModel& a = zk_group(live_model);
    const gui::GroupModel& b = zk_group(replay_model);
    CHECK(a.state == b.state);
    CHECK(a.zk.rebalance_count == b.zk.rebalance_count);
    CHECK(a.zk.watches_fired == b.zk.watches_fired);
    CHECK(a.zk.conflicts == b.zk.conflicts);
    CHECK(a.zk.duplicates == b.zk.duplicates);
    REQUIRE(a.zk.members.size() == b.zk.members.size());
    for (size_t i = 0; i < a.zk.members.size(); i++) {
      CHECK(a.zk.members[i].member_id == b.zk.members[i].member_id);
      CHECK(a.zk.members[i].session_state == b.zk.members[i].session_state);
      CHECK(a.zk.members[i].owned == b.zk.members[i].owned);
      CHECK(a.zk.members[i].believed == b.zk.members[i].believed);
    }
    REQUIRE(a.zk.partitions.size() == b.zk.partitions.size());
    for (size_t i = 0; i < a.zk.partitions.size(); i++) {
      CHECK(a.zk.partitions[i].owner == b.zk.partitions[i].owner);
      CHECK(a.zk.partitions[i].committed == b.zk.partitions[i].committed);
      CHECK(a.zk.partitions[i].consumers == b.zk.partitions[i].consumers);
    }
  }
  std::remove(db.c_str());
}

TEST_CASE("a member whose rebalance retries ran out is shown failed and owning nothing", "[gui][zk]") {
  // As tests/groups/zk_group_test.cpp's case: billing-2 is cut from zk until 5 s, so billing-1 claims
  // all four partitions and is then paused (4 s); billing-2's claims meet billing-1's owner znodes
  // twice and it gives up. When billing-1's session expires (about 10 s) billing-2 takes everything.
  const std::string path = std::string(GREGOR_BINARY_DIR) + "/tests/gui-zk-group-retries.yaml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs(R"(name: zk-group-retries
cluster:
  brokers: 3
topics:
  - name: orders
    partitions: 4
    replication-factor: 3
producers:
  - name: producer-1
    topic: orders
    rate: 100/s
    start: 2s
    stop: 12s
    config: {acks: all, enable.idempotence: true}
groups:
  - name: billing
    coordination: zookeeper
    topics: [orders]
    members: 2
    delivery: at-least-once
    start: 1s
    config: {rebalance.max.retries: 2, rebalance.backoff.ms: 500, zookeeper.session.timeout.ms: 6000}
faults:
  - at: 0s
    partition: [[billing-2], [zookeeper]]
  - at: 4s
    pause: billing-1
  - at: 5s
    heal: all
length: 30s
)",
               f);
    std::fclose(f);
  }
  auto session = test::live_session(path);
  session->run_to(Time{8'000'000});
  {
    const gui::DashboardModel m = session->model();
    check_zk_group_against_simulator(*session, m, 4, 2);
    const gui::GroupModel& g = zk_group(m);
    const gui::ZkGroupMemberModel* b2 = g.zk.member("billing-2");
    REQUIRE(b2 != nullptr);
    CHECK(b2->failed == 1);
    CHECK(b2->registered);
    CHECK(b2->owned.empty());
    CHECK(b2->believed.empty());
    CHECK(g.zk.failed == 1);
    CHECK(g.zk.conflicts >= 2);
    bool failed_rebalance = false;
    for (const auto& r : g.zk.rebalances) failed_rebalance |= r.failed == 1 && r.conflicts >= 2;
    CHECK(failed_rebalance);
    CHECK(as_set(g.zk.member("billing-1")->owned) == std::set<std::string>{"orders-0", "orders-1", "orders-2", "orders-3"});
  }
  session->run_to(Time{15'000'000});
  const gui::DashboardModel m = session->model();
  check_zk_group_against_simulator(*session, m, 4, 2);
  const gui::GroupModel& g = zk_group(m);
  CHECK(as_set(g.zk.member("billing-2")->owned) == std::set<std::string>{"orders-0", "orders-1", "orders-2", "orders-3"});
  const gui::ZkGroupMemberModel* b1 = g.zk.member("billing-1");
  CHECK(b1->session_state == "expired");
  // Still paused, it has not heard: it would go on with all four when it wakes up.
  CHECK(b1->stale);
  CHECK(g.zk.conflicting_partitions == 4);
  std::remove(path.c_str());
}

TEST_CASE("the groups tab draws a ZooKeeper group headless", "[gui][zk]") {
  auto session = test::live_session(test::scenario_path("z5-zk-consumer-rebalance"));
  session->run_to(Time{30'000'000});
  gui::DashboardOptions options;
  options.view = "groups";
  gui::Dashboard dashboard(std::move(session), options);
  gui::HeadlessDriver driver(dashboard, 1600, 900);
  const gui::HeadlessReport r = driver.settle();
  CHECK(r.draw_data_valid);
  CHECK(r.vertices > 1000);
}
