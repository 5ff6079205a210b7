// What the dashboard shows of runs with consumer groups: the internal topic __consumer_offsets
// (50 partitions) listed after the scenario's topics and never the default partition; the
// Consumer groups tab's members, assignments and committed offsets against the consumers in the
// simulator, through a coordinator failover and a rebalance; and the story text unwrapped.
#include <catch2/catch.hpp>

#include <set>

#include "engine/broker/broker.h"
#include "engine/client/consumer_node.h"
#include "gui/dashboard.h"
#include "gui/headless.h"
#include "gui_test_support.h"

using namespace gregor;

namespace {

std::string tp_text(const TopicPartition& tp) { return tp.topic + "-" + std::to_string(tp.partition); }

// A group's row as the brokers in the simulator hold it: the offset committed at the group's
// coordinator and the partition's high watermark at its leader (-1 for what is not known there).
struct BrokerSide {
  int64_t committed = -1;
  int64_t high_watermark = -1;
};
BrokerSide broker_side(gui::Session& session, const std::string& group, int32_t coordinator, const TopicPartition& tp) {
  sim::Cluster& cluster = session.runner()->cluster();
  BrokerSide out;
  broker::Broker* c = cluster.broker(coordinator);
  if (const group::GroupMetadata* g = c ? c->group_coordinator().group(group) : nullptr) {
    auto it = g->offsets.find(tp);
    if (it != g->offsets.end()) out.committed = it->second.offset;
  }
  auto leader = cluster.leader(tp);
  if (leader && *leader > 0)
    if (broker::Broker* l = cluster.broker(*leader))
      if (broker::Partition* p = l->partition(tp)) out.high_watermark = p->high_watermark().value;
  return out;
}

// Each member the dashboard lists is a running consumer in the simulator with that member id and
// that assignment; each --describe row's owner is the member assigned the partition, and its
// offsets are the brokers' own: the committed offset at the coordinator, the log end (what a
// consumer can read: the high watermark) at the leader, the lag between them. Returns the number
// of rows whose offsets were compared.
int check_groups_against_simulator(gui::Session& session, const gui::DashboardModel& m) {
  sim::Simulator& s = session.runner()->sim();
  int compared = 0;
  for (const auto& g : m.groups) {
    INFO("group " << g.group << " at " << format_time(m.now));
    for (const auto& member : g.members) {
      INFO("member " << member.member_id);
      REQUIRE(member.client > 0);
      auto* node = s.node_as<client::ConsumerNode>(NodeId{member.client});
      REQUIRE(node != nullptr);
      CHECK(node->consumer().member_id() == member.member_id);
      std::set<std::string> in_sim, shown(member.assignment.begin(), member.assignment.end());
      for (const auto& tp : node->consumer().assignment()) in_sim.insert(tp_text(tp));
      CHECK(shown == in_sim);
    }
    for (const auto& o : g.offsets) {
      const std::string tp = o.topic + "-" + std::to_string(o.partition);
      INFO(tp);
      if (o.member.empty()) continue;
      bool owner_lists_it = false;
      for (const auto& member : g.members)
        if (member.member_id == o.member)
          owner_lists_it = std::find(member.assignment.begin(), member.assignment.end(), tp) != member.assignment.end();
      CHECK(owner_lists_it);
      const BrokerSide b = broker_side(session, g.group, g.coordinator, TopicPartition{o.topic, o.partition});
      if (b.committed < 0 || b.high_watermark < 0) continue;  // the coordinator or leader is down just now
      CHECK(o.committed == b.committed);
      CHECK(o.log_end == b.high_watermark);
      CHECK(o.lag == b.high_watermark - b.committed);
      compared++;
    }
  }
  return compared;
}

}  // namespace

