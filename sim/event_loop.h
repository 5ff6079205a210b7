// The simulator's event loop: one queue ordered by (virtual time, insertion sequence).
//
// Equal times run in insertion order (FIFO), so a run is a pure function of what was scheduled.
// Virtual time jumps straight to the next event. A hard limit on events per run stops a run that
// would never end (a livelock or a timer storm) with a clear verdict instead of hanging.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_set>
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
  size_t pending() const { return heap_.size() - cancelled_.size(); }
  bool empty() const { return pending() == 0; }
  Time next_time() const;

  // The most events one run may execute (default 200 million).
  void set_event_limit(uint64_t limit) { event_limit_ = limit; }
  bool limit_hit() const { return events_run_ >= event_limit_; }

 private:
  struct Item {
    Time at;
    uint64_t seq;
    Fn fn;
  };
  static bool later(const Item& a, const Item& b) {
    return a.at != b.at ? a.at > b.at : a.seq > b.seq;
  }
  bool pop_live(Item& out);

  Time now_{0};
  uint64_t next_seq_ = 1;
  uint64_t events_run_ = 0;
  uint64_t event_limit_ = 200'000'000;
  std::vector<Item> heap_;
  // Looked up, never iterated: its order cannot leak into the run.
  std::unordered_set<uint64_t> cancelled_;
  std::unordered_set<uint64_t> live_;
};

}  // namespace gregor::sim
