// TimerQueue: a node's timers on real time, over one Asio steady_timer.
//
// Timers are kept in one ordered queue keyed by (deadline, id), and a single steady_timer is armed
// for the earliest deadline. That gives the simulator's rule on real time: timers fire in deadline
// order, and timers with the same deadline fire in the order they were created (one steady_timer
// per callback would leave equal deadlines in an unspecified order). Time is the steady clock in
// microseconds since an epoch the owner chooses.
//
// A timer that is already due when it is added (after(0): the engine's "on a fresh stack", used
// for every wake-up between a produce, the purgatory and the next request) does not go through
// the kernel at all: the queue posts one run of its due timers to the io_context instead of
// re-arming the steady_timer. Arming it is a timerfd_settime, and on a virtual machine each one
// reprograms the host's timer: measured at a sixth of a broker's CPU under acks=all load when
// every after(0) re-armed it.
//
// Contract:
// - A callback runs once, on the io_context's thread, no earlier than its deadline.
// - cancel() before the callback ran means it never runs (also when the underlying wait already
//   completed and is queued); cancelling a fired or unknown id is a no-op.
// - clear() cancels everything; destroying the queue does too. Neither runs a callback.
// - At most kFireBatchMax callbacks run per wake-up; the rest run on the next turn of the
//   io_context, so a flood of due timers cannot starve socket I/O.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "engine/core/types.h"
#include "net/asio.h"

namespace gregor::net {

using SteadyClock = std::chrono::steady_clock;

// Microseconds of the steady clock since epoch.
Time steady_time_since(SteadyClock::time_point epoch);

class TimerQueue {
 public:
  static constexpr int kFireBatchMax = 1024;

  TimerQueue(asio::io_context& io, SteadyClock::time_point epoch);
  ~TimerQueue();
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  // Runs fn at deadline (at once if it has passed). Ids count up from 1 and are never reused.
  TimerId add(Time deadline, std::function<void()> fn);
  void cancel(TimerId id);
  void clear();
  size_t size() const { return queue_.size(); }
  Time now() const { return steady_time_since(epoch_); }

 private:
  // Arms the steady_timer for the earliest deadline if it is not armed for it or earlier, posts a
  // run if that deadline has passed, and cancels the wait when nothing is left.
  void schedule_next();
  void arm_at(int64_t deadline_us);
  void post_run();
  void run_due();

  asio::io_context& io_;
  asio::steady_timer timer_;
  SteadyClock::time_point epoch_;
  std::map<std::pair<int64_t, uint64_t>, std::function<void()>> queue_;  // (deadline us, id)
  std::map<uint64_t, int64_t> deadline_of_;                                // id -> deadline us
  uint64_t next_id_ = 1;
  std::optional<int64_t> armed_for_;  // the deadline the steady_timer waits for
  bool run_posted_ = false;           // a run_due is queued on the io_context
  // Completion handlers hold a weak reference: a wait completing after the queue is gone is ignored.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace gregor::net
