#include "sim/scenario/timeline.h"

#include <cctype>

#include <algorithm>
#include <sstream>

#include "sim/scenario/duration.h"


namespace gregor::sim {

namespace {
// Member ids are "<client.id>-<uuid>" (KIP-394); the timeline shows the client.id part.
std::string without_member_uuids(std::string s) {
  for (size_t i = 0; i + 37 <= s.size(); i++) {
    if (s[i] != '-') continue;
    bool uuid = true;
    for (size_t j = 0; j < 36 && uuid; j++) {
      const char c = s[i + 1 + j];
      uuid = (j == 8 || j == 13 || j == 18 || j == 23) ? c == '-' : std::isxdigit(static_cast<unsigned char>(c)) != 0;
    }
    if (uuid) s.erase(i, 37);
  }
  return s;
}

}  // namespace

namespace {

std::string partition_name(const auto& b) { return b.topic + "-" + std::to_string(b.partition); }

std::string brackets(const IntList& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); i++) out += (i ? "," : "") + std::to_string(list[i]);
  return out + "]";
}

// "member=orders-0,orders-1;member2=?" with the members' uuids left out.
std::string assignment_text(const MemberAssignments& a) {
  std::string out;
  for (size_t i = 0; i < a.size(); i++) {
    out += (i ? ";" : "") + a[i].member + "=";
    if (!a[i].partitions) {
      out += "?";
      continue;
    }
    for (size_t p = 0; p < a[i].partitions->size(); p++) out += (p ? "," : "") + (*a[i].partitions)[p].str();
  }
  return out;
}

bool is_internal(const std::string& topic) { return topic.rfind("__", 0) == 0; }

}  // namespace

void Timeline::push(TimelineEntry e) {
  if (sink_) sink_(e);
  if (entries_.size() < kEntriesMax)
    entries_.push_back(std::move(e));
  else
    dropped_++;
}

void Timeline::add(Time t, std::string kind, std::string text) {
  flush();
  push({t, std::move(kind), std::move(text)});
}

void Timeline::flush() {
  // The summaries come out in time order (each at its last event), so that the printed timeline
  // never goes back in time.
  std::vector<TimelineEntry> out;
  for (auto& [name, sum] : acks_) {
    if (sum.records == 0) continue;
    std::string where;
    for (const auto& [p, off] : sum.last_offset) where += (where.empty() ? "" : ", ") + p + " up to offset " + std::to_string(off);
    out.push_back({sum.last, "ack",
          name + ": " + std::to_string(sum.records) + " record(s) acknowledged (acks=" + (sum.acks == -1 ? "all" : std::to_string(sum.acks)) +
              "; " + where + ")"});
    sum = AckSum{};
  }
  for (auto& [name, sum] : errors_) {
    if (sum.count == 0) continue;
    std::string what;
    for (const auto& [err, n] : sum.by_error) what += (what.empty() ? "" : ", ") + err + " x" + std::to_string(n);
    out.push_back({sum.last, "error", name + ": " + std::to_string(sum.count) + " produce attempt(s) failed (" + what + "), retried"});
    sum = ErrorSum{};
  }
  std::stable_sort(out.begin(), out.end(), [](const TimelineEntry& a, const TimelineEntry& b) { return a.time < b.time; });
  for (auto& e : out) push(std::move(e));
}

Timeline::AckSum& Timeline::ack_sum(int32_t producer) {
  auto it = ack_sums_.find(producer);
  if (it == ack_sums_.end()) it = ack_sums_.emplace(producer, &acks_[node(producer)]).first;
  return *it->second;
}

