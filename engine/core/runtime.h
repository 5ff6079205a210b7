// Runtime: the boundary between a node's logic and the world it runs in.
//
// A node (broker, zk server, client) is a state machine that reacts to three kinds of input: its
// start, a delivered message and a fired timer. It acts on the world only through its Runtime.
// The simulator (sim/) implements Runtime with virtual time, seeded randomness, a simulated network
// and disk; the real runtime (net/) with Boost.Asio, a steady clock, TCP and files. Nothing in
// engine/ knows which one it runs on.
//
// Messages are bytes (encoded frames), never shared objects: what crosses the simulated network is
// exactly what would cross a socket.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/disk.h"
#include "engine/core/rng.h"
#include "engine/core/trace_event.h"
#include "engine/core/types.h"

namespace gregor {

class Runtime {
 public:
  virtual ~Runtime() = default;

  virtual NodeId self() const = 0;
  virtual Time now() const = 0;

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

  virtual Disk& disk() = 0;
  virtual Rng& rng() = 0;

  // Records a state change; the runtime stamps time and node.
  virtual void emit(std::string kind, std::vector<TraceField> fields) = 0;

  // Human-readable log line (not part of the fingerprint): debugging and the real-socket console.
  virtual void log(const std::string& line) = 0;
};

// What the runtime drives.
class Node {
 public:
  virtual ~Node() = default;
  virtual void start() = 0;
  virtual void on_message(NodeId from, Bytes frame) = 0;
  // The connection with peer broke: frames in flight either way are lost.
  virtual void on_disconnect(NodeId peer) { (void)peer; }
};

}  // namespace gregor
