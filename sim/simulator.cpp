#include "sim/simulator.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

#include "engine/protocol/records_field.h"

namespace gregor::sim {

const char* node_state_name(NodeState s) {
  switch (s) {
    case NodeState::kRunning: return "running";
    case NodeState::kPaused: return "paused";
    case NodeState::kCrashed: return "crashed";
  }
  return "?";
}

namespace {
// The disk a dead incarnation sees: a process that no longer exists cannot touch its files. Code of
// a node crashed from inside its own callback (by a trace listener) may still run until the
// callback returns, and a node's destructor runs after the crash; neither may change the disk.
class DeadDisk final : public Disk {
 public:
  Status create(const std::string& path) override { return dead(path); }
  Result<uint64_t> append(const std::string& path, ByteView) override { return dead(path); }
  Result<Bytes> read(const std::string& path, uint64_t, size_t) override { return dead(path); }
  Status truncate(const std::string& path, uint64_t) override { return dead(path); }
  Status fsync(const std::string& path) override { return dead(path); }
  Status rename(const std::string& from, const std::string&) override { return dead(from); }
  Status remove(const std::string& path) override { return dead(path); }
  Result<uint64_t> size(const std::string& path) override { return dead(path); }
  bool exists(const std::string&) override { return false; }
  Result<std::vector<std::string>> list(const std::string& dir) override { return dead(dir); }

 private:
  static Status dead(const std::string& path) {
    return Status::error(StatusCode::kUnavailable, "the process is dead (crashed): " + path);
  }
};
}  // namespace

// The Runtime of one incarnation of one node. Once the incarnation is dead (crashed, or replaced by
// a restart) its sends fail, its timers never fire, its emits are dropped and its disk is a
// DeadDisk. The runtime itself is kept until the node restarts (the node object may still hold a
// reference while it is destroyed).
class SimRuntime final : public Runtime {
 public:
  // `slot` is the node's entry in the simulator, which lives as long as the simulator (nodes are
  // never removed): the runtime holds it instead of looking it up by id on every call.
  SimRuntime(Simulator& sim, Simulator::Slot& slot, uint64_t incarnation)
      : sim_(sim), slot_(slot), id_(slot.id), incarnation_(incarnation) {}

  NodeId self() const override { return id_; }
  Time now() const override { return sim_.now(); }

  TimerId after(Duration d, std::function<void()> fn) override {
    GREGOR_ASSERT(d.us >= 0);
    if (!alive()) return TimerId{0};  // never fires; cancelling it is a no-op
    uint32_t slot;
    if (!free_timers_.empty()) {
      slot = free_timers_.back();
      free_timers_.pop_back();
    } else {
      slot = static_cast<uint32_t>(timers_.size());
      timers_.emplace_back();
    }
    const uint64_t id = (uint64_t{timers_[slot].generation} << 32) | (slot + 1);  // never 0
    // The event captures two words, which std::function stores without allocating; the callback
    // waits in timers_, so a cancel() stops it even after it fell due during a pause.
    const EventLoop::EventId ev = sim_.loop_.schedule_after(d, [this, id] { fire(id); });
    Timer& t = timers_[slot];
    t.event = ev;
    t.fn = std::move(fn);
    t.order = next_timer_++;
    t.live = true;
    return TimerId{id};
  }

  void cancel(TimerId id) override {
    Timer* t = live_timer(id.value);
    if (!t) return;
    sim_.loop_.cancel(t->event);  // a no-op when it already fell due
    std::function<void()> dead = std::move(t->fn);
    release(id.value);
  }

  bool send(NodeId to, Bytes frame) override {
    if (!alive()) return false;
    return sim_.network_.send(id_, to, std::move(frame));
  }

  // The views travel with the frame to the receiver's decoding (protocol::FrameViews).
  bool send_gather_views(NodeId to, Bytes head, Bytes body, std::vector<FrameView> views) override {
    if (!alive()) return false;
    for (FrameView& v : views) v.position += head.size();
    return sim_.network_.send(id_, to, join_frame(std::move(head), std::move(body)), std::move(views));
  }

