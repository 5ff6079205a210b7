// Watches: one-shot, the right event for each kind of watch, delivered in the order of the
// changes, before any reply that shows the change, and re-registered after a reconnect.
#include <catch2/catch.hpp>

#include "zk_harness.h"

using namespace gregor;
using namespace gregor::coord;
using namespace gregor::coord::testing;

TEST_CASE("zk: a data watch fires once", "[zk][watch]") {
  ZkWorld w(40);
  ZkTestClient* a = w.add_client(NodeId{2});
  ZkTestClient* b = w.add_client(NodeId{3});
  REQUIRE(w.create(b, "/x", "0") == ZkError::kOk);
  REQUIRE(w.get(a, "/x", nullptr, nullptr, true) == ZkError::kOk);
  REQUIRE(w.set(b, "/x", "1") == ZkError::kOk);
  REQUIRE(w.set(b, "/x", "2") == ZkError::kOk);
  REQUIRE(w.remove(b, "/x") == ZkError::kOk);
  w.sim.run_for(Duration::seconds(1));
  REQUIRE(a->events.size() == 1);
  CHECK(a->events[0] == WatchEvent{WatchType::kNodeDataChanged, "/x"});
  CHECK(b->events.empty());  // b never asked for a watch
  CHECK(w.server()->watch_count() == 0);
}

TEST_CASE("zk: each kind of watch hears its event", "[zk][watch]") {
  ZkWorld w(41);
  ZkTestClient* a = w.add_client(NodeId{2});
  ZkTestClient* b = w.add_client(NodeId{3});

  // exists on a missing node: NodeCreated.
  std::optional<Stat> st;
  REQUIRE(w.exists(a, "/n", true, &st) == ZkError::kOk);
  CHECK_FALSE(st.has_value());
  REQUIRE(w.create(b, "/n") == ZkError::kOk);
  REQUIRE(w.run_until([&] { return a->events.size() == 1; }, Duration::seconds(1)));
  CHECK(a->events.back() == WatchEvent{WatchType::kNodeCreated, "/n"});

  // get_children: NodeChildrenChanged on a create below and on a delete below.
  REQUIRE(w.children(a, "/n", nullptr, true) == ZkError::kOk);
  REQUIRE(w.create(b, "/n/c") == ZkError::kOk);
  REQUIRE(w.run_until([&] { return a->events.size() == 2; }, Duration::seconds(1)));
  CHECK(a->events.back() == WatchEvent{WatchType::kNodeChildrenChanged, "/n"});
  REQUIRE(w.children(a, "/n", nullptr, true) == ZkError::kOk);
  REQUIRE(w.set(b, "/n/c", "data changes do not count") == ZkError::kOk);
  REQUIRE(w.remove(b, "/n/c") == ZkError::kOk);
  REQUIRE(w.run_until([&] { return a->events.size() == 3; }, Duration::seconds(1)));
  CHECK(a->events.back() == WatchEvent{WatchType::kNodeChildrenChanged, "/n"});

  // A data watch and a child watch on the same node that is deleted: one NodeDeleted event.
  REQUIRE(w.get(a, "/n", nullptr, nullptr, true) == ZkError::kOk);
  REQUIRE(w.children(a, "/n", nullptr, true) == ZkError::kOk);
  REQUIRE(w.remove(b, "/n") == ZkError::kOk);
  w.sim.run_for(Duration::seconds(1));
  REQUIRE(a->events.size() == 4);
  CHECK(a->events.back() == WatchEvent{WatchType::kNodeDeleted, "/n"});

  // A get_data on a missing node leaves no watch (ZooKeeper's rule); exists does.
  REQUIRE(w.get(a, "/m", nullptr, nullptr, true) == ZkError::kNoNode);
  REQUIRE(w.create(b, "/m") == ZkError::kOk);
  w.sim.run_for(Duration::seconds(1));
  CHECK(a->events.size() == 4);
}

TEST_CASE("zk: watch events arrive in the order of the changes", "[zk][watch]") {
  ZkWorld w(42);
  ZkTestClient* a = w.add_client(NodeId{2});
  ZkTestClient* b = w.add_client(NodeId{3});
  std::vector<std::string> paths;
  for (int i = 0; i < 20; i++) paths.push_back("/p" + std::to_string(i));
  for (const auto& p : paths) REQUIRE(w.create(b, p) == ZkError::kOk);
  for (const auto& p : paths) REQUIRE(w.get(a, p, nullptr, nullptr, true) == ZkError::kOk);
  // b changes them in a shuffled order, pipelined (all in flight at once).
  std::vector<std::string> order = paths;
  Rng rng(7);
  for (size_t i = order.size(); i > 1; i--) std::swap(order[i - 1], order[rng.uniform(i)]);
  size_t acked = 0;
  for (const auto& p : order) b->zk.set_data(p, to_bytes("v"), 0, [&](ZkError e, Stat) {
    CHECK(e == ZkError::kOk);
    acked++;
  });
  REQUIRE(w.run_until([&] { return a->events.size() == order.size(); }, Duration::seconds(5)));
  for (size_t i = 0; i < order.size(); i++) CHECK(a->events[i] == WatchEvent{WatchType::kNodeDataChanged, order[i]});
}

