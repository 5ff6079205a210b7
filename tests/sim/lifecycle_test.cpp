// Node lifecycle in the simulator: start, crash, restart, pause/resume, power loss; RNG streams.
#include <catch2/catch.hpp>

#include "probe_node.h"

using namespace gregor;
using gregor::test::Probe;
using gregor::test::ProbeWorld;

namespace {
std::vector<std::string> kinds_of(const std::vector<TraceEvent>& events) {
  std::vector<std::string> v;
  for (const auto& e : events) v.emplace_back(e.kind());
  return v;
}
}  // namespace

TEST_CASE("lifecycle: nodes start when added unless told not to, and the world emits it") {
  ProbeWorld w(1);
  std::vector<TraceEvent> events;
  w.sim.add_listener([&](const TraceEvent& e) { events.push_back(e); });
  w.add(1);
  w.add(2, /*start_now=*/false);
  CHECK(w.sim.state(NodeId{1}) == sim::NodeState::kRunning);
  CHECK(w.sim.state(NodeId{2}) == sim::NodeState::kCrashed);
  CHECK(w.sim.node(NodeId{2}) == nullptr);
  CHECK(w.log(1).of("start").size() == 1);
  CHECK(w.log(2).entries.empty());
  CHECK(w.sim.incarnation(NodeId{1}) == 1);
  CHECK(w.sim.incarnation(NodeId{2}) == 0);
  w.sim.start(NodeId{2});
  CHECK(w.log(2).of("start").size() == 1);
  CHECK(w.sim.node_ids() == std::vector<NodeId>{NodeId{1}, NodeId{2}});
  CHECK(w.sim.node_name(NodeId{2}) == "n2");
  REQUIRE(events.size() == 2);
  CHECK(events[0].kind() == "node_start");
  CHECK(events[0].node == sim::Simulator::kWorld);
  CHECK(events[0].get_int("target") == 1);
  CHECK(events[0].get_string("name") == "n1");
  CHECK(events[0].get_int("incarnation") == 1);
}

TEST_CASE("lifecycle: a crash kills the node object and its timers; a restart makes a fresh node") {
  ProbeWorld w(2);
  w.add(1);
  Probe& first = w.probe(1);
  Runtime* first_runtime = &first.rt();
  first.timer(Duration::millis(10), "t10");
  first.timer(Duration::millis(30), "t30");
  w.sim.run_for(Duration::millis(20));
  CHECK(w.log(1).of("timer").size() == 1);
  REQUIRE(first.rt().disk().create("data").is_ok());
  REQUIRE(first.rt().disk().append("data", as_view(std::string("kept"))).is_ok());

  w.sim.crash(NodeId{1});
  CHECK(w.log(1).destroyed == 1);
  CHECK(w.sim.node(NodeId{1}) == nullptr);
  CHECK(w.sim.state(NodeId{1}) == sim::NodeState::kCrashed);
  w.sim.crash(NodeId{1});  // crashing a crashed node: no-op
  CHECK(w.log(1).destroyed == 1);
  w.sim.run_for(Duration::millis(50));
  CHECK(w.log(1).of("timer").size() == 1);  // t30 never fired

  w.sim.restart(NodeId{1});
  CHECK(w.log(1).constructed == 2);
  CHECK(w.sim.incarnation(NodeId{1}) == 2);
  Probe& second = w.probe(1);
  CHECK(&second.rt() != first_runtime);
  CHECK(w.log(1).of("start").size() == 2);
  CHECK(w.log(1).of("start").back().incarnation == 2);
  // Same disk under the new node.
  CHECK(to_string(as_view(*second.rt().disk().read_all("data"))) == "kept");
  w.sim.run_for(Duration::millis(50));
  CHECK(w.log(1).of("timer").size() == 1);  // still nothing from the old incarnation
  second.timer(Duration::millis(1), "new");
  w.sim.run_for(Duration::millis(2));
  CHECK(w.log(1).of("timer").back().data == "new");
  CHECK(w.log(1).of("timer").back().incarnation == 2);
}