  // One connection state per pair of nodes: both directions with that node break.
  void close_connection(NodeId peer) override {
    const NodeId node = node_of_connection(peer);
    const NodeId other{node.value < 0 ? -node.value : node.value};
    // A node that does not exist has no connection to close (a client's list of servers may name one).
    if (!alive() || other == id_ || other.value == 0 || !sim_.has_node(other)) return;
    sim_.network_.break_connection(id_, other);
  }

  std::string listener_name(NodeId peer) const override {
    auto it = sim_.listener_names_.find(id_.value);
    if (it == sim_.listener_names_.end() || !is_inbound_connection(peer) || -node_of_connection(peer).value == id_.value) return {};
    return it->second;
  }

  Disk& disk() override {
    if (!alive()) return dead_disk_;
    return *slot_.disk;
  }
  Rng& rng() override { return slot_.rng; }

  void emit(TraceBody event) override {
    if (!alive()) return;
    sim_.emit(id_, std::move(event));
  }

  void log(const std::string& line) override {
    if (sim_.config_.verbose)
      std::cerr << format_time(now()) << " [" << slot_.name << "] " << line << "\n";
  }

  // A process that halts is a crashed process: deferred, so the node is not destroyed inside its
  // own callback, and only if this incarnation still runs then.
  void halt(const std::string& reason) override {
    if (!alive()) return;
    log("halt: " + reason);
    sim_.loop_.schedule_after(Duration{0}, [sim = &sim_, id = id_, inc = incarnation_] {
      if (sim->incarnation(id) == inc) sim->crash(id);
    });
  }

  void kill_timers() {
    // In the order the timers were set, as the map by timer number that held them did.
    std::vector<std::pair<uint64_t, uint32_t>> live;
    for (uint32_t i = 0; i < timers_.size(); i++)
      if (timers_[i].live) live.emplace_back(timers_[i].order, i);
    std::sort(live.begin(), live.end());
    for (const auto& [order, slot] : live) sim_.loop_.cancel(timers_[slot].event);
    // Destroyed outside the table: a callback's captures may run code that cancels timers.
    std::vector<std::function<void()>> dead;
    dead.reserve(live.size());
    for (const auto& [order, slot] : live) {
      dead.push_back(std::move(timers_[slot].fn));
      release((uint64_t{timers_[slot].generation} << 32) | (slot + 1));
    }
  }