TEST_CASE("zk: a client sees the watch event before it sees the new data", "[zk][watch]") {
  for (uint64_t seed = 43; seed < 53; seed++) {
    ZkWorld w(seed);
    ZkTestClient* a = w.add_client(NodeId{2});
    ZkTestClient* b = w.add_client(NodeId{3});
    REQUIRE(w.create(b, "/leader", "1") == ZkError::kOk);
    REQUIRE(w.get(a, "/leader", nullptr, nullptr, true) == ZkError::kOk);
    // a polls the node continuously while b changes it: the first reply that shows the new
    // version must come after the event.
    bool saw_new = false;
    int polls = 0;
    std::function<void()> poll = [&] {
      a->zk.get_data("/leader", false, [&](ZkError e, Bytes, Stat s) {
        REQUIRE(e == ZkError::kOk);
        polls++;
        if (s.version >= 1) {
          CHECK(a->events.size() == 1);  // the event came first
          saw_new = true;
          return;
        }
        poll();
      });
    };
    poll();
    w.sim.run_for(Duration::millis(static_cast<int64_t>(seed % 7) + 3));
    b->zk.set_data("/leader", to_bytes("2"), 0, [](ZkError e, Stat) { CHECK(e == ZkError::kOk); });
    REQUIRE(w.run_until([&] { return saw_new; }, Duration::seconds(5)));
    CHECK(polls > 1);
    REQUIRE(a->events.size() == 1);
    CHECK(a->events[0] == WatchEvent{WatchType::kNodeDataChanged, "/leader"});
  }
}

TEST_CASE("zk: watches survive a reconnect and report what changed meanwhile", "[zk][watch]") {
  ZkWorld w(53);
  ZkTestClient* a = w.add_client(NodeId{2});
  ZkTestClient* b = w.add_client(NodeId{3});
  REQUIRE(w.create(b, "/x", "0") == ZkError::kOk);
  REQUIRE(w.create(b, "/kids") == ZkError::kOk);
  REQUIRE(w.create(b, "/quiet") == ZkError::kOk);
  REQUIRE(w.get(a, "/x", nullptr, nullptr, true) == ZkError::kOk);
  REQUIRE(w.children(a, "/kids", nullptr, true) == ZkError::kOk);
  REQUIRE(w.exists(a, "/later", true) == ZkError::kOk);
  REQUIRE(w.get(a, "/quiet", nullptr, nullptr, true) == ZkError::kOk);
  const int64_t session = a->zk.session_id();

  w.sim.partition({NodeId{2}}, {ZkWorld::kServer});
  REQUIRE(w.run_until([&] { return a->zk.state() == SessionState::kDisconnected; }, Duration::seconds(2)));
  REQUIRE(w.set(b, "/x", "1") == ZkError::kOk);
  REQUIRE(w.create(b, "/kids/k") == ZkError::kOk);
  REQUIRE(w.create(b, "/later") == ZkError::kOk);
  CHECK(a->events.empty());

  w.sim.heal({NodeId{2}}, {ZkWorld::kServer});
  REQUIRE(w.run_until([&] { return a->events.size() == 3; }, Duration::seconds(5)));
  CHECK(a->zk.session_id() == session);
  std::set<std::string> got;
  for (const auto& e : a->events) got.insert(std::string(watch_type_name(e.type)) + " " + e.path);
  CHECK(got == std::set<std::string>{"NodeDataChanged /x", "NodeChildrenChanged /kids", "NodeCreated /later"});
  // The watch on the unchanged node was registered again and still works.
  REQUIRE(w.set(b, "/quiet", "now") == ZkError::kOk);
  REQUIRE(w.run_until([&] { return a->events.size() == 4; }, Duration::seconds(2)));
  CHECK(a->events.back() == WatchEvent{WatchType::kNodeDataChanged, "/quiet"});
}

TEST_CASE("zk: session expiry fires the watches on its ephemerals", "[zk][watch]") {
  ZkWorld w(54);
  ZkTestClient* broker = w.add_client(NodeId{2});
  ZkTestClient* controller = w.add_client(NodeId{3});
  REQUIRE(w.create(controller, "/brokers") == ZkError::kOk);
  REQUIRE(w.create(broker, "/brokers/2", "", CreateMode::kEphemeral) == ZkError::kOk);
  REQUIRE(w.children(controller, "/brokers", nullptr, true) == ZkError::kOk);
  REQUIRE(w.get(controller, "/brokers/2", nullptr, nullptr, true) == ZkError::kOk);
  w.sim.crash(NodeId{2});
  REQUIRE(w.run_until([&] { return controller->events.size() == 2; }, Duration::seconds(20)));
  CHECK(controller->events[0] == WatchEvent{WatchType::kNodeDeleted, "/brokers/2"});
  CHECK(controller->events[1] == WatchEvent{WatchType::kNodeChildrenChanged, "/brokers"});
}
