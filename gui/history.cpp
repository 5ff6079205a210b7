#include "gui/history.h"

#include <algorithm>

#include "engine/core/assert.h"
#include "sim/scenario/scenario_checks.h"

namespace gregor::gui {

const char* marker_kind_name(MarkerKind k) {
  switch (k) {
    case MarkerKind::kFault: return "fault";
    case MarkerKind::kRecover: return "recover";
    case MarkerKind::kLeader: return "leader";
    case MarkerKind::kOffline: return "offline";
    case MarkerKind::kIsrShrink: return "isr shrink";
    case MarkerKind::kIsrExpand: return "isr expand";
    case MarkerKind::kViolation: return "violation";
    case MarkerKind::kUser: return "user";
  }
  return "?";
}

History::History(ModelDefaults defaults, size_t event_limit, size_t checkpoint_every)
    : defaults_(defaults),
      event_limit_(event_limit),
      checkpoint_every_(checkpoint_every),
      head_(defaults),
      checkers_(std::make_unique<sim::CheckerSet>()) {
  GREGOR_ASSERT(event_limit_ > 0 && checkpoint_every_ > 0);
  // The same checkers a scenario run attaches, so live and replayed verdicts agree with `gregor run`.
  sim::add_scenario_checkers(*checkers_);
}

void History::add(const TraceEvent& e) {
  sample_until(e.time);
  if (!truncated_) {
    if (events_.size() >= event_limit_) {
      truncated_ = true;
    } else {
      if (!events_.empty() && events_.size() % checkpoint_every_ == 0) checkpoints_.emplace_back(events_.size(), head_);
      events_.push_back(e);
    }
  }
  head_.apply(e);
  track(e);
  checkers_->on_event(e);
  for (const auto& c : checkers_->checkers()) {
    if (!c->violation() || violations_.count(c->name())) continue;
    violations_[c->name()] = {c->violation()->time, c->violation()->message};
    markers_.push_back({c->violation()->time, MarkerKind::kViolation, std::string(c->name()) + ": " + c->violation()->message});
  }
}

void History::set_defaults(ModelDefaults d) {
  defaults_ = d;
  head_.set_defaults(d);
  for (auto& [n, b] : checkpoints_) b.set_defaults(d);
}

void History::finish(Time end) {
  if (finished_) return;
  sample_until(end);
  checkers_->finish(end);
  for (const auto& c : checkers_->checkers()) {
    if (!c->violation() || violations_.count(c->name())) continue;
    violations_[c->name()] = {c->violation()->time, c->violation()->message};
    markers_.push_back({c->violation()->time, MarkerKind::kViolation, std::string(c->name()) + ": " + c->violation()->message});
  }
  finished_ = true;
  end_ = end;
}

void History::add_user_marker(Time at, std::string label) { markers_.push_back({at, MarkerKind::kUser, std::move(label)}); }

size_t History::events_until(Time t) const {
  auto it = std::upper_bound(events_.begin(), events_.end(), t, [](Time x, const TraceEvent& e) { return x < e.time; });
  return static_cast<size_t>(it - events_.begin());
}

ModelBuilder History::builder_at(Time t) const {
  const size_t n = events_until(t);
  if (!truncated_ && n == events_.size()) return head_;
  // The last checkpoint taken at or before event n.
  auto it = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), n,
                             [](size_t x, const std::pair<size_t, ModelBuilder>& c) { return x < c.first; });
  ModelBuilder b = it == checkpoints_.begin() ? ModelBuilder(defaults_) : std::prev(it)->second;
  const size_t from = it == checkpoints_.begin() ? 0 : std::prev(it)->first;
  for (size_t i = from; i < n; i++) b.apply(events_[i]);
  return b;
}

DashboardModel History::model_at(Time t, Duration traffic_window) const {
  DashboardModel m;
  const size_t n = events_until(t);
  if (!truncated_ && n == events_.size())
    m = head_.snapshot(t, traffic_window);
  else
    m = builder_at(t).snapshot(t, traffic_window);
  m.verdicts = verdicts_at(t);
  return m;
}

std::vector<VerdictModel> History::verdicts_at(Time t) const {
  std::vector<VerdictModel> out;
  for (const auto& c : checkers_->checkers()) {
    VerdictModel v;
    v.checker = c->name();
    v.description = c->description();
    auto it = violations_.find(v.checker);
    if (it != violations_.end() && it->second.first <= t) {
      v.state = VerdictState::kFail;
      v.at = it->second.first;
      v.message = it->second.second;
    } else if (finished_ && t >= end_) {
      v.state = VerdictState::kPass;
      v.at = end_;
    }
    out.push_back(std::move(v));
  }
  return out;
}

void History::open_period(const std::string& key, Time at, std::string label) {
  if (open_periods_.count(key)) return;
  open_periods_[key] = periods_.size();
  periods_.push_back({at, FaultPeriod::kOpen, std::move(label)});
}

