// txn-outcome: every transaction ends in the logs the way its producer saw it end (issue 19, the
// stale EndTxn of Jepsen 2024 / KAFKA-17754).
//
// A transaction's records on a partition are ended by the first transaction marker (control
// batch) of their producer id written after them there: a COMMIT makes them visible to
// read_committed consumers, an ABORT hides them. So for each record range of a transaction the
// producer saw committed (txn_commit NONE) the first marker of its producer id at a higher offset
// must be a commit, and for one it saw aborted (txn_abort NONE, or fenced while open) an abort.
// Markers come from the leaders' txn_marker_append events; a range with no marker after it yet (the
// run ended first, or the leader is down) says nothing. The outcomes are TxnLedger's
// (txn_checkers.h).
//
// What breaks it: with transaction.version 1 an EndTxn(commit) of the previous transaction that
// reaches the coordinator late, once the next transaction is Ongoing at the same epoch, commits the
// next one's first records; its later records then belong to whatever ends the producer's next
// transaction on that partition, an abort in the story (scenarios/s14-stale-endtxn.yaml): records
// the producer saw committed are aborted.
#pragma once

#include "sim/check/checkers.h"

namespace gregor::sim {

// Adds txn-outcome to `set`.
void add_txn_outcome_checker(CheckerSet& set);

}  // namespace gregor::sim
