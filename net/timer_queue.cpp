#include "net/timer_queue.h"

#include "engine/core/assert.h"

namespace gregor::net {

Time steady_time_since(SteadyClock::time_point epoch) {
  return Time{std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - epoch).count()};
}

TimerQueue::TimerQueue(asio::io_context& io, SteadyClock::time_point epoch) : io_(io), timer_(io), epoch_(epoch) {}

TimerQueue::~TimerQueue() { clear(); }

TimerId TimerQueue::add(Time deadline, std::function<void()> fn) {
  GREGOR_ASSERT(fn != nullptr);
  uint64_t id = next_id_++;
  queue_.emplace(std::pair{deadline.us, id}, std::move(fn));
  deadline_of_.emplace(id, deadline.us);
  if (deadline.us <= now().us)
    post_run();
  else if (!armed_for_ || deadline.us < *armed_for_)
    arm_at(deadline.us);
  return TimerId{id};
}

void TimerQueue::cancel(TimerId id) {
  auto it = deadline_of_.find(id.value);
  if (it == deadline_of_.end()) return;
  queue_.erase({it->second, id.value});
  deadline_of_.erase(it);
  // The steady_timer may stay armed for the cancelled deadline: the wake-up then finds nothing due
  // and re-arms. Cheaper than re-arming on every cancel, which request timeouts do constantly.
}

void TimerQueue::clear() {
  queue_.clear();
  deadline_of_.clear();
  armed_for_.reset();
  timer_.cancel();
  // A posted run finds the queue empty.
}

void TimerQueue::arm_at(int64_t deadline_us) {
  armed_for_ = deadline_us;
  // expires_at cancels the wait under way; its handler sees operation_aborted and does nothing.
  timer_.expires_at(epoch_ + std::chrono::microseconds(deadline_us));
  std::weak_ptr<int> alive = alive_;
  timer_.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted || alive.expired()) return;
    armed_for_.reset();
    run_due();
  });
}

void TimerQueue::post_run() {
  if (run_posted_) return;
  run_posted_ = true;
  std::weak_ptr<int> alive = alive_;
  asio::post(io_, [this, alive] {
    if (alive.expired()) return;
    run_posted_ = false;
    run_due();
  });
}

void TimerQueue::schedule_next() {
  if (queue_.empty()) {
    if (armed_for_) timer_.cancel();  // no stale wait keeps the loop busy
    armed_for_.reset();
    return;
  }
  const int64_t next = queue_.begin()->first.first;
  if (next <= now().us) return post_run();
  // Armed for a later deadline (or none): wait for this one. Armed for an earlier one (a cancelled
  // timer's): that wake-up finds nothing due and comes back here.
  if (!armed_for_ || next < *armed_for_) arm_at(next);
}

void TimerQueue::run_due() {
  std::weak_ptr<int> alive = alive_;
  const int64_t now_us = now().us;
  for (int fired = 0; fired < kFireBatchMax && !queue_.empty(); fired++) {
    auto it = queue_.begin();
    if (it->first.first > now_us) break;
    std::function<void()> fn = std::move(it->second);
    deadline_of_.erase(it->first.second);
    queue_.erase(it);
    fn();
    if (alive.expired()) return;  // the callback destroyed the queue's owner
  }
  schedule_next();
}

}  // namespace gregor::net
