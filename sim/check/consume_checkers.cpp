#include "sim/check/consume_checkers.h"

#include <algorithm>
#include <memory>

namespace gregor::sim {

namespace {

std::string tp_text(const PartitionKey& tp) { return tp.first + "-" + std::to_string(tp.second); }

std::set<std::string> split_list(const std::string& s) {
  std::set<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.insert(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// "orders-3" -> ("orders", 3); topic names may contain '-'.
bool parse_tp(const std::string& s, PartitionKey* out) {
  size_t dash = s.rfind('-');
  if (dash == std::string::npos || dash + 1 >= s.size()) return false;
  out->first = s.substr(0, dash);
  out->second = static_cast<int32_t>(std::strtol(s.c_str() + dash + 1, nullptr, 10));
  return true;
}

}  // namespace

bool mode_promises_no_loss(const std::string& mode) { return mode == "at-least-once" || mode == "exactly-once"; }
bool mode_promises_no_duplicates(const std::string& mode) { return mode == "at-most-once" || mode == "exactly-once"; }

// ---------------------------------------------------------------------------------------------
// ConsumeLedger.

void ConsumeLedger::apply(const TraceEvent& e) {
  if (e.kind() == "produce_ack") {
    // acks=1 records may be lost by the brokers (acks1-write-lost tells); only acks=all counts.
    if (e.get_int("acks", -1) != -1) return;
    const int64_t base = e.get_int("base_offset", -1);
    const int64_t count = e.get_int("count", 0);
    if (base < 0 || count <= 0) return;
    auto& ranges = acked_[partition_key(e)];
    auto [it, inserted] = ranges.emplace(base, base + count);
    if (!inserted) it->second = std::max(it->second, base + count);
    return;
  }
  if (e.kind() == "consumer_start") {
    GroupView& g = groups_[e.get_string("group")];
    if (g.mode.empty()) g.mode = e.get_string("mode");
    for (const auto& t : split_list(e.get_string("topics"))) g.topics.insert(t);
    return;
  }
  if (e.kind() == "consume") {
    GroupView& g = groups_[e.get_string("group")];
    g.consume_events++;
    g.consumed[partition_key(e)].insert(e.get_int("offset"));
    int64_t& times = g.times_by_id[e.get_string("value")];
    if (++times > 1) g.duplicates++;
  }
}

const ConsumeLedger::GroupView* ConsumeLedger::group(const std::string& g) const {
  auto it = groups_.find(g);
  return it == groups_.end() ? nullptr : &it->second;
}

int64_t ConsumeLedger::acked_count(const std::set<std::string>& topics) const {
  int64_t n = 0;
  for (const auto& [tp, ranges] : acked_) {
    if (!topics.count(tp.first)) continue;
    // Ranges may overlap (a duplicate acknowledged with its original offsets): count offsets once.
    int64_t covered_to = INT64_MIN;
    for (const auto& [begin, end] : ranges) {
      const int64_t from = std::max(begin, covered_to);
      if (end > from) n += end - from;
      covered_to = std::max(covered_to, end);
    }
  }
  return n;
}

int64_t ConsumeLedger::lost(const std::string& group, std::vector<std::string>* examples, size_t limit) const {
  const GroupView* g = this->group(group);
  if (!g) return 0;
  int64_t n = 0;
  for (const auto& [tp, ranges] : acked_) {
    if (!g->topics.count(tp.first)) continue;
    auto c = g->consumed.find(tp);
    int64_t covered_to = INT64_MIN;
    for (const auto& [begin, end] : ranges) {
      for (int64_t o = std::max(begin, covered_to); o < end; o++) {
        if (c != g->consumed.end() && c->second.count(o)) continue;
        n++;
        if (examples && examples->size() < limit) examples->push_back(tp_text(tp) + "@" + std::to_string(o));
      }
      covered_to = std::max(covered_to, end);
    }
  }
  return n;
}

int64_t ConsumeLedger::duplicates(const std::string& group) const {
  const GroupView* g = this->group(group);
  return g ? g->duplicates : 0;
}

int64_t ConsumeLedger::unique_consumed(const std::string& group) const {
  const GroupView* g = this->group(group);
  return g ? static_cast<int64_t>(g->times_by_id.size()) : 0;
}

// ---------------------------------------------------------------------------------------------
// The checkers.

namespace {

class ConsumeLostChecker final : public Checker {
 public:
  const char* name() const override { return "consume-lost"; }
  const char* description() const override {
    return "every acknowledged record is consumed by each at-least-once or exactly-once group";
  }
  void on_event(const TraceEvent& e, const ReplicaModel&) override { ledger_.apply(e); }
  void finish(const ReplicaModel&, Time end) override {
    for (const auto& [group, g] : ledger_.groups()) {
      if (!mode_promises_no_loss(g.mode)) continue;
      std::vector<std::string> examples;
      const int64_t lost = ledger_.lost(group, &examples);
      if (lost == 0) continue;
      std::string list;
      for (const auto& x : examples) list += (list.empty() ? "" : ", ") + x;
      report(end, "group " + group + " (" + g.mode + ") never consumed " + std::to_string(lost) + " of " +
                      std::to_string(ledger_.acked_count(g.topics)) + " acknowledged records, e.g. " + list);
      return;
    }
  }

 private:
  ConsumeLedger ledger_;
};

class ConsumeDuplicateChecker final : public Checker {
 public:
  const char* name() const override { return "consume-duplicate"; }
  const char* description() const override {
    return "no record is consumed twice by an at-most-once or exactly-once group";
  }
  void on_event(const TraceEvent& e, const ReplicaModel&) override {
    if (e.kind() == "consumer_start") {
      auto& mode = modes_[e.get_string("group")];
      if (mode.empty()) mode = e.get_string("mode");
      return;
    }
    if (e.kind() != "consume") return;
    const std::string group = e.get_string("group");
    auto m = modes_.find(group);
    if (m == modes_.end() || !mode_promises_no_duplicates(m->second)) return;
    const std::string id = e.get_string("value");
    auto [it, fresh] = first_.emplace(std::make_pair(group, id), e.to_string());
    if (!fresh)
      report(e.time, "group " + group + " (" + m->second + ") consumed record " + id + " twice: first " + it->second +
                         ", again " + e.to_string());
  }

 private:
  std::map<std::string, std::string> modes_;
  std::map<std::pair<std::string, std::string>, std::string> first_;  // (group, id) -> the first consume
};

class ConsumeOrderChecker final : public Checker {
 public:
  const char* name() const override { return "consume-order"; }
  const char* description() const override { return "each partition is consumed in offset order from each position taken"; }
  void on_event(const TraceEvent& e, const ReplicaModel&) override {
    if (e.node.value == 0 && (e.kind() == "node_restart" || e.kind() == "node_start" || e.kind() == "node_crash")) {
      const int64_t target = e.get_int("target", -1);
      for (auto it = last_.begin(); it != last_.end();)
        it = std::get<0>(it->first) == target ? last_.erase(it) : std::next(it);
      return;
    }
    if (e.kind() == "consumer_position") {
      last_.erase({e.node.value, e.get_string("group"), partition_key(e)});
      return;
    }
    if (e.kind() != "consume") return;
    const auto key = std::make_tuple(static_cast<int64_t>(e.node.value), e.get_string("group"), partition_key(e));
    const int64_t offset = e.get_int("offset");
    auto it = last_.find(key);
    if (it != last_.end() && offset <= it->second)
      report(e.time, "node " + std::to_string(e.node.value) + " of group " + e.get_string("group") + " consumed offset " +
                         std::to_string(offset) + " of " + tp_text(partition_key(e)) + " after offset " +
                         std::to_string(it->second));
    last_[key] = offset;
  }

 private:
  std::map<std::tuple<int64_t, std::string, PartitionKey>, int64_t> last_;
};

class ConsumeConsistentChecker final : public Checker {
 public:
  const char* name() const override { return "consume-consistent"; }
  const char* description() const override { return "an offset is always consumed with the same record"; }
  void on_event(const TraceEvent& e, const ReplicaModel&) override {
    if (e.kind() != "consume") return;
    const std::string id = e.get_string("value");
    auto [it, fresh] = values_.emplace(std::make_pair(partition_key(e), e.get_int("offset")), id);
    if (!fresh && it->second != id)
      report(e.time, "offset " + std::to_string(e.get_int("offset")) + " of " + tp_text(partition_key(e)) +
                         " was consumed as " + it->second + " and later as " + id);
  }

 private:
  std::map<std::pair<PartitionKey, int64_t>, std::string> values_;
};

class SingleOwnerChecker final : public Checker {
 public:
  const char* name() const override { return "single-owner"; }
  const char* description() const override { return "at most one member owns a partition in a generation"; }
  void on_event(const TraceEvent& e, const ReplicaModel&) override {
    if (e.kind() == "consumer_assignment") {
      const std::string member = e.get_string("member");
      for (const auto& s : split_list(e.get_string("partitions"))) claim(e, member, s);
      return;
    }
    if (e.kind() == "group_stable") {
      // "member=t-0,t-1;member2=t-2"
      const std::string a = e.get_string("assignment");
      size_t start = 0;
      while (start < a.size()) {
        size_t semi = a.find(';', start);
        std::string entry = a.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
        size_t eq = entry.find('=');
        if (eq != std::string::npos)
          for (const auto& s : split_list(entry.substr(eq + 1))) claim(e, entry.substr(0, eq), s);
        if (semi == std::string::npos) break;
        start = semi + 1;
      }
    }
  }

 private:
  void claim(const TraceEvent& e, const std::string& member, const std::string& partition) {
    PartitionKey tp;
    if (!parse_tp(partition, &tp)) return;
    const auto key = std::make_tuple(e.get_string("group"), e.get_int("generation"), tp);
    auto [it, fresh] = owners_.emplace(key, member);
    if (!fresh && it->second != member)
      report(e.time, "partition " + partition + " of group " + e.get_string("group") + " is owned by " + it->second +
                         " and by " + member + " in generation " + std::to_string(e.get_int("generation")));
  }
  std::map<std::tuple<std::string, int64_t, PartitionKey>, std::string> owners_;
};

class CommitMonotonicChecker final : public Checker {
 public:
  const char* name() const override { return "commit-monotonic"; }
  const char* description() const override { return "committed offsets never go backwards within a generation"; }
  void on_event(const TraceEvent& e, const ReplicaModel&) override {
    if (e.kind() != "offset_commit" || e.get_int("generation", -1) < 0) return;
    const auto key = std::make_tuple(e.get_string("group"), e.get_int("generation"), partition_key(e));
    const int64_t offset = e.get_int("offset");
    auto [it, fresh] = last_.emplace(key, offset);
    if (!fresh && offset < it->second)
      report(e.time, "group " + e.get_string("group") + " committed offset " + std::to_string(offset) + " of " +
                         tp_text(partition_key(e)) + " after " + std::to_string(it->second) + " in generation " +
                         std::to_string(e.get_int("generation")));
    if (!fresh) it->second = std::max(it->second, offset);
  }

 private:
  std::map<std::tuple<std::string, int64_t, PartitionKey>, int64_t> last_;
};

}  // namespace

void add_consume_checkers(CheckerSet& set) {
  set.add(std::make_unique<ConsumeLostChecker>());
  set.add(std::make_unique<ConsumeDuplicateChecker>());
  set.add(std::make_unique<ConsumeOrderChecker>());
  set.add(std::make_unique<ConsumeConsistentChecker>());
  set.add(std::make_unique<SingleOwnerChecker>());
  set.add(std::make_unique<CommitMonotonicChecker>());
}

}  // namespace gregor::sim
