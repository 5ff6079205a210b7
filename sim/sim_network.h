// SimNetwork: the simulated network between the simulator's nodes (sim/simulator.h describes the
// model): per directed pair of nodes an ordered channel with latency = base + uniform jitter,
// delivering in send order (TCP order), each link drawing its jitter from its own stream so that
// traffic on one link never shifts the timing of another. The two directions between a pair form
// one connection: when it breaks, everything in flight both ways is dropped and both ends hear of
// it. A cut both ways breaks the connection; a cut one way does not: what is sent into it (and what
// was in flight on it) is held, as TCP keeps retransmitting, and arrives after the heal unless an
// end closes the connection first. No new connection opens while either direction is cut. A clog
// holds a direction's frames, those already in flight included, until a time, then delivers them
// in order.
//
// It knows nodes only by id, through Nodes: whether one exists, which incarnation a frame would
// reach, how to hand a frame over and how to tell a node of a lost connection.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/rng.h"
#include "engine/core/shared_bytes.h"
#include "engine/core/types.h"
#include "sim/event_loop.h"

namespace gregor::sim {

struct LinkLatency {
  Duration base = Duration::micros(500);
  Duration jitter = Duration::micros(200);
};

// What happens to one frame a FrameInterceptor looked at (message faults, sim/scenario/message_faults.h).
struct FrameVerdict {
  enum class Action {
    kPass,   // delivered as usual
    kDrop,   // lost as TCP loses data: when it would have arrived, the connection breaks and
             // everything in flight on it (both ways, this frame included) is lost
    kDelay,  // arrives `delay` later; frames sent after it on the same direction wait behind it
    kHold,   // held, with every frame sent after it on the same direction, until a heal of the link
    kDuplicate,  // delivered as usual, and a copy `delay` later, outside the direction's order
                 // (and only if the connection and the receiver's incarnation still stand)
  };
  Action action = Action::kPass;
  Duration delay{0};
};

// Looks at every frame the network accepts, before it travels: `from` and `to` are node ids (the
// sender and the receiver), `reply` is true when it travels on the receiver's own connection (a
// response, in Kafka's terms; see engine/core/runtime.h).
class FrameInterceptor {
 public:
  virtual ~FrameInterceptor() = default;
  virtual FrameVerdict on_send(NodeId from, NodeId to, bool reply, ByteView frame) = 0;
};

class SimNetwork {
 public:
  // The world the network connects.
  class Nodes {
   public:
    virtual ~Nodes() = default;
    virtual bool has_node(NodeId id) const = 0;
    // The incarnation a frame sent now reaches, or nullopt while the node is down.
    virtual std::optional<uint64_t> reachable(NodeId id) const = 0;
    // Hands a frame to that incarnation of `to` (at once, or after a pause), as from `seen_from`.
    // views: ranges of the frame that shared buffers hold as well (Runtime::send_gather_views).
    virtual void deliver(NodeId to, uint64_t incarnation, NodeId seen_from, Bytes frame, std::vector<FrameView> views) = 0;
    // `self` lost its connection `peer` (an id as the node sees it; see engine/core/runtime.h).
    virtual void disconnected(NodeId self, NodeId peer) = 0;
  };

  SimNetwork(EventLoop& loop, uint64_t seed, LinkLatency latency, Nodes& nodes)
      : loop_(loop), seed_(seed), latency_(latency), nodes_(nodes) {}

  // A frame from `from` to the connection id `addressed` (engine/core/runtime.h): false when it
  // cannot go (no such node, the node is down, the link is cut).
  // views travel with it (Runtime::send_gather_views).
  bool send(NodeId from, NodeId addressed, Bytes frame, std::vector<FrameView> views = {});
  // Breaks the connection between a and b (both directions), if there is one.
  void break_connection(NodeId a, NodeId b);
  // Breaks every connection of a node (it crashed).
  void break_all(NodeId id);

  // Faults. cut/heal act on the directed links from every node of `from` to every node of `to`
  // (and back when both_ways); cutting breaks their connections.
  void cut(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways);
  void heal(const std::set<NodeId>& from, const std::set<NodeId>& to, bool both_ways);
  void heal_all();
  bool is_cut(NodeId from, NodeId to) const;
  void clog(NodeId from, NodeId to, Duration d);
  // Latency of one direction for frames sent from now on; set_default_latency for every link that
  // has none of its own.
  void set_latency(NodeId from, NodeId to, LinkLatency latency);
  void set_default_latency(LinkLatency latency) { latency_ = latency; }
  // Every accepted frame passes through it (nullptr: none, the default).
  void set_interceptor(FrameInterceptor* i) { interceptor_ = i; }

  uint64_t frames_sent() const { return frames_sent_; }
  uint64_t frames_dropped() const { return frames_dropped_; }

 private:
  // A frame on its way: queued on its channel in send order, delivered from the front.
  struct InFlight {
    Time at;               // when it reaches the receiver (never earlier than the frame before it)
    NodeId seen_from;      // the connection id the receiver sees (see engine/core/runtime.h)
    uint64_t incarnation;  // of the receiver it was sent to
    Bytes frame;
    std::vector<FrameView> views;
    bool held = false;  // an intercept holds it (and what follows it) until a heal
    bool drop = false;  // an intercept loses it: the connection breaks when it would arrive
  };
  struct Channel {
    NodeId from, to;
    bool cut = false;
    Time last_delivery{0};
    Time clog_until{0};
    bool has_latency = false;
    LinkLatency latency;
    Rng jitter{0};                   // this link's own stream: other links' traffic cannot shift it
    std::deque<InFlight> in_flight;  // dropped whole when the connection breaks
  };
  Channel& channel(NodeId from, NodeId to);
  // Hands the frames at the front of a channel that are due (and not clogged or cut) to the receiver.
  void deliver_due(Channel& ch);
  // Lifts a cut and releases frames an intercept holds; they arrive one link latency later, in order.
  void heal_channel(Channel& ch);

  EventLoop& loop_;
  uint64_t seed_;
  LinkLatency latency_;
  Nodes& nodes_;
  FrameInterceptor* interceptor_ = nullptr;
  std::map<std::pair<int32_t, int32_t>, Channel> channels_;  // node addresses are stable
  std::map<int32_t, std::set<NodeId>> connected_;           // node -> peers with an open connection
  std::map<std::pair<int32_t, int32_t>, unsigned> extra_lanes_;  // pairs (lower id first): the other lanes used (bit per Lane)
  uint64_t frames_sent_ = 0, frames_dropped_ = 0;
};

}  // namespace gregor::sim
