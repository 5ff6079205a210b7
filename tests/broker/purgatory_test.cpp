// Purgatory (engine/broker/purgatory.h): operations keyed by partition, tried when one of their
// partitions is marked, in arrival order, and completed by their timeout otherwise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <span>

#include "engine/broker/purgatory.h"
#include "sim/simulator.h"

using namespace gregor;
using namespace gregor::broker;

namespace {

// A node that only lends its runtime to the test.
class Host final : public Node {
 public:
  explicit Host(Runtime& runtime) : rt(runtime) {}
  void start() override {}
  void on_message(NodeId, Bytes) override {}
  void on_disconnect(NodeId) override {}
  Runtime& rt;
};

// Completes when `ready` says so (or expired), and records the order of completions.
class Op final : public DelayedOperation {
 public:
  Op(std::string name, const bool& ready, std::vector<std::string>& log) : name_(std::move(name)), ready_(ready), log_(log) {}
  bool try_complete(bool expired) override {
    tries++;
    if (!ready_ && !expired) return false;
    log_.push_back(name_ + (expired ? " expired" : ""));
    return true;
  }
  int tries = 0;

 private:
  std::string name_;
  const bool& ready_;
  std::vector<std::string>& log_;
};

struct World {
  sim::Simulator sim{7};
  Host* host = nullptr;
  World() {
    sim.add_node(NodeId{1}, "host", [this](Runtime& rt) {
      auto h = std::make_unique<Host>(rt);
      host = h.get();
      return h;
    });
  }
};

const TopicPartition kA{"a", 0};
const TopicPartition kB{"b", 0};

}  // namespace

TEST_CASE("purgatory: a mark tries only the operations watching that partition, in arrival order", "[purgatory]") {
  World w;
  Purgatory purgatory(w.host->rt);
  bool ready_a = false, ready_b = false;
  std::vector<std::string> done;
  auto* first = new Op("first on a", ready_a, done);
  auto* on_b = new Op("on b", ready_b, done);
  auto* second = new Op("second on a and b", ready_a, done);
  purgatory.watch(std::unique_ptr<DelayedOperation>(first), {kA}, Duration::seconds(10));
  purgatory.watch(std::unique_ptr<DelayedOperation>(on_b), {kB}, Duration::seconds(10));
  purgatory.watch(std::unique_ptr<DelayedOperation>(second), {kA, kB}, Duration::seconds(10));
  REQUIRE(purgatory.waiting() == 3);

  purgatory.mark(kA);
  purgatory.try_marked();
  CHECK(first->tries == 1);
  CHECK(on_b->tries == 0);  // b was not marked
  CHECK(second->tries == 1);
  CHECK(done.empty());

  ready_a = true;
  purgatory.mark(kA);
  purgatory.try_marked();
  CHECK(done == std::vector<std::string>{"first on a", "second on a and b"});
  CHECK(purgatory.waiting() == 1);

  // A try clears the marks: nothing more is tried until something is marked again.
  ready_b = true;
  purgatory.try_marked();
  CHECK(purgatory.waiting() == 1);
  purgatory.mark_all();
  purgatory.try_marked();
  CHECK(done.back() == "on b");
  CHECK(purgatory.waiting() == 0);
  // Completed operations never expire: their timers are gone.
  w.sim.run_for(Duration::seconds(20));
  CHECK(done.size() == 3);
}

TEST_CASE("purgatory: an operation nothing completes completes at its timeout, once", "[purgatory]") {
  World w;
  Purgatory purgatory(w.host->rt);
  bool never = false;
  std::vector<std::string> done;
  purgatory.watch(std::make_unique<Op>("slow", never, done), {kA}, Duration::millis(500));
  w.sim.run_for(Duration::millis(499));
  CHECK(done.empty());
  w.sim.run_for(Duration::millis(1));
  CHECK(done == std::vector<std::string>{"slow expired"});
  CHECK(purgatory.waiting() == 0);
  purgatory.mark(kA);
  purgatory.try_marked();  // nothing watches a any more
  CHECK(done.size() == 1);
}

