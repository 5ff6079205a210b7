// Helpers for the real-socket tests: a temporary data directory, test nodes that record what
// happened to them, payloads whose bytes depend on their index, and a raw TCP client (a plain Asio
// socket) that speaks the size-prefixed framing by hand.
#pragma once

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/rng.h"
#include "engine/core/runtime.h"
#include "net/asio.h"
#include "net/asio_world.h"

namespace gregor::test {

// A fresh directory under /tmp, removed with everything in it when the object goes.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/gregor-net-test-XXXXXX";
    char* made = ::mkdtemp(pattern);
    REQUIRE(made != nullptr);
    path_ = made;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// size bytes that depend on (index, size): a frame delivered out of order, cut or mixed with another
// does not compare equal.
inline Bytes pattern_payload(uint64_t index, size_t size) {
  Rng rng = Rng::derive(index, "payload", size);
  Bytes b(size);
  for (size_t i = 0; i < size; i += 8) {
    uint64_t v = rng.next_u64();
    for (size_t k = 0; k < 8 && i + k < size; k++) b[i + k] = static_cast<uint8_t>(v >> (8 * k));
  }
  return b;
}

struct Received {
  NodeId from;
  Bytes frame;
};

// What a Recorder node saw. Owned by the test, so it outlives the node (and its restarts).
struct RecorderLog {
  std::vector<Received> messages;
  std::vector<NodeId> disconnects;
  int started = 0;
  int destroyed = 0;
  size_t count_from(NodeId from) const {
    size_t n = 0;
    for (const auto& m : messages)
      if (m.from == from) n++;
    return n;
  }
  size_t disconnects_of(NodeId peer) const {
    size_t n = 0;
    for (NodeId d : disconnects)
      if (d == peer) n++;
    return n;
  }
};

// Records everything; answers requests (frames from inbound connections) with the same bytes when
// echo is set. The test acts through its runtime.
class Recorder final : public Node {
 public:
  Recorder(Runtime& rt, std::shared_ptr<RecorderLog> log, bool echo) : rt_(rt), log_(std::move(log)), echo_(echo) {}
  ~Recorder() override { log_->destroyed++; }
  void start() override { log_->started++; }
  void on_message(NodeId from, Bytes frame) override {
    if (echo_ && is_inbound_connection(from)) rt_.send(from, frame);
    log_->messages.push_back({from, std::move(frame)});
  }
  void on_disconnect(NodeId peer) override { log_->disconnects.push_back(peer); }

 private:
  Runtime& rt_;
  std::shared_ptr<RecorderLog> log_;
  bool echo_;
};

inline net::NodeFactory recorder(std::shared_ptr<RecorderLog> log, bool echo) {
  return [log, echo](Runtime& rt) { return std::make_unique<Recorder>(rt, log, echo); };
}

inline net::NodeConfig node_config(int32_t id, bool listen = true) {
  net::NodeConfig c;
  c.id = NodeId{id};
  c.listen = listen;
  return c;
}

// A plain Asio client: no runtime, framing by hand, so it can also send what no runtime would.
class RawClient {
 public:
  RawClient(net::asio::io_context& io, uint16_t port) : socket_(io) {
    boost::system::error_code ec;
    socket_.connect(net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), port), ec);
    REQUIRE(!ec);
  }
  // Small writes to a fresh loopback socket fit its send buffer, so a blocking write cannot wait on
  // the server (which runs only when the test runs the loop).
  void write_raw(const Bytes& bytes) {
    boost::system::error_code ec;
    net::asio::write(socket_, net::asio::buffer(bytes), ec);
    REQUIRE(!ec);
  }
  void write_frame(const Bytes& payload) { REQUIRE(try_write_frame(payload)); }
  // The same, for a peer that may close the connection at any moment (a fuzzed broker): false when
  // the write failed because it did.
  bool try_write_frame(const Bytes& payload) {
    Bytes b;
    uint32_t n = static_cast<uint32_t>(payload.size());
    b.push_back(static_cast<uint8_t>(n >> 24));
    b.push_back(static_cast<uint8_t>(n >> 16));
    b.push_back(static_cast<uint8_t>(n >> 8));
    b.push_back(static_cast<uint8_t>(n));
    b.insert(b.end(), payload.begin(), payload.end());
    boost::system::error_code ec;
    net::asio::write(socket_, net::asio::buffer(b), ec);
    return !ec;
  }
  void shutdown_send() {
    boost::system::error_code ignored;
    socket_.shutdown(net::tcp::socket::shutdown_send, ignored);
  }
  // Starts reading frames in the background of the loop: each lands in frames(); end of stream or
  // an error sets closed().
  void start_reading() { read_header(); }
  const std::vector<Bytes>& frames() const { return frames_; }
  bool closed() const { return closed_; }

 private:
  void read_header() {
    net::asio::async_read(socket_, net::asio::buffer(header_), [this](const boost::system::error_code& ec, size_t) {
      if (ec) {
        closed_ = true;
        return;
      }
      uint32_t n = (uint32_t{header_[0]} << 24) | (uint32_t{header_[1]} << 16) | (uint32_t{header_[2]} << 8) | header_[3];
      body_.assign(n, 0);
      net::asio::async_read(socket_, net::asio::buffer(body_), [this](const boost::system::error_code& bec, size_t) {
        if (bec) {
          closed_ = true;
          return;
        }
        frames_.push_back(body_);
        read_header();
      });
    });
  }
  net::tcp::socket socket_;
  uint8_t header_[4] = {};
  Bytes body_;
  std::vector<Bytes> frames_;
  bool closed_ = false;
};

}  // namespace gregor::test
