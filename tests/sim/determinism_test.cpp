// Determinism: the same seed gives the same run, event for event, under random faults.
//
// A toy gossip protocol stands in for the real engine: each node ticks on random timers, bumps and
// persists its own counter, and pushes what it knows to random peers, which answer with what they
// know. A fault schedule drawn from its own stream crashes, power-fails, pauses, partitions, clogs
// and slows nodes. Everything that changes state is emitted, so the fingerprint covers it all.
#include <catch2/catch.hpp>

#include <map>

#include "engine/core/bytes.h"
#include "probe_node.h"

using namespace gregor;

namespace {

constexpr int32_t kNodes = 5;

class GossipNode final : public Node {
 public:
  explicit GossipNode(Runtime& rt) : rt_(rt), known_(kNodes + 1, 0) {}

  void start() override {
    Disk& disk = rt_.disk();
    if (!disk.exists("counter")) GREGOR_ASSERT(disk.create("counter").is_ok());
    // Recover the last whole 8-byte counter from the log; a torn tail is ignored.
    auto size = disk.size("counter");
    GREGOR_ASSERT(size.is_ok());
    uint64_t whole = *size / 8 * 8;
    if (whole > 0) {
      auto last = disk.read("counter", whole - 8, 8);
      GREGOR_ASSERT(last.is_ok());
      ByteReader r(as_view(*last));
      counter_ = r.i64();
    }
    known_[rt_.self().value] = counter_;
    rt_.emit(ev::Generic{"recovered", {{"counter", counter_}, {"log_bytes", *size}}});
    arm();
  }

  void on_message(NodeId from, Bytes frame) override {
    ByteReader r(as_view(frame));
    int32_t n = r.array_count(8);
    std::vector<int64_t> theirs;
    for (int32_t i = 0; i < n; i++) theirs.push_back(r.i64());
    if (!r.ok() || n != kNodes + 1) {
      rt_.emit(ev::Generic{"bad_frame", {{"from", from.value}}});
      return;
    }
    int changes = 0;
    for (size_t i = 1; i < theirs.size(); i++)
      if (theirs[i] > known_[i]) {
        known_[i] = theirs[i];
        changes++;
      }
    if (changes > 0) rt_.emit(ev::Generic{"learned", {{"from", from.value}, {"changes", changes}, {"sum", sum()}}});
    // A push (on an inbound connection) is answered with what this node knows: push-pull.
    if (is_inbound_connection(from)) rt_.send(from, encode());
  }

  void on_disconnect(NodeId peer) override { rt_.emit(ev::Generic{"disconnect", {{"peer", peer.value}}}); }

 private:
  void arm() {
    rt_.after(Duration::millis(10 + static_cast<int64_t>(rt_.rng().uniform(40))), [this] { tick(); });
  }
  void tick() {
    counter_++;
    known_[rt_.self().value] = counter_;
    ByteWriter w;
    w.i64(counter_);
    GREGOR_ASSERT(rt_.disk().append("counter", as_view(w.bytes_ref())).is_ok());
    if (counter_ % 3 == 0) GREGOR_ASSERT(rt_.disk().fsync("counter").is_ok());
    int sent = 0;
    for (int i = 0; i < 2; i++) {
      int32_t peer = 1 + static_cast<int32_t>(rt_.rng().uniform(kNodes));
      if (peer == rt_.self().value) continue;
      if (rt_.send(NodeId{peer}, encode())) sent++;
    }
    rt_.emit(ev::Generic{"tick", {{"counter", counter_}, {"sent", sent}}});
    arm();
  }
  Bytes encode() const {
    ByteWriter w;
    w.i32(static_cast<int32_t>(known_.size()));
    for (int64_t k : known_) w.i64(k);
    return w.take();
  }
  int64_t sum() const {
    int64_t s = 0;
    for (int64_t k : known_) s += k;
    return s;
  }

