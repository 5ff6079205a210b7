// AsioRuntime: the real Runtime for one node, on a Boost.Asio io_context.
//
// The same Node code that runs in the simulator (brokers, zk servers, clients) runs here on real
// TCP sockets, real files and the steady clock. Everything happens on the io_context's one thread,
// so node code needs no locks; several runtimes may share one io_context (AsioWorld, for tests).
//
//   Runtime call   here
//   now()          steady clock, microseconds since the runtime's epoch (its creation by default)
//   wall_time_ms() the system clock, milliseconds since the Unix epoch
//   after/cancel   TimerQueue: deadline order, equal deadlines in creation order; a cancelled
//                  timer never runs; stop() cancels all
//   send           TCP with Kafka's framing (below)
//   disk()         FileDisk under NodeConfig::data_dir (real fsync)
//   rng()          Rng::derive(seed, "node", id), as in the simulator; the seed is configured, or
//                  taken from the clock and logged so a run's draws can be repeated
//   emit           a TraceEvent stamped with now() and self(), to NodeConfig::event_sink (the app
//                  plugs the trace recorder there); printed on stderr when verbose
//   log            "2026-12-02 11:17:41.123 [broker-1] line" on stderr, or to NodeConfig::log_sink
//
// Framing. A frame handed to send() and passed to on_message() is the PAYLOAD. On the wire each
// payload is preceded by its size as an int32 big-endian, which is Kafka's framing for requests and
// responses, so stock Kafka clients can connect. The transport adds and strips the size.
//
// Addressing follows engine/core/runtime.h. NodeConfig::peers maps known node ids (brokers, zk
// servers) to host:port; Runtime::learn_address adds more (a client learning brokers from Metadata).
// - send(P), P > 0 a known peer, uses this node's OUTBOUND connection to P, opened lazily by the
//   first send; frames sent while it connects wait in its send queue (send returns true). Frames
//   that arrive on it are delivered as from = P.
// - A connection accepted by the listener is INBOUND and gets an id of its own, negative, from
//   kFirstInboundConnectionId downwards, never reused: it is not the id of whatever node is behind
//   it (a stock Kafka client never says who it is). Its frames are delivered as from = that id, and
//   send(that id) writes on that same socket. So node A's request to node B reaches B from a
//   negative id, and B's reply reaches A from B, as in the simulator.
// - send(self) is delivered to this node as from = -self, and send(-self) as from = self, both on
//   a later turn of the loop and in order: a loopback connection, as the simulator models it.
// - send to an unknown id or a closed inbound connection returns false.
//
// Failures, per the Runtime contract ("false when there is no connection; on_disconnect when one
// breaks"):
// - Every end of a connection (end of stream, reset, I/O error, refused or timed-out connect,
//   protocol violation, send queue overflow) is reported once by on_disconnect(id) on a later turn
//   of the loop, after any frames that arrived before it. For a known peer that includes a connect
//   that failed: frames were accepted for it, and they are lost.
// - After an outbound connection to P ends, P counts as down for the reconnect backoff
//   (reconnect.backoff.ms doubling per consecutive failure up to reconnect.backoff.max.ms, +-20%
//   jitter, reset by a successful connect): send(P) returns false at once during it, and also until
//   the on_disconnect(P) of the previous connection has been delivered. The first send after the
//   backoff starts a new connection.
// - A negative or oversized (socket.request.max.bytes) frame size closes that one connection with
//   a log line; everyone else keeps being served.
//
// Lifecycle: construct, open() (binds the listener), start(factory) (creates the node, starts
// accepting, calls Node::start), ..., stop() (closes the listener and every connection, cancels
// every timer, destroys the node; the node gets no on_disconnect for this). A stopped runtime is
// not started again: a restart is a new AsioRuntime over the same data_dir and port, as a new
// process would be. Frames still queued at stop are lost, as in a crash.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/core/runtime.h"
#include "net/asio.h"
#include "net/connection.h"
#include "net/file_disk.h"
#include "net/request_memory_pool.h"
#include "net/timer_queue.h"
#include "net/transport_config.h"