TEST_CASE("internal topics come after the scenario's topics, and orders-0 is the partition shown", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"));
  session->run_to(Time{Duration::seconds(19).us});
  const gui::DashboardModel m = session->model();
  // The group's FindCoordinator made the brokers create __consumer_offsets (50 partitions).
  REQUIRE(m.internal_partitions() == 50);
  REQUIRE(m.partitions.size() == 51);
  CHECK(m.partitions.front().topic == "orders");
  CHECK_FALSE(m.partitions.front().internal);
  for (size_t i = 1; i < m.partitions.size(); i++) {
    CHECK(m.partitions[i].internal);
    CHECK(m.partitions[i].topic == "__consumer_offsets");
  }
  REQUIRE(m.default_partition() != nullptr);
  CHECK(m.default_partition()->topic == "orders");
  CHECK(m.default_partition()->partition == 0);
  // At 19 s the old leader is out of every ISR: Kafka's metric counts all 51 partitions, the
  // dashboard's tiles the scenario's one (plus the internal ones, said apart).
  CHECK(m.health.under_replicated - m.health.internal_under_replicated == 1);
  CHECK(m.health.internal_under_replicated > 0);
  CHECK(m.health.internal_offline == 0);
  // The internal partitions' leader and ISR changes are marked as internal on the timeline.
  bool internal_marker = false, orders_marker = false;
  for (const auto& mk : session->history().markers()) {
    if (mk.label.rfind("__consumer_offsets-", 0) == 0) {
      internal_marker = true;
      CHECK(mk.internal);
    }
    if (mk.label.rfind("orders-0 ", 0) == 0) {
      orders_marker = true;
      CHECK_FALSE(mk.internal);
    }
  }
  CHECK(internal_marker);
  CHECK(orders_marker);
  test::check_model_against_simulator(*session, m);
}

TEST_CASE("the dashboard opens on orders-0, not on __consumer_offsets-0", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"));
  session->run_to(Time{Duration::seconds(14).us});
  gui::Dashboard dashboard(std::move(session), {});
  gui::HeadlessDriver driver(dashboard, 1600, 900);
  driver.settle(2);
  CHECK(dashboard.shown_partition() == "orders-0");
  for (const char* view : {"topics", "groups", "events", "partition"}) {
    REQUIRE(dashboard.show_view(view));
    driver.settle(2);
  }
  CHECK(dashboard.shown_partition() == "orders-0");
}

TEST_CASE("the consumer groups tab shows billing as the consumers hold it, across the failover", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"));
  int32_t first_coordinator = -1;
  int compared = 0;
  bool moved_while_down = false;
  for (double seconds : {8.0, 12.0, 20.0, 30.0, 40.0}) {
    session->run_to(Time{static_cast<int64_t>(seconds * 1e6)});
    const gui::DashboardModel m = session->model();
    INFO("at " << seconds << " s");
    const gui::GroupModel* g = m.group("billing");
    REQUIRE(g != nullptr);
    compared += check_groups_against_simulator(*session, m);
    CHECK(g->state == "Stable");
    CHECK(g->members.size() == 2);
    REQUIRE(g->offsets.size() == 1);
    const auto& row = g->offsets.front();
    CHECK(row.topic == "orders");
    CHECK(row.partition == 0);
    CHECK(row.committed > 0);
    CHECK(row.log_end >= row.committed);
    CHECK_FALSE(row.member.empty());
    CHECK(row.client > 0);
    CHECK(g->consumed > 0);
    REQUIRE(g->coordinator > 0);
    if (seconds == 8.0) first_coordinator = g->coordinator;
    if (seconds == 12.0) {
      // The story crashes the leader of orders-0, which need not be billing's coordinator: crash
      // the coordinator too, so that the group must move (broker 3 is left alone until 25 s).
      gui::UserAction crash;
      crash.kind = sim::FaultKind::kCrash;
      crash.targets = {first_coordinator};
      REQUIRE(session->act(crash).is_ok());
    }
    for (const auto& mem : g->members) CHECK((mem.client_name == "billing-1" || mem.client_name == "billing-2"));
    if (seconds >= 20.0) {
      // The coordinator crashed at 12 s; another broker loaded the group from __consumer_offsets
      // and took the commits.
      const gui::NodeModel* c = m.node(g->coordinator);
      REQUIRE(c != nullptr);
      if (m.node(first_coordinator)->status != gui::NodeStatus::kAlive) {
        CHECK(g->coordinator != first_coordinator);
        moved_while_down = true;
      }
    }
  }
  CHECK(moved_while_down);  // the first coordinator is down from 12 s: the check above ran
  CHECK(compared >= 4);     // and the offsets were compared with the brokers' at most samples
  // The lag over time is sampled for the chart.
  bool lag_sampled = false;
  for (const auto& s : session->history().series()) lag_sampled = lag_sampled || s.group_lag.count("billing");
  CHECK(lag_sampled);
}

