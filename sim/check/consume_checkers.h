// Consumption checkers: the delivery guarantees of consumer groups, checked over the trace
// (../shared/reference/kafka-replication.md §6: acked ⊆ consumed, no duplicates when idempotent,
// offsets in order, stale generations rejected). add_consume_checkers() plugs them into a
// CheckerSet:
//
//   consume-lost          every acks=all acknowledged record (produce_ack: base_offset + count) of a topic
//                         a group consumes is consumed by that group, for groups whose mode
//                         promises it (at-least-once, exactly-once; exactly-once-txn's is
//                         output-each-input-once, eos_checkers.h); checked at the end of the run.
//                         A transaction's records count only once it committed (txn_checkers.h)
//   consume-duplicate     no record (by id, the value up to its first '.') is consumed twice by a
//                         group whose mode promises it (at-most-once, exactly-once,
//                         exactly-once-txn)
//   consume-order         a consumer process consumes each partition's offsets in increasing order
//                         from each position it takes (consumer_position), and a sink applies them
//                         in increasing order
//   consume-consistent    the same (topic, partition, offset) is always consumed with the same value
//   single-owner          within a generation of a group, a partition is assigned to at most one
//                         member (consumer_assignment from members, group_stable from coordinators);
//                         a zk-coordinated group's assignments (generation -1) have no generation
//   commit-monotonic      within a generation, a group's committed offset of a partition never goes
//                         backwards (offset_commit from coordinators)
//
// A group's mode comes from its members' consumer_start events (mode: what the group claims).
// ConsumeLedger is the same bookkeeping for tests and reports: how many records each group lost
// and consumed twice.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/trace_event.h"
#include "sim/check/checkers.h"
#include "sim/check/txn_checkers.h"

namespace gregor::sim {

class ConsumeLedger {
 public:
  struct GroupView {
    std::string mode;  // claimed by its members' consumer_start ("" when unknown)
    std::set<std::string> topics;
    int64_t consume_events = 0;
    std::map<PartitionKey, std::set<int64_t>> consumed;  // offsets consumed at least once
    std::unordered_map<std::string, int64_t> times_by_id;  // record id -> times consumed (hashed: one per record)
    int64_t duplicates = 0;                              // consumptions beyond the first, over all ids
  };

  ConsumeLedger() = default;
  // Only the acknowledged records (acked()); groups() stays empty. For a checker that needs no
  // more: keeping each group's consumed offsets and record ids costs lookups and an allocation or
  // two per consumed record.
  struct AckedOnly {};
  explicit ConsumeLedger(AckedOnly) : acked_only_(true) {}

  void apply(const TraceEvent& e);

  const std::map<std::string, GroupView>& groups() const { return groups_; }
  const GroupView* group(const std::string& g) const;
  // Acknowledged records: offsets by partition, as [begin, end) ranges keyed by begin.
  const std::map<PartitionKey, std::map<int64_t, int64_t>>& acked() const { return acked_; }
  int64_t acked_count(const std::set<std::string>& topics) const;
  // Acknowledged records of the group's topics it never consumed (at most `limit` listed in `examples`).
  int64_t lost(const std::string& group, std::vector<std::string>* examples = nullptr, size_t limit = 5) const;
  int64_t duplicates(const std::string& group) const;
  // Distinct records consumed.
  int64_t unique_consumed(const std::string& group) const;

 private:
  bool acked_only_ = false;
  std::map<std::string, GroupView> groups_;
  std::map<PartitionKey, std::map<int64_t, int64_t>> acked_;
  // A transaction's records count as acknowledged once it commits: an aborted (or never ended)
  // one's records are not for read_committed consumers to deliver.
  TxnLedger txns_;
  void add_acked(const PartitionKey& tp, int64_t base, int64_t count);
};

// Adds the six checkers above to `set`.
void add_consume_checkers(CheckerSet& set);

// Whether a mode promises no loss / no duplicates.
bool mode_promises_no_loss(const std::string& mode);
bool mode_promises_no_duplicates(const std::string& mode);

}  // namespace gregor::sim
