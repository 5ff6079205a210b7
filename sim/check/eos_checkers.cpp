#include "sim/check/eos_checkers.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/client/consumer_node.h"
#include "sim/check/consume_checkers.h"

namespace gregor::sim {

namespace {

constexpr const char* kTxnMode = "exactly-once-txn";
constexpr const char* kOffsetsTopicPrefix = "__consumer_offsets-";

std::string at_text(const PartitionKey& tp, int64_t offset) {
  return tp.first + "-" + std::to_string(tp.second) + "@" + std::to_string(offset);
}

// The members of exactly-once-txn groups, by node.
class TxnGroups {
 public:
  void apply(const TraceEvent& e) {
    if (const auto* s = e.as<ev::ConsumerStart>()) {
      if (s->mode != kTxnMode) return;
      nodes_[e.node.value] = s->group;
      groups_.insert(s->group);
    }
  }
  const std::string* group_of(int32_t node) const {
    auto it = nodes_.find(node);
    return it == nodes_.end() ? nullptr : &it->second;
  }
  bool is_txn_group(const std::string& g) const { return groups_.count(g) > 0; }

 private:
  std::map<int32_t, std::string> nodes_;
  std::set<std::string> groups_;
};

// ---------------------------------------------------------------------------------------------

class OutputEachInputOnceChecker final : public Checker {
 public:
  const char* name() const override { return "output-each-input-once"; }
  const char* description() const override {
    return "the committed output of exactly-once-txn groups holds each input record exactly once";
  }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    groups_.apply(e);
    inputs_.apply(e);
    if (const auto* a = e.as<ev::ProduceAck>()) {
      if (groups_.group_of(e.node.value)) output_topics_.insert(a->topic);
      return;
    }
    if (const auto* s = e.as<ev::ConsumerStart>()) {
      if (s->isolation == "read_committed") read_committed_.insert(s->group);
      if (s->mode == kTxnMode)
        for (const auto& t : s->topics) input_topics_.insert(t);
      return;
    }
    if (const auto* c = e.as<ev::Consume>()) {
      if (!read_committed_.count(c->group)) return;
      auto ref = client::parse_output_reference(c->value);
      if (!ref) return;
      outputs_.emplace(std::make_pair(PartitionKey{c->topic, c->partition}, c->offset),
                       Output{PartitionKey{ref->topic, ref->partition}, ref->offset, e.time});
    }
  }
  void finish(const ClusterModel&, Time end) override {
    if (violation_) return;
    // Duplicates: an input record named by two output records.
    std::map<std::pair<PartitionKey, int64_t>, std::pair<PartitionKey, int64_t>> named;  // input -> first output
    std::map<PartitionKey, int64_t> frontier;                                              // furthest input named
    for (const auto& [out, o] : outputs_) {
      if (!output_topics_.count(out.first.first)) continue;
      auto [it, fresh] = named.emplace(std::make_pair(o.input, o.input_offset), out);
      if (!fresh) {
        report(o.time, "input " + at_text(o.input, o.input_offset) + " is in the committed output twice: at " +
                           at_text(it->second.first, it->second.second) + " and at " + at_text(out.first, out.second));
        return;
      }
      int64_t& f = frontier.try_emplace(o.input, -1).first->second;
      f = std::max(f, o.input_offset);
    }
    // Losses: an acknowledged record of an input topic that no output names: skipped (below the
    // furthest input the output names) or never processed by the end of the run.
    if (named.empty()) return;  // nobody read the output: nothing to judge
    for (const auto& [tp, ranges] : inputs_.acked()) {
      if (!input_topics_.count(tp.first)) continue;
      auto f = frontier.find(tp);
      const int64_t furthest = f == frontier.end() ? -1 : f->second;
      for (const auto& [begin, end_offset] : ranges)
        for (int64_t o = begin; o < end_offset; o++)
          if (!named.count({tp, o})) {
            report(end, "input " + at_text(tp, o) + " was acknowledged but is in no committed output record" +
                            (o < furthest ? ", while " + at_text(tp, furthest) + " is" : std::string(" by the end of the run")));
            return;
          }
    }
  }