  Runtime& rt_;
  int64_t counter_ = 0;
  std::vector<int64_t> known_;
};

// Schedules random faults for the whole run, drawn from the simulator's "faults" stream.
void schedule_faults(sim::Simulator& sim, Duration run_length) {
  Rng faults = sim.stream("faults");
  Time t{0};
  auto random_node = [&] { return NodeId{1 + static_cast<int32_t>(faults.uniform(kNodes))}; };
  while (true) {
    t = t + Duration::millis(50 + static_cast<int64_t>(faults.uniform(250)));
    if (t.us >= run_length.us) break;
    NodeId n = random_node();
    NodeId m = random_node();
    Duration back = Duration::millis(20 + static_cast<int64_t>(faults.uniform(300)));
    auto& loop = sim.loop();
    switch (faults.uniform(7)) {
      case 0:
        loop.schedule(t, [&sim, n] { sim.crash(n); });
        loop.schedule(t + back, [&sim, n] {
          if (sim.state(n) == sim::NodeState::kCrashed) sim.restart(n);
        });
        break;
      case 1:
        loop.schedule(t, [&sim, n] { sim.power_loss(n); });
        loop.schedule(t + back, [&sim, n] {
          if (sim.state(n) == sim::NodeState::kCrashed) sim.restart(n);
        });
        break;
      case 2:
        loop.schedule(t, [&sim, n] { sim.pause(n); });
        loop.schedule(t + back, [&sim, n] { sim.resume(n); });
        break;
      case 3: {
        std::set<NodeId> side{n, m};
        std::set<NodeId> rest;
        for (int32_t i = 1; i <= kNodes; i++)
          if (!side.count(NodeId{i})) rest.insert(NodeId{i});
        bool both = faults.chance(0.5);
        loop.schedule(t, [&sim, side, rest, both] { sim.partition(side, rest, both); });
        loop.schedule(t + back, [&sim] { sim.heal_all(); });
        break;
      }
      case 4:
        if (n != m) loop.schedule(t, [&sim, n, m, back] { sim.clog(n, m, back); });
        break;
      case 5: {
        sim::LinkLatency slow{Duration::millis(5 + static_cast<int64_t>(faults.uniform(20))),
                              Duration::millis(static_cast<int64_t>(faults.uniform(10)))};
        if (n != m) loop.schedule(t, [&sim, n, m, slow] { sim.set_latency(n, m, slow); });
        break;
      }
      case 6:
        loop.schedule(t, [&sim, n] { sim.corrupt_disk(n); });
        break;
    }
  }
}

struct RunResult {
  std::string fingerprint;
  std::vector<TraceEvent> events;
  std::map<std::string, int> kinds;
};

RunResult run_gossip(uint64_t seed) {
  sim::SimConfig config;
  config.latency = sim::LinkLatency{Duration::millis(1), Duration::millis(3)};
  sim::Simulator sim(seed, config);
  RunResult result;
  sim.add_listener([&](const TraceEvent& e) {
    result.events.push_back(e);
    result.kinds[std::string(e.kind())]++;
  });
  for (int32_t i = 1; i <= kNodes; i++)
    sim.add_node(NodeId{i}, "g" + std::to_string(i), [](Runtime& rt) { return std::make_unique<GossipNode>(rt); });
  const Duration run_length = Duration::seconds(10);
  schedule_faults(sim, run_length);
  REQUIRE(sim.run_for(run_length) == sim::RunOutcome::kReachedTime);
  result.fingerprint = sim.fingerprint().hex();
  CHECK(sim.events_emitted() == result.events.size());
  return result;
}

}  // namespace

TEST_CASE("determinism: a randomized multi-node run with faults has the same fingerprint twice") {
  RunResult first = run_gossip(42);
  RunResult second = run_gossip(42);
  REQUIRE(first.events.size() == second.events.size());
  for (size_t i = 0; i < first.events.size(); i++) {
    INFO("event " << i << ": " << first.events[i].to_string() << " vs " << second.events[i].to_string());
    REQUIRE(first.events[i] == second.events[i]);
  }
  CHECK(first.fingerprint == second.fingerprint);

  // The run was not trivial: protocol traffic and every kind of fault happened.
  INFO("kinds: " << [&] {
    std::string s;
    for (const auto& [k, n] : first.kinds) s += k + "=" + std::to_string(n) + " ";
    return s;
  }());
  for (const char* kind : {"tick", "learned", "recovered", "disconnect", "node_crash", "node_restart", "power_loss",
                           "node_pause", "node_resume", "partition", "heal_all", "clog", "latency", "disk_corrupt"})
    CHECK(first.kinds[kind] > 0);
  CHECK(first.kinds["tick"] > 500);
}

TEST_CASE("determinism: another seed gives another run") {
  RunResult a = run_gossip(42);
  RunResult b = run_gossip(43);
  CHECK(a.fingerprint != b.fingerprint);
}

TEST_CASE("determinism: the fingerprint is the hash of exactly the emitted events") {
  sim::Simulator sim(5);
  std::vector<TraceEvent> seen;
  sim.add_listener([&](const TraceEvent& e) { seen.push_back(e); });
  sim.add_node(NodeId{1}, "g1", [](Runtime& rt) { return std::make_unique<GossipNode>(rt); });
  sim.add_node(NodeId{2}, "g2", [](Runtime& rt) { return std::make_unique<GossipNode>(rt); });
  sim.run_for(Duration::seconds(1));
  sim.emit(sim::Simulator::kWorld, ev::Generic{"marker", {{"note", "from the test"}}});
  Fingerprint f;
  for (const auto& e : seen) f.add(e);
  CHECK(f.hex() == sim.fingerprint().hex());
  CHECK(seen.back().kind() == "marker");
  CHECK(seen.back().time == Time{1'000'000});
  CHECK(seen.back().node == NodeId{0});
}
