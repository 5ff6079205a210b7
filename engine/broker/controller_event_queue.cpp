#include "engine/broker/controller_event_queue.h"

namespace gregor::broker {

void ControllerEventQueue::enqueue(const char* name, Step step) {
  queue_.emplace_back(name, std::move(step));
  if (!busy_) run_next();
}

void ControllerEventQueue::reset() {
  term_++;
  busy_ = false;
  queue_.clear();
}

void ControllerEventQueue::run_next() {
  if (busy_ || queue_.empty()) return;
  auto [name, step] = std::move(queue_.front());
  queue_.pop_front();
  busy_ = true;
  step(guard([this] {
    busy_ = false;
    // Continue on a fresh stack: a long queue must not nest its steps.
    rt_.after(Duration{0}, guard([this] { run_next(); }));
  }));
}

}  // namespace gregor::broker