void Timeline::on_event(const TraceEvent& e) {
  if (const auto* a = e.as<ev::ProduceAck>()) {
    AckSum& s = ack_sum(e.node.value);
    const int64_t count = std::max<int64_t>(1, a->count);
    s.records += count;
    int64_t& last = s.last_offset[partition_name(*a)];
    last = a->base_offset + count - 1;
    s.last = e.time;
    s.acks = a->acks;
    return;
  }
  if (const auto* err = e.as<ev::ProduceError>()) {
    ErrorSum& s = errors_[node(e.node.value)];
    s.count++;
    s.by_error[err->error]++;
    s.last = e.time;
    return;
  }
  std::string text, kind;
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        // Kafka's internal topics (__consumer_offsets: 50 partitions by default) would drown the
        // story: their creation is listed, their leader and ISR changes are not (the trace has them).
        if constexpr (std::is_same_v<B, ev::LeaderChange> || std::is_same_v<B, ev::PartitionOffline> ||
                      std::is_same_v<B, ev::IsrChange> || std::is_same_v<B, ev::IsrChangeFailed> ||
                      std::is_same_v<B, ev::LogTruncate>) {
          if (is_internal(b.topic)) return;
        }
        if constexpr (std::is_same_v<B, ev::ScenarioFault>) {
          kind = "fault";
          text = "FAULT " + b.fault;
          if (!b.hit.empty() && b.hit != b.fault) text += "  -> " + b.hit;
          if (b.hit.empty()) text += "  -> (no node matched)";
        } else if constexpr (std::is_same_v<B, ev::MessageIntercept>) {
          kind = "fault";
          text = "INTERCEPT " + b.action + " " + b.side + " " + b.api + " " + node(b.from) + " -> " + node(b.to) +
                 " (correlation id " + std::to_string(b.correlation_id) + ")";
          if (b.delay_us > 0) text += " by " + format_duration(Duration{b.delay_us});
        } else if constexpr (std::is_same_v<B, ev::PowerLoss>) {
          kind = "fault";
          text = b.name + " lost power: " + std::to_string(b.unsynced_bytes) + " byte(s) not yet fsynced";
        } else if constexpr (std::is_same_v<B, ev::ControllerElected>) {
          kind = "controller";
          text = node(b.broker) + " is the controller (controller epoch " + std::to_string(b.controller_epoch) + ")";
        } else if constexpr (std::is_same_v<B, ev::ControllerResigned>) {
          kind = "controller";
          text = node(b.broker) + " is no longer the controller (" + b.reason + ")";
        } else if constexpr (std::is_same_v<B, ev::BrokerChange>) {
          if (b.dead.empty() && b.added.empty()) return;
          kind = "broker";
          text = "the controller sees";
          if (!b.dead.empty()) text += " broker(s) " + brackets(b.dead) + " gone";
          if (!b.dead.empty() && !b.added.empty()) text += " and";
          if (!b.added.empty()) text += " broker(s) " + brackets(b.added) + " join";
          text += "; live: " + brackets(b.live);
        } else if constexpr (std::is_same_v<B, ev::BrokerSessionExpired>) {
          kind = "broker";
          text = node(e.node.value) + "'s zk session expired";
        } else if constexpr (std::is_same_v<B, ev::LogDirFailure>) {
          kind = "broker";
          text = node(e.node.value) + "'s log directory failed (" + b.error + "): it closes its zk session and halts";
        } else if constexpr (std::is_same_v<B, ev::LeaderChange>) {
          kind = "leader";
          text = partition_name(b) + ": leader " + node(b.leader) + ", epoch " + std::to_string(b.leader_epoch) + ", ISR " +
                 brackets(b.isr) + " (" + b.reason + ")";
          if (b.reason == "unclean") text += "  UNCLEAN: the new leader was not in the ISR";
        } else if constexpr (std::is_same_v<B, ev::PartitionOffline>) {
          kind = "leader";
          text = partition_name(b) + ": OFFLINE, no eligible leader (epoch " + std::to_string(b.leader_epoch) + ", last ISR " +
                 brackets(b.isr) + ")";
        } else if constexpr (std::is_same_v<B, ev::IsrChange>) {
          kind = "isr";
          text = partition_name(b) + ": ISR " + b.direction + "s to " + brackets(b.isr) + " (leader " + node(e.node.value) + ")";
        } else if constexpr (std::is_same_v<B, ev::IsrChangeFailed>) {
          kind = "isr";
          text = partition_name(b) + ": " + node(e.node.value) + "'s ISR change to " + brackets(b.proposed_isr) +
                 " was rejected (stale zk version: it is no longer the leader)";
        } else if constexpr (std::is_same_v<B, ev::LogTruncate>) {
          kind = "truncate";
          text = partition_name(b) + ": " + node(e.node.value) + " truncates its log from offset " + std::to_string(b.old_leo) +
                 " to " + std::to_string(b.offset) + " (" + b.reason + ")";
        } else if constexpr (std::is_same_v<B, ev::TopicCreated>) {
          kind = "setup";
          text = "topic " + b.topic + " created";
          if (is_internal(b.topic)) text += " (internal: its leader and ISR changes are in the trace, not listed here)";
        } else if constexpr (std::is_same_v<B, ev::GroupRebalance>) {
          kind = "group";
          text = "group " + b.group + ": rebalance (" + without_member_uuids(b.reason) + "), coordinator " + node(e.node.value);
        } else if constexpr (std::is_same_v<B, ev::GroupStable>) {
          kind = "group";
          text = "group " + b.group + ": generation " + std::to_string(b.generation) + " stable, " + b.protocol + " assignment " +
                 without_member_uuids(assignment_text(b.assignment));
        } else if constexpr (std::is_same_v<B, ev::CommitFailed>) {
          kind = "group";
          text = "group " + b.group + ": " + node(e.node.value) + "'s commit (generation " + std::to_string(b.generation) +
                 ") failed: " + b.error;
        } else if constexpr (std::is_same_v<B, ev::TopicConfigChange>) {
          kind = "config";
          text = "topic " + b.topic + ": " + node(e.node.value) + " applies its config (" + b.config + ")";
        } else if constexpr (std::is_same_v<B, ev::ProducerConfigChange>) {
          kind = "config";
          text = node(e.node.value) + " now sends with " + b.config;
        } else if constexpr (std::is_same_v<B, ev::ScenarioReady>) {
          kind = "setup";
          text = b.what;
        }
      },
      e.body);
  if (kind.empty()) return;
  flush();
  push({e.time, std::move(kind), std::move(text)});
}

}  // namespace gregor::sim