namespace gregor::net {

using NodeFactory = std::function<std::unique_ptr<Node>(Runtime&)>;
using EventSink = std::function<void(const TraceEvent&)>;
using LogSink = std::function<void(const std::string& line)>;

// Accepted connections get ids from here downwards. Node ids, positive, must stay below
// kNodeIdLimit, so that -self (the loopback connection) never collides with an accepted one.
constexpr int32_t kNodeIdLimit = 1'000'000'000;
constexpr int32_t kFirstInboundConnectionId = -kNodeIdLimit;

struct NodeConfig {
  NodeId id{0};      // REQUIRES: 0 < id < kNodeIdLimit
  std::string name;  // in log lines; "node-<id>" when empty
  // The listener. Clients that only connect out set listen = false.
  bool listen = true;
  std::string listen_host = "127.0.0.1";
  uint16_t listen_port = 0;  // 0: the OS picks a free port (AsioRuntime::bound_port says which)
  // The listener's name (Kafka's listener names, "PLAINTEXT", "CLIENT"): Runtime::listener_name
  // tells a node which listener an accepted connection came in on. Empty: unnamed.
  std::string listen_name;
  // More listeners, each with its own name, address and acceptor (a broker's `listeners` beyond
  // the first). REQUIRES: names distinct from each other and from listen_name.
  struct Listener {
    std::string name;
    std::string host;
    uint16_t port = 0;
  };
  std::vector<Listener> more_listeners;
  std::map<NodeId, PeerAddress> peers;  // known peers; this node's own entry, if any, is ignored
  std::string data_dir;                 // FileDisk root, created if missing. REQUIRES: not empty
  std::optional<uint64_t> seed;         // unset: from the clock, logged at start
  TransportConfig transport;
  bool verbose = false;        // print emitted events, and normal connection ends, as log lines
  bool log_to_stderr = true;   // when no log_sink is set
  EventSink event_sink;        // receives every emitted event (may be empty)
  LogSink log_sink;            // receives every formatted log line instead of stderr (may be empty)

  // Checks ids, the data directory and the transport settings.
  Status validate() const;
};

// What a runtime has done, for tests and the console.
struct TransportStats {
  uint64_t frames_sent = 0;       // handed to a connection (or to the loopback one)
  uint64_t frames_received = 0;   // delivered to the node
  uint64_t sends_refused = 0;     // send() returned false
  uint64_t connections_accepted = 0;
  uint64_t connections_opened = 0;  // outbound connects that succeeded
  uint64_t connect_failures = 0;
  uint64_t connections_closed = 0;
  uint64_t protocol_errors = 0;  // negative or oversized frame sizes
  uint64_t connections_refused = 0;     // max.connections or max.connections.per.ip reached
  uint64_t idle_connections_closed = 0;  // connections.max.idle.ms
  uint64_t file_slice_bytes = 0;  // bytes of frames handed to TCP connections as file slices (sendfile)
};

class AsioRuntime final : public Runtime, private ConnectionOwner {
 public:
  AsioRuntime(asio::io_context& io, NodeConfig config, SteadyClock::time_point epoch = SteadyClock::now());
  ~AsioRuntime() override;
  AsioRuntime(const AsioRuntime&) = delete;
  AsioRuntime& operator=(const AsioRuntime&) = delete;

  // Validates the config, locks the data directory (FileDisk::lock_root: a directory that is a
  // file is kInvalidArgument, one another node holds is kIoError; stop() releases it) and binds the
  // listener (when config.listen), with SO_REUSEADDR so a restarted node can take its port back at
  // once. An address in use is kIoError, a bad config kInvalidArgument. REQUIRES: not yet opened.
  Status open();
  // Creates the node, starts accepting, and calls Node::start. REQUIRES: open() succeeded, not
  // yet started, and factory returns a node.
  void start(const NodeFactory& factory);
  // See the header comment. Idempotent. REQUIRES: not called from inside a callback of this node.
  void stop();

  bool running() const { return node_ != nullptr; }
  // The port the listener is bound to (the OS's choice when listen_port was 0); 0 before open().
  uint16_t bound_port() const { return listeners_.empty() ? 0 : listeners_.front()->bound_port; }
  // The port the listener named `name` is bound to; 0 when there is none of that name.
  uint16_t bound_port(const std::string& name) const;
  // Adds or replaces a known peer (e.g. one whose port became known later). The connection that
  // may already exist to the old address is kept until it ends.
  // REQUIRES: 0 < id < kNodeIdLimit and a usable address (Runtime::learn_address checks and logs).
  void set_peer(NodeId id, PeerAddress address);
  const NodeConfig& config() const { return config_; }
  const TransportStats& stats() const { return stats_; }
  uint64_t seed() const { return seed_; }
  Node* node() { return node_.get(); }
  // Open connections: outbound to known peers, and accepted ones.
  size_t connection_count() const;
  // queued.max.request.bytes: what inbound connections hold reserved for requests they receive.
  const RequestMemoryPool& request_pool() const { return request_pool_; }
  // Bytes the receive buffers of all connections hold (a test of the memory bounds reads it).
  uint64_t receive_buffer_bytes() const;

