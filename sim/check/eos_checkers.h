// Checkers of the consume-transform-produce loop (delivery: exactly-once-txn; engine/client/
// consumer_node.h), over the trace. A group in that mode is known by its members' consumer_start
// (mode exactly-once-txn); its output topics are those its members' producers write to
// (produce_ack from a member's node). add_eos_checkers() plugs them into a CheckerSet:
//
//   output-each-input-once   the output topics' committed records hold each input record exactly
//                            once. What is committed is judged as Kafka's own exactly-once system
//                            tests judge it: by what read_committed groups read from the output
//                            (consume events; each output record's value names its input,
//                            "<topic>/<partition>/<offset>=<id>"). No input record may be named by
//                            two output records (a duplicate), and every acks=all acknowledged record
//                            of the groups' input topics must be named by the end of the run (a
//                            loss: skipped, or never processed). A run without a read_committed
//                            reader of the output passes.
//   txn-offsets-with-commit  offsets committed in a transaction become visible only when the
//                            transaction commits: a transactional offset_commit (generation -1, from
//                            the group coordinator when the marker reaches __consumer_offsets) of such
//                            a group must come while a transaction of one of its members that holds
//                            offsets is in PrepareCommit at its coordinator (txn_state_change; or
//                            Ongoing, as a coordinator that reloads the log may finish a PrepareCommit
//                            nobody reported), never while the only such transactions are aborting or
//                            complete; and a member that starts
//                            from a committed offset (consumer_position reason committed: what
//                            OffsetFetch answered) starts from one that was made visible, or that
//                            ends a batch the group committed (an offset of an aborted transaction
//                            that no committed one repeats must never be fetched; checked at the end).
#pragma once

#include "sim/check/checkers.h"

namespace gregor::sim {

// Adds the two checkers above to `set`.
void add_eos_checkers(CheckerSet& set);

}  // namespace gregor::sim