 private:
  // Timers live in a table reused through a free list (no tree node per timer). A timer's id is
  // (generation << 32 | slot + 1): it names one use of a slot, so cancelling a timer that fired or
  // was cancelled finds a newer generation and does nothing.
  struct Timer {
    EventLoop::EventId event = 0;
    std::function<void()> fn;
    uint64_t order = 0;  // the how-manieth timer of this runtime
    uint32_t generation = 0;
    bool live = false;
  };
  Timer* live_timer(uint64_t id) {
    const uint64_t slot = (id & 0xffffffffu) - 1;  // id 0 wraps to a slot past the end
    if (slot >= timers_.size()) return nullptr;
    Timer& t = timers_[slot];
    return t.live && t.generation == (id >> 32) ? &t : nullptr;
  }
  // REQUIRES: live_timer(id).
  void release(uint64_t id) {
    const auto slot = static_cast<uint32_t>((id & 0xffffffffu) - 1);
    Timer& t = timers_[slot];
    t.live = false;
    t.generation++;
    free_timers_.push_back(slot);
  }
  void fire(uint64_t id);
  bool alive() const {
    return slot_.incarnation == incarnation_ && slot_.state != NodeState::kCrashed;
  }
  Simulator& sim_;
  Simulator::Slot& slot_;
  NodeId id_;
  uint64_t incarnation_;
  uint64_t next_timer_ = 1;
  std::vector<Timer> timers_;
  std::vector<uint32_t> free_timers_;
  DeadDisk dead_disk_;
};

template <typename F>
void Simulator::invoke(NodeId id, F&& fn) {
  on_stack_.push_back(id.value);
  fn();
  on_stack_.pop_back();
  if (on_stack_.empty() && (!node_graveyard_.empty() || !runtime_graveyard_.empty())) {
    node_graveyard_.clear();  // nodes before the runtimes they reference
    runtime_graveyard_.clear();
  }
}

bool Simulator::on_stack(NodeId id) const {
  for (int32_t v : on_stack_)
    if (v == id.value) return true;
  return false;
}

template <typename F>
void Simulator::run_on_node(NodeId id, uint64_t incarnation, F&& fn) {
  Slot& s = slot(id);
  if (s.incarnation != incarnation || s.state == NodeState::kCrashed) return;
  if (s.state == NodeState::kPaused || !s.deferred.empty()) {
    s.deferred.emplace_back(std::forward<F>(fn));
    return;
  }
  invoke(id, fn);
}

void SimRuntime::fire(uint64_t id) {
  sim_.run_on_node(id_, incarnation_, [this, id] {
    Timer* t = live_timer(id);
    if (!t) return;  // cancelled after it fell due (during a pause)
    std::function<void()> fn = std::move(t->fn);
    release(id);
    fn();
  });
}

Simulator::Simulator(uint64_t seed, SimConfig config)
    : seed_(seed),
      config_(config),
      disk_fault_rng_(Rng::derive(seed, "disk-faults")),
      network_(loop_, seed, config.latency, *this) {
  loop_.set_event_limit(config.event_limit);
  assert_context_ = set_assert_context([this] { return describe_position(); });
}

Simulator::~Simulator() {
  // Destroy nodes before their runtimes. The assertion context stays until they are gone.
  for (auto& [id, s] : nodes_) s.node.reset();
  node_graveyard_.clear();
  clear_assert_context(assert_context_);
}

std::string Simulator::describe_position() const {
  return "seed=" + std::to_string(seed_) + " virtual time=" + format_time(loop_.now()) +
         " events=" + std::to_string(loop_.events_run());
}

RunOutcome Simulator::check(RunOutcome o) {
  if (o == RunOutcome::kEventLimitHit)
    std::fprintf(stderr, "simulation stopped: event limit reached (%s)\n", describe_position().c_str());
  return o;
}

Simulator::Slot& Simulator::slot(NodeId id) {
  auto it = nodes_.find(id.value);
  GREGOR_ASSERT_MSG(it != nodes_.end(), "unknown node " + std::to_string(id.value));
  return it->second;
}
const Simulator::Slot& Simulator::slot(NodeId id) const {
  auto it = nodes_.find(id.value);
  GREGOR_ASSERT_MSG(it != nodes_.end(), "unknown node " + std::to_string(id.value));
  return it->second;
}

void Simulator::add_node(NodeId id, std::string name, NodeFactory factory, bool start_now) {
  GREGOR_ASSERT(id.value > 0);
  GREGOR_ASSERT_MSG(!has_node(id), "node added twice: " + std::to_string(id.value));
  Slot& s = nodes_[id.value];
  s.id = id;
  s.name = std::move(name);
  s.factory = std::move(factory);
  s.disk = std::make_unique<SimDisk>(config_.disk_capacity_bytes);
  s.disk->share_pages(page_share_);
  s.rng = Rng::derive(seed_, "node", static_cast<uint64_t>(id.value));
  if (start_now) start(id);
}

std::vector<NodeId> Simulator::node_ids() const {
  std::vector<NodeId> ids;
  for (const auto& [id, s] : nodes_) ids.push_back(s.id);
  return ids;
}

const std::string& Simulator::node_name(NodeId id) const { return slot(id).name; }
NodeState Simulator::state(NodeId id) const { return slot(id).state; }
Node* Simulator::node(NodeId id) {
  Slot& s = slot(id);
  return s.state == NodeState::kCrashed ? nullptr : s.node.get();
}
SimDisk& Simulator::disk(NodeId id) { return *slot(id).disk; }
uint64_t Simulator::incarnation(NodeId id) const { return slot(id).incarnation; }

void Simulator::start(NodeId id) {
  Slot& s = slot(id);
  GREGOR_ASSERT_MSG(s.state == NodeState::kCrashed, "start of a node that is not down");
  GREGOR_ASSERT(s.node == nullptr);
  s.incarnation++;
  s.state = NodeState::kRunning;
  // The old incarnation's code may still be on the stack (restarted from a listener).
  if (s.runtime && on_stack(id)) runtime_graveyard_.push_back(std::move(s.runtime));
  s.runtime = std::make_unique<SimRuntime>(*this, s, s.incarnation);
  s.node = s.factory(*s.runtime);
  GREGOR_ASSERT(s.node != nullptr);
  const uint64_t inc = s.incarnation;
  const bool restart = s.started;
  s.started = true;
  if (restart)
    emit(kWorld, ev::NodeRestart{.target = id.value, .name = s.name, .incarnation = static_cast<int64_t>(inc)});
  else
    emit(kWorld, ev::NodeStart{.target = id.value, .name = s.name, .incarnation = static_cast<int64_t>(inc)});
  invoke(id, [&s, inc] {
    // A listener of the event above may already have crashed or restarted it.
    if (s.incarnation == inc && s.state != NodeState::kCrashed && s.node) s.node->start();
  });
}

void Simulator::crash(NodeId id) {
  Slot& s = slot(id);
  if (s.state == NodeState::kCrashed) return;
  emit(kWorld, ev::NodeCrash{.target = id.value, .name = s.name});
  s.state = NodeState::kCrashed;
  s.runtime->kill_timers();
  s.deferred.clear();
  network_.break_all(id);
  // The node object dies with the process; its runtime stays until restart (see SimRuntime). When
  // its own callback is running (the crash came from a listener), it dies when that returns.
  if (on_stack(id))
    node_graveyard_.push_back(std::move(s.node));
  else
    s.node.reset();
}

void Simulator::power_loss(NodeId id) {
  crash(id);
  Slot& s = slot(id);
  uint64_t unsynced = s.disk->unsynced_bytes();
  Rng r = Rng::derive(seed_, "power-loss", s.incarnation * 1000003ull + static_cast<uint64_t>(id.value));
  s.disk->power_loss(r);
  emit(kWorld, ev::PowerLoss{.target = id.value, .name = s.name, .unsynced_bytes = static_cast<int64_t>(unsynced)});
}

void Simulator::restart(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kCrashed) crash(id);
  start(id);
}

