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
//   The receive buffer grows as a frame's bytes arrive, not when its size is read. An inbound
//   connection with a pool (queued.max.request.bytes) reserves each frame that does not arrive in
//   one read; while the pool cannot give it that, it does not read (Kafka mutes the channel).
// - send() queues a frame (one buffer, or two: a head and a tail written after it without being
//   joined in memory); frames are written in send order by one chain of async writes that
//   gathers several queued frames per write (writev). Frames sent while an outbound connect is under way
//   wait in the same queue. The queue is bounded (bytes and frames); exceeding it closes the
//   connection.
// - Closing drops whatever is queued and tells the owner once (on_connection_closed), with the
//   reason. Nothing is delivered after that.
// Single-threaded: every method and handler runs on the io_context's one thread.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/file_slice.h"
#include "engine/core/types.h"
#include "net/asio.h"
#include "net/frame_reader.h"
#include "net/request_memory_pool.h"
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
  // pool: where an inbound connection reserves the frames it receives (queued.max.request.bytes);
  // null for none. It must outlive the connection's owner link (detach() or close() ends its use).
  Connection(tcp::socket socket, ConnectionOwner* owner, NodeId peer, const TransportConfig& config,
             RequestMemoryPool* pool = nullptr);
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
  // One frame whose payload is head followed by tail, written without joining them; the holes'
  // file slices go at their positions of tail (engine/core/file_slice.h), sent from the files with
  // sendfile(2). A slice whose file ends before the slice does closes the connection.
  bool send(Bytes head, Bytes tail, std::vector<FrameHole> holes = {});

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
  // The remote IP address alone ("127.0.0.1"; empty before connect).
  const std::string& remote_host() const { return remote_host_; }
  uint64_t queued_bytes() const { return queued_bytes_; }
  // Memory the receive buffer holds (see FrameReader), and whether reading waits for the pool.
  size_t receive_buffer_bytes() const { return reader_.held_bytes(); }
  bool muted() const { return muted_; }
  // When bytes were last read or written (or the connection opened).
  std::chrono::steady_clock::time_point last_active() const { return last_active_; }
  size_t queued_frames() const { return queue_.size(); }

 private:
  struct Outgoing {
    uint8_t size[kFrameSizeBytes];
    Bytes payload;
    Bytes tail;                     // the rest of the payload (send(head, tail)), often empty
    std::vector<FrameHole> holes;   // file slices inside tail, usually none
    size_t hole_bytes = 0;
    size_t bytes() const { return kFrameSizeBytes + payload.size() + tail.size() + hole_bytes; }
  };
  // One piece of a frame as written: bytes, or a file slice (file != null).
  struct Piece {
    const uint8_t* data = nullptr;
    size_t size = 0;
    const FileSlice* file = nullptr;
  };
  // Calls each(piece) for the frame's pieces in order, until it returns false.
  template <typename F>
  static void for_each_piece(const Outgoing& out, F&& each);
  // Writes what is queued from a file slice on (the queue's front position is inside one).
  // Returns false when it started an asynchronous wait or closed the connection.
  bool write_file_slice(const FileSlice& slice, size_t skip);
  // Takes `bytes` written off the queue.
  void consume(size_t bytes);
  // Buffers per gathering write: Asio passes at most 64 to one sendmsg (buffer_sequence_adapter's
  // max_buffers) and ignores the rest, so no more are handed to it.
  static constexpr size_t kGatherBuffersMax = 64;

  void connect_to(const tcp::resolver::results_type& endpoints);
  void on_connected(const boost::system::error_code& ec, const tcp::endpoint& endpoint);
  void opened();
  void read_more();
  void on_read(const boost::system::error_code& ec, size_t n);
  // Reserves the frame at the head of the buffer in the pool, once its size is known and it is not
  // all here yet; false when the pool is full (the connection is then muted and waits in line).
  bool reserve_head_frame();
  void release_reservation();
  void write_more();
  void on_written(const boost::system::error_code& ec, size_t bytes);

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
  RequestMemoryPool* pool_;
  uint64_t reserved_ = 0;  // bytes this connection holds in pool_ for the frame it is receiving
  bool muted_ = false;     // waiting for pool_: not reading
  std::string remote_host_;
  std::chrono::steady_clock::time_point last_active_ = std::chrono::steady_clock::now();
  std::deque<Outgoing> queue_;  // element references stay valid across push_back (deque)
  uint64_t queued_bytes_ = 0;
  bool writing_ = false;
  size_t front_written_ = 0;  // bytes of queue_.front() (size prefix included) already written
  std::vector<asio::const_buffer> write_buffers_;
};

}  // namespace gregor::net
