// Runtime: the boundary between a node's logic and the world it runs in.
//
// A node (broker, zk server, client) is a state machine that reacts to three kinds of input: its
// start, a delivered message and a fired timer. It acts on the world only through its Runtime.
// The simulator (sim/) implements Runtime with virtual time, seeded randomness, a simulated network
// and disk; the real runtime (net/) with Boost.Asio, a steady clock, TCP and files. Nothing in
// engine/ knows which one it runs on.
//
// Messages are bytes (encoded frames, without the 4-byte size prefix that TCP framing adds), never
// shared objects: what crosses the simulated network is exactly what would cross a socket.
//
// Connections, as on TCP. send(to) with a node id (> 0) travels on this node's OUTBOUND connection
// to that node (opened on demand). The receiver sees it arrive on an INBOUND connection, whose id is
// negative and is not the sender's node id (a stock Kafka client never says who it is); the
// receiver answers with send(that negative id), and the answer arrives back on the outbound
// connection, so the original sender sees it with from = the node id it sent to. Hence the rule
// every node follows: a frame from a positive id is a response (or a push) on a connection this
// node opened; a frame from a negative id is a request from a peer that connected to this node.
// Use a negative id only to reply on; it identifies a connection, not a node.
//
// Lanes: a node may keep more than one outbound connection to the same peer, as Kafka's clients of
// one broker do (the replica fetchers, the controller's ControllerChannelManager and the
// transaction marker channel each have a NetworkClient of their own), so that a request the peer
// holds (a follower's long-poll fetch, a WriteTxnMarkers that waits for the followers' fetches)
// cannot block the requests behind it on one connection (a broker handles a connection's requests
// one at a time). send(lane_connection(n, lane)) travels on that lane's connection to node n; its
// answers arrive from lane_connection(n, lane), and the receiver sees it as an inbound connection of
// its own. node_of_connection(id) is the node behind any id. Node ids stay below kLaneStride.
// A lane connects to the node's address unless learn_address gave the lane an address of its own
// (the controller's lane goes to the control-plane listener when a broker has one).
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/disk.h"
#include "engine/core/file_slice.h"
#include "engine/core/rng.h"
#include "engine/core/shared_bytes.h"
#include "engine/core/trace_event.h"
#include "engine/core/types.h"

namespace gregor {

// head followed by body as one buffer; reuses body's when it has room for head in front.
inline Bytes join_frame(Bytes head, Bytes body) {
  if (body.capacity() - body.size() >= head.size()) {
    body.insert(body.begin(), head.begin(), head.end());
    return body;
  }
  head.insert(head.end(), body.begin(), body.end());
  return head;
}

class Runtime {
 public:
  virtual ~Runtime() = default;

  virtual NodeId self() const = 0;
  virtual Time now() const = 0;
  // Milliseconds since the Unix epoch, for record timestamps and znode data that people read. In
  // the simulator a fixed instant (2026-01-01T00:00:00Z) plus virtual time, so runs stay
  // deterministic; on real sockets the system clock.
  static constexpr int64_t kSimulatedEpochMs = 1767225600000;
  virtual int64_t wall_time_ms() const { return kSimulatedEpochMs + now().ms(); }

  // Runs fn once after d, unless cancelled first. A timer never fires after its node crashed.
  virtual TimerId after(Duration d, std::function<void()> fn) = 0;
  // Cancelling a fired or unknown timer is a no-op.
  virtual void cancel(TimerId id) = 0;

  // Sends one frame to a peer over a reliable FIFO connection, like TCP: frames between two nodes
  // arrive in the order sent, or not at all. Returns false when there is no connection (peer down,
  // link cut, unknown peer): the frame is dropped and the node learns it at once. A connection that
  // breaks later (peer crash, partition) drops what is in flight and is reported by
  // Node::on_disconnect.
  virtual bool send(NodeId to, Bytes frame) = 0;
  // Sends one frame made of head followed by body, exactly as send(to, head + body) would: the
  // receiver sees one frame. A runtime that writes to a socket hands both to the kernel in one
  // gathering write (writev), so a large body (a Fetch response's records, a Produce request's
  // batches) is not copied behind its small header first; the simulator joins them.
  virtual bool send_gather(NodeId to, Bytes head, Bytes body) { return send(to, join_frame(std::move(head), std::move(body))); }
  // The same for a body some ranges of which shared buffers hold as well (views, positions in the
  // body, ascending): a Fetch response's records, read from the log as views of its pages. The bytes
  // sent are the same. The simulator hands the views along with the frame, so that the receiver
  // decodes those records as the sender's buffers (a follower's disk then finds its leader's page
  // by its address instead of comparing bytes); the default, and the real runtime, ignore them.
  virtual bool send_gather_views(NodeId to, Bytes head, Bytes body, std::vector<FrameView> views) {
    (void)views;
    return send_gather(to, std::move(head), std::move(body));
  }
  // The same for a frame whose body has holes that file slices fill (engine/core/file_slice.h): a
  // Fetch response whose records are ranges of segment files. A runtime that writes to sockets
  // sends the slices from the files (sendfile) after the bytes before them, so the records never
  // pass through user space; the default reads them into the body and sends that (the simulator,
  // a connection to self). A slice that cannot be read any more (its file was truncated under it)
  // closes the connection instead: the frame's size is promised, so nothing else could be sent.
  virtual bool send_with_files(NodeId to, Bytes head, Bytes body, std::vector<FrameHole> holes);