  // Runtime.
  NodeId self() const override { return config_.id; }
  Time now() const override { return steady_time_since(epoch_); }
  // The system clock: record timestamps and znode times that people read.
  int64_t wall_time_ms() const override;
  TimerId after(Duration d, std::function<void()> fn) override;
  void cancel(TimerId id) override;
  bool send(NodeId to, Bytes frame) override;
  // One frame, head then body, written with one gathering write (no join in memory).
  bool send_gather(NodeId to, Bytes head, Bytes body) override;
  // The slices go out with sendfile on a TCP connection; to self they are read (the default).
  bool send_with_files(NodeId to, Bytes head, Bytes body, std::vector<FrameHole> holes) override;
  // Closes an accepted connection (negative id) or this node's outbound one to a peer; on_disconnect
  // follows on a later turn, as for any end. The loopback connection cannot be closed.
  void close_connection(NodeId peer) override;
  std::string peer_host(NodeId peer) const override;
  std::string listener_name(NodeId peer) const override;
  // Ignores (with a log line) an id out of range or a port outside [1, 65535].
  void learn_address(NodeId id, const std::string& host, int32_t port) override;
  Disk& disk() override { return disk_; }
  Rng& rng() override { return rng_; }
  void emit(TraceBody body) override;
  void log(const std::string& line) override;
  // Stops the io_context on its next turn, and stop() then skips Node::on_clean_stop: run_node
  // returns 1 (see halted()).
  void halt(const std::string& reason) override;
  // The reason the node gave to halt, when it did.
  const std::optional<std::string>& halted() const { return halt_reason_; }

 private:
  struct Peer {
    PeerAddress address;
    std::shared_ptr<Connection> connection;  // connecting or open; null when none
    int failures = 0;                        // connection ends since the last successful connect
    Time down_until{0};                      // sends are refused until then
    bool disconnect_pending = false;         // an on_disconnect for it is not yet delivered
    bool own_address = false;                // a lane given an address apart from its node's
  };
  // Whether id is one of this node's loopback connections (to itself, on any lane, either way).
  bool is_self_connection(NodeId id) const;

  // ConnectionOwner.
  void on_connection_open(Connection& c) override;
  void on_connection_frame(Connection& c, Bytes frame) override;
  void on_connection_closed(Connection& c, const std::string& reason, CloseKind kind) override;

  // One bound listener: its acceptor, and a timer to accept again after a failed accept.
  struct BoundListener {
    std::string name;
    std::string host;
    uint16_t port = 0;  // as configured
    uint16_t bound_port = 0;
    std::optional<tcp::acceptor> acceptor;
    std::optional<asio::steady_timer> accept_retry_timer;
  };
  Status open_listener(BoundListener& listener);
  void accept_more(BoundListener& listener);
  // connections.max.idle.ms: closes inbound connections idle for longer, then looks again later.
  void sweep_idle_connections();
  void on_accepted(BoundListener& listener, const boost::system::error_code& ec, tcp::socket socket);
  Duration reconnect_backoff(int failures);
  std::shared_ptr<Connection> new_connection(tcp::socket socket, NodeId id);
  // send and send_gather: body may be empty.
  bool send_frame(NodeId to, Bytes head, Bytes body, std::vector<FrameHole> holes = {});
  // Runs fn on a later turn of the loop, unless the runtime stopped meanwhile.
  void defer(std::function<void()> fn);

  asio::io_context& io_;
  NodeConfig config_;
  SteadyClock::time_point epoch_;
  uint64_t seed_;
  FileDisk disk_;
  Rng rng_;
  Rng jitter_rng_;  // reconnect jitter: a stream apart from the node's, so it does not shift its draws
  TimerQueue timers_;
  std::vector<std::unique_ptr<BoundListener>> listeners_;  // stable addresses: callbacks hold them
  std::optional<asio::steady_timer> idle_timer_;
  RequestMemoryPool request_pool_;
  std::map<std::string, int32_t> inbound_per_host_;  // open accepted connections per remote address
  std::map<NodeId, std::string> inbound_host_;       // the address each accepted one was counted under
  std::map<NodeId, std::string> inbound_listener_;   // the listener each accepted one came in on
  Time last_refusal_log_{0};
  bool opened_ = false;
  bool started_ = false;
  bool stopped_ = false;
  std::optional<std::string> halt_reason_;
  int callback_depth_ = 0;  // > 0 while node code runs
  std::unique_ptr<Node> node_;
  std::map<NodeId, Peer> peers_;                                // ordered: deterministic iteration
  std::map<NodeId, std::shared_ptr<Connection>> inbound_;       // ephemeral id -> connection
  int32_t next_connection_id_ = kFirstInboundConnectionId;
  uint64_t loopback_queued_bytes_ = 0;  // frames on the loopback connection not yet delivered
  TransportStats stats_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // deferred work checks it
};

}  // namespace gregor::net
