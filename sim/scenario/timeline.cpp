#include "sim/scenario/timeline.h"

#include <cctype>

#include <algorithm>
#include <sstream>

#include "sim/check/replica_model.h"

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

std::string partition_name(const TraceEvent& e) {
  return e.get_string("topic") + "-" + std::to_string(e.get_int("partition"));
}

std::string brackets(const std::string& list) { return "[" + list + "]"; }

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

void Timeline::on_event(const TraceEvent& e) {
  const std::string_view k = e.kind();
  if (k == "produce_ack") {
    AckSum& s = acks_[node(e.node.value)];
    s.records += std::max<int64_t>(1, e.get_int("count", 1));
    s.last_offset[partition_name(e)] = e.get_int("base_offset") + std::max<int64_t>(1, e.get_int("count", 1)) - 1;
    s.last = e.time;
    s.acks = static_cast<int>(e.get_int("acks"));
    return;
  }
  if (k == "produce_error") {
    ErrorSum& s = errors_[node(e.node.value)];
    s.count++;
    s.by_error[e.get_string("error")]++;
    s.last = e.time;
    return;
  }
  // Kafka's internal topics (__consumer_offsets: 50 partitions by default) would drown the story:
  // their creation is listed, their leader and ISR changes are not (the trace has them all).
  const std::string topic = e.get_string("topic");
  if (topic.rfind("__", 0) == 0 && k != "topic_created" &&
      (k == "leader_change" || k == "partition_offline" || k == "isr_change" || k == "isr_change_failed" || k == "log_truncate"))
    return;
  std::string text, kind;
  if (k == "scenario_fault") {
    kind = "fault";
    text = "FAULT " + e.get_string("fault");
    std::string hit = e.get_string("hit");
    if (!hit.empty() && hit != e.get_string("fault")) text += "  -> " + hit;
    if (hit.empty()) text += "  -> (no node matched)";
  } else if (k == "power_loss") {
    kind = "fault";
    text = e.get_string("name") + " lost power: " + std::to_string(e.get_int("unsynced_bytes")) + " byte(s) not yet fsynced";
  } else if (k == "controller_elected") {
    kind = "controller";
    text = node(e.get_int("broker")) + " is the controller (controller epoch " + std::to_string(e.get_int("controller_epoch")) + ")";
  } else if (k == "controller_resigned") {
    kind = "controller";
    text = node(e.get_int("broker")) + " is no longer the controller (" + e.get_string("reason") + ")";
  } else if (k == "broker_change") {
    std::string dead = e.get_string("dead"), added = e.get_string("added");
    if (dead.empty() && added.empty()) return;
    kind = "broker";
    text = "the controller sees";
    if (!dead.empty()) text += " broker(s) " + brackets(dead) + " gone";
    if (!dead.empty() && !added.empty()) text += " and";
    if (!added.empty()) text += " broker(s) " + brackets(added) + " join";
    text += "; live: " + brackets(e.get_string("live"));
  } else if (k == "broker_session_expired") {
    kind = "broker";
    text = node(e.node.value) + "'s zk session expired";
  } else if (k == "leader_change") {
    kind = "leader";
    text = partition_name(e) + ": leader " + node(e.get_int("leader")) + ", epoch " + std::to_string(e.get_int("leader_epoch")) +
           ", ISR " + brackets(e.get_string("isr")) + " (" + e.get_string("reason") + ")";
    if (e.get_string("reason") == "unclean") text += "  UNCLEAN: the new leader was not in the ISR";
  } else if (k == "partition_offline") {
    kind = "leader";
    text = partition_name(e) + ": OFFLINE, no eligible leader (epoch " + std::to_string(e.get_int("leader_epoch")) +
           ", last ISR " + brackets(e.get_string("isr")) + ")";
  } else if (k == "isr_change") {
    kind = "isr";
    text = partition_name(e) + ": ISR " + e.get_string("direction") + "s to " + brackets(e.get_string("isr")) + " (leader " +
           node(e.node.value) + ")";
  } else if (k == "isr_change_failed") {
    kind = "isr";
    text = partition_name(e) + ": " + node(e.node.value) + "'s ISR change to " + brackets(e.get_string("proposed_isr")) +
           " was rejected (stale zk version: it is no longer the leader)";
  } else if (k == "log_truncate") {
    kind = "truncate";
    text = partition_name(e) + ": " + node(e.node.value) + " truncates its log from offset " + std::to_string(e.get_int("old_leo")) +
           " to " + std::to_string(e.get_int("offset")) + " (" + e.get_string("reason") + ")";
  } else if (k == "topic_created") {
    kind = "setup";
    text = "topic " + e.get_string("topic") + " created";
    if (topic.rfind("__", 0) == 0) text += " (internal: its leader and ISR changes are in the trace, not listed here)";
  } else if (k == "group_rebalance") {
    kind = "group";
    text = "group " + e.get_string("group") + ": rebalance (" + without_member_uuids(e.get_string("reason")) + "), coordinator " + node(e.node.value);
  } else if (k == "group_stable") {
    kind = "group";
    text = "group " + e.get_string("group") + ": generation " + std::to_string(e.get_int("generation")) + " stable, " +
           e.get_string("protocol") + " assignment " + without_member_uuids(e.get_string("assignment"));
  } else if (k == "commit_failed") {
    kind = "group";
    text = "group " + e.get_string("group") + ": " + node(e.node.value) + "'s commit (generation " +
           std::to_string(e.get_int("generation")) + ") failed: " + e.get_string("error");
  } else if (k == "topic_config_change") {
    kind = "config";
    text = "topic " + topic + ": " + node(e.node.value) + " applies its config (" + e.get_string("config") + ")";
  } else if (k == "producer_config_change") {
    kind = "config";
    text = node(e.node.value) + " now sends with " + e.get_string("config");
  } else if (k == "scenario_ready") {
    kind = "setup";
    text = e.get_string("what");
  } else {
    return;
  }
  flush();
  push({e.time, std::move(kind), std::move(text)});
}

}  // namespace gregor::sim
