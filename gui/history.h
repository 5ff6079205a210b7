// History: every event of a run seen so far (live) or of a whole trace (replay), with what the
// timeline needs: markers (faults, leader and ISR changes, checker violations), fault periods to
// shade on charts, sampled time series, checker verdicts as they are decided, and checkpoints of
// the model so that seeking to any time costs at most checkpoint_every events of replay.
//
// One forward pass feeds it (add), for a live run and a trace alike; model_at(t) rebuilds the
// snapshot at any earlier time from the nearest checkpoint.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gui/model_builder.h"
#include "sim/check/checkers.h"

namespace gregor::gui {

enum class MarkerKind { kFault, kRecover, kLeader, kOffline, kIsrShrink, kIsrExpand, kViolation, kUser };
const char* marker_kind_name(MarkerKind k);

struct TimelineMarker {
  Time at{0};
  MarkerKind kind = MarkerKind::kFault;
  std::string label;
  bool internal = false;  // about a partition of an internal topic (__consumer_offsets)
};

// A node down, paused or cut off, from its fault to its recovery (end = kOpen while it lasts).
struct FaultPeriod {
  static constexpr Time kOpen{INT64_MAX};
  Time start{0};
  Time end = kOpen;
  std::string label;
};

// Cluster counts sampled every kSampleEvery of virtual time.
struct SeriesSample {
  Time at{0};
  int under_replicated = 0, under_min_isr = 0, offline = 0;
  // The part of each count that is internal topics' partitions.
  int internal_under_replicated = 0, internal_under_min_isr = 0, internal_offline = 0;
  int64_t produce_acked = 0;
  std::map<std::string, int64_t> group_lag;
};

class History {
 public:
  static constexpr size_t kCheckpointEveryDefault = 20000;
  static constexpr Duration kSampleEvery = Duration::millis(250);

  // REQUIRES: event_limit > 0, checkpoint_every > 0. Past event_limit events are no longer stored
  // (the head model, the markers and the series go on; seeking stops at the limit).
  explicit History(ModelDefaults defaults = {}, size_t event_limit = 4'000'000,
                   size_t checkpoint_every = kCheckpointEveryDefault);

  void add(const TraceEvent& e);
  // The broker-level settings events do not carry (known once the runner is built).
  void set_defaults(ModelDefaults d);
  // The run ended at `end`: checkers that found nothing pass.
  void finish(Time end);
  bool finished() const { return finished_; }
  Time end_time() const { return end_; }

  const std::vector<TraceEvent>& events() const { return events_; }
  size_t checkpoints() const { return checkpoints_.size(); }
  bool truncated() const { return truncated_; }
  Time last_time() const { return head_.last_time(); }
  const ModelBuilder& head() const { return head_; }
  // The builder with exactly the events at times <= t applied.
  ModelBuilder builder_at(Time t) const;
  DashboardModel model_at(Time t, Duration traffic_window) const;
  // The number of stored events at times <= t.
  size_t events_until(Time t) const;

  const std::vector<TimelineMarker>& markers() const { return markers_; }
  const std::vector<FaultPeriod>& fault_periods() const { return periods_; }
  const std::vector<SeriesSample>& series() const { return series_; }
  std::vector<VerdictModel> verdicts_at(Time t) const;
  // Adds a marker for something the user did (live sessions).
  void add_user_marker(Time at, std::string label);

 private:
  void track(const TraceEvent& e);
  void open_period(const std::string& key, Time at, std::string label);
  void close_period(const std::string& key, Time at);
  void sample_until(Time t);

  ModelDefaults defaults_;
  size_t event_limit_;
  size_t checkpoint_every_;
  std::vector<TraceEvent> events_;
  bool truncated_ = false;
  ModelBuilder head_;
  std::vector<std::pair<size_t, ModelBuilder>> checkpoints_;  // (events applied, builder)
  std::unique_ptr<sim::CheckerSet> checkers_;
  std::map<std::string, std::pair<Time, std::string>> violations_;  // checker -> first violation
  std::vector<TimelineMarker> markers_;
  std::vector<FaultPeriod> periods_;
  std::map<std::string, size_t> open_periods_;  // key -> index in periods_
  // The last ISR size seen per partition: a leader change that drops a replica (the controller
  // removes a dead leader from the ISR as it elects the next) is an ISR shrink too.
  std::map<std::string, size_t> isr_size_;
  std::vector<SeriesSample> series_;
  Time next_sample_{0};
  bool finished_ = false;
  Time end_{0};
};

}  // namespace gregor::gui
