// Invariant checkers over the trace (../shared/reference/kafka-replication.md §6). Each is fed
// every event in order, checks after each one, and keeps the first violation it finds, with the
// virtual time and the recent events of that partition that led to it.
//
//   single-leader         at most one broker becomes leader of a partition per leader epoch
//   epoch-monotonic       the controller's leader epochs of a partition only go up
//   hw-monotonic          a leader's high watermark never goes back within its epoch
//   hw-within-isr         the leader's HW <= the LEO of every member of its ISR
//   log-matching          replica logs agree, batch for batch, below their high watermarks
//   acked-write-lost      every acks=all acknowledged batch is in the log of each new leader (of the
//                         newest epoch the controller elected), and of the final leader
//   acks1-write-lost      the same for acks=1 acknowledgements (Kafka does not promise it; the
//                         teaching stories show when it fails)
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/trace_event.h"
#include "sim/check/cluster_model.h"

namespace gregor::sim {

struct Violation {
  std::string checker;
  Time time;
  std::string message;
  std::vector<std::string> context;  // the events that led to it, oldest first
};

// The last kCapacity events of one partition's story, oldest first. A new event is copied over
// the oldest one's slot: the same kind of event reuses its strings' storage instead of freeing one
// event and allocating the next (a __consumer_offsets event's topic name is a heap allocation).
class EventRing {
 public:
  static constexpr size_t kCapacity = 12;
  void push(const TraceEvent& e) {
    if (slots_.size() < kCapacity) {
      slots_.push_back(e);
      return;
    }
    slots_[oldest_] = e;
    oldest_ = (oldest_ + 1) % kCapacity;
  }
  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < slots_.size(); i++) f(slots_[(oldest_ + i) % slots_.size()]);
  }

 private:
  std::vector<TraceEvent> slots_;
  size_t oldest_ = 0;  // the oldest slot once all kCapacity are taken
};

class Checker {
 public:
  virtual ~Checker() = default;
  virtual const char* name() const = 0;
  virtual const char* description() const = 0;
  // Called after the model applied e.
  virtual void on_event(const TraceEvent& e, const ClusterModel& model) = 0;
  // The run ended (all events seen).
  virtual void finish(const ClusterModel& model, Time end) { (void)model, (void)end; }
  const std::optional<Violation>& violation() const { return violation_; }

 protected:
  void report(Time t, std::string message);
  friend class CheckerSet;
  std::optional<Violation> violation_;
  const EventRing* context_ = nullptr;
};

// The checkers, the shared model and the context ring; attach it to a run as a trace listener.
class CheckerSet {
 public:
  // All checkers above.
  CheckerSet();
  void on_event(const TraceEvent& e);
  void finish(Time end);
  const ClusterModel& model() const { return model_; }
  const std::vector<std::unique_ptr<Checker>>& checkers() const { return checkers_; }
  Checker* find(const std::string& name);
  std::vector<std::string> names() const;
  // Adds a checker (tests add broken ones; issue-specific checkers plug in the same way).
  void add(std::unique_ptr<Checker> c);

 private:
  ClusterModel model_;
  std::vector<std::unique_ptr<Checker>> checkers_;
  // The recent events per partition (and those of no partition), kept as they are and turned into
  // text only when a checker reports: formatting every event would cost more than checking it.
  IndexedMap<PartitionKey, EventRing> context_;
  EventRing global_context_;
};

}  // namespace gregor::sim
