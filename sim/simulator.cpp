#include "sim/simulator.h"

#include <cstdio>
#include <iostream>

namespace gregor::sim {

const char* node_state_name(NodeState s) {
  switch (s) {
    case NodeState::kRunning: return "running";
    case NodeState::kPaused: return "paused";
    case NodeState::kCrashed: return "crashed";
  }
  return "?";
}

// The Runtime of one incarnation of one node. A crashed incarnation's runtime is kept alive until
// the node restarts (the node object may still hold a reference while it is destroyed), but all of
// its timers and sends are dead.
class SimRuntime final : public Runtime {
 public:
  SimRuntime(Simulator& sim, NodeId id, uint64_t incarnation) : sim_(sim), id_(id), incarnation_(incarnation) {}

  NodeId self() const override { return id_; }
  Time now() const override { return sim_.now(); }

  TimerId after(Duration d, std::function<void()> fn) override {
    GREGOR_ASSERT(d.us >= 0);
    uint64_t id = next_timer_++;
    auto ev = sim_.loop_.schedule_after(d, [this, id, fn = std::move(fn)]() mutable {
      timers_.erase(id);
      sim_.run_on_node(id_, incarnation_, std::move(fn));
    });
    timers_[id] = ev;
    return TimerId{id};
  }

  void cancel(TimerId id) override {
    auto it = timers_.find(id.value);
    if (it == timers_.end()) return;
    sim_.loop_.cancel(it->second);
    timers_.erase(it);
  }

  bool send(NodeId to, Bytes frame) override {
    if (!alive()) return false;
    return sim_.send(id_, to, std::move(frame));
  }

  Disk& disk() override { return *sim_.slot(id_).disk; }
  Rng& rng() override { return sim_.slot(id_).rng; }

  void emit(std::string kind, std::vector<TraceField> fields) override {
    if (!alive()) return;
    sim_.emit(id_, std::move(kind), std::move(fields));
  }

  void log(const std::string& line) override {
    if (sim_.config_.verbose)
      std::cerr << format_time(now()) << " [" << sim_.slot(id_).name << "] " << line << "\n";
  }

  void kill_timers() {
    for (auto& [id, ev] : timers_) sim_.loop_.cancel(ev);
    timers_.clear();
  }

 private:
  bool alive() const {
    const auto& s = sim_.slot(id_);
    return s.incarnation == incarnation_ && s.state != NodeState::kCrashed;
  }
  Simulator& sim_;
  NodeId id_;
  uint64_t incarnation_;
  uint64_t next_timer_ = 1;
  std::map<uint64_t, EventLoop::EventId> timers_;
};

Simulator::Simulator(uint64_t seed, SimConfig config)
    : seed_(seed),
      config_(config),
      net_rng_(Rng::derive(seed, "net")),
      disk_fault_rng_(Rng::derive(seed, "disk-faults")) {
  loop_.set_event_limit(config.event_limit);
  set_assert_context([this] { return describe_position(); });
}

Simulator::~Simulator() {
  clear_assert_context();
  // Destroy nodes before their runtimes.
  for (auto& [id, s] : nodes_) s.node.reset();
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
  s.incarnation++;
  s.state = NodeState::kRunning;
  s.node.reset();
  s.runtime = std::make_unique<SimRuntime>(*this, id, s.incarnation);
  s.node = s.factory(*s.runtime);
  GREGOR_ASSERT(s.node != nullptr);
  emit(kWorld, s.started ? "node_restart" : "node_start",
       {{"target", id.value}, {"name", s.name}, {"incarnation", s.incarnation}});
  s.started = true;
  s.node->start();
}

void Simulator::crash(NodeId id) {
  Slot& s = slot(id);
  if (s.state == NodeState::kCrashed) return;
  emit(kWorld, "node_crash", {{"target", id.value}, {"name", s.name}});
  s.state = NodeState::kCrashed;
  s.runtime->kill_timers();
  s.deferred.clear();
  std::set<NodeId> peers = s.connected;
  for (NodeId p : peers) break_connection(id, p);
  // The node object dies with the process; its runtime stays until restart (see SimRuntime).
  s.node.reset();
}

void Simulator::power_loss(NodeId id) {
  crash(id);
  Slot& s = slot(id);
  uint64_t unsynced = s.disk->unsynced_bytes();
  Rng r = Rng::derive(seed_, "power-loss", s.incarnation * 1000003ull + static_cast<uint64_t>(id.value));
  s.disk->power_loss(r);
  emit(kWorld, "power_loss", {{"target", id.value}, {"name", s.name}, {"unsynced_bytes", unsynced}});
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
  emit(kWorld, "node_pause", {{"target", id.value}, {"name", s.name}});
}

void Simulator::resume(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kPaused) return;
  s.state = NodeState::kRunning;
  emit(kWorld, "node_resume", {{"target", id.value}, {"name", s.name}});
  // What arrived during the pause runs now, in arrival order.
  auto work = std::move(s.deferred);
  s.deferred.clear();
  uint64_t inc = s.incarnation;
  for (auto& fn : work) loop_.schedule(now(), [this, id, inc, fn = std::move(fn)]() mutable {
    run_on_node(id, inc, std::move(fn));
  });
}

