#include "sim/event_loop.h"

#include <algorithm>

#include "engine/core/assert.h"

namespace gregor::sim {
namespace {

// The queue is a 4-ary min-heap on (time, sequence) kept by hand instead of std::push_heap and
// std::pop_heap's binary heap: half as many levels, and a node's four children share a cache line or
// two. (time, sequence) is a total order (sequences are unique), so any heap pops the same order.
constexpr size_t kArity = 4;

bool earlier(const auto& a, const auto& b) { return a.at != b.at ? a.at < b.at : a.seq < b.seq; }

template <typename E>
void sift_up(std::vector<E>& h, size_t i) {
  const E e = h[i];
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!earlier(e, h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

template <typename E>
void sift_down(std::vector<E>& h, size_t i) {
  const size_t n = h.size();
  const E e = h[i];
  for (;;) {
    const size_t first = i * kArity + 1;
    if (first >= n) break;
    size_t best = first;
    const size_t end = std::min(first + kArity, n);
    for (size_t c = first + 1; c < end; c++)
      if (earlier(h[c], h[best])) best = c;
    if (!earlier(h[best], e)) break;
    h[i] = h[best];
    i = best;
  }
  h[i] = e;
}

// Restores the heap order of a whole array (Floyd's bottom-up build, linear time).
template <typename E>
void make_heap(std::vector<E>& h) {
  if (h.size() < 2) return;
  for (size_t i = (h.size() - 2) / kArity + 1; i-- > 0;) sift_down(h, i);
}

}  // namespace

const char* run_outcome_name(RunOutcome o) {
  switch (o) {
    case RunOutcome::kReachedTime: return "reached time";
    case RunOutcome::kQueueEmpty: return "queue empty";
    case RunOutcome::kPredicateMet: return "predicate met";
    case RunOutcome::kEventCountReached: return "event count reached";
    case RunOutcome::kEventLimitHit: return "event limit hit";
  }
  return "?";
}

EventLoop::EventId EventLoop::schedule(Time at, Fn fn) {
  GREGOR_ASSERT_MSG(at >= now_, "an event cannot be scheduled in the past");
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    GREGOR_ASSERT_MSG(slots_.size() < kPendingMax, "too many pending events");
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.fn = std::move(fn);
  s.live = true;
  heap_.push_back(Entry{at, next_seq_++, slot});
  sift_up(heap_, heap_.size() - 1);
  return (s.generation << 24) | slot;
}

void EventLoop::cancel(EventId id) {
  const uint64_t slot = id & (kPendingMax - 1);
  if (slot >= slots_.size()) return;
  Slot& s = slots_[slot];
  if (!s.live || s.generation != (id >> 24)) return;  // ran, cancelled, or a later use of the slot
  s.live = false;
  // What the callback captured is released now, but destroyed only after the bookkeeping: a
  // destructor may schedule or cancel, which may grow slots_.
  Fn dead;
  dead.swap(s.fn);
  cancelled_in_heap_++;
  drop_cancelled_top();
  // A cancelled entry below the top stays until it reaches the top. Cancelled timers far in the
  // future (a long timeout of something that completed; request timeouts share one timer per
  // client, engine/core/deadline_timer.h) would make the heap larger than what is pending, and every
  // push and pop slower. When more than half of the heap is cancelled, it is rebuilt from the live
  // entries (amortized O(1) per cancel; the pop order is that of (time, sequence), the same for any
  // heap).
  if (cancelled_in_heap_ > 64 && cancelled_in_heap_ * 2 > heap_.size()) {
    std::erase_if(heap_, [this](const Entry& e) {
      if (slots_[e.slot].live) return false;
      release(e.slot);
      return true;
    });
    cancelled_in_heap_ = 0;
    make_heap(heap_);
  }
}

void EventLoop::release(uint32_t slot) {
  Slot& s = slots_[slot];
  s.live = false;
  s.generation++;
  free_slots_.push_back(slot);
}

EventLoop::Entry EventLoop::pop_entry() {
  const Entry top = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(heap_, 0);
  return top;
}

void EventLoop::drop_cancelled_top() {
  while (!heap_.empty() && !slots_[heap_.front().slot].live) {
    release(pop_entry().slot);
    cancelled_in_heap_--;
  }
}

Time EventLoop::next_time() const {
  GREGOR_ASSERT(!heap_.empty());
  return heap_.front().at;  // the top is live (see drop_cancelled_top)
}

bool EventLoop::step() {
  if (heap_.empty()) return false;
  Entry e = pop_entry();
  GREGOR_ASSERT(e.at >= now_);
  Fn fn;
  fn.swap(slots_[e.slot].fn);
  release(e.slot);
  drop_cancelled_top();
  now_ = e.at;
  events_run_++;
  fn();
  return true;
}

RunOutcome EventLoop::run_until(Time t) {
  // The top of the heap is always a live event, so peeking at its time is exact.
  while (!heap_.empty() && heap_.front().at <= t) {
    if (limit_hit()) return RunOutcome::kEventLimitHit;
    step();
  }
  if (now_ < t) now_ = t;
  return RunOutcome::kReachedTime;
}

RunOutcome EventLoop::run_events(uint64_t n) {
  for (uint64_t i = 0; i < n; i++) {
    if (limit_hit()) return RunOutcome::kEventLimitHit;
    if (!step()) return RunOutcome::kQueueEmpty;
  }
  return RunOutcome::kEventCountReached;
}

RunOutcome EventLoop::run_while_not(const std::function<bool()>& pred, Time deadline) {
  if (pred()) return RunOutcome::kPredicateMet;
  while (!heap_.empty() && heap_.front().at <= deadline) {
    if (limit_hit()) return RunOutcome::kEventLimitHit;
    step();
    if (pred()) return RunOutcome::kPredicateMet;
  }
  if (now_ < deadline) now_ = deadline;
  return pred() ? RunOutcome::kPredicateMet : RunOutcome::kReachedTime;
}

}  // namespace gregor::sim
