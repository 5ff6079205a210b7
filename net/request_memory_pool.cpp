#include "net/request_memory_pool.h"

#include <algorithm>

#include "engine/core/assert.h"

namespace gregor::net {

bool RequestMemoryPool::try_reserve(uint64_t bytes) {
  if (bounded()) {
    GREGOR_ASSERT(bytes <= static_cast<uint64_t>(capacity_));
    // Nobody jumps the line: while connections wait, new reservations wait behind them.
    if (!waiters_.empty() && !waking_) return false;
    if (reserved_ + bytes > static_cast<uint64_t>(capacity_)) return false;
  }
  reserved_ += bytes;
  peak_ = std::max(peak_, reserved_);
  return true;
}

void RequestMemoryPool::release(uint64_t bytes) {
  GREGOR_ASSERT(bytes <= reserved_);
  reserved_ -= bytes;
  if (waking_) return;  // the loop below is already running further up the stack
  waking_ = true;
  while (!waiters_.empty()) {
    std::function<bool()> retry = waiters_.front();
    if (!retry()) break;
    waiters_.pop_front();
  }
  waking_ = false;
}

void RequestMemoryPool::wait(std::function<bool()> retry) {
  times_muted_++;
  waiters_.push_back(std::move(retry));
}

}  // namespace gregor::net
