// Requests that wait for a condition, each with a timeout: CreateTopics and ElectLeaders for
// metadata to reach every broker (Controller::when_metadata_propagated), the topic admin APIs for
// this broker's metadata (AdminManager::when_metadata). check() fires, in the order they were
// added, those whose condition holds (done(false)); a timer fires one at its timeout (done(true));
// fail_all() ends every one (done(true)), e.g. when the controller resigns.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "engine/core/runtime.h"

namespace gregor::broker {

class TimedWaits {
 public:
  explicit TimedWaits(Runtime& rt) : rt_(rt) {}
  ~TimedWaits() {
    for (auto& [id, w] : waits_) rt_.cancel(w.timer);
  }
  TimedWaits(const TimedWaits&) = delete;
  TimedWaits& operator=(const TimedWaits&) = delete;

  // done(false) at once when ready() holds already; else when a later check() finds it holding, or
  // done(true) after `timeout`.
  void add(std::function<bool()> ready, Duration timeout, std::function<void(bool timed_out)> done) {
    if (ready()) return done(false);
    const uint64_t id = next_id_++;
    Wait& w = waits_[id];
    w.ready = std::move(ready);
    w.done = std::move(done);
    w.timer = rt_.after(timeout, [this, id] {
      auto it = waits_.find(id);
      if (it == waits_.end()) return;
      auto finished = std::move(it->second.done);
      waits_.erase(it);
      finished(true);
    });
  }

  void check() {
    std::vector<std::function<void(bool)>> ready;
    for (auto it = waits_.begin(); it != waits_.end();) {
      if (it->second.ready()) {
        rt_.cancel(it->second.timer);
        ready.push_back(std::move(it->second.done));
        it = waits_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& done : ready) done(false);
  }

  void fail_all() {
    auto waits = std::move(waits_);
    waits_.clear();
    for (auto& [id, w] : waits) {
      rt_.cancel(w.timer);
      w.done(true);
    }
  }

  bool empty() const { return waits_.empty(); }

 private:
  struct Wait {
    std::function<bool()> ready;
    std::function<void(bool)> done;
    TimerId timer{0};
  };
  Runtime& rt_;
  std::map<uint64_t, Wait> waits_;
  uint64_t next_id_ = 1;
};

}  // namespace gregor::broker
