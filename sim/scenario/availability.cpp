#include "sim/scenario/availability.h"

#include <algorithm>

namespace gregor::sim {

namespace {
enum Which { kUnavailable, kLeaderless, kUnderReplicated };
}  // namespace

AvailabilityMonitor::AvailabilityMonitor(std::vector<std::string> topics, std::vector<Producer> producers) {
  for (auto& t : topics) topics_[t];
  for (auto& p : producers) {
    if (!topics_.count(p.topic)) continue;
    producers_[p.node].spec = std::move(p);
  }
}

bool AvailabilityMonitor::running(const ProducerState& p, Time now) const {
  return p.up && now >= p.spec.start && now < p.spec.stop && (p.spec.records < 0 || p.acked < p.spec.records);
}

void AvailabilityMonitor::record_stretch(AvailabilityFigures& f, Duration d, Time from, int which,
                                         const std::string& partition) const {
  switch (which) {
    case kUnavailable:
      if (d > f.unavailable_max) f.unavailable_max = d, f.unavailable_from = from;
      return;
    case kLeaderless:
      if (d > f.leaderless_max) f.leaderless_max = d, f.leaderless_from = from, f.leaderless_partition = partition;
      return;
    case kUnderReplicated:
      if (d > f.under_replicated_max)
        f.under_replicated_max = d, f.under_replicated_from = from, f.under_replicated_partition = partition;
      return;
  }
}

void AvailabilityMonitor::update_activity(const std::string& topic, Time now) {
  TopicState& t = topics_[topic];
  bool active = false;
  Time last_stop{0};
  bool all_stopped = true;
  for (const auto& [node, p] : producers_) {
    if (p.spec.topic != topic) continue;
    active = active || running(p, now);
    if (p.spec.stop > now) all_stopped = false;
    last_stop = std::max(last_stop, p.spec.stop);
  }
  if (active && !t.active) {
    t.active = true;
    t.since = now;
    // A producer whose start time passed since the previous event began to run then.
    for (const auto& [node, p] : producers_)
      if (p.spec.topic == topic && running(p, now) && p.spec.start > last_event_ && p.spec.start < t.since) t.since = p.spec.start;
    t.figures.produced = true;
  } else if (!active && t.active) {
    t.active = false;
    // Producers that stopped on time stopped at their stop time, which may lie before this event.
    const Time end = all_stopped ? std::max(t.since, std::min(now, last_stop)) : now;
    record_stretch(t.figures, end - t.since, t.since, kUnavailable, "");
  }
}

void AvailabilityMonitor::update_partition(const std::string& name, PartitionState& p, Time now) {
  AvailabilityFigures& f = topics_[p.topic].figures;
  const bool leaderless = p.has_leader_record && (p.leader < 0 || down_.count(p.leader) > 0);
  if (leaderless && !p.leaderless) p.leaderless_since = now;
  if (!leaderless && p.leaderless) record_stretch(f, now - p.leaderless_since, p.leaderless_since, kLeaderless, name);
  p.leaderless = leaderless;
  const bool short_isr = p.has_leader_record && p.replicas > 0 && p.isr.size() < p.replicas;
  if (short_isr && !p.under_replicated) p.under_replicated_since = now;
  if (!short_isr && p.under_replicated)
    record_stretch(f, now - p.under_replicated_since, p.under_replicated_since, kUnderReplicated, name);
  p.under_replicated = short_isr;
}

void AvailabilityMonitor::on_event(const TraceEvent& e) {
  const Time now = e.time;
  // Producers start and stop at their times: a change is seen at the first event at or after it.
  if (now >= next_boundary_) {
    next_boundary_ = Time{INT64_MAX};
    for (const auto& [node, p] : producers_)
      for (Time b : {p.spec.start, p.spec.stop})
        if (b > now && b < next_boundary_) next_boundary_ = b;
    for (auto& [topic, t] : topics_) update_activity(topic, now);
  }
  last_event_ = now;
  auto node_up = [&](int32_t target, bool up) {
    if (auto it = producers_.find(target); it != producers_.end()) {
      it->second.up = up;
      update_activity(it->second.spec.topic, now);
    }
  };
  auto broker_down = [&](int32_t target, bool down) {
    if (down)
      down_.insert(target);
    else
      down_.erase(target);
    for (auto& [name, p] : partitions_)
      if (p.leader == target) update_partition(name, p, now);
  };
  if (const auto* s = e.as<ev::NodeStart>()) {
    node_up(s->target, true);
    broker_down(s->target, false);
  } else if (const auto* r = e.as<ev::NodeRestart>()) {
    node_up(r->target, true);
    broker_down(r->target, false);
  } else if (const auto* c = e.as<ev::NodeCrash>()) {
    node_up(c->target, false);
    broker_down(c->target, true);
  } else if (const auto* pa = e.as<ev::NodePause>()) {
    node_up(pa->target, false);
  } else if (const auto* re = e.as<ev::NodeResume>()) {
    node_up(re->target, true);
  } else if (const auto* a = e.as<ev::ProduceAck>()) {
    auto it = topics_.find(a->topic);
    if (it == topics_.end()) return;
    TopicState& t = it->second;
    if (t.active) {
      record_stretch(t.figures, now - t.since, t.since, kUnavailable, "");
      t.since = now;
    }
    if (auto p = producers_.find(e.node.value); p != producers_.end()) {
      p->second.acked += std::max<int64_t>(1, a->count);
      update_activity(a->topic, now);
    }
  } else if (const auto* tc = e.as<ev::TopicCreated>()) {
    if (!topics_.count(tc->topic)) return;
    for (int32_t p = 0; p < tc->partitions; p++) {
      PartitionState& ps = partitions_[tc->topic + "-" + std::to_string(p)];
      ps.topic = tc->topic;
      if (tc->replicas && static_cast<size_t>(p) < tc->replicas->size()) ps.replicas = (*tc->replicas)[static_cast<size_t>(p)].size();
    }
  } else if (const auto* lc = e.as<ev::LeaderChange>()) {
    auto it = partitions_.find(lc->topic + "-" + std::to_string(lc->partition));
    if (it == partitions_.end()) return;
    it->second.leader = lc->leader;
    it->second.isr = lc->isr;
    it->second.has_leader_record = true;
    update_partition(it->first, it->second, now);
  } else if (const auto* po = e.as<ev::PartitionOffline>()) {
    auto it = partitions_.find(po->topic + "-" + std::to_string(po->partition));
    if (it == partitions_.end()) return;
    it->second.leader = -1;
    it->second.isr = po->isr;
    it->second.has_leader_record = true;
    update_partition(it->first, it->second, now);
  } else if (const auto* ic = e.as<ev::IsrChange>()) {
    auto it = partitions_.find(ic->topic + "-" + std::to_string(ic->partition));
    if (it == partitions_.end()) return;
    it->second.isr = ic->isr;
    update_partition(it->first, it->second, now);
  }
}

std::map<std::string, AvailabilityFigures> AvailabilityMonitor::figures(Time now) const {
  std::map<std::string, AvailabilityFigures> out;
  for (const auto& [topic, t] : topics_) {
    AvailabilityFigures f = t.figures;
    if (t.active) {
      // An open stretch ends now, or at the last producer's stop when every producer stopped.
      Time end = now;
      bool all_stopped = true;
      Time last_stop{0};
      for (const auto& [node, p] : producers_) {
        if (p.spec.topic != topic) continue;
        if (p.spec.stop > now) all_stopped = false;
        last_stop = std::max(last_stop, p.spec.stop);
      }
      if (all_stopped) end = std::max(t.since, std::min(now, last_stop));
      record_stretch(f, end - t.since, t.since, kUnavailable, "");
    }
    out[topic] = f;
  }
  for (const auto& [name, p] : partitions_) {
    AvailabilityFigures& f = out[p.topic];
    if (p.leaderless) record_stretch(f, now - p.leaderless_since, p.leaderless_since, kLeaderless, name);
    if (p.under_replicated) record_stretch(f, now - p.under_replicated_since, p.under_replicated_since, kUnderReplicated, name);
  }
  return out;
}

}  // namespace gregor::sim
