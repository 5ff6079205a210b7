// DeadlineTimer: one runtime timer for many deadlines, as Kafka's clients and purgatories check
// their requests' expiry (NetworkClient.handleTimedOutRequests, the purgatory's timing wheel)
// instead of arming a timer per request.
//
// The owner keeps the deadlines (one per pending request, say) and calls ensure(at) for each new
// one. The timer is armed at the earliest deadline asked for since it last fired. When it fires it
// calls on_due, which expires what is due (deadline <= now) and calls ensure() with the earliest
// deadline still held, if any. A request answered before its deadline costs nothing here: most
// requests are, and a timer per request was scheduled and cancelled for each of them.
//
// The timer may fire when nothing is due (what it was armed for was answered): on_due then only
// re-arms. Destroying the DeadlineTimer cancels it.
#pragma once

#include <functional>
#include <utility>

#include "engine/core/runtime.h"

namespace gregor {

class DeadlineTimer {
 public:
  DeadlineTimer(Runtime& rt, std::function<void()> on_due) : rt_(rt), on_due_(std::move(on_due)) {}
  ~DeadlineTimer() { disarm(); }
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  // on_due runs no later than `at` (at once, on a later turn, when `at` has passed).
  void ensure(Time at) {
    if (armed_ && at_ <= at) return;
    disarm();
    const Time now = rt_.now();
    armed_ = true;
    at_ = at;
    timer_ = rt_.after(at > now ? at - now : Duration{0}, [this] {
      armed_ = false;
      on_due_();
    });
  }
  void disarm() {
    if (!armed_) return;
    rt_.cancel(timer_);
    armed_ = false;
  }
  bool armed() const { return armed_; }

 private:
  Runtime& rt_;
  std::function<void()> on_due_;
  bool armed_ = false;
  Time at_{0};
  TimerId timer_{};
};

}  // namespace gregor
