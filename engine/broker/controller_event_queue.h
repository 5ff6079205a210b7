// ControllerEventQueue: the controller's events, processed one at a time in arrival order, as
// Kafka's controller event queue does. An event is a step that may need several round trips to zk
// and says when it is done; the next event starts only then (on a fresh stack), so no two events
// interleave their reads and writes.
//
// When the controller resigns, reset() drops the queued events, and every callback the controller
// handed out before (zk answers, timers: guard) is dropped when it arrives. This is the one place
// that checks whether a callback belongs to the current term as controller.
#pragma once

#include <deque>
#include <functional>
#include <utility>

#include "engine/coord/zk_client.h"
#include "engine/core/runtime.h"

namespace gregor::broker {

class ControllerEventQueue {
 public:
  using Done = std::function<void()>;
  using Step = std::function<void(Done)>;

  explicit ControllerEventQueue(Runtime& rt) : rt_(rt) {}

  void enqueue(const char* name, Step step);
  // A new term: queued events go, and callbacks handed out before never run.
  void reset();

  // `fn` as a callback that runs only if no reset happened since it was made.
  template <typename F>
  auto guard(F fn) {
    return [this, term = term_, fn = std::move(fn)](auto&&... args) mutable {
      if (term == term_) fn(std::forward<decltype(args)>(args)...);
    };
  }
  TimerId after(Duration d, std::function<void()> fn) { return rt_.after(d, guard(std::move(fn))); }

 private:
  void run_next();

  Runtime& rt_;
  uint64_t term_ = 0;
  std::deque<std::pair<const char*, Step>> queue_;
  bool busy_ = false;
};

// The controller's zk client: every answer passes the queue's guard, so the controller's callbacks
// never ask whether it is still the controller.
class ControllerZk {
 public:
  ControllerZk(coord::ZkClient& zk, ControllerEventQueue& queue) : zk_(zk), queue_(queue) {}

  void create(std::string path, std::optional<Bytes> data, coord::CreateMode mode,
              std::function<void(coord::ZkError, std::string)> cb) {
    zk_.create(std::move(path), std::move(data), mode, queue_.guard(std::move(cb)));
  }
  void get_data(std::string path, bool watch, std::function<void(coord::ZkError, Bytes, coord::Stat)> cb) {
    zk_.get_data(std::move(path), watch, queue_.guard(std::move(cb)));
  }
  void set_data(std::string path, Bytes data, int32_t version, std::function<void(coord::ZkError, coord::Stat)> cb) {
    zk_.set_data(std::move(path), std::move(data), version, queue_.guard(std::move(cb)));
  }
  void remove(std::string path, int32_t version, std::function<void(coord::ZkError)> cb) {
    zk_.remove(std::move(path), version, queue_.guard(std::move(cb)));
  }
  void get_children(std::string path, bool watch, std::function<void(coord::ZkError, std::vector<std::string>)> cb) {
    zk_.get_children(std::move(path), watch, queue_.guard(std::move(cb)));
  }
  void multi(std::vector<coord::ZkOp> ops, std::function<void(coord::ZkError, std::vector<coord::ZkOpResult>)> cb) {
    zk_.multi(std::move(ops), queue_.guard(std::move(cb)));
  }

 private:
  coord::ZkClient& zk_;
  ControllerEventQueue& queue_;
};

}  // namespace gregor::broker
