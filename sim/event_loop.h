// The simulator's event loop: one queue ordered by (virtual time, insertion sequence).
//
// Equal times run in insertion order (FIFO), so a run is a pure function of what was scheduled.
// Virtual time jumps straight to the next event. A hard limit on events per run stops a run that
// would never end (a livelock or a timer storm) with a clear verdict instead of hanging.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/core/types.h"

namespace gregor::sim {

enum class RunOutcome { kReachedTime, kQueueEmpty, kPredicateMet, kEventCountReached, kEventLimitHit };
const char* run_outcome_name(RunOutcome o);

class EventLoop {
 public:
  using Fn = std::function<void()>;
  using EventId = uint64_t;

  Time now() const { return now_; }
  // REQUIRES: at >= now().
  EventId schedule(Time at, Fn fn);
  EventId schedule_after(Duration d, Fn fn) { return schedule(now_ + d, std::move(fn)); }
  // Cancelling an event that already ran or was cancelled is a no-op.
  void cancel(EventId id);

  // Runs the next event; false when the queue is empty.
  bool step();
  // Runs every event with time <= t, then sets now to t.
  RunOutcome run_until(Time t);
  // Runs n events (or until the queue empties).
  RunOutcome run_events(uint64_t n);
  // Runs until pred() holds (checked after each event) or time passes deadline.
  RunOutcome run_while_not(const std::function<bool()>& pred, Time deadline);

  uint64_t events_run() const { return events_run_; }
  size_t pending() const { return heap_.size() - cancelled_in_heap_; }
  bool empty() const { return pending() == 0; }
  // The time of the next event that will run. REQUIRES: !empty().
  Time next_time() const;

  // The most events one run may execute (default 200 million).
  void set_event_limit(uint64_t limit) { event_limit_ = limit; }
  bool limit_hit() const { return events_run_ >= event_limit_; }

  // The most events that may be pending at once: a bound on memory, and the width of the slot
  // field inside an EventId.
  static constexpr uint64_t kPendingMax = uint64_t{1} << 24;

 private:
  // The heap holds small entries (time, sequence, slot); the callbacks live in a slot table reused
  // through a free list, so scheduling allocates nothing once the table has grown. An EventId is
  // (slot generation << 24 | slot): it names one use of a slot, so cancelling an event that already
  // ran or was cancelled finds a newer generation and does nothing.
  struct Entry {
    Time at;
    uint64_t seq;
    uint32_t slot;
  };
  struct Slot {
    Fn fn;
    uint64_t generation = 0;
    bool live = false;  // scheduled and neither run nor cancelled
  };
  Entry pop_entry();
  void release(uint32_t slot);
  // Pops cancelled entries off the top, so that the top of a non-empty heap is always live.
  void drop_cancelled_top();

  Time now_{0};
  uint64_t next_seq_ = 1;
  uint64_t events_run_ = 0;
  uint64_t event_limit_ = 200'000'000;
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  size_t cancelled_in_heap_ = 0;
};

}  // namespace gregor::sim
