#include "net/timer_queue.h"

#include "engine/core/assert.h"

namespace gregor::net {

Time steady_time_since(SteadyClock::time_point epoch) {
  return Time{std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - epoch).count()};
}

TimerQueue::TimerQueue(asio::io_context& io, SteadyClock::time_point epoch) : timer_(io), epoch_(epoch) {}

TimerQueue::~TimerQueue() { clear(); }

TimerId TimerQueue::add(Time deadline, std::function<void()> fn) {
  GREGOR_ASSERT(fn != nullptr);
  uint64_t id = next_id_++;
  queue_.emplace(std::pair{deadline.us, id}, std::move(fn));
  deadline_of_.emplace(id, deadline.us);
  if (!armed_for_ || deadline.us < *armed_for_) arm();
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
}

void TimerQueue::arm() {
  if (queue_.empty()) {
    if (armed_for_) timer_.cancel();
    armed_for_.reset();
    return;
  }
  int64_t deadline = queue_.begin()->first.first;
  if (armed_for_ && *armed_for_ == deadline) return;
  armed_for_ = deadline;
  // expires_at cancels the wait under way; its handler sees operation_aborted and does nothing.
  timer_.expires_at(epoch_ + std::chrono::microseconds(deadline));
  std::weak_ptr<int> alive = alive_;
  timer_.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted || alive.expired()) return;
    fire();
  });
}

void TimerQueue::fire() {
  armed_for_.reset();
  std::weak_ptr<int> alive = alive_;
  int64_t now_us = now().us;
  for (int fired = 0; fired < kFireBatchMax && !queue_.empty(); fired++) {
    auto it = queue_.begin();
    if (it->first.first > now_us) break;
    std::function<void()> fn = std::move(it->second);
    deadline_of_.erase(it->first.second);
    queue_.erase(it);
    fn();
    if (alive.expired()) return;  // the callback destroyed the queue's owner
  }
  arm();
}

}  // namespace gregor::net
