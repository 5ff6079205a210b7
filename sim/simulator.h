// Simulator: the deterministic world. One thread, one event loop, virtual time, one master seed.
//
// It owns the nodes (each a Node driven through a SimRuntime), their disks, and the network
// between them, and it injects faults. Everything a node does goes through its runtime; every
// state change is emitted as a TraceEvent, hashed into the run's fingerprint and passed to the
// listeners (checkers, the trace recorder, the GUI). Faults are emitted too, by node 0 (the world).
//
// Network model (sim/sim_network.h): per directed pair of nodes an ordered channel with latency = base + uniform jitter,
// delivering in send order (TCP order). Connection ids follow engine/core/runtime.h: a frame sent
// to node B (> 0) by node A arrives at B from -A (A's connection into B); B's send(-A) arrives at A
// from B. The two directions between a pair form one connection:
// when it breaks (cut both ways, either end crashes or closes it) everything in flight both ways is
// dropped and both ends get Node::on_disconnect. A cut one way keeps the connection open and holds
// what is sent into it until the heal (TCP retransmission); no connection opens while either
// direction is cut. Clog holds a direction's frames, those already in
// flight included, until a time, then delivers them in order. Each link draws its jitter from its
// own stream, so traffic on one link never shifts the timing of another. docs/simulator.md has the
// whole model.
//
// Node lifecycle: start, crash (page cache kept), power_loss (unsynced disk data lost),
// restart (a fresh Node object over the same disk), pause/resume (frozen: timers and deliveries
// wait, as in a stop-the-world GC pause, and then run in the order they fell due). A fault may be
// injected from a trace listener even while the target node's own code is running: the node's
// object then stays alive until that callback returns, but everything it does through its runtime
// from then on (send, timers, emit, disk writes) is dropped, as for a dead process.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/runtime.h"
#include "sim/event_loop.h"
#include "sim/sim_disk.h"
#include "sim/sim_network.h"

namespace gregor::sim {

enum class NodeState { kRunning, kPaused, kCrashed };
const char* node_state_name(NodeState s);

struct SimConfig {
  LinkLatency latency;
  uint64_t disk_capacity_bytes = UINT64_MAX;
  uint64_t event_limit = 200'000'000;
  // Echo each node's Runtime::log lines to stderr (debugging).
  bool verbose = false;
};

using NodeFactory = std::function<std::unique_ptr<Node>(Runtime&)>;
using TraceListener = std::function<void(const TraceEvent&)>;

class SimRuntime;

class Simulator final : private SimNetwork::Nodes {
 public:
  static constexpr NodeId kWorld{0};  // the node that emits fault events