void Simulator::pause(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kRunning) return;
  s.state = NodeState::kPaused;
  emit(kWorld, ev::NodePause{.target = id.value, .name = s.name});
}

void Simulator::resume(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kPaused) return;
  s.state = NodeState::kRunning;
  emit(kWorld, ev::NodeResume{.target = id.value, .name = s.name});
  // What fell due during the pause runs now, in order; anything arriving before it has run queues
  // behind it (see run_on_node).
  if (!s.deferred.empty()) {
    uint64_t inc = s.incarnation;
    loop_.schedule(now(), [this, id, inc] { drain_deferred(id, inc); });
  }
}

void Simulator::drain_deferred(NodeId id, uint64_t incarnation) {
  Slot& s = slot(id);
  // Stops if a listener pauses or crashes the node meanwhile; a later resume drains the rest.
  while (s.incarnation == incarnation && s.state == NodeState::kRunning && !s.deferred.empty()) {
    std::function<void()> fn = std::move(s.deferred.front());
    s.deferred.pop_front();
    invoke(id, fn);
  }
}

// ---------------------------------------------------------------------------------------------
// The network's view of the nodes (sim/sim_network.h).

std::optional<uint64_t> Simulator::reachable(NodeId id) const {
  const Slot& s = slot(id);
  if (s.state == NodeState::kCrashed) return std::nullopt;
  return s.incarnation;
}

void Simulator::deliver(NodeId to, uint64_t incarnation, NodeId seen_from, Bytes frame, std::vector<FrameView> views) {
  run_on_node(to, incarnation, [this, to, seen_from, frame = std::move(frame), views = std::move(views)]() mutable {
    frames_delivered_++;
    Node* n = slot(to).node.get();
    const protocol::FrameViews came_with(as_view(frame), views);
    if (n) n->on_message(seen_from, std::move(frame));
  });
}

