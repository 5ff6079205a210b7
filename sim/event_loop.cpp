#include "sim/event_loop.h"

#include <algorithm>

#include "engine/core/assert.h"

namespace gregor::sim {

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
  uint64_t seq = next_seq_++;
  heap_.push_back(Item{at, seq, std::move(fn)});
  live_.insert(seq);
  std::push_heap(heap_.begin(), heap_.end(), later);
  return seq;
}

void EventLoop::cancel(EventId id) {
  // Only ids still in the heap are recorded, so pending() stays exact.
  if (live_.erase(id)) cancelled_.insert(id);
}

bool EventLoop::pop_live(Item& out) {
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    Item item = std::move(heap_.back());
    heap_.pop_back();
    if (!cancelled_.empty() && cancelled_.erase(item.seq)) continue;
    live_.erase(item.seq);
    out = std::move(item);
    return true;
  }
  return false;
}

Time EventLoop::next_time() const {
  GREGOR_ASSERT(!heap_.empty());
  return heap_.front().at;
}

bool EventLoop::step() {
  Item item;
  if (!pop_live(item)) return false;
  GREGOR_ASSERT(item.at >= now_);
  now_ = item.at;
  events_run_++;
  item.fn();
  return true;
}

RunOutcome EventLoop::run_until(Time t) {
  while (!heap_.empty()) {
    if (limit_hit()) return RunOutcome::kEventLimitHit;
    if (heap_.front().at > t) break;
    if (!step()) break;
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
    if (!step()) break;
    if (pred()) return RunOutcome::kPredicateMet;
  }
  if (now_ < deadline) now_ = deadline;
  return pred() ? RunOutcome::kPredicateMet : RunOutcome::kReachedTime;
}

}  // namespace gregor::sim
