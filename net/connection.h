// Connection: one TCP connection of the real transport, carrying size-prefixed frames both ways.
//
// A connection belongs to an owner (the AsioRuntime) that it tells about three things: the
// outbound connect completed, a frame arrived, the connection ended. It is shared-owned
// (enable_shared_from_this) because Asio's pending operations keep it alive until they complete;
// detach() cuts the link to the owner, after which the connection only winds down and never calls
// back, so an owner may go away while operations are still queued in the io_context.
//
// Contract:
// - Frames are read in order and passed up one at a time, in arrival order. A negative or
//   oversized size (socket.request.max.bytes), a read error or end of stream closes the connection.
// - send() queues a frame (one buffer, or two: a head and a tail written after it without being
//   joined in memory); frames are written in send order by one chain of async writes that
//   gathers several queued frames per write (writev). Frames sent while an outbound connect is under way
//   wait in the same queue. The queue is bounded (bytes and frames); exceeding it closes the
//   connection.
// - Closing drops whatever is queued and tells the owner once (on_connection_closed), with the
//   reason. Nothing is delivered after that.
// Single-threaded: every method and handler runs on the io_context's one thread.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/types.h"
#include "net/asio.h"
#include "net/frame_reader.h"
#include "net/transport_config.h"

namespace gregor::net {

class Connection;

// Why a connection ended.
enum class CloseKind {
  kNormal,    // end of stream from the peer, or closed by this side on purpose
  kError,     // I/O error, failed or timed-out connect, send queue overflow
  kProtocol,  // the peer broke the framing: negative or oversized frame size
};

class ConnectionOwner {
 public:
  virtual ~ConnectionOwner() = default;
  virtual void on_connection_open(Connection& c) = 0;
  virtual void on_connection_frame(Connection& c, Bytes frame) = 0;
  virtual void on_connection_closed(Connection& c, const std::string& reason, CloseKind kind) = 0;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  enum class State { kConnecting, kOpen, kClosed };

  // peer: the id the owner knows this connection by (a known peer, or an ephemeral id).
  Connection(tcp::socket socket, ConnectionOwner* owner, NodeId peer, const TransportConfig& config);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Starts connecting to address (resolving a name first if it is not an IP address), bounded by
  // socket.connection.setup.timeout.ms. REQUIRES: a fresh connection made with an unopened socket.
  void start_outbound(const PeerAddress& address);
  // Starts reading on an accepted socket.
  void start_inbound();

  // Queues one payload. False when the connection is closed, or when the frame overflows the send
  // queue (the connection is then closed), or when the payload is too large for the int32 size
  // field (the frame is refused and the connection stays). The sender does not apply
  // socket.request.max.bytes: that is the receiver's limit, and the receiver enforces it.
  bool send(Bytes payload) { return send(std::move(payload), Bytes()); }
  // One frame whose payload is head followed by tail, written without joining them.
  bool send(Bytes head, Bytes tail);

  // Closes at once: queued frames are dropped, the owner hears on_connection_closed(reason).
  void close(const std::string& reason, CloseKind kind);
  // Forgets the owner and closes without telling it.
  void detach();

  NodeId peer() const { return peer_; }
  State state() const { return state_; }
  bool outbound() const { return outbound_; }
  // True once the connection was open (an outbound connect completed, or it was accepted).
  bool established() const { return established_; }
  // "127.0.0.1:54321", the remote end (empty before connect).
  const std::string& remote() const { return remote_; }
  uint64_t queued_bytes() const { return queued_bytes_; }
  size_t queued_frames() const { return queue_.size(); }

 private:
  struct Outgoing {
    uint8_t size[kFrameSizeBytes];
    Bytes payload;
    Bytes tail;  // the rest of the payload (send(head, tail)), often empty
    size_t bytes() const { return kFrameSizeBytes + payload.size() + tail.size(); }
  };
  static constexpr size_t kGatherFramesMax = 64;  // frames per async_write

  void connect_to(const tcp::resolver::results_type& endpoints);
  void on_connected(const boost::system::error_code& ec, const tcp::endpoint& endpoint);
  void opened();
  void read_more();
  void on_read(const boost::system::error_code& ec, size_t n);
  void write_more();
  void on_written(const boost::system::error_code& ec, size_t frames);

  tcp::socket socket_;
  ConnectionOwner* owner_;
  NodeId peer_;
  TransportConfig config_;
  State state_ = State::kConnecting;
  bool outbound_ = false;
  bool established_ = false;
  std::string remote_;
  std::optional<tcp::resolver> resolver_;
  std::optional<asio::steady_timer> setup_timer_;
  FrameReader reader_;
  std::deque<Outgoing> queue_;  // element references stay valid across push_back (deque)
  uint64_t queued_bytes_ = 0;
  bool writing_ = false;
  std::vector<asio::const_buffer> write_buffers_;
};

}  // namespace gregor::net
