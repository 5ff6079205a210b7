// The network's guarantees under random faults, checked frame by frame.
//
// Four nodes send numbered frames to random peers on random timers and answer some of the requests
// they get. A fault driver crashes, restarts, power-fails, pauses, resumes, partitions (one- and
// two-way), heals, clogs and slows links at random. Every frame carries who sent it, to which
// incarnation, with which sequence number and when; the receivers and the test then check:
// - a frame reaches only the incarnation it was sent to, on the connection id the rules give;
// - per sender incarnation and receiver, sequence numbers only grow (FIFO, no duplicates);
// - no frame crosses a break: one sent before a fault that broke its connection is never handed
//   to a receiver that was running (not paused) all along;
// - once the faults stop and everything is healed, every frame sent arrives.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <vector>

#include "engine/core/bytes.h"
#include "probe_node.h"

using namespace gregor;

namespace {

constexpr int32_t kNodes = 4;

struct Delivery {
  int32_t sender;
  uint64_t sender_incarnation;
  int32_t receiver;
  uint64_t receiver_incarnation;
  uint64_t seq;
  int64_t sent_us;
  int64_t observed_us;
  bool reply;
  bool final_round;
};

struct Shared {
  sim::Simulator* sim = nullptr;
  std::vector<Delivery> deliveries;
  std::vector<std::string> violations;
  bool quiet = false;  // the final round: no more random sends
  // Frames sent in the final round, by (sender, receiver).
  std::map<std::pair<int32_t, int32_t>, uint64_t> final_sent;
};

class ChaosNode final : public Node {
 public:
  ChaosNode(Runtime& rt, std::shared_ptr<Shared> shared, uint64_t incarnation)
      : rt_(rt), shared_(std::move(shared)), incarnation_(incarnation) {}

  void start() override { arm(); }

  void on_message(NodeId from, Bytes frame) override {
    ByteReader r(as_view(frame));
    Delivery d;
    d.sender = r.i32();
    d.sender_incarnation = r.u64();
    d.receiver = r.i32();
    d.receiver_incarnation = r.u64();
    d.seq = r.u64();
    d.sent_us = r.i64();
    d.reply = r.boolean();
    d.final_round = r.boolean();
    d.observed_us = rt_.now().us;
    if (!r.ok() || !r.at_end()) return violation("malformed frame");
    if (d.receiver != rt_.self().value || d.receiver_incarnation != incarnation_)
      return violation("frame for node " + std::to_string(d.receiver) + " incarnation " +
                       std::to_string(d.receiver_incarnation) + " reached incarnation " +
                       std::to_string(incarnation_));
    const int32_t expected_from = d.reply ? d.sender : -d.sender;
    if (from.value != expected_from)
      return violation("from " + std::to_string(from.value) + ", expected " + std::to_string(expected_from));
    auto key = std::make_pair(d.sender, d.sender_incarnation);
    auto it = last_seq_.find(key);
    if (it != last_seq_.end() && d.seq <= it->second)
      return violation("seq " + std::to_string(d.seq) + " after " + std::to_string(it->second) + " from node " +
                       std::to_string(d.sender));
    last_seq_[key] = d.seq;
    shared_->deliveries.push_back(d);
    // Answer some requests on the inbound connection they came on.
    if (!d.reply && !shared_->quiet && rt_.rng().chance(0.3)) send(from, d.sender, true);
  }

  // Sends one frame to a peer (or, with a negative id, a reply); returns whether it was accepted.
  bool send(NodeId to, int32_t peer, bool reply, bool final_round = false) {
    uint64_t seq = ++next_seq_[peer];
    ByteWriter w;
    w.i32(rt_.self().value);
    w.u64(incarnation_);
    w.i32(peer);
    w.u64(shared_->sim->incarnation(NodeId{peer}));
    w.u64(seq);
    w.i64(rt_.now().us);
    w.boolean(reply);
    w.boolean(final_round);
    return rt_.send(to, w.take());
  }

