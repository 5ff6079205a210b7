// AsioRuntime timers on the real steady clock: deadline order, FIFO for equal deadlines, cancel,
// and nothing after stop. Assertions are about order and lower bounds, never about how late.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>

#include "net_test_util.h"

using namespace gregor;
using net::AsioWorld;

namespace {
constexpr Duration kWait = Duration::seconds(10);
const NodeId kA{1};

AsioWorld& one_node_world(AsioWorld& world) {
  world.add_node(test::node_config(1, false), test::recorder(std::make_shared<test::RecorderLog>(), false));
  world.start_all();
  return world;
}
}  // namespace

TEST_CASE("Timers: fire in deadline order, equal deadlines in creation order, never early") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  Runtime& rt = one_node_world(world).runtime(kA);
  std::vector<std::string> fired;
  std::vector<std::pair<Time, Time>> due_and_seen;
  auto at = [&](int64_t ms, std::string name) {
    Time due = rt.now() + Duration::millis(ms);
    return rt.after(Duration::millis(ms), [&, due, name] {
      fired.push_back(name);
      due_and_seen.push_back({due, rt.now()});
    });
  };
  at(30, "a");
  at(10, "b");
  at(10, "c");
  at(0, "d");
  TimerId e = at(20, "e");
  at(10, "f");
  rt.cancel(e);
  REQUIRE(world.run_until([&] { return fired.size() == 5; }, kWait));
  world.run_for(Duration::millis(30));  // e's deadline has long passed: it must stay silent
  CHECK(fired == std::vector<std::string>{"d", "b", "c", "f", "a"});
  for (auto [due, seen] : due_and_seen) CHECK(seen >= due);
}

TEST_CASE("Timers: cancel from inside a callback, cancel of fired or unknown ids") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  Runtime& rt = one_node_world(world).runtime(kA);
  std::vector<std::string> fired;
  TimerId later = rt.after(Duration::millis(20), [&] { fired.push_back("later"); });
  TimerId first = rt.after(Duration::millis(5), [&] {
    fired.push_back("first");
    rt.cancel(later);
    rt.after(Duration::millis(0), [&] { fired.push_back("chained"); });
  });
  REQUIRE(world.run_until([&] { return fired.size() == 2; }, kWait));
  world.run_for(Duration::millis(40));
  CHECK(fired == std::vector<std::string>{"first", "chained"});
  rt.cancel(first);           // already fired: no-op
  rt.cancel(TimerId{12345});  // unknown: no-op
  rt.after(Duration::millis(1), [&] { fired.push_back("after no-ops"); });
  REQUIRE(world.run_until([&] { return fired.size() == 3; }, kWait));
}

TEST_CASE("Timers: thousands with one deadline fire in creation order, across wake-up batches") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  Runtime& rt = one_node_world(world).runtime(kA);
  std::vector<int> fired;
  const int n = 3 * net::TimerQueue::kFireBatchMax + 7;
  std::vector<TimerId> ids;
  for (int i = 0; i < n; i++) ids.push_back(rt.after(Duration::millis(2), [&fired, i] { fired.push_back(i); }));
  for (int i = 0; i < n; i += 10) rt.cancel(ids[static_cast<size_t>(i)]);
  const size_t expected = static_cast<size_t>(n - (n + 9) / 10);
  REQUIRE(world.run_until([&] { return fired.size() == expected; }, kWait));
  CHECK(std::is_sorted(fired.begin(), fired.end()));
  CHECK(std::adjacent_find(fired.begin(), fired.end()) == fired.end());
  CHECK(std::none_of(fired.begin(), fired.end(), [](int i) { return i % 10 == 0; }));
}

TEST_CASE("Timers: a stopped node's timers never fire") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  Runtime& rt = one_node_world(world).runtime(kA);
  bool fired = false;
  rt.after(Duration::millis(5), [&] { fired = true; });
  world.stop(kA);
  world.run_for(Duration::millis(30));
  CHECK_FALSE(fired);
}

TEST_CASE("AsioRuntime: now() is monotonic, and rng is the simulator's per-node stream of the seed") {
  test::TempDir dir;
  AsioWorld world(dir.path(), /*seed=*/99);
  Runtime& rt = one_node_world(world).runtime(kA);
  Time t0 = rt.now();
  bool fired = false;
  rt.after(Duration::millis(2), [&] { fired = true; });
  REQUIRE(world.run_until([&] { return fired; }, kWait));
  Time t1 = rt.now();
  CHECK(t1 >= t0 + Duration::millis(2));
  CHECK(rt.now() >= t1);
  // The wall clock is the system's, not the simulator's fixed 2026-01-01 plus now().
  const int64_t system_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  CHECK(rt.wall_time_ms() >= system_ms - 1000);
  CHECK(rt.wall_time_ms() <= system_ms + 1000);
  Rng expected = Rng::derive(99, "node", 1);
  CHECK(rt.rng().next_u64() == expected.next_u64());
}

TEST_CASE("AsioRuntime: emit stamps time and node and goes to the sink, and disk is under data_dir") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  std::vector<TraceEvent> events;
  net::NodeConfig config = test::node_config(5, false);
  config.name = "n5";
  config.event_sink = [&](const TraceEvent& e) { events.push_back(e); };
  world.add_node(config, test::recorder(std::make_shared<test::RecorderLog>(), false));
  world.start_all();
  Runtime& rt = world.runtime(NodeId{5});
  rt.emit(ev::LeaderChange{.topic = "orders", .partition = 0, .leader = 2, .leader_epoch = 1, .isr = {2}, .controller_epoch = 1, .reason = "test"});
  REQUIRE(events.size() == 1);
  CHECK(events[0].node == NodeId{5});
  CHECK(events[0].kind() == "leader_change");
  CHECK(events[0].get_int("leader") == 2);
  CHECK(events[0].time <= rt.now());
  REQUIRE(rt.disk().write_file_atomic("meta.properties", as_view(std::string_view("broker.id=5\n"))).is_ok());
  CHECK(std::filesystem::exists(dir.path() + "/n5/meta.properties"));
  rt.log("hello from n5");
  CHECK(world.logged("[n5] hello from n5"));
}
