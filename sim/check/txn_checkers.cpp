#include "sim/check/txn_checkers.h"

#include <algorithm>
#include <memory>

#include "sim/check/cluster_model.h"

namespace gregor::sim {

namespace {

// The producer was fenced while the transaction was open: a newer instance's InitProducerId (or
// the coordinator's timeout) bumped the epoch and aborted what was open.
bool fenced(const std::string& outcome) {
  return outcome == "PRODUCER_FENCED" || outcome == "INVALID_PRODUCER_EPOCH" || outcome == "TRANSACTION_COORDINATOR_FENCED";
}

std::string txn_text(const TxnLedger::Txn& t) {
  return t.transactional_id + " (producer " + std::to_string(t.producer_id) + ", epoch " + std::to_string(t.epoch) + ", node " +
         std::to_string(t.node) + ")";
}

}  // namespace

int64_t TxnLedger::apply(const TraceEvent& e) {
  const int32_t node = e.node.value;
  if (const auto* b = e.as<ev::TxnBegin>()) {
    Txn t;
    t.node = node;
    t.transactional_id = b->transactional_id;
    t.producer_id = b->producer_id;
    t.epoch = b->epoch;
    open_[node] = txns_.size();
    txns_.push_back(std::move(t));
    return -1;
  }
  if (const auto* a = e.as<ev::ProduceAck>()) {
    auto it = open_.find(node);
    if (it == open_.end() || a->base_offset < 0 || a->count <= 0) return -1;
    const PartitionKey tp{a->topic, a->partition};
    txns_[it->second].ranges.push_back(Range{tp, a->base_offset, a->base_offset + a->count, a->crc});
    by_offset_[tp][a->base_offset] = {a->base_offset + a->count, it->second};
    return -1;
  }
  std::string outcome;
  bool commit = false;
  if (const auto* c = e.as<ev::TxnCommit>()) {
    outcome = c->outcome;
    commit = true;
  } else if (const auto* ab = e.as<ev::TxnAbort>()) {
    outcome = ab->outcome;
  } else {
    return -1;
  }
  auto it = open_.find(node);
  if (it == open_.end()) return -1;
  const size_t index = it->second;
  Txn& t = txns_[index];
  t.ended = true;
  if (outcome == "NONE")
    t.outcome = commit ? Outcome::kCommitted : Outcome::kAborted;
  else if (fenced(outcome))
    t.outcome = Outcome::kAborted;
  else
    return -1;  // the end failed: still open, the producer aborts it next
  open_.erase(it);
  return static_cast<int64_t>(index);
}

const TxnLedger::Txn* TxnLedger::txn_at(const PartitionKey& tp, int64_t offset) const {
  auto p = by_offset_.find(tp);
  if (p == by_offset_.end()) return nullptr;
  auto it = p->second.upper_bound(offset);
  if (it == p->second.begin()) return nullptr;
  --it;
  return offset < it->second.first ? &txns_[it->second.second] : nullptr;
}

namespace {

// What read_committed groups delivered, and the aborted records among it. Both checkers use it.
class ReadCommittedWatch {
 public:
  // Feeds one event; returns a description of a violation it revealed, or "".
  std::string apply(const TraceEvent& e) {
    if (const auto* s = e.as<ev::ConsumerStart>()) {
      if (s->isolation == "read_committed") read_committed_.insert(s->group);
      return "";
    }
    if (const auto* c = e.as<ev::Consume>()) {
      if (!read_committed_.count(c->group)) return "";
      const PartitionKey tp{c->topic, c->partition};
      delivered_[tp].emplace(c->offset, c->group);
      const TxnLedger::Txn* t = ledger_.txn_at(tp, c->offset);
      if (t && t->outcome == TxnLedger::Outcome::kAborted) return describe(*t, tp, c->offset, c->group);
      return "";
    }
    const int64_t settled = ledger_.apply(e);
    if (settled < 0) return "";
    // A transaction just aborted: had a read_committed group delivered any of it already?
    const TxnLedger::Txn& t = ledger_.transactions()[static_cast<size_t>(settled)];
    if (t.outcome != TxnLedger::Outcome::kAborted) return "";
    for (const auto& r : t.ranges) {
      auto d = delivered_.find(r.tp);
      if (d == delivered_.end()) continue;
      auto it = d->second.lower_bound({r.begin, std::string()});
      if (it != d->second.end() && it->first < r.end) return describe(t, r.tp, it->first, it->second);
    }
    return "";
  }
  const TxnLedger& ledger() const { return ledger_; }