 private:
  struct Output {
    PartitionKey input;
    int64_t input_offset = 0;
    Time time;
  };
  TxnGroups groups_;
  ConsumeLedger inputs_{ConsumeLedger::AckedOnly{}};  // acknowledged records (transactions' once committed)
  std::set<std::string> output_topics_;
  std::set<std::string> input_topics_;  // read by exactly-once-txn groups
  std::set<std::string> read_committed_;
  std::map<std::pair<PartitionKey, int64_t>, Output> outputs_;  // by output partition and offset
};

// ---------------------------------------------------------------------------------------------

class TxnOffsetsWithCommitChecker final : public Checker {
 public:
  const char* name() const override { return "txn-offsets-with-commit"; }
  const char* description() const override {
    return "offsets sent in a transaction become visible only when it commits, never when it aborts";
  }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    groups_.apply(e);
    if (const auto* b = e.as<ev::TxnBegin>()) {
      if (const std::string* g = groups_.group_of(e.node.value)) group_of_txn_[b->transactional_id] = *g;
      return;
    }
    if (const auto* s = e.as<ev::TxnStateChange>()) {
      Coordinated& c = txns_[s->transactional_id];
      c.state = s->to;
      if (!s->partitions.empty()) c.with_offsets = s->partitions.find(kOffsetsTopicPrefix) != std::string::npos;
      return;
    }
    if (const auto* c = e.as<ev::Consume>()) {
      if (!groups_.is_txn_group(c->group)) return;
      // A batch is what one member emits at one instant (consume events after its commit).
      Batch& b = batches_[e.node.value];
      if (b.time != e.time || b.group != c->group) {
        flush(b);
        b.time = e.time;
        b.group = c->group;
      }
      int64_t& last = b.last.try_emplace(PartitionKey{c->topic, c->partition}, -1).first->second;
      last = std::max(last, c->offset);
      return;
    }
    if (const auto* p = e.as<ev::ConsumerPosition>()) {
      if (p->reason == "committed" && groups_.is_txn_group(p->group))
        fetched_.push_back(Fetched{e.time, p->group, p->member, PartitionKey{p->topic, p->partition}, p->offset});
      return;
    }
    const auto* o = e.as<ev::OffsetCommit>();
    if (!o) return;
    const PartitionKey tp{o->topic, o->partition};
    visible_[{o->group, tp}].insert(o->offset);
    if (violation_ || !groups_.is_txn_group(o->group) || o->generation >= 0 || !o->member.empty()) return;
    // A transaction's offsets, made visible by its marker: one of the group's must be committing.
    const std::string* aborting = nullptr;
    for (const auto& [id, group] : group_of_txn_) {
      if (group != o->group) continue;
      auto t = txns_.find(id);
      if (t == txns_.end() || !t->second.with_offsets) continue;
      // Ongoing counts as possibly committing: a coordinator that took over the transaction log may
      // find a PrepareCommit its predecessor wrote and never reported, and finish it silently.
      if (t->second.state == "PrepareCommit" || t->second.state == "Ongoing") return;
      if (t->second.state == "PrepareAbort" || t->second.state == "PrepareEpochFence") aborting = &id;
    }
    report(e.time, "offset " + at_text(tp, o->offset) + " of group " + o->group + " became visible while " +
                       (aborting ? "the transaction of " + *aborting + " that holds the group's offsets was aborting"
                                 : std::string("no transaction of the group's members was committing")));
  }
  void finish(const ClusterModel&, Time) override {
    for (auto& [node, b] : batches_) flush(b);
    if (violation_) return;
    for (const auto& f : fetched_) {
      const auto key = std::make_pair(f.group, f.tp);
      auto v = visible_.find(key);
      if (v != visible_.end() && v->second.count(f.offset)) continue;
      auto ends = batch_ends_.find(key);
      if (ends != batch_ends_.end() && ends->second.count(f.offset)) continue;
      report(f.time, "member " + f.member + " of group " + f.group + " started from committed offset " + at_text(f.tp, f.offset) +
                         ", which no commit made visible and no committed batch ends at");
      return;
    }
  }

 private:
  struct Coordinated {
    std::string state;
    bool with_offsets = false;
  };
  struct Batch {
    Time time{-1};
    std::string group;
    std::map<PartitionKey, int64_t> last;
  };
  struct Fetched {
    Time time;
    std::string group;
    std::string member;
    PartitionKey tp;
    int64_t offset = 0;
  };
  void flush(Batch& b) {
    for (const auto& [tp, last] : b.last) batch_ends_[{b.group, tp}].insert(last + 1);
    b.last.clear();
  }
  TxnGroups groups_;
  std::map<std::string, std::string> group_of_txn_;  // transactional.id -> group
  std::map<std::string, Coordinated> txns_;          // by transactional.id, as its coordinator says
  std::map<int32_t, Batch> batches_;                 // the batch each member node is emitting
  std::map<std::pair<std::string, PartitionKey>, std::set<int64_t>> visible_;
  std::map<std::pair<std::string, PartitionKey>, std::set<int64_t>> batch_ends_;
  std::vector<Fetched> fetched_;
};

}  // namespace

void add_eos_checkers(CheckerSet& set) {
  set.add(std::make_unique<OutputEachInputOnceChecker>());
  set.add(std::make_unique<TxnOffsetsWithCommitChecker>());
}

}  // namespace gregor::sim
