// Timeline: the readable story of a run, built from its trace events. `gregor run` prints it; the
// dashboard may show it. One line per thing a person wants to see: faults, controller elections,
// leader and ISR changes, truncations, checker violations; acknowledgements and produce errors are
// summed up between those lines so that a run of 20,000 writes still reads in a screen.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/core/trace_event.h"

namespace gregor::sim {

struct TimelineEntry {
  Time time;
  std::string kind;  // fault, controller, broker, leader, isr, truncate, ack, error, violation, setup
  std::string text;
};

class Timeline {
 public:
  using NameOf = std::function<std::string(int32_t node)>;
  explicit Timeline(NameOf name_of) : name_of_(std::move(name_of)) {}

  // Feed every event in order.
  void on_event(const TraceEvent& e);
  // A line the runner adds itself (a checker's first violation, a setup step).
  void add(Time t, std::string kind, std::string text);
  // Writes out the pending acknowledgement and error sums (call at the end of a run).
  void flush();
  // Called with each entry as it is added (live printing).
  void set_sink(std::function<void(const TimelineEntry&)> sink) { sink_ = std::move(sink); }
  const std::vector<TimelineEntry>& entries() const { return entries_; }
  // Entries kept; a run that produces more keeps counting but stops storing (a limit on memory).
  static constexpr size_t kEntriesMax = 100000;

 private:
  struct AckSum {
    int64_t records = 0;
    std::map<std::string, int64_t> last_offset;  // partition -> highest acked offset
    Time last{0};
    int acks = 0;  // acks mode of the last one (-1 all, 1, 0)
  };
  struct ErrorSum {
    int64_t count = 0;
    std::map<std::string, int64_t> by_error;
    Time last{0};
  };
  void push(TimelineEntry e);
  AckSum& ack_sum(int32_t producer);
  std::string node(int64_t id) const { return name_of_(static_cast<int32_t>(id)); }
  NameOf name_of_;
  std::function<void(const TimelineEntry&)> sink_;
  std::vector<TimelineEntry> entries_;
  std::map<std::string, AckSum> acks_;      // by producer name
  std::map<int32_t, AckSum*> ack_sums_;     // by producer node: the name looked up once
  std::map<std::string, ErrorSum> errors_;  // by producer name
  size_t dropped_ = 0;
};

}  // namespace gregor::sim