 private:
  void arm() {
    rt_.after(Duration::micros(100 + static_cast<int64_t>(rt_.rng().uniform(3000)) * 2), [this] {
      if (shared_->quiet) return;
      int32_t peer = 1 + static_cast<int32_t>(rt_.rng().uniform(kNodes));
      if (peer != rt_.self().value) send(NodeId{peer}, peer, false);
      arm();
    });
  }
  void violation(const std::string& what) {
    shared_->violations.push_back(format_time(rt_.now()) + " node " + std::to_string(rt_.self().value) + ": " + what);
  }

  Runtime& rt_;
  std::shared_ptr<Shared> shared_;
  uint64_t incarnation_;
  std::map<int32_t, uint64_t> next_seq_;                    // per receiver: shared by requests and replies
  std::map<std::pair<int32_t, uint64_t>, uint64_t> last_seq_;  // per sender incarnation
};

struct Interval {
  int64_t from_us, to_us;
};

void run_chaos(uint64_t seed) {
  sim::SimConfig config;
  config.latency = sim::LinkLatency{Duration::micros(300), Duration::millis(2)};
  sim::Simulator sim(seed, config);
  auto shared = std::make_shared<Shared>();
  shared->sim = &sim;
  for (int32_t i = 1; i <= kNodes; i++)
    sim.add_node(NodeId{i}, "c" + std::to_string(i), [shared, &sim, i](Runtime& rt) {
      return std::make_unique<ChaosNode>(rt, shared, sim.incarnation(NodeId{i}));
    });

  // Breaks of each unordered pair (faults that cut or kill one end), and pauses of each node.
  std::map<std::pair<int32_t, int32_t>, std::vector<int64_t>> breaks;
  std::map<int32_t, std::vector<Interval>> pauses;
  std::map<int32_t, int64_t> paused_since;
  auto pair_key = [](int32_t a, int32_t b) { return std::make_pair(std::min(a, b), std::max(a, b)); };
  auto broke_all_of = [&](int32_t n) {
    for (int32_t m = 1; m <= kNodes; m++)
      if (m != n) breaks[pair_key(n, m)].push_back(sim.now().us);
  };

  Rng faults = sim.stream("chaos");
  for (int step = 0; step < 400; step++) {
    // Faults happen at odd microseconds, sends at even ones, so no fault shares an instant with a
    // send and "sent before the break" is unambiguous.
    sim.run_for(Duration::micros(2 * static_cast<int64_t>(faults.uniform(5000)) + 1));
    const int32_t n = 1 + static_cast<int32_t>(faults.uniform(kNodes));
    int32_t m = 1 + static_cast<int32_t>(faults.uniform(kNodes));
    if (m == n) m = m % kNodes + 1;
    switch (faults.uniform(12)) {
      case 0:
        if (sim.state(NodeId{n}) != sim::NodeState::kCrashed) {
          if (sim.state(NodeId{n}) == sim::NodeState::kPaused)
            pauses[n].push_back({paused_since[n], sim.now().us});
          sim.crash(NodeId{n});
          broke_all_of(n);
        }
        break;
      case 1:
      case 10:
      case 11:
        // Restart some crashed node (crashes come from two cases, so restarts must keep up).
        for (int32_t k = 0; k < kNodes; k++) {
          NodeId c{(n + k - 1) % kNodes + 1};
          if (sim.state(c) == sim::NodeState::kCrashed) {
            sim.restart(c);
            break;
          }
        }
        break;
      case 2:
        if (sim.state(NodeId{n}) == sim::NodeState::kPaused) pauses[n].push_back({paused_since[n], sim.now().us});
        if (sim.state(NodeId{n}) != sim::NodeState::kCrashed) broke_all_of(n);
        sim.power_loss(NodeId{n});
        break;
      case 3:
        if (sim.state(NodeId{n}) == sim::NodeState::kRunning) {
          paused_since[n] = sim.now().us;
          sim.pause(NodeId{n});
        }
        break;
      case 4:
        // Resume some paused node: pauses are short, like GC pauses.
        for (int32_t k = 0; k < kNodes; k++) {
          int32_t c = (n + k - 1) % kNodes + 1;
          if (sim.state(NodeId{c}) == sim::NodeState::kPaused) {
            pauses[c].push_back({paused_since[c], sim.now().us});
            sim.resume(NodeId{c});
            break;
          }
        }
        break;
      case 5: {
        bool both = faults.chance(0.5);
        sim.partition({NodeId{n}}, {NodeId{m}}, both);
        // Only a cut both ways breaks the connection; one way holds frames until the heal.
        if (both) breaks[pair_key(n, m)].push_back(sim.now().us);
        break;
      }
      case 6:
        sim.heal({NodeId{n}}, {NodeId{m}});
        break;
      case 7:
        sim.clog(NodeId{n}, NodeId{m}, Duration::micros(static_cast<int64_t>(faults.uniform(20000))));
        break;
      case 8:
        sim.set_latency(NodeId{n}, NodeId{m},
                        sim::LinkLatency{Duration::micros(static_cast<int64_t>(faults.uniform(5000))),
                                         Duration::micros(static_cast<int64_t>(faults.uniform(5000)))});
        break;
      case 9:
        sim.heal_all();
        break;
    }
  }

  // Quiet: heal, wake, restart, let clogs and traffic drain.
  sim.run_for(Duration::micros(1));
  shared->quiet = true;
  sim.heal_all();
  for (int32_t i = 1; i <= kNodes; i++) {
    if (sim.state(NodeId{i}) == sim::NodeState::kPaused) {
      pauses[i].push_back({paused_since[i], sim.now().us});
      sim.resume(NodeId{i});
    }
    if (sim.state(NodeId{i}) == sim::NodeState::kCrashed) sim.restart(NodeId{i});
  }
  sim.run_for(Duration::millis(100));
  // The final round: everyone sends to everyone; all of it must arrive.
  for (int32_t i = 1; i <= kNodes; i++)
    for (int32_t j = 1; j <= kNodes; j++)
      if (i != j) {
        auto* node = sim.node_as<ChaosNode>(NodeId{i});
        REQUIRE(node != nullptr);
        REQUIRE(node->send(NodeId{j}, j, false, true));
        shared->final_sent[{i, j}]++;
      }
  sim.run_for(Duration::millis(100));

  INFO("seed " << seed);
  for (const auto& v : shared->violations) FAIL_CHECK(v);
  CHECK(shared->violations.empty());

  std::map<std::pair<int32_t, int32_t>, uint64_t> final_received;
  int crossed = 0;
  for (const auto& d : shared->deliveries) {
    if (d.final_round) final_received[{d.sender, d.receiver}]++;
    // A break between send and observation, with the receiver running throughout, means the frame
    // crossed the break.
    for (int64_t b : breaks[pair_key(d.sender, d.receiver)]) {
      if (!(d.sent_us < b && b < d.observed_us)) continue;
      bool receiver_paused = false;
      for (const auto& p : pauses[d.receiver])
        if (p.from_us < d.observed_us && p.to_us >= d.sent_us) receiver_paused = true;
      if (paused_since.count(d.receiver) && sim.state(NodeId{d.receiver}) == sim::NodeState::kPaused)
        receiver_paused = true;
      if (!receiver_paused) {
        crossed++;
        INFO("frame " << d.sender << "->" << d.receiver << " seq " << d.seq << " sent " << d.sent_us << " seen "
                      << d.observed_us << " break " << b);
        FAIL_CHECK("a frame crossed a connection break");
      }
    }
  }
  CHECK(crossed == 0);
  CHECK(final_received == shared->final_sent);
  // The run was eventful.
  INFO("sent " << sim.frames_sent() << " delivered " << sim.frames_delivered() << " dropped " << sim.frames_dropped()
               << " at " << format_time(sim.now()));
  CHECK(shared->deliveries.size() > 500);
  CHECK(sim.frames_dropped() > 0);
}

}  // namespace

TEST_CASE("network chaos: FIFO, no crossing of breaks, right incarnation, delivery after healing") {
  for (uint64_t seed = 1; seed <= 8; seed++) run_chaos(seed);
}
