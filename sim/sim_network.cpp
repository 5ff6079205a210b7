#include "sim/sim_network.h"

#include <algorithm>

#include "engine/core/runtime.h"

namespace gregor::sim {

SimNetwork::Channel& SimNetwork::channel(NodeId from, NodeId to) {
  auto [it, inserted] = channels_.try_emplace({from.value, to.value});
  Channel& ch = it->second;
  if (inserted) {
    ch.from = from;
    ch.to = to;
    const uint64_t link = (static_cast<uint64_t>(static_cast<uint32_t>(from.value)) << 32) | static_cast<uint32_t>(to.value);
    ch.jitter = Rng::derive(seed_, "link", link);
  }
  return ch;
}

bool SimNetwork::send(NodeId from, NodeId addressed, Bytes frame, std::vector<FrameView> views) {
  // A negative id answers on the inbound connection of node -id; the frame arrives there as coming
  // from this node. A positive id travels on this node's outbound connection and arrives from -from.
  // An id of another lane (engine/core/runtime.h) travels between the same two nodes, on the same
  // link (faults and latency are the pair's), and is seen as a connection of its own.
  const bool reply = addressed.value < 0;
  const Lane lane = lane_of(addressed);
  const NodeId to{node_of_connection(NodeId{reply ? -addressed.value : addressed.value})};
  const NodeId lane_from = lane_connection(from, lane);
  const NodeId seen_from{reply ? lane_from.value : -lane_from.value};
  if (to.value <= 0 || !nodes_.has_node(to)) return false;
  Channel& ch = channel(from, to);
  const std::optional<uint64_t> incarnation = nodes_.reachable(to);
  // An open connection takes the frame even while its direction is cut: TCP keeps it and
  // retransmits it until the path heals (deliver_due holds it) or the connection is closed. A new
  // connection needs both directions (the handshake): it cannot open across a cut either way.
  const bool open = connected_[from.value].count(to) > 0;
  if (!incarnation || (!open && (ch.cut || channel(to, from).cut))) {
    frames_dropped_++;
    return false;
  }
  frames_sent_++;
  connected_[from.value].insert(to);
  connected_[to.value].insert(from);
  if (lane != Lane::kMain) extra_lanes_[{std::min(from.value, to.value), std::max(from.value, to.value)}] |= 1u << static_cast<int>(lane);
  const LinkLatency& lat = ch.has_latency ? ch.latency : latency_;
  Duration d = lat.base;
  if (lat.jitter.us > 0) d = d + Duration::micros(static_cast<int64_t>(ch.jitter.uniform(static_cast<uint64_t>(lat.jitter.us) + 1)));
  Time at = loop_.now() + d;
  if (at < ch.last_delivery) at = ch.last_delivery;  // TCP order: never overtake
  if (at < ch.clog_until) at = ch.clog_until;
  FrameVerdict verdict;
  if (interceptor_) verdict = interceptor_->on_send(from, to, reply, frame);
  if (verdict.action == FrameVerdict::Action::kDelay) at = at + verdict.delay;
  if (verdict.action == FrameVerdict::Action::kDuplicate) {
    // The copy travels on no channel: nothing waits behind it and it waits for nothing.
    loop_.schedule(at + verdict.delay, [this, from, to, seen_from, inc = *incarnation, copy = frame, copy_views = views] {
      if (nodes_.reachable(to) != inc || !connected_[from.value].count(to)) {
        frames_dropped_++;
        return;
      }
      nodes_.deliver(to, inc, seen_from, copy, copy_views);
    });
  }
  ch.last_delivery = at;
  ch.in_flight.push_back(InFlight{at, seen_from, *incarnation, std::move(frame), std::move(views)});
  ch.in_flight.back().held = verdict.action == FrameVerdict::Action::kHold;
  ch.in_flight.back().drop = verdict.action == FrameVerdict::Action::kDrop;
  Channel* c = &ch;  // channels_ never moves its elements
  loop_.schedule(at, [this, c] { deliver_due(*c); });
  return true;
}

void SimNetwork::deliver_due(Channel& ch) {
  // Frames are queued with non-decreasing arrival times, so the due ones are at the front. Several
  // are due at once when a clog lifts. At most the frames queued on entry are handed over: one a
  // handler sends with zero latency waits for its own event.
  for (size_t budget = ch.in_flight.size(); budget > 0; budget--) {
    const Time now = loop_.now();
    // A cut direction holds its frames (TCP retransmits them until the path heals; see heal).
    if (ch.cut || ch.in_flight.empty() || ch.in_flight.front().at > now || now < ch.clog_until) return;
    // An intercepted frame: held ones wait (and everything behind them) for a heal; a lost one
    // breaks the connection, which drops everything in flight both ways.
    if (ch.in_flight.front().held) return;
    if (ch.in_flight.front().drop) return break_connection(ch.from, ch.to);
    InFlight f = std::move(ch.in_flight.front());
    ch.in_flight.pop_front();
    if (nodes_.reachable(ch.to) != f.incarnation) {
      frames_dropped_++;  // a break clears the queue, so this is only a safety net
      continue;
    }
    nodes_.deliver(ch.to, f.incarnation, f.seen_from, std::move(f.frame), std::move(f.views));
  }
}

void SimNetwork::break_connection(NodeId a, NodeId b) {
  for (Channel* ch : {&channel(a, b), &channel(b, a)}) {
    frames_dropped_ += ch->in_flight.size();
    ch->in_flight.clear();
  }
  bool was_connected = connected_[a.value].erase(b) > 0;
  was_connected = (connected_[b.value].erase(a) > 0) || was_connected;
  if (!was_connected) return;
  // Both ends learn it (at once: a reset connection, or a crash seen by the peer's kernel). The
  // network keeps one connection state per pair, so each end hears of both its outbound
  // connection (peer id) and its inbound one (negative peer id); a node ignores ids it never used.
  nodes_.disconnected(a, b);
  nodes_.disconnected(a, NodeId{-b.value});
  nodes_.disconnected(b, a);
  nodes_.disconnected(b, NodeId{-a.value});
  // The pair's connections on other lanes break with it.
  auto lanes = extra_lanes_.find({std::min(a.value, b.value), std::max(a.value, b.value)});
  if (lanes == extra_lanes_.end()) return;
  const unsigned used = lanes->second;
  extra_lanes_.erase(lanes);
  for (int l = 1; l < kLaneCount; l++) {
    if (!(used & (1u << l))) continue;
    const Lane lane = static_cast<Lane>(l);
    nodes_.disconnected(a, lane_connection(b, lane));
    nodes_.disconnected(a, NodeId{-lane_connection(b, lane).value});
    nodes_.disconnected(b, lane_connection(a, lane));
    nodes_.disconnected(b, NodeId{-lane_connection(a, lane).value});
  }
}

void SimNetwork::break_all(NodeId id) {
  const std::set<NodeId> peers = connected_[id.value];
  for (NodeId p : peers) break_connection(id, p);
}

void SimNetwork::cut(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways) {
  for (NodeId x : from)
    for (NodeId y : to) {
      if (x == y) continue;
      channel(x, y).cut = true;
      if (both_ways) {
        // Both ways: the connection is reset at once (both ends hear of it), as the stories expect
        // of a partition. One way: the connection stays open and what is sent into the cut waits
        // for the heal (TCP retransmission) unless an end closes the connection first.
        channel(y, x).cut = true;
        break_connection(x, y);
      }
    }
}

void SimNetwork::heal_channel(Channel& ch) {
  bool held = false;
  for (InFlight& f : ch.in_flight) {
    held = held || f.held;
    f.held = false;
  }
  if (!ch.cut && !held) return;
  ch.cut = false;
  if (ch.in_flight.empty()) return;
  // What was sent into the cut was retransmitted meanwhile; the first retransmission after the heal
  // gets through, one link latency later, and the frames arrive in their order.
  const LinkLatency& lat = ch.has_latency ? ch.latency : latency_;
  const Time earliest = loop_.now() + lat.base;
  for (InFlight& f : ch.in_flight)
    if (f.at < earliest) f.at = earliest;
  if (ch.last_delivery < earliest) ch.last_delivery = earliest;
  Channel* c = &ch;
  loop_.schedule(std::max(earliest, ch.clog_until), [this, c] { deliver_due(*c); });
}

void SimNetwork::heal(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways) {
  for (NodeId x : from)
    for (NodeId y : to) {
      if (x == y) continue;
      heal_channel(channel(x, y));
      if (both_ways) heal_channel(channel(y, x));
    }
}

void SimNetwork::heal_all() {
  for (auto& [k, ch] : channels_) heal_channel(ch);
}

bool SimNetwork::is_cut(NodeId from, NodeId to) const {
  auto it = channels_.find({from.value, to.value});
  return it != channels_.end() && it->second.cut;
}

void SimNetwork::clog(NodeId from, NodeId to, Duration d) {
  Channel& ch = channel(from, to);
  const Time until = loop_.now() + d;
  if (until <= ch.clog_until) return;
  ch.clog_until = until;
  // Frames already in flight fall due during the clog and wait; this event delivers them.
  Channel* c = &ch;
  loop_.schedule(until, [this, c] { deliver_due(*c); });
}

void SimNetwork::set_latency(NodeId from, NodeId to, LinkLatency latency) {
  Channel& ch = channel(from, to);
  ch.has_latency = true;
  ch.latency = latency;
}

}  // namespace gregor::sim
