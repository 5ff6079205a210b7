#include "sim/check/consume_checkers.h"

#include <algorithm>
#include <memory>

namespace gregor::sim {

namespace {

std::string tp_text(const PartitionKey& tp) { return partition_text(tp); }
PartitionKey key_of(const auto& b) { return PartitionKey{b.topic, b.partition}; }

}  // namespace

// exactly-once-txn promises no loss too, but its members' consume events cannot show it: a member
// that crashes after its transaction committed and before it heard so never reports those records,
// and nobody processes them again (their offsets committed with them). output-each-input-once
// judges it from the output instead (eos_checkers.h).
bool mode_promises_no_loss(const std::string& mode) { return mode == "at-least-once" || mode == "exactly-once"; }
bool mode_promises_no_duplicates(const std::string& mode) {
  return mode == "at-most-once" || mode == "exactly-once" || mode == "exactly-once-txn";
}

// ---------------------------------------------------------------------------------------------
// ConsumeLedger.

void ConsumeLedger::add_acked(const PartitionKey& tp, int64_t base, int64_t count) {
  if (base < 0 || count <= 0) return;
  auto& ranges = acked_[tp];
  auto [it, inserted] = ranges.emplace(base, base + count);
  if (!inserted) it->second = std::max(it->second, base + count);
}

void ConsumeLedger::apply(const TraceEvent& e) {
  const bool transactional_ack = e.as<ev::ProduceAck>() && txns_.in_transaction(e.node.value);
  if (const int64_t settled = txns_.apply(e); settled >= 0) {
    const TxnLedger::Txn& t = txns_.transactions()[static_cast<size_t>(settled)];
    if (t.outcome == TxnLedger::Outcome::kCommitted)
      for (const auto& r : t.ranges) add_acked(r.tp, r.begin, r.end - r.begin);
    return;
  }
  if (const auto* a = e.as<ev::ProduceAck>()) {
    // acks=1 records may be lost by the brokers (acks1-write-lost tells); only acks=all counts.
    if (a->acks != -1 || transactional_ack) return;
    add_acked(key_of(*a), a->base_offset, a->count);
    return;
  }
  if (acked_only_) return;
  if (const auto* s = e.as<ev::ConsumerStart>()) {
    GroupView& g = groups_[s->group];
    if (g.mode.empty()) g.mode = s->mode;
    for (const auto& t : s->topics)
      if (!t.empty()) g.topics.insert(t);
    return;
  }
  if (const auto* c = e.as<ev::Consume>()) {
    GroupView& g = groups_[c->group];
    g.consume_events++;
    g.consumed[key_of(*c)].insert(c->offset);
    int64_t& times = g.times_by_id[c->value];
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
  void on_event(const TraceEvent& e, const ClusterModel&) override { ledger_.apply(e); }
  void finish(const ClusterModel&, Time end) override {
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
  void on_event(const TraceEvent& e, const ClusterModel& model) override {
    const auto* c = e.as<ev::Consume>();
    if (!c) return;
    const GroupView* g = model.group(c->group);
    if (!g || !mode_promises_no_duplicates(g->mode)) return;
    // The first consume is kept as it is and shown only if the record comes again.
    auto [it, fresh] = first_.emplace(std::make_pair(c->group, c->value), e);
    if (!fresh)
      report(e.time, "group " + c->group + " (" + g->mode + ") consumed record " + c->value + " twice: first " +
                         it->second.to_string() + ", again " + e.to_string());
  }

 private:
  std::map<std::pair<std::string, std::string>, TraceEvent> first_;  // (group, id) -> the first consume
};

class ConsumeOrderChecker final : public Checker {
 public:
  const char* name() const override { return "consume-order"; }
  const char* description() const override { return "each partition is consumed in offset order from each position taken"; }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    int32_t restarted = -1;
    if (const auto* s = e.as<ev::NodeStart>()) restarted = s->target;
    if (const auto* r = e.as<ev::NodeRestart>()) restarted = r->target;
    if (const auto* c = e.as<ev::NodeCrash>()) restarted = c->target;
    if (restarted >= 0) {
      for (auto it = last_.begin(); it != last_.end();)
        it = std::get<0>(it->first) == restarted ? last_.erase(it) : std::next(it);
      return;
    }
    if (const auto* p = e.as<ev::ConsumerPosition>()) {
      last_.erase({e.node.value, p->group, key_of(*p)});
      return;
    }
    const auto* c = e.as<ev::Consume>();
    if (!c) return;
    auto key = std::make_tuple(static_cast<int64_t>(e.node.value), c->group, key_of(*c));
    auto it = last_.find(key);
    if (it != last_.end() && c->offset <= it->second)
      report(e.time, "node " + std::to_string(e.node.value) + " of group " + c->group + " consumed offset " +
                         std::to_string(c->offset) + " of " + tp_text(key_of(*c)) + " after offset " +
                         std::to_string(it->second));
    if (it != last_.end())
      it->second = c->offset;
    else
      last_.emplace(std::move(key), c->offset);
  }

 private:
  std::map<std::tuple<int64_t, std::string, PartitionKey>, int64_t> last_;
};

class ConsumeConsistentChecker final : public Checker {
 public:
  const char* name() const override { return "consume-consistent"; }
  const char* description() const override { return "an offset is always consumed with the same record"; }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    const auto* c = e.as<ev::Consume>();
    if (!c) return;
    auto [it, fresh] = values_.emplace(std::make_pair(key_of(*c), c->offset), c->value);
    if (!fresh && it->second != c->value)
      report(e.time, "offset " + std::to_string(c->offset) + " of " + tp_text(key_of(*c)) + " was consumed as " +
                         it->second + " and later as " + c->value);
  }

 private:
  std::map<std::pair<PartitionKey, int64_t>, std::string> values_;
};

class SingleOwnerChecker final : public Checker {
 public:
  const char* name() const override { return "single-owner"; }
  const char* description() const override { return "at most one member owns a partition in a generation"; }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    if (const auto* a = e.as<ev::ConsumerAssignment>()) {
      claim(e.time, a->group, a->generation, a->member, a->partitions);
      return;
    }
    if (const auto* s = e.as<ev::GroupStable>())
      for (const MemberAssignment& m : s->assignment)
        if (m.partitions) claim(e.time, s->group, s->generation, m.member, *m.partitions);
  }