TEST_CASE("purgatory: operations expire each at its own timeout, in arrival order, with one timer for all", "[purgatory]") {
  World w;
  Purgatory purgatory(w.host->rt);
  bool never = false;
  bool ready = false;
  std::vector<std::string> done;
  w.sim.run_for(Duration::millis(1));  // the host has started
  const Time t0 = w.sim.now();
  const size_t pending0 = w.sim.loop().pending();
  purgatory.watch(std::make_unique<Op>("long", never, done), {kA}, Duration::millis(500));
  purgatory.watch(std::make_unique<Op>("answered", ready, done), {kB}, Duration::millis(100));
  w.sim.run_for(Duration::millis(10));
  purgatory.watch(std::make_unique<Op>("short", never, done), {kA}, Duration::millis(50));
  purgatory.watch(std::make_unique<Op>("same-time-1", never, done), {kA}, Duration::millis(490));
  purgatory.watch(std::make_unique<Op>("same-time-2", never, done), {kB}, Duration::millis(490));
  // One timer for the five, not one each.
  CHECK(w.sim.loop().pending() == pending0 + 1);
  ready = true;
  purgatory.mark(kB);
  purgatory.try_marked();  // "answered" completes; the timer armed for it finds nothing due
  CHECK(done == std::vector<std::string>{"answered"});
  std::vector<Time> at(5, Time{0});
  auto run_to = [&](Time t) {
    while (w.sim.now() < t) {
      const size_t before = done.size();
      w.sim.run_for(Duration::millis(1));
      for (size_t i = before; i < done.size(); i++) at[i] = w.sim.now();
    }
  };
  run_to(t0 + Duration::millis(600));
  CHECK(done == std::vector<std::string>{"answered", "short expired", "long expired", "same-time-1 expired", "same-time-2 expired"});
  CHECK(at[1] == t0 + Duration::millis(60));
  CHECK(at[2] == t0 + Duration::millis(500));
  CHECK(at[3] == t0 + Duration::millis(500));
  CHECK(at[4] == t0 + Duration::millis(500));
  CHECK(purgatory.waiting() == 0);
  // With nothing waiting, nothing stays scheduled.
  CHECK(w.sim.loop().pending() == pending0);
}

TEST_CASE("purgatory: an operation naming a partition twice completes and is removed once (crashed the broker on two markers for one partition)", "[purgatory]") {
  World w;
  Purgatory purgatory(w.host->rt);
  bool ready = false;
  std::vector<std::string> done;
  purgatory.watch(std::make_unique<Op>("twice", ready, done), {kA, kA}, Duration::millis(500));
  ready = true;
  purgatory.mark(kA);
  purgatory.try_marked();
  CHECK(done == std::vector<std::string>{"twice"});
  CHECK(purgatory.waiting() == 0);
  purgatory.mark(kA);
  purgatory.try_marked();
  w.sim.run_for(Duration::millis(600));
  CHECK(done.size() == 1);
}

TEST_CASE("purgatory: keys tell partitions apart, and an operation watching keys is tried by a mark of its partition", "[purgatory]") {
  std::set<Purgatory::Key> keys;
  for (const char* topic : {"__consumer_offsets", "__transaction_state", "orders", "order", "a", "b", ""})
    for (int32_t p = 0; p < 64; p++) {
      CHECK(Purgatory::key(topic, p) == Purgatory::key(TopicPartition{topic, p}));
      keys.insert(Purgatory::key(topic, p));
    }
  CHECK(keys.size() == 7 * 64);

  World w;
  Purgatory purgatory(w.host->rt);
  bool ready = true;
  std::vector<std::string> done;
  auto* op = new Op("fetch", ready, done);
  purgatory.watch(std::unique_ptr<DelayedOperation>(op),
                  std::vector<Purgatory::Key>{Purgatory::key("__consumer_offsets", 3), Purgatory::key("orders", 0)}, Duration::seconds(10));
  purgatory.mark(TopicPartition{"__consumer_offsets", 4});
  purgatory.try_marked();
  CHECK(op->tries == 0);
  purgatory.mark(TopicPartition{"orders", 0});
  purgatory.mark(TopicPartition{"orders", 0});  // twice: tried once
  purgatory.try_marked();
  CHECK(done == std::vector<std::string>{"fetch"});
  CHECK(purgatory.waiting() == 0);
}

namespace {

// Records what each try was told: the marked keys, or nothing (a try after mark_all).
class MarkedOp final : public DelayedOperation {
 public:
  bool try_complete(bool expired) override {
    if (!expired) full_tries++;
    return false;
  }
  bool try_complete_marked(std::span<const Purgatory::Key> marked) override {
    seen.emplace_back(marked.begin(), marked.end());
    return false;
  }
  int full_tries = 0;
  std::vector<std::vector<Purgatory::Key>> seen;
};

}  // namespace

TEST_CASE("purgatory: a try after marks is told the marked keys, sorted and once each; after mark_all it is not", "[purgatory]") {
  World w;
  Purgatory purgatory(w.host->rt);
  const TopicPartition kC{"c", 3};
  auto* op = new MarkedOp;
  purgatory.watch(std::unique_ptr<DelayedOperation>(op), {kA, kB}, Duration::seconds(10));

  purgatory.mark(kB);
  purgatory.mark(kC);  // not watched by op, but marked
  purgatory.mark(kB);
  purgatory.try_marked();
  std::vector<Purgatory::Key> expected{Purgatory::key(kB), Purgatory::key(kC)};
  std::sort(expected.begin(), expected.end());
  REQUIRE(op->seen.size() == 1);
  CHECK(op->seen[0] == expected);
  CHECK(op->full_tries == 0);

  // The marks were cleared: the next try is told only the new one.
  purgatory.mark(kA);
  purgatory.try_marked();
  REQUIRE(op->seen.size() == 2);
  CHECK(op->seen[1] == std::vector<Purgatory::Key>{Purgatory::key(kA)});

  // After mark_all every operation looks at everything: the plain try.
  purgatory.mark(kA);
  purgatory.mark_all();
  purgatory.try_marked();
  CHECK(op->seen.size() == 2);
  CHECK(op->full_tries == 1);
}
