// RequestMemoryPool: queued.max.request.bytes, the memory all inbound connections of a node may
// hold for requests they are receiving (Kafka's MemoryPool in its SocketServer).
//
// A connection reserves a frame's declared size once the size field is in and the frame is longer
// than what is already buffered; it gives the reservation back once the frame was handed to the
// node. A reservation that does not fit is refused: the connection stops reading (is muted) and
// waits in line; release() hands freed memory to the waiting connections in the order they came,
// each taking its whole frame or nothing, so a frame that fits can always complete. The pool only
// counts; the bytes themselves grow in each connection's FrameReader as they arrive.
// Single-threaded, like the rest of the transport.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>

namespace gregor::net {

class RequestMemoryPool {
 public:
  // capacity_bytes <= 0: unbounded (every reservation succeeds, nobody waits).
  explicit RequestMemoryPool(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  bool bounded() const { return capacity_ > 0; }
  // Takes bytes if they fit. REQUIRES: bytes <= capacity when bounded.
  bool try_reserve(uint64_t bytes);
  // Gives bytes back, then offers the freed memory to the waiters in order.
  void release(uint64_t bytes);
  // Queues a waiter: called (from release) when it may try again; it returns true when it got its
  // memory (or no longer needs it) and leaves the line, false to keep waiting at its head.
  void wait(std::function<bool()> retry);

  uint64_t reserved_bytes() const { return reserved_; }
  uint64_t peak_bytes() const { return peak_; }
  size_t waiting() const { return waiters_.size(); }
  uint64_t times_muted() const { return times_muted_; }

 private:
  int64_t capacity_;
  uint64_t reserved_ = 0;
  uint64_t peak_ = 0;
  uint64_t times_muted_ = 0;
  bool waking_ = false;
  std::deque<std::function<bool()>> waiters_;
};

}  // namespace gregor::net