  // Where node `id` listens, as a node learns it (from Metadata or from its configuration). The real
  // runtime connects there on the next send(id); the simulator, where every node is reachable by
  // id, ignores it. For an id of another lane (lane_connection) it is that lane's own address (a
  // listener of its own); a lane without one connects to the node's address.
  virtual void learn_address(NodeId id, const std::string& host, int32_t port) {
    (void)id;
    (void)host;
    (void)port;
  }

  // Closes the connection with peer (typically an inbound one, from a client that broke the
  // protocol: Kafka closes the connection of a request it cannot parse). Frames in flight either
  // way are lost, and the node later gets on_disconnect(peer) as for any other end. A no-op for a
  // connection that is not open. The simulator keeps one connection per pair of nodes, so there
  // both directions between the two nodes break.
  virtual void close_connection(NodeId peer) { (void)peer; }

  // The remote address of an accepted connection as the transport sees it ("127.0.0.1"), for
  // limits per client address (zk's maxClientCnxns); never an identity. Empty where the runtime
  // has none: the simulator, where nodes are ids.
  virtual std::string peer_host(NodeId peer) const {
    (void)peer;
    return {};
  }

  // The name of the listener an accepted connection came in on (Kafka's listener names: "CLIENT",
  // "REPLICATION"); empty where the runtime has none (the simulator, an outbound connection).
  virtual std::string listener_name(NodeId peer) const {
    (void)peer;
    return {};
  }

  virtual Disk& disk() = 0;
  virtual Rng& rng() = 0;

  // Records a state change (one of the kinds of engine/core/trace_events.h); the runtime stamps
  // time and node.
  virtual void emit(TraceBody event) = 0;

  // Human-readable log line (not part of the fingerprint): debugging and the real-socket console.
  virtual void log(const std::string& line) = 0;

  // Ends this node's process, as Kafka's Exit.halt: no clean stop (Node::on_clean_stop is not
  // called), once the current callback has returned. The simulator crashes the node (a process
  // crash: the page cache survives, and a restart brings it back); on real sockets the process
  // exits with status 1 after logging reason. A node calls it when it must not go on (its last log
  // directory failed); what must reach others first (a zk closeSession) it sends before.
  virtual void halt(const std::string& reason) = 0;
};

// What the runtime drives.
inline bool is_inbound_connection(NodeId peer) { return peer.value < 0; }

// The connections a node may keep to one peer (see Lanes above).
enum class Lane : int32_t {
  kMain = 0,        // requests of the node's own logic: fetchers, clients, zk sessions
  kTxnMarkers = 1,  // the transaction coordinator's WriteTxnMarkers
  kController = 2,  // the controller's LeaderAndIsr, UpdateMetadata and StopReplica
};
inline constexpr int32_t kLaneCount = 3;
inline constexpr int32_t kLaneStride = 1'000'000'000;
// The id of this node's connection to `node` on `lane` (REQUIRES: 0 < node < kLaneStride).
inline NodeId lane_connection(NodeId node, Lane lane) {
  return NodeId{node.value + static_cast<int32_t>(lane) * kLaneStride};
}
// The lane a connection id (positive or negative) belongs to.
inline Lane lane_of(NodeId id) {
  const int64_t v = id.value < 0 ? -static_cast<int64_t>(id.value) : id.value;
  const int64_t lane = v / kLaneStride;
  return static_cast<Lane>(lane < kLaneCount ? lane : kLaneCount - 1);
}
// Whether a connection id names a connection other than the main one.
inline bool is_extra_lane(NodeId id) { return lane_of(id) != Lane::kMain; }
// The node a connection id leads to (positive) or came from (negative), with the id's sign.
inline NodeId node_of_connection(NodeId id) {
  const int32_t offset = static_cast<int32_t>(lane_of(id)) * kLaneStride;
  return NodeId{id.value < 0 ? id.value + offset : id.value - offset};
}

class Node {
 public:
  virtual ~Node() = default;
  virtual void start() = 0;
  virtual void on_message(NodeId from, Bytes frame) = 0;
  // The connection with peer (a node id for an outbound connection, a negative id for an inbound
  // one) broke: frames in flight either way are lost.
  virtual void on_disconnect(NodeId peer) { (void)peer; }
  // The process is stopping cleanly (SIGTERM on real sockets), after its last callback: what must
  // be durable is made so here (a broker flushes its logs, as Kafka's LogManager.shutdown does).
  // Not called on a crash.
  virtual void on_clean_stop() {}
};

}  // namespace gregor