void Simulator::run_on_node(NodeId id, uint64_t incarnation, std::function<void()> fn) {
  Slot& s = slot(id);
  if (s.incarnation != incarnation || s.state == NodeState::kCrashed) return;
  if (s.state == NodeState::kPaused) {
    s.deferred.push_back(std::move(fn));
    return;
  }
  fn();
}

bool Simulator::send(NodeId from, NodeId addressed, Bytes frame) {
  // A negative id answers on the inbound connection of node -id; the frame arrives there as coming
  // from this node. A positive id travels on this node's outbound connection and arrives from -from.
  const bool reply = addressed.value < 0;
  const NodeId to{reply ? -addressed.value : addressed.value};
  const NodeId seen_from{reply ? from.value : -from.value};
  if (to.value == 0 || !has_node(to)) return false;
  Slot& dst = slot(to);
  Channel& ch = channel(from, to);
  if (ch.cut || dst.state == NodeState::kCrashed) {
    frames_dropped_++;
    return false;
  }
  frames_sent_++;
  slot(from).connected.insert(to);
  dst.connected.insert(from);
  const LinkLatency& lat = ch.has_latency ? ch.latency : config_.latency;
  Duration d = lat.base;
  if (lat.jitter.us > 0) d = d + Duration::micros(static_cast<int64_t>(net_rng_.uniform(static_cast<uint64_t>(lat.jitter.us) + 1)));
  Time at = now() + d;
  if (at < ch.last_delivery) at = ch.last_delivery;  // TCP order: never overtake
  if (at < ch.clog_until) at = ch.clog_until;
  ch.last_delivery = at;
  uint64_t epoch = ch.epoch;
  uint64_t inc = dst.incarnation;
  loop_.schedule(at, [this, from, to, seen_from, epoch, inc, frame = std::move(frame)]() mutable {
    Channel& c = channel(from, to);
    Slot& d2 = slot(to);
    if (c.epoch != epoch || d2.incarnation != inc || d2.state == NodeState::kCrashed) {
      frames_dropped_++;
      return;
    }
    run_on_node(to, inc, [this, seen_from, to, frame = std::move(frame)]() mutable {
      frames_delivered_++;
      Node* n = slot(to).node.get();
      if (n) n->on_message(seen_from, std::move(frame));
    });
  });
  return true;
}