TEST_CASE("lifecycle: restart of a running node crashes it first") {
  ProbeWorld w(3);
  std::vector<TraceEvent> events;
  w.sim.add_listener([&](const TraceEvent& e) { events.push_back(e); });
  w.add(1);
  w.sim.restart(NodeId{1});
  CHECK(w.log(1).destroyed == 1);
  CHECK(w.log(1).constructed == 2);
  CHECK(kinds_of(events) == std::vector<std::string>{"node_start", "node_crash", "node_restart"});
  CHECK(events.back().get_int("incarnation") == 2);
}

TEST_CASE("lifecycle: timers fire at their virtual time; cancel stops them") {
  ProbeWorld w(4);
  w.add(1);
  Probe& p = w.probe(1);
  p.timer(Duration::millis(5), "a");
  TimerId b = p.timer(Duration::millis(6), "b");
  p.timer(Duration::millis(5), "c");  // same time as a: after it
  p.timer(Duration::micros(0), "now");
  p.rt().cancel(b);
  p.rt().cancel(b);              // twice
  p.rt().cancel(TimerId{999});  // unknown
  w.sim.run_for(Duration::millis(10));
  auto fired = w.log(1).of("timer");
  REQUIRE(fired.size() == 3);
  CHECK(fired[0].data == "now");
  CHECK(fired[0].at == Time{0});
  CHECK(fired[1].data == "a");
  CHECK(fired[1].at == Time{5000});
  CHECK(fired[2].data == "c");
  p.rt().cancel(b);  // after the fact
}

TEST_CASE("lifecycle: pause defers timers and deliveries; resume runs them in order at resume time") {
  ProbeWorld w(5);
  w.add(1);
  w.add(2);
  std::vector<TraceEvent> events;
  w.sim.add_listener([&](const TraceEvent& e) { events.push_back(e); });
  w.probe(2).timer(Duration::millis(2), "t2");
  w.probe(2).timer(Duration::millis(8), "t8");
  w.sim.pause(NodeId{2});
  CHECK(w.sim.state(NodeId{2}) == sim::NodeState::kPaused);
  CHECK(w.sim.node(NodeId{2}) != nullptr);  // paused, not gone
  w.sim.run_for(Duration::millis(1));
  REQUIRE(w.probe(1).send(NodeId{2}, "m1"));  // arrives ~1.5 ms
  w.sim.run_for(Duration::millis(2));
  REQUIRE(w.probe(1).send(NodeId{2}, "m2"));  // arrives ~3.5 ms
  w.sim.run_for(Duration::millis(7));      // now 10 ms: t2, m1, m2, t8 are all waiting
  CHECK(w.log(2).of("msg").empty());
  CHECK(w.log(2).of("timer").empty());
  w.sim.pause(NodeId{2});  // pausing a paused node: no-op
  w.sim.resume(NodeId{2});
  w.sim.run_for(Duration::millis(1));
  std::vector<std::string> seen;
  for (const auto& e : w.log(2).entries)
    if (e.what == "msg" || e.what == "timer") {
      seen.push_back(e.data);
      CHECK(e.at == Time{10'000});
    }
  CHECK(seen == std::vector<std::string>{"m1", "t2", "m2", "t8"});
  w.sim.resume(NodeId{2});  // resuming a running node: no-op
  CHECK(kinds_of(events) == std::vector<std::string>{"node_pause", "node_resume"});
}

TEST_CASE("lifecycle: a timer cancelled after resume but before its deferred run does not fire") {
  // Regression: a timer due during a pause was taken off the node's timer table when it fell due,
  // so a cancel() issued after the resume (by work that ran first) could not stop it.
  ProbeWorld w(6);
  w.add(1);
  w.add(2);
  Probe& p2 = w.probe(2);
  TimerId victim = p2.timer(Duration::millis(2), "victim");
  w.sim.pause(NodeId{2});
  w.sim.run_for(Duration::millis(5));  // the timer falls due while paused
  w.sim.resume(NodeId{2});
  p2.rt().cancel(victim);  // the node cancels it before the deferred work runs
  w.sim.run_for(Duration::millis(1));
  CHECK(w.log(2).of("timer").empty());
}

TEST_CASE("lifecycle: a crash while paused drops the deferred work") {
  ProbeWorld w(7);
  w.add(1);
  w.add(2);
  w.probe(2).timer(Duration::millis(1), "t");
  w.sim.pause(NodeId{2});
  REQUIRE(w.probe(1).send(NodeId{2}, "m"));
  w.sim.run_for(Duration::millis(5));
  w.sim.crash(NodeId{2});
  w.sim.run_for(Duration::millis(5));
  w.sim.resume(NodeId{2});  // not paused any more: no-op
  w.sim.restart(NodeId{2});
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).of("msg").empty());
  CHECK(w.log(2).of("timer").empty());
}

