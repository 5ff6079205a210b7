#include "sim/check/txn_outcome_checker.h"

#include <map>
#include <memory>
#include <string>

#include "sim/check/txn_checkers.h"

namespace gregor::sim {

namespace {

class TxnOutcomeChecker final : public Checker {
 public:
  const char* name() const override { return "txn-outcome"; }
  const char* description() const override {
    return "every transaction is committed (or aborted) in the logs as its producer saw it end";
  }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    if (const auto* m = e.as<ev::TxnMarkerAppend>()) {
      // A marker written again at the same offset (after a truncation) replaces the first.
      auto& markers = markers_[{PartitionKey{m->topic, m->partition}, m->producer_id}];
      if (markers.size() < kMarkersPerProducerMax || markers.count(m->offset)) markers[m->offset] = m->result;
      return;
    }
    ledger_.apply(e);
  }
  void finish(const ClusterModel&, Time end) override {
    if (violation_) return;
    for (const auto& t : ledger_.transactions()) {
      if (t.outcome == TxnLedger::Outcome::kOpen) continue;
      const bool committed = t.outcome == TxnLedger::Outcome::kCommitted;
      for (const auto& r : t.ranges) {
        auto markers = markers_.find({r.tp, t.producer_id});
        if (markers == markers_.end()) continue;
        auto first = markers->second.lower_bound(r.end);
        if (first == markers->second.end()) continue;  // not ended yet: says nothing
        const std::string want = committed ? "commit" : "abort";
        if (first->second == want) continue;
        report(end, "the producer of " + t.transactional_id + " (producer " + std::to_string(t.producer_id) + ", epoch " +
                        std::to_string(t.epoch) + ", node " + std::to_string(t.node) + ") saw its transaction " +
                        (committed ? "committed" : "aborted") + ", but its records " + partition_text(r.tp) + "@" +
                        std::to_string(r.begin) + ".." + std::to_string(r.end - 1) + " were ended by the " +
                        first->second + " marker at offset " + std::to_string(first->first) +
                        (committed ? ": records it saw committed are lost to read_committed consumers"
                                   : ": records it saw aborted are visible to read_committed consumers"));
        return;
      }
    }
  }

 private:
  // A bound on memory: markers remembered per partition and producer id.
  static constexpr size_t kMarkersPerProducerMax = 1000000;
  TxnLedger ledger_;
  std::map<std::pair<PartitionKey, int64_t>, std::map<int64_t, std::string>> markers_;  // (tp, producer id) -> offset -> result
};

}  // namespace

void add_txn_outcome_checker(CheckerSet& set) { set.add(std::make_unique<TxnOutcomeChecker>()); }

}  // namespace gregor::sim
