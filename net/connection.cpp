#include "net/connection.h"

#include <sys/sendfile.h>

#include <cerrno>
#include <cstring>

#include "engine/core/assert.h"

namespace gregor::net {
namespace {

std::string endpoint_text(const tcp::endpoint& e) {
  PeerAddress a{e.address().to_string(), e.port()};
  return a.to_string();
}

}  // namespace

Connection::Connection(tcp::socket socket, ConnectionOwner* owner, NodeId peer, const TransportConfig& config,
                       RequestMemoryPool* pool)
    : socket_(std::move(socket)),
      owner_(owner),
      peer_(peer),
      config_(config),
      reader_(config.socket_request_max_bytes),
      pool_(pool && pool->bounded() ? pool : nullptr) {}

Connection::~Connection() = default;

void Connection::start_outbound(const PeerAddress& address) {
  GREGOR_ASSERT(state_ == State::kConnecting && !socket_.is_open());
  outbound_ = true;
  remote_ = address.to_string();
  auto self = shared_from_this();
  setup_timer_.emplace(socket_.get_executor());
  setup_timer_->expires_after(std::chrono::milliseconds(config_.socket_connection_setup_timeout_ms));
  setup_timer_->async_wait([self](const boost::system::error_code& ec) {
    if (ec || self->state_ != State::kConnecting) return;
    self->close("connection setup timed out after " + std::to_string(self->config_.socket_connection_setup_timeout_ms) +
                    " ms (socket.connection.setup.timeout.ms)",
                CloseKind::kError);
  });
  boost::system::error_code ec;
  asio::ip::address ip = asio::ip::make_address(address.host, ec);
  if (!ec) {
    tcp::endpoint endpoint(ip, address.port);
    socket_.async_connect(endpoint, [self, endpoint](const boost::system::error_code& cec) {
      self->on_connected(cec, endpoint);
    });
    return;
  }
  // A host name: resolved asynchronously on every connect, so a changed address is picked up.
  resolver_.emplace(socket_.get_executor());
  resolver_->async_resolve(address.host, std::to_string(address.port),
                           [self](const boost::system::error_code& rec, tcp::resolver::results_type results) {
                             if (self->state_ != State::kConnecting) return;
                             if (rec) return self->close("cannot resolve " + self->remote_ + ": " + rec.message(), CloseKind::kError);
                             self->connect_to(results);
                           });
}

void Connection::connect_to(const tcp::resolver::results_type& endpoints) {
  auto self = shared_from_this();
  asio::async_connect(socket_, endpoints, [self](const boost::system::error_code& ec, const tcp::endpoint& endpoint) {
    self->on_connected(ec, endpoint);
  });
}

void Connection::on_connected(const boost::system::error_code& ec, const tcp::endpoint& endpoint) {
  if (state_ != State::kConnecting) return;  // timed out or closed meanwhile
  if (ec) return close("connect to " + remote_ + " failed: " + ec.message(), CloseKind::kError);
  remote_ = endpoint_text(endpoint);
  remote_host_ = endpoint.address().to_string();
  if (setup_timer_) setup_timer_->cancel();
  opened();
  if (state_ == State::kOpen && owner_) owner_->on_connection_open(*this);
}

void Connection::start_inbound() {
  GREGOR_ASSERT(state_ == State::kConnecting && socket_.is_open());
  boost::system::error_code ec;
  tcp::endpoint e = socket_.remote_endpoint(ec);
  remote_ = ec ? std::string("?") : endpoint_text(e);
  remote_host_ = ec ? std::string("?") : e.address().to_string();
  opened();
}

void Connection::opened() {
  state_ = State::kOpen;
  established_ = true;
  last_active_ = std::chrono::steady_clock::now();
  // Kafka disables Nagle on every socket: requests and responses are small and latency-bound.
  boost::system::error_code ec;
  socket_.set_option(tcp::no_delay(true), ec);
  // Writes before a file slice and the slice's sendfile are tried at once and must not block the
  // loop: they report would_block (EAGAIN) instead, and the write waits until the socket can take more.
  socket_.non_blocking(true, ec);
  if (config_.socket_send_buffer_bytes > 0) socket_.set_option(asio::socket_base::send_buffer_size(config_.socket_send_buffer_bytes), ec);
  if (config_.socket_receive_buffer_bytes > 0)
    socket_.set_option(asio::socket_base::receive_buffer_size(config_.socket_receive_buffer_bytes), ec);
  read_more();
  write_more();
}

bool Connection::send(Bytes payload, Bytes tail, std::vector<FrameHole> holes) {
  if (state_ == State::kClosed) return false;
  const size_t in_files = hole_bytes(holes);
  const size_t payload_bytes = payload.size() + tail.size() + in_files;
  if (payload_bytes > static_cast<size_t>(INT32_MAX)) return false;
  if (queue_.size() + 1 > config_.send_queue_frames_max ||
      queued_bytes_ + kFrameSizeBytes + payload_bytes > config_.send_queue_bytes_max) {
    close("send queue full (" + std::to_string(queue_.size()) + " frames, " + std::to_string(queued_bytes_) +
              " bytes queued): the peer does not read fast enough",
          CloseKind::kError);
    return false;
  }
  Outgoing& out = queue_.emplace_back();
  encode_frame_size(static_cast<uint32_t>(payload_bytes), out.size);
  out.payload = std::move(payload);
  out.tail = std::move(tail);
  out.holes = std::move(holes);
  out.hole_bytes = in_files;
  queued_bytes_ += out.bytes();
  write_more();
  return true;
}

template <typename F>
void Connection::for_each_piece(const Outgoing& out, F&& each) {
  if (!each(Piece{out.size, kFrameSizeBytes, nullptr})) return;
  if (!out.payload.empty() && !each(Piece{out.payload.data(), out.payload.size(), nullptr})) return;
  size_t at = 0;
  for (const FrameHole& h : out.holes) {
    if (h.position > at && !each(Piece{out.tail.data() + at, h.position - at, nullptr})) return;
    at = h.position;
    if (h.slice.length > 0 && !each(Piece{nullptr, h.slice.length, &h.slice})) return;
  }
  if (out.tail.size() > at) each(Piece{out.tail.data() + at, out.tail.size() - at, nullptr});
}

void Connection::write_more() {
  while (!writing_ && state_ == State::kOpen && !queue_.empty()) {
    // One write_some over as many queued frames as one sendmsg takes, starting where the last one
    // stopped. Not asio::async_write: its completion conditions hand at most 64 KiB and 16 buffers
    // to each sendmsg, so a 256 KiB fetch response went out in four writes, each completing in a
    // loop turn of its own, and the peer could wake up for every part. A file slice ends the
    // gather: the bytes before it are written at once (MSG_MORE: the slice follows in the same
    // segments), then the slice with sendfile.
    write_buffers_.clear();
    size_t skip = front_written_;
    const FileSlice* slice = nullptr;
    size_t slice_skip = 0;
    bool at_slice = false;
    bool full = false;
    for (const Outgoing& out : queue_) {
      for_each_piece(out, [&](const Piece& p) {
        if (skip >= p.size) {
          skip -= p.size;
          return true;
        }
        if (p.file) {
          if (write_buffers_.empty()) {
            slice = p.file;
            slice_skip = skip;
          }
          at_slice = true;
          return false;
        }
        if (write_buffers_.size() >= kGatherBuffersMax) {
          full = true;
          return false;
        }
        write_buffers_.push_back(asio::buffer(p.data + skip, p.size - skip));
        skip = 0;
        return true;
      });
      if (at_slice || full) break;
    }
    if (slice) {
      if (!write_file_slice(*slice, slice_skip)) return;
      continue;
    }
    GREGOR_ASSERT(skip == 0 && !write_buffers_.empty());
    if (at_slice) {
      boost::system::error_code ec;
      const size_t n = socket_.send(write_buffers_, MSG_MORE, ec);
      if (!ec) {
        last_active_ = std::chrono::steady_clock::now();
        consume(n);
        continue;
      }
      if (ec != asio::error::would_block && ec != asio::error::try_again) return close("write failed: " + ec.message(), CloseKind::kError);
    }
    writing_ = true;
    auto self = shared_from_this();
    socket_.async_write_some(write_buffers_, [self](const boost::system::error_code& ec, size_t n) { self->on_written(ec, n); });
    return;
  }
}

bool Connection::write_file_slice(const FileSlice& slice, size_t skip) {
  const int in = slice.file->native_handle();
  if (in < 0) {
    close("a file slice without a descriptor cannot be sent", CloseKind::kError);
    return false;
  }
  off_t offset = static_cast<off_t>(slice.offset + skip);
  const ssize_t n = ::sendfile(socket_.native_handle(), in, &offset, slice.length - skip);
  if (n > 0) {
    last_active_ = std::chrono::steady_clock::now();
    consume(static_cast<size_t>(n));
    return true;
  }
  if (n == 0) {
    // The frame's size is on the wire already: nothing else can follow it on this connection.
    close("the file of a fetch response's records ended before them (truncated meanwhile)", CloseKind::kError);
    return false;
  }
  if (errno == EINTR) return true;
  if (errno != EAGAIN && errno != EWOULDBLOCK) {
    close(std::string("sendfile failed: ") + std::strerror(errno), CloseKind::kError);
    return false;
  }
  // The socket's buffer is full: go on when it can take more.
  writing_ = true;
  auto self = shared_from_this();
  socket_.async_wait(tcp::socket::wait_write, [self](const boost::system::error_code& ec) { self->on_written(ec, 0); });
  return false;
}

void Connection::consume(size_t bytes) {
  // Whole frames written leave the queue; a frame written in part stays at its head.
  while (bytes > 0) {
    GREGOR_ASSERT(!queue_.empty());
    const size_t left = queue_.front().bytes() - front_written_;
    if (bytes < left) {
      front_written_ += bytes;
      break;
    }
    bytes -= left;
    queued_bytes_ -= queue_.front().bytes();
    queue_.pop_front();
    front_written_ = 0;
  }
}

void Connection::on_written(const boost::system::error_code& ec, size_t bytes) {
  writing_ = false;
  if (state_ == State::kClosed) {
    // close() left the queue alone while this write could still read from it.
    queue_.clear();
    queued_bytes_ = 0;
    front_written_ = 0;
    return;
  }
  if (ec) return close("write failed: " + ec.message(), CloseKind::kError);
  last_active_ = std::chrono::steady_clock::now();
  consume(bytes);
  write_more();
}

void Connection::read_more() {
  if (state_ != State::kOpen || muted_) return;
  // While a large frame arrives, the kernel says how much of it is there (FIONREAD), so that one
  // read takes it all; small frames go through the reader's shared chunk without asking.
  size_t arrived = 0;
  if (reader_.reading_large_frame()) {
    boost::system::error_code ec;
    arrived = socket_.available(ec);
    if (ec) arrived = 0;
  }
  std::span<uint8_t> space = reader_.prepare(arrived);
  auto self = shared_from_this();
  socket_.async_read_some(asio::buffer(space.data(), space.size()),
                          [self](const boost::system::error_code& ec, size_t n) { self->on_read(ec, n); });
}

bool Connection::reserve_head_frame() {
  if (!pool_ || reserved_ > 0 || reader_.declared_size() < 0) return true;
  // The payload's size, as Kafka's pool counts it: never more than socket.request.max.bytes, which
  // the pool's capacity is at least (TransportConfig::validate).
  const uint64_t payload_bytes = static_cast<uint64_t>(reader_.declared_size());
  if (kFrameSizeBytes + payload_bytes <= reader_.buffered_bytes()) return true;  // all here already
  if (!pool_->try_reserve(payload_bytes)) return false;
  reserved_ = payload_bytes;
  return true;
}

void Connection::release_reservation() {
  if (reserved_ == 0) return;
  const uint64_t bytes = reserved_;
  reserved_ = 0;
  pool_->release(bytes);
}

void Connection::on_read(const boost::system::error_code& ec, size_t n) {
  if (state_ != State::kClosed && n > 0) {
    reader_.commit(n);
    last_active_ = std::chrono::steady_clock::now();
  }
  // Frames that arrived complete are delivered before an error or end of stream is acted on.
  Bytes frame;
  while (state_ == State::kOpen) {
    FrameReader::Outcome outcome = reader_.next(&frame);
    if (outcome == FrameReader::Outcome::kNeedMore) {
      if (!reserve_head_frame()) {
        // queued.max.request.bytes: stop reading until the pool has room for this frame. An end of
        // stream or error that came with these bytes is seen when reading resumes.
        muted_ = true;
        std::weak_ptr<Connection> weak = shared_from_this();
        pool_->wait([weak] {
          auto self = weak.lock();
          if (!self || self->state_ != State::kOpen) return true;  // gone: leaves the line
          if (!self->reserve_head_frame()) return false;
          self->muted_ = false;
          self->last_active_ = std::chrono::steady_clock::now();
          self->read_more();
          return true;
        });
        return;
      }
      break;
    }
    if (outcome == FrameReader::Outcome::kNegativeSize)
      return close("malformed frame: negative size " + std::to_string(reader_.declared_size()), CloseKind::kProtocol);
    if (outcome == FrameReader::Outcome::kOversized)
      return close("frame of " + std::to_string(reader_.declared_size()) + " bytes is larger than socket.request.max.bytes=" +
                       std::to_string(config_.socket_request_max_bytes),
                   CloseKind::kProtocol);
    if (!owner_) return;
    owner_->on_connection_frame(*this, std::move(frame));
    frame = Bytes();
    release_reservation();  // the node has taken the frame: its memory may serve another request
  }
  if (state_ != State::kOpen) return;
  if (ec == asio::error::eof) {
    if (reader_.buffered_bytes() > 0)
      return close("closed by the peer in the middle of a frame (" + std::to_string(reader_.buffered_bytes()) +
                       " bytes of it received)",
                   CloseKind::kError);
    return close("closed by the peer", CloseKind::kNormal);
  }
  if (ec) return close("read failed: " + ec.message(), CloseKind::kError);
  read_more();
}

void Connection::close(const std::string& reason, CloseKind kind) {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  boost::system::error_code ignored;
  socket_.close(ignored);  // pending reads, writes and the connect complete with operation_aborted
  if (setup_timer_) setup_timer_->cancel();
  if (resolver_) resolver_->cancel();
  if (!writing_) {
    queue_.clear();
    queued_bytes_ = 0;
    front_written_ = 0;
  }
  release_reservation();
  ConnectionOwner* owner = owner_;
  owner_ = nullptr;
  if (owner) owner->on_connection_closed(*this, reason, kind);
}

void Connection::detach() {
  owner_ = nullptr;
  close("detached", CloseKind::kNormal);
}

}  // namespace gregor::net