TEST_CASE("lifecycle: power_loss crashes the node and loses unsynced data; events name the target") {
  ProbeWorld w(8);
  std::vector<TraceEvent> events;
  w.sim.add_listener([&](const TraceEvent& e) { events.push_back(e); });
  w.add(1);
  Disk& disk = w.probe(1).rt().disk();
  REQUIRE(disk.create("f").is_ok());
  REQUIRE(disk.append("f", as_view(std::string(100, 'x'))).is_ok());
  w.sim.power_loss(NodeId{1});
  CHECK(w.sim.state(NodeId{1}) == sim::NodeState::kCrashed);
  CHECK(w.log(1).destroyed == 1);
  REQUIRE(events.size() == 3);
  CHECK(kinds_of(events) == std::vector<std::string>{"node_start", "node_crash", "power_loss"});
  CHECK(events[2].get_int("target") == 1);
  CHECK(events[2].get_int("unsynced_bytes") == 100);
  CHECK(*w.sim.disk(NodeId{1}).size("f") <= 100);
  CHECK(w.sim.disk(NodeId{1}).unsynced_bytes() == 0);
}

TEST_CASE("lifecycle: a node crashed by a listener while inside its own callback is not destroyed under it") {
  // Regression: a fault injected synchronously from a trace listener (crash the node that just
  // emitted) destroyed the node object while its member function was still running.
  struct Shared {
    bool destroyed = false;
    bool ran_after_destroy = false;
    bool send_after_crash = true;
    bool timer_after_crash_fired = false;
  };
  auto shared = std::make_shared<Shared>();
  class Emitter final : public Node {
   public:
    Emitter(Runtime& rt, std::shared_ptr<Shared> s) : rt_(rt), s_(std::move(s)) {}
    ~Emitter() override { s_->destroyed = true; }
    void start() override {
      rt_.after(Duration::millis(1), [this] {
        rt_.emit(ev::Generic{"about_to_die", {}});
        if (s_->destroyed) s_->ran_after_destroy = true;
        s_->send_after_crash = rt_.send(NodeId{2}, to_bytes("x"));
        auto s = s_;
        rt_.after(Duration::millis(1), [s] { s->timer_after_crash_fired = true; });
      });
    }
    void on_message(NodeId, Bytes) override {}

   private:
    Runtime& rt_;
    std::shared_ptr<Shared> s_;
  };
  sim::Simulator simulator(9);
  simulator.add_node(NodeId{1}, "emitter", [shared](Runtime& rt) { return std::make_unique<Emitter>(rt, shared); });
  auto log2 = std::make_shared<test::ProbeLog>();
  simulator.add_node(NodeId{2}, "probe", [log2](Runtime& rt) { return std::make_unique<Probe>(rt, log2, 1); });
  simulator.add_listener([&](const TraceEvent& e) {
    if (e.kind() == "about_to_die") simulator.crash(NodeId{1});
  });
  simulator.run_for(Duration::millis(5));
  CHECK(shared->destroyed);
  CHECK_FALSE(shared->ran_after_destroy);
  CHECK_FALSE(shared->send_after_crash);
  CHECK_FALSE(shared->timer_after_crash_fired);
  CHECK(log2->messages().empty());
  // And the node can come back.
  simulator.restart(NodeId{1});
  CHECK(simulator.node(NodeId{1}) != nullptr);
}