  explicit Simulator(uint64_t seed, SimConfig config = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  uint64_t seed() const { return seed_; }
  Time now() const { return loop_.now(); }
  EventLoop& loop() { return loop_; }

  // Nodes. REQUIRES: id > 0 and not yet added. The node starts at the current time unless
  // start_now is false.
  void add_node(NodeId id, std::string name, NodeFactory factory, bool start_now = true);
  bool has_node(NodeId id) const override { return nodes_.count(id.value) > 0; }
  std::vector<NodeId> node_ids() const;
  const std::string& node_name(NodeId id) const;
  NodeState state(NodeId id) const;
  // The live node object (nullptr when crashed). The object changes on every restart.
  Node* node(NodeId id);
  template <typename T>
  T* node_as(NodeId id) {
    return dynamic_cast<T*>(node(id));
  }
  SimDisk& disk(NodeId id);
  uint64_t incarnation(NodeId id) const;

  // Lifecycle faults.
  void start(NodeId id);
  void crash(NodeId id);
  void power_loss(NodeId id);
  void restart(NodeId id);
  void pause(NodeId id);
  void resume(NodeId id);

  // Network faults. partition cuts every link from a node in `from` to a node in `to` (and back
  // when both_ways); heal restores them. heal_all removes every cut.
  void partition(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways = true);
  void heal(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways = true);
  void heal_all();
  // Isolates a node from every other node, both ways.
  void isolate(NodeId id);
  bool is_cut(NodeId from, NodeId to) const;
  // Holds frames from -> to (also those already in flight) until now + d, then delivers them in
  // order. A clog never shortens an earlier, longer one.
  void clog(NodeId from, NodeId to, Duration d);
  // Latency of one direction for frames sent from now on; with from and to both kWorld, the default
  // of every link that has no latency of its own. Frames never overtake earlier ones.
  void set_latency(NodeId from, NodeId to, LinkLatency latency);
  // The listener name (Runtime::listener_name) of every connection other nodes open to `id`: the
  // simulator's one connection per pair of nodes comes in on this listener, so a broker whose only
  // listener is SASL_PLAINTEXT can be tested here. Its loopback connection has no name. Empty (the
  // default): no listener names, as before.
  void set_listener_name(NodeId id, std::string name) { listener_names_[id.value] = std::move(name); }
  // Message faults: every frame the network accepts passes through `i` (nullptr: none). Frames
  // an intercept holds are released by a heal of their link (heal, heal_all).
  void set_frame_interceptor(FrameInterceptor* i) { network_.set_interceptor(i); }
  // Disk faults.
  void corrupt_disk(NodeId id, const std::string& path = "");
  void set_disk_capacity(NodeId id, uint64_t bytes);
  // disk-full: the disk refuses appends past `capacity` bytes, or past what it holds now.
  void fill_disk(NodeId id, std::optional<uint64_t> capacity = std::nullopt);
  // io-error: the next `writes` writes fail with EIO (every one when writes < 0).
  void fail_disk_writes(NodeId id, int64_t writes);
  // disk-free: the capacity the run began with, and no more I/O errors (only what changes is emitted).
  void free_disk(NodeId id);

  // Running. Each returns why it stopped.
  RunOutcome run_until(Time t) { return check(loop_.run_until(t)); }
  RunOutcome run_for(Duration d) { return run_until(now() + d); }
  RunOutcome run_until_pred(const std::function<bool()>& pred, Time deadline) {
    return check(loop_.run_while_not(pred, deadline));
  }

  // Trace.
  void add_listener(TraceListener l) { listeners_.push_back(std::move(l)); }
  void emit(NodeId node, TraceBody&& event);
  const Fingerprint& fingerprint() const { return fingerprint_; }
  uint64_t events_emitted() const { return events_emitted_; }

  // Network statistics.
  uint64_t frames_sent() const { return network_.frames_sent(); }
  uint64_t frames_delivered() const { return frames_delivered_; }
  uint64_t frames_dropped() const { return network_.frames_dropped(); }

  // A stream of randomness for a fault source or a workload: derive(seed, label).
  Rng stream(const std::string& label, uint64_t index = 0) const { return Rng::derive(seed_, label, index); }

 private:
  friend class SimRuntime;
  std::map<int32_t, std::string> listener_names_;
  struct Slot {
    NodeId id;
    std::string name;
    NodeFactory factory;
    NodeState state = NodeState::kCrashed;
    bool started = false;
    uint64_t incarnation = 0;
    std::unique_ptr<SimDisk> disk;
    Rng rng{0};
    std::unique_ptr<SimRuntime> runtime;
    std::unique_ptr<Node> node;
    // Work that arrived while paused, run in arrival order after resume. While it is not empty,
    // newer work queues behind it, so a resume cannot reorder a connection's frames.
    std::deque<std::function<void()>> deferred;
  };

  Slot& slot(NodeId id);
  const Slot& slot(NodeId id) const;
  // SimNetwork::Nodes.
  std::optional<uint64_t> reachable(NodeId id) const override;
  void deliver(NodeId to, uint64_t incarnation, NodeId seen_from, Bytes frame, std::vector<FrameView> views) override;
  void disconnected(NodeId self, NodeId peer) override;
  // Runs fn for node id at the current time if the node (same incarnation) is running; defers it
  // while paused or while earlier deferred work waits; drops it when crashed.
  template <typename F>
  void run_on_node(NodeId id, uint64_t incarnation, F&& fn);
  // Runs the deferred work of a resumed node, in order.
  void drain_deferred(NodeId id, uint64_t incarnation);
  // Runs node code (a callback of node id) with the node marked as being on the stack.
  template <typename F>
  void invoke(NodeId id, F&& fn);
  bool on_stack(NodeId id) const;
  RunOutcome check(RunOutcome o);
  std::string describe_position() const;

  uint64_t seed_;
  SimConfig config_;
  EventLoop loop_;
  Rng disk_fault_rng_;
  // The nodes' disks hold the bytes of a replicated log once (PageShare, sim/sim_disk.h).
  std::shared_ptr<PageShare> page_share_ = std::make_shared<PageShare>();
  std::map<int32_t, Slot> nodes_;  // ordered by id
  SimNetwork network_;
  std::vector<TraceListener> listeners_;
  Fingerprint fingerprint_;
  uint64_t events_emitted_ = 0;
  uint64_t frames_delivered_ = 0;
  uint64_t assert_context_ = 0;
  // Nodes whose code is running, innermost last: a listener may crash or restart a node from inside
  // that node's own callback. Its object and runtime then wait here until the callback returns.
  std::vector<int32_t> on_stack_;
  std::vector<std::unique_ptr<Node>> node_graveyard_;
  std::vector<std::unique_ptr<SimRuntime>> runtime_graveyard_;
};

}  // namespace gregor::sim
