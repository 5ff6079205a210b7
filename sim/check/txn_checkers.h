// Transaction checkers (KIP-98), over the trace. A transaction is what a transactional producer's
// node emits between its txn_begin and its txn_commit or txn_abort: the produce_acks in between
// are its records (engine/client/producer.h flushes before EndTxn, so none comes after). Its
// outcome: committed (txn_commit NONE), aborted (txn_abort NONE, or the producer fenced while it was
// open: the new instance's InitProducerId or the timeout aborted it), or open (no end yet, or an
// end that failed and may still go either way: ignored). add_txn_checkers() plugs them into a
// CheckerSet:
//
//   read-committed-no-aborted  a read_committed consumer (consumer_start isolation) never delivers
//                              a record of an aborted transaction
//   txn-atomic                 a committed transaction's records are, at the end of the run, all in
//                              the final leader's log below its HW, or none of them; an aborted
//                              transaction's records are delivered to no read_committed group
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/core/trace_event.h"
#include "sim/check/checkers.h"

namespace gregor::sim {

class TxnLedger {
 public:
  enum class Outcome { kOpen, kCommitted, kAborted };
  struct Range {
    PartitionKey tp;
    int64_t begin = 0;  // [begin, end) offsets
    int64_t end = 0;
    int64_t crc = 0;  // the batch's, for ClusterModel::holds
  };
  struct Txn {
    int32_t node = -1;
    std::string transactional_id;
    int64_t producer_id = -1;
    int32_t epoch = -1;
    Outcome outcome = Outcome::kOpen;
    bool ended = false;  // an end was seen (its outcome may still be kOpen: failed, unknown)
    std::vector<Range> ranges;
  };

  // Applies one event; returns the index of the transaction whose outcome it settled, or -1.
  int64_t apply(const TraceEvent& e);
  const std::vector<Txn>& transactions() const { return txns_; }
  // The transaction an offset was written by, or nullptr (not transactional).
  const Txn* txn_at(const PartitionKey& tp, int64_t offset) const;
  // Whether a produce_ack from this node is a transaction's (the ledger holds it).
  bool in_transaction(int32_t node) const { return open_.count(node) > 0; }

 private:
  std::vector<Txn> txns_;
  std::map<int32_t, size_t> open_;  // node -> its open transaction
  std::map<PartitionKey, std::map<int64_t, std::pair<int64_t, size_t>>> by_offset_;  // begin -> end, txn
};

// Adds the two checkers above to `set`.
void add_txn_checkers(CheckerSet& set);

}  // namespace gregor::sim