TEST_CASE("the consumer groups tab follows a rebalance: a paused member expires, then rejoins", "[gui]") {
  auto session = test::live_session(test::scenario_path("s10-rebalance-duplicates"));
  struct Expect {
    double seconds;
    size_t members;
  };
  int32_t generation_before = -1;
  // billing-1 pauses at 12 s (session.timeout.ms 6000) and resumes at 24 s.
  for (Expect e : {Expect{10, 2}, Expect{22, 1}, Expect{35, 2}}) {
    session->run_to(Time{static_cast<int64_t>(e.seconds * 1e6)});
    const gui::DashboardModel m = session->model();
    INFO("at " << e.seconds << " s");
    const gui::GroupModel* g = m.group("billing");
    REQUIRE(g != nullptr);
    CHECK(g->state == "Stable");
    CHECK(g->members.size() == e.members);
    CHECK(check_groups_against_simulator(*session, m) > 0);
    size_t assigned = 0;
    for (const auto& mem : g->members) assigned += mem.assignment.size();
    CHECK(assigned == 2);  // orders has two partitions, always both assigned
    if (e.seconds == 10) generation_before = g->generation;
    if (e.seconds == 22) {
      CHECK(g->generation > generation_before);
      REQUIRE(g->members.size() == 1);
      CHECK(g->members.front().client_name == "billing-2");
    }
    if (e.seconds == 35) CHECK(g->generation > generation_before + 1);
  }
}

TEST_CASE("the story's hand-wrapped lines are joined; paragraphs and list items stay", "[gui]") {
  const std::string yaml_story =
      "The default demo: what Kafka's replication is for.\n"
      "\n"
      "What happens. Three brokers hold topic orders (one partition,\n"
      "min.insync.replicas=2). A consumer\n"
      "group, billing, reads the topic.\n"
      "\n"
      "\n"
      "What happens.\n"
      "1. 2s-10s: the producer's records are acknowledged, in their\n"
      "   page caches (written, not fsynced).\n"
      "2) 10s: the rack loses power.\n"
      "- a bullet\n"
      "    an indented example\n"
      "after it.\n";
  CHECK(gui::unwrap_paragraphs(yaml_story) ==
        "The default demo: what Kafka's replication is for.\n"
        "\n"
        "What happens. Three brokers hold topic orders (one partition, min.insync.replicas=2). A consumer group, "
        "billing, reads the topic.\n"
        "\n"
        "What happens.\n"
        "1. 2s-10s: the producer's records are acknowledged, in their page caches (written, not fsynced).\n"
        "2) 10s: the rack loses power.\n"
        "- a bullet an indented example after it.");
  CHECK(gui::unwrap_paragraphs("") == "");
  CHECK(gui::unwrap_paragraphs("one\ntwo\n") == "one two");
  // The real story: no line break is left inside a paragraph.
  auto session = test::live_session(test::scenario_path("leader-failover"));
  const auto story = session->story();
  REQUIRE(story.size() == 1);
  const std::string text = gui::unwrap_paragraphs(story[0].text);
  CHECK(text.find("A consumer group, billing, reads the topic") != std::string::npos);
  for (size_t i = text.find('\n'); i != std::string::npos; i = text.find('\n', i + 2)) {
    INFO(text.substr(0, i));
    REQUIRE(i + 1 < text.size());
    CHECK(text[i + 1] == '\n');  // every break is a paragraph break
  }
  // A recorded trace keeps the whole story, not its first line.
  const auto parsed = gui::parse_story(gui::format_story(story));
  REQUIRE(parsed.size() == 1);
  CHECK(parsed[0].at == story[0].at);
  CHECK(parsed[0].text + "\n" == story[0].text);
}