TEST_CASE("rng streams: a node's draws do not depend on which other nodes exist") {
  auto draws_of_node1 = [](std::vector<int32_t> ids) {
    ProbeWorld w(2024);
    for (int32_t id : ids) w.add(id);
    std::vector<uint64_t> v;
    for (int i = 0; i < 16; i++) v.push_back(w.probe(1).rt().rng().next_u64());
    // Other nodes drawing in between does not shift node 1's stream either.
    for (int32_t id : ids)
      if (id != 1) w.probe(id).rt().rng().next_u64();
    v.push_back(w.probe(1).rt().rng().next_u64());
    return v;
  };
  auto two = draws_of_node1({1, 2});
  CHECK(two == draws_of_node1({1, 2, 3}));
  CHECK(two == draws_of_node1({3, 1}));
  CHECK(two == draws_of_node1({1}));
  // Each node has its own stream, and a different seed gives different draws.
  ProbeWorld w(2024);
  w.add(1);
  w.add(2);
  CHECK(w.probe(1).rt().rng().next_u64() != w.probe(2).rt().rng().next_u64());
  ProbeWorld other(2025);
  other.add(1);
  CHECK(other.probe(1).rt().rng().next_u64() != two[0]);
  // The stream is the documented derivation.
  Rng expected = Rng::derive(2024, "node", 1);
  CHECK(expected.next_u64() == two[0]);
}

TEST_CASE("Simulator::stream derives named streams from the seed") {
  sim::Simulator a(77), b(77);
  CHECK(a.stream("nemesis").next_u64() == b.stream("nemesis").next_u64());
  CHECK(a.stream("nemesis").next_u64() != a.stream("workload").next_u64());
  CHECK(a.stream("nemesis", 1).next_u64() != a.stream("nemesis", 2).next_u64());
  CHECK(a.stream("nemesis").next_u64() == Rng::derive(77, "nemesis").next_u64());
}

TEST_CASE("Simulator: run_until_pred and the event limit") {
  sim::SimConfig c;
  c.event_limit = 500;
  ProbeWorld w(10, c);
  w.add(1);
  int fired = 0;
  std::function<void()> again = [&] {
    fired++;
    w.probe(1).rt().after(Duration::millis(1), again);
  };
  w.probe(1).rt().after(Duration::millis(1), again);
  CHECK(w.sim.run_until_pred([&] { return fired == 10; }, Time{1'000'000}) == sim::RunOutcome::kPredicateMet);
  CHECK(w.sim.now() == Time{10'000});
  CHECK(w.sim.run_for(Duration::seconds(100)) == sim::RunOutcome::kEventLimitHit);
  CHECK(w.sim.loop().events_run() == 500);
}

TEST_CASE("lifecycle: a listener that restarts a node on its node_start does not start it twice") {
  ProbeWorld w(11);
  int restarts = 0;
  w.sim.add_listener([&](const TraceEvent& e) {
    if (e.kind() == "node_start" && e.get_int("target") == 1 && restarts == 0) {
      restarts++;
      w.sim.restart(NodeId{1});
    }
  });
  w.add(1);
  CHECK(w.log(1).constructed == 2);
  CHECK(w.log(1).destroyed == 1);
  auto starts = w.log(1).of("start");
  REQUIRE(starts.size() == 1);  // the first object died before its start()
  CHECK(starts[0].incarnation == 2);
  CHECK(w.sim.incarnation(NodeId{1}) == 2);
  CHECK(w.sim.state(NodeId{1}) == sim::NodeState::kRunning);
}