void History::close_period(const std::string& key, Time at) {
  auto it = open_periods_.find(key);
  if (it == open_periods_.end()) return;
  periods_[it->second].end = at;
  open_periods_.erase(it);
}

void History::track(const TraceEvent& e) {
  const std::string_view k = e.kind();
  if (e.node.value == 0) {
    const std::string target = std::to_string(e.get_int("target", -1));
    const std::string name = e.get_string("name", "node " + target);
    if (k == "node_crash" || k == "power_loss") {
      markers_.push_back({e.time, MarkerKind::kFault, (k == "node_crash" ? "crash " : "power loss ") + name});
      open_period("down:" + target, e.time, name + (k == "node_crash" ? " down" : " powered off"));
    } else if (k == "node_restart") {
      markers_.push_back({e.time, MarkerKind::kRecover, "restart " + name});
      close_period("down:" + target, e.time);
    } else if (k == "node_pause") {
      markers_.push_back({e.time, MarkerKind::kFault, "pause " + name});
      open_period("pause:" + target, e.time, name + " paused");
    } else if (k == "node_resume") {
      markers_.push_back({e.time, MarkerKind::kRecover, "resume " + name});
      close_period("pause:" + target, e.time);
    } else if (k == "partition") {
      const std::string label = "partition " + e.get_string("from") + " | " + e.get_string("to");
      markers_.push_back({e.time, MarkerKind::kFault, label});
      open_period("cut:" + e.get_string("from") + "|" + e.get_string("to"), e.time, label);
    } else if (k == "heal") {
      markers_.push_back({e.time, MarkerKind::kRecover, "heal " + e.get_string("from") + " | " + e.get_string("to")});
      close_period("cut:" + e.get_string("from") + "|" + e.get_string("to"), e.time);
    } else if (k == "heal_all") {
      markers_.push_back({e.time, MarkerKind::kRecover, "heal all"});
      std::vector<std::string> cuts;
      for (const auto& [key, index] : open_periods_)
        if (key.rfind("cut:", 0) == 0) cuts.push_back(key);
      for (const auto& key : cuts) close_period(key, e.time);
    } else if (k == "clog" || k == "disk_corrupt" || k == "latency") {
      markers_.push_back({e.time, MarkerKind::kFault, std::string(k) + " " + e.fields_json()});
    }
    return;
  }
  const std::string tp = e.get_string("topic") + "-" + std::to_string(e.get_int("partition"));
  const size_t first_marker = markers_.size();
  if (k == "leader_change") {
    markers_.push_back({e.time, MarkerKind::kLeader,
                        tp + " leader " + std::to_string(e.get_int("leader")) + " (epoch " +
                            std::to_string(e.get_int("leader_epoch")) + ", " + e.get_string("reason") + ")"});
    const std::string isr = e.get_string("isr");
    const size_t size = isr.empty() ? 0 : static_cast<size_t>(std::count(isr.begin(), isr.end(), ',') + 1);
    auto last = isr_size_.find(tp);
    if (last != isr_size_.end() && size < last->second)
      markers_.push_back({e.time, MarkerKind::kIsrShrink, tp + " ISR shrinks to [" + isr + "] (by the controller)"});
    isr_size_[tp] = size;
  } else if (k == "partition_offline") {
    markers_.push_back({e.time, MarkerKind::kOffline, tp + " offline"});
  } else if (k == "isr_change") {
    const bool shrink = e.get_string("direction") == "shrink";
    const std::string isr = e.get_string("isr");
    isr_size_[tp] = isr.empty() ? 0 : static_cast<size_t>(std::count(isr.begin(), isr.end(), ',') + 1);
    markers_.push_back({e.time, shrink ? MarkerKind::kIsrShrink : MarkerKind::kIsrExpand,
                        tp + " ISR " + (shrink ? "shrinks" : "expands") + " to [" + e.get_string("isr") + "]"});
  }
  if (is_internal_topic(e.get_string("topic")))
    for (size_t i = first_marker; i < markers_.size(); i++) markers_[i].internal = true;
}

void History::sample_until(Time t) {
  while (next_sample_ <= t) {
    SeriesSample s;
    s.at = next_sample_;
    HealthModel h = head_.health();
    s.under_replicated = h.under_replicated;
    s.under_min_isr = h.under_min_isr;
    s.offline = h.offline;
    s.internal_under_replicated = h.internal_under_replicated;
    s.internal_under_min_isr = h.internal_under_min_isr;
    s.internal_offline = h.internal_offline;
    s.produce_acked = h.produce_acked;
    s.group_lag = head_.group_lags();
    series_.push_back(std::move(s));
    next_sample_ = next_sample_ + kSampleEvery;
  }
}

}  // namespace gregor::gui