void Simulator::break_connection(NodeId a, NodeId b) {
  channel(a, b).epoch++;
  channel(b, a).epoch++;
  Slot& sa = slot(a);
  Slot& sb = slot(b);
  bool was_connected = sa.connected.erase(b) > 0;
  was_connected = (sb.connected.erase(a) > 0) || was_connected;
  if (!was_connected) return;
  // Both ends learn it (at once: a reset connection, or a crash seen by the peer's kernel). The
  // simulator keeps one connection state per pair, so each end hears of both its outbound
  // connection (peer id) and its inbound one (negative peer id); a node ignores ids it never used.
  notify_disconnect(a, b);
  notify_disconnect(a, NodeId{-b.value});
  notify_disconnect(b, a);
  notify_disconnect(b, NodeId{-a.value});
}

void Simulator::notify_disconnect(NodeId self, NodeId peer) {
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

void Simulator::partition(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways) {
  std::string a, b;
  for (NodeId n : from) a += (a.empty() ? "" : ",") + std::to_string(n.value);
  for (NodeId n : to) b += (b.empty() ? "" : ",") + std::to_string(n.value);
  emit(kWorld, "partition", {{"from", a}, {"to", b}, {"both_ways", both_ways}});
  for (NodeId x : from)
    for (NodeId y : to) {
      if (x == y) continue;
      channel(x, y).cut = true;
      if (both_ways) channel(y, x).cut = true;
      break_connection(x, y);
    }
}

void Simulator::heal(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways) {
  std::string a, b;
  for (NodeId n : from) a += (a.empty() ? "" : ",") + std::to_string(n.value);
  for (NodeId n : to) b += (b.empty() ? "" : ",") + std::to_string(n.value);
  emit(kWorld, "heal", {{"from", a}, {"to", b}, {"both_ways", both_ways}});
  for (NodeId x : from)
    for (NodeId y : to) {
      channel(x, y).cut = false;
      if (both_ways) channel(y, x).cut = false;
    }
}

void Simulator::heal_all() {
  emit(kWorld, "heal_all", {});
  for (auto& [k, ch] : channels_) ch.cut = false;
}

void Simulator::isolate(NodeId id) {
  std::set<NodeId> others;
  for (const auto& [k, s] : nodes_)
    if (s.id != id) others.insert(s.id);
  partition({id}, others, true);
}

bool Simulator::is_cut(NodeId from, NodeId to) const {
  auto it = channels_.find({from.value, to.value});
  return it != channels_.end() && it->second.cut;
}

void Simulator::clog(NodeId from, NodeId to, Duration d) {
  emit(kWorld, "clog", {{"from", from.value}, {"to", to.value}, {"duration_us", d.us}});
  Channel& ch = channel(from, to);
  Time until = now() + d;
  if (until > ch.clog_until) ch.clog_until = until;
}

void Simulator::set_latency(NodeId from, NodeId to, LinkLatency latency) {
  emit(kWorld, "latency", {{"from", from.value}, {"to", to.value}, {"base_us", latency.base.us},
                           {"jitter_us", latency.jitter.us}});
  if (from == kWorld && to == kWorld) {
    config_.latency = latency;
    return;
  }
  Channel& ch = channel(from, to);
  ch.has_latency = true;
  ch.latency = latency;
}

void Simulator::corrupt_disk(NodeId id, const std::string& path) {
  auto [victim, pos] = slot(id).disk->corrupt_bit(disk_fault_rng_, path);
  emit(kWorld, "disk_corrupt", {{"target", id.value}, {"path", victim}, {"position", pos}});
}

void Simulator::set_disk_capacity(NodeId id, uint64_t bytes) {
  emit(kWorld, "disk_capacity", {{"target", id.value}, {"bytes", bytes}});
  slot(id).disk->set_capacity(bytes);
}

void Simulator::emit(NodeId node, std::string kind, std::vector<TraceField> fields) {
  TraceEvent e{now(), node, std::move(kind), std::move(fields)};
  fingerprint_.add(e);
  events_emitted_++;
  for (auto& l : listeners_) l(e);
}

}  // namespace gregor::sim
