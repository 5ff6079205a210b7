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

namespace {
std::string id_text(const IntList& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); i++) out += (i ? "," : "") + std::to_string(ids[i]);
  return out;
}
}  // namespace

void History::track(const TraceEvent& e) {
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        // The world's faults and recoveries, with the periods they open and close.
        if constexpr (std::is_same_v<B, ev::NodeCrash> || std::is_same_v<B, ev::PowerLoss>) {
          const bool crash = std::is_same_v<B, ev::NodeCrash>;
          markers_.push_back({e.time, MarkerKind::kFault, (crash ? "crash " : "power loss ") + b.name});
          open_period("down:" + std::to_string(b.target), e.time, b.name + (crash ? " down" : " powered off"));
        } else if constexpr (std::is_same_v<B, ev::NodeRestart>) {
          markers_.push_back({e.time, MarkerKind::kRecover, "restart " + b.name});
          close_period("down:" + std::to_string(b.target), e.time);
        } else if constexpr (std::is_same_v<B, ev::NodePause>) {
          markers_.push_back({e.time, MarkerKind::kFault, "pause " + b.name});
          open_period("pause:" + std::to_string(b.target), e.time, b.name + " paused");
        } else if constexpr (std::is_same_v<B, ev::NodeResume>) {
          markers_.push_back({e.time, MarkerKind::kRecover, "resume " + b.name});
          close_period("pause:" + std::to_string(b.target), e.time);
        } else if constexpr (std::is_same_v<B, ev::Partition>) {
          const std::string label = "partition " + id_text(b.from) + " | " + id_text(b.to);
          markers_.push_back({e.time, MarkerKind::kFault, label});
          open_period("cut:" + id_text(b.from) + "|" + id_text(b.to), e.time, label);
        } else if constexpr (std::is_same_v<B, ev::Heal>) {
          markers_.push_back({e.time, MarkerKind::kRecover, "heal " + id_text(b.from) + " | " + id_text(b.to)});
          close_period("cut:" + id_text(b.from) + "|" + id_text(b.to), e.time);
        } else if constexpr (std::is_same_v<B, ev::HealAll>) {
          markers_.push_back({e.time, MarkerKind::kRecover, "heal all"});
          std::vector<std::string> cuts;
          for (const auto& [key, index] : open_periods_)
            if (key.rfind("cut:", 0) == 0) cuts.push_back(key);
          for (const auto& key : cuts) close_period(key, e.time);
        } else if constexpr (std::is_same_v<B, ev::MessageIntercept>) {
          markers_.push_back({e.time, MarkerKind::kFault,
                              "intercept: " + b.action + " " + b.side + " " + b.api + " " + std::to_string(b.from) + " -> " +
                                  std::to_string(b.to)});
        } else if constexpr (std::is_same_v<B, ev::Clog> || std::is_same_v<B, ev::DiskCorrupt> || std::is_same_v<B, ev::Latency>) {
          markers_.push_back({e.time, MarkerKind::kFault, std::string(B::kKind) + " " + e.fields_json()});
        } else if constexpr (std::is_same_v<B, ev::LeaderChange> || std::is_same_v<B, ev::PartitionOffline> ||
                             std::is_same_v<B, ev::IsrChange>) {
          // Leaders and ISRs of each partition.
          const std::string tp = b.topic + "-" + std::to_string(b.partition);
          const size_t first_marker = markers_.size();
          if constexpr (std::is_same_v<B, ev::LeaderChange>) {
            markers_.push_back({e.time, MarkerKind::kLeader,
                                tp + " leader " + std::to_string(b.leader) + " (epoch " + std::to_string(b.leader_epoch) + ", " +
                                    b.reason + ")"});
            auto last = isr_size_.find(tp);
            if (last != isr_size_.end() && b.isr.size() < last->second)
              markers_.push_back({e.time, MarkerKind::kIsrShrink, tp + " ISR shrinks to [" + id_text(b.isr) + "] (by the controller)"});
            isr_size_[tp] = b.isr.size();
          } else if constexpr (std::is_same_v<B, ev::PartitionOffline>) {
            markers_.push_back({e.time, MarkerKind::kOffline, tp + " offline"});
          } else {
            const bool shrink = b.direction == "shrink";
            isr_size_[tp] = b.isr.size();
            markers_.push_back({e.time, shrink ? MarkerKind::kIsrShrink : MarkerKind::kIsrExpand,
                                tp + " ISR " + (shrink ? "shrinks" : "expands") + " to [" + id_text(b.isr) + "]"});
          }
          if (is_internal_topic(b.topic))
            for (size_t i = first_marker; i < markers_.size(); i++) markers_[i].internal = true;
        }
      },
      e.body);
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