 private:
  void claim(Time t, const std::string& group, int32_t generation, const std::string& member, const PartitionList& partitions) {
    // A ZooKeeper-coordinated group (Kafka 0.8's) has no generation (-1): ownership moves between
    // members with no epoch to tell one assignment from the next, and the owner znode is its only
    // single-owner rule (a stale member consuming after its session expired is what its story shows).
    if (generation < 0) return;
    // In the order of their names, each once.
    for (const PartitionName& p : sorted_unique(partitions)) {
      const auto key = std::make_tuple(group, int64_t{generation}, PartitionKey{p.topic, p.partition});
      auto [it, fresh] = owners_.emplace(key, member);
      if (!fresh && it->second != member)
        report(t, "partition " + p.str() + " of group " + group + " is owned by " + it->second + " and by " + member +
                      " in generation " + std::to_string(generation));
    }
  }
  static std::vector<PartitionName> sorted_unique(const PartitionList& partitions) {
    std::map<std::string, PartitionName> by_name;
    for (const PartitionName& p : partitions) by_name.emplace(p.str(), p);
    std::vector<PartitionName> out;
    for (auto& [name, p] : by_name) out.push_back(p);
    return out;
  }
  std::map<std::tuple<std::string, int64_t, PartitionKey>, std::string> owners_;
};

class CommitMonotonicChecker final : public Checker {
 public:
  const char* name() const override { return "commit-monotonic"; }
  const char* description() const override { return "committed offsets never go backwards within a generation"; }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    const auto* c = e.as<ev::OffsetCommit>();
    if (!c || c->generation < 0) return;
    const auto key = std::make_tuple(c->group, int64_t{c->generation}, key_of(*c));
    auto [it, fresh] = last_.emplace(key, c->offset);
    if (!fresh && c->offset < it->second)
      report(e.time, "group " + c->group + " committed offset " + std::to_string(c->offset) + " of " + tp_text(key_of(*c)) +
                         " after " + std::to_string(it->second) + " in generation " + std::to_string(c->generation));
    if (!fresh) it->second = std::max(it->second, c->offset);
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