 private:
  static std::string describe(const TxnLedger::Txn& t, const PartitionKey& tp, int64_t offset, const std::string& group) {
    return "read_committed group " + group + " delivered " + partition_text(tp) + "@" + std::to_string(offset) +
           ", a record of the aborted transaction of " + txn_text(t);
  }
  TxnLedger ledger_;
  std::set<std::string> read_committed_;
  std::map<PartitionKey, std::set<std::pair<int64_t, std::string>>> delivered_;  // offset, group
};

class ReadCommittedNoAbortedChecker final : public Checker {
 public:
  const char* name() const override { return "read-committed-no-aborted"; }
  const char* description() const override {
    return "a read_committed consumer never delivers a record of an aborted transaction";
  }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    if (std::string v = watch_.apply(e); !v.empty()) report(e.time, v);
  }

 private:
  ReadCommittedWatch watch_;
};

class TxnAtomicChecker final : public Checker {
 public:
  const char* name() const override { return "txn-atomic"; }
  const char* description() const override {
    return "a committed transaction is in the logs whole or not at all; an aborted one is never read_committed";
  }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    // A broker's HW as it last said it: a restarted broker states it when it becomes leader or
    // follower, and the model's HW (from hw_advance only) stays 0 until the next advance.
    if (const auto* l = e.as<ev::BecomeLeader>()) hw_.get(e.node.value, l->topic, l->partition) = l->hw;
    if (const auto* f = e.as<ev::BecomeFollower>()) hw_.get(e.node.value, f->topic, f->partition) = f->hw;
    if (const auto* h = e.as<ev::HwAdvance>()) hw_.get(e.node.value, h->topic, h->partition) = h->hw;
    if (const auto* o = e.as<ev::LogOpen>()) hw_.get(e.node.value, o->topic, o->partition) = 0;
    if (std::string v = watch_.apply(e); !v.empty()) report(e.time, v);
  }
  void finish(const ClusterModel& model, Time end) override {
    if (violation_) return;
    for (const auto& t : watch_.ledger().transactions()) {
      if (t.outcome != TxnLedger::Outcome::kCommitted || t.ranges.empty()) continue;
      const Range* present = nullptr;
      const Range* missing = nullptr;
      int32_t missing_leader = -1;
      for (const auto& r : t.ranges) {
        const PartitionView* p = model.partition(r.tp);
        const int32_t leader = p ? p->written.leader : -1;
        const ReplicaLog* log = leader >= 0 ? model.replica(leader, r.tp) : nullptr;
        if (!log) continue;  // no leader at the end: this partition says nothing
        const int64_t* said = hw_.find(leader, r.tp.first, r.tp.second);
        const int64_t hw = std::max(log->hw, said ? *said : int64_t{0});
        const bool there = model.holds(leader, r.tp, r.begin, r.crc) && r.end <= hw;
        if (there && !present) present = &r;
        if (!there && !missing) {
          missing = &r;
          missing_leader = leader;
        }
      }
      if (present && missing) {
        report(end, "committed transaction of " + txn_text(t) + " is partly in the logs: " + partition_text(present->tp) + "@" +
                        std::to_string(present->begin) + " is, " + partition_text(missing->tp) + "@" +
                        std::to_string(missing->begin) + " is not below the HW of its leader broker " +
                        std::to_string(missing_leader));
        return;
      }
    }
  }

 private:
  using Range = TxnLedger::Range;
  ReadCommittedWatch watch_;
  // (broker, partition) -> HW it last stated; hash-indexed, since every hw_advance sets it.
  IndexedMap<std::pair<int32_t, PartitionKey>, int64_t> hw_;
};

}  // namespace

void add_txn_checkers(CheckerSet& set) {
  set.add(std::make_unique<ReadCommittedNoAbortedChecker>());
  set.add(std::make_unique<TxnAtomicChecker>());
}

}  // namespace gregor::sim