void Simulator::disconnected(NodeId self, NodeId peer) {
  Slot& s = slot(self);
  if (s.state == NodeState::kCrashed) return;
  uint64_t inc = s.incarnation;
  loop_.schedule(now(), [this, self, peer, inc] {
    run_on_node(self, inc, [this, self, peer] {
      Node* n = slot(self).node.get();
      if (n) n->on_disconnect(peer);
    });
  });
}

namespace {
IntList id_list(const std::set<NodeId>& ids) {
  IntList out;
  for (NodeId n : ids) out.push_back(n.value);
  return out;
}
}  // namespace

void Simulator::partition(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways) {
  emit(kWorld, ev::Partition{.from = id_list(from), .to = id_list(to), .both_ways = both_ways});
  network_.cut(from, to, both_ways);
}

void Simulator::heal(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways) {
  emit(kWorld, ev::Heal{.from = id_list(from), .to = id_list(to), .both_ways = both_ways});
  network_.heal(from, to, both_ways);
}

void Simulator::heal_all() {
  emit(kWorld, ev::HealAll{});
  network_.heal_all();
  for (const auto& [id, s] : nodes_) free_disk(s.id);  // disk-full and io-error end too
}

void Simulator::isolate(NodeId id) {
  std::set<NodeId> others;
  for (const auto& [k, s] : nodes_)
    if (s.id != id) others.insert(s.id);
  partition({id}, others, true);
}

bool Simulator::is_cut(NodeId from, NodeId to) const { return network_.is_cut(from, to); }

void Simulator::clog(NodeId from, NodeId to, Duration d) {
  emit(kWorld, ev::Clog{.from = from.value, .to = to.value, .duration_us = d.us});
  network_.clog(from, to, d);
}

void Simulator::set_latency(NodeId from, NodeId to, LinkLatency latency) {
  emit(kWorld, ev::Latency{.from = from.value, .to = to.value, .base_us = latency.base.us, .jitter_us = latency.jitter.us});
  GREGOR_ASSERT_MSG((from == kWorld) == (to == kWorld), "set_latency: both ends or neither may be kWorld");
  if (from == kWorld) return network_.set_default_latency(latency);
  network_.set_latency(from, to, latency);
}

void Simulator::corrupt_disk(NodeId id, const std::string& path) {
  auto [victim, pos] = slot(id).disk->corrupt_bit(disk_fault_rng_, path);
  emit(kWorld, ev::DiskCorrupt{.target = id.value, .path = victim, .position = static_cast<int64_t>(pos)});
}

void Simulator::set_disk_capacity(NodeId id, uint64_t bytes) {
  emit(kWorld, ev::DiskCapacity{.target = id.value, .bytes = static_cast<int64_t>(bytes)});
  slot(id).disk->set_capacity(bytes);
}

void Simulator::fill_disk(NodeId id, std::optional<uint64_t> capacity) {
  set_disk_capacity(id, capacity.value_or(slot(id).disk->used_bytes()));
}

void Simulator::fail_disk_writes(NodeId id, int64_t writes) {
  if (writes < 0) writes = -1;
  emit(kWorld, ev::DiskIoError{.target = id.value, .writes = writes});
  slot(id).disk->fail_writes(writes);
}

void Simulator::free_disk(NodeId id) {
  SimDisk& d = *slot(id).disk;
  if (d.capacity() != config_.disk_capacity_bytes) set_disk_capacity(id, config_.disk_capacity_bytes);
  if (d.failing_writes() != 0) fail_disk_writes(id, 0);
}

void Simulator::emit(NodeId node, TraceBody&& event) {
  fingerprint_.add(now(), node, event);
  events_emitted_++;
  if (listeners_.empty()) return;  // nobody keeps the event: it is not moved into a TraceEvent
  TraceEvent e{now(), node, std::move(event)};
  // By index: a listener may add another listener.
  for (size_t i = 0; i < listeners_.size(); i++) listeners_[i](e);
}

}  // namespace gregor::sim
