#!/usr/bin/env bash
# `gregor produce --transactional-id` against a 3-broker cluster: the engine's transactional producer
# inits, begins, sends and commits every --transaction-records lines, or aborts them with --abort
# (once they are in the log). A read_committed consumer gets every committed record and no aborted
# one; a read_uncommitted consumer gets the aborted ones too. A restart of the cluster then reads
# the same from the logs it recovered (the .txnindex files and producer snapshots on disk).
source "$(dirname "$0")/lib.sh" "$1"

start_cluster 3
G="$GREGOR"
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic payments --partitions 3 --replication-factor 3 \
  --config min.insync.replicas=2 >/dev/null || fail "topics --create"

seq 1 30 | sed 's/^/committed-/' >"$TMP/commit1.txt"
seq 1 20 | sed 's/^/aborted-/' >"$TMP/abort.txt"
seq 31 40 | sed 's/^/committed-/' >"$TMP/commit2.txt"
timeout 120 "$G" produce --bootstrap-server "$BOOTSTRAP" --topic payments --transactional-id tx-pay \
  --transaction-records 10 <"$TMP/commit1.txt" 2>"$TMP/p1.err" || { cat "$TMP/p1.err" >&2; fail "transactional produce"; }
grep -qx "gregor produce: 3 transactions committed, 0 aborted" "$TMP/p1.err" || fail "produce 1 said: $(cat "$TMP/p1.err")"
timeout 120 "$G" produce --bootstrap-server "$BOOTSTRAP" --topic payments --transactional-id tx-pay \
  --transaction-records 5 --abort <"$TMP/abort.txt" 2>"$TMP/p2.err" || { cat "$TMP/p2.err" >&2; fail "aborting produce"; }
grep -qx "gregor produce: 0 transactions committed, 4 aborted" "$TMP/p2.err" || fail "produce 2 said: $(cat "$TMP/p2.err")"
# One transaction for the whole input (no --transaction-records), after the aborted ones.
timeout 120 "$G" produce --bootstrap-server "$BOOTSTRAP" --topic payments --transactional-id tx-pay \
  <"$TMP/commit2.txt" 2>"$TMP/p3.err" || { cat "$TMP/p3.err" >&2; fail "transactional produce 3"; }
grep -qx "gregor produce: 1 transactions committed, 0 aborted" "$TMP/p3.err" || fail "produce 3 said: $(cat "$TMP/p3.err")"
# Plain records of a transactional.id outside a transaction are impossible from the CLI: what the
# broker answered before this option existed (INVALID_TXN_STATE) must not come back.
! grep -q INVALID_TXN_STATE "$TMP/p1.err" "$TMP/p2.err" "$TMP/p3.err" || fail "INVALID_TXN_STATE from the broker"

check_consumers() {
  local tag=$1
  timeout 60 "$G" consume --bootstrap-server "$BOOTSTRAP" --topic payments --from-beginning --timeout-ms 5000 \
    --isolation-level read_committed >"$TMP/committed-$tag.txt" || fail "read_committed consume ($tag)"
  diff <(cat "$TMP/commit1.txt" "$TMP/commit2.txt" | sort) <(sort "$TMP/committed-$tag.txt") ||
    fail "read_committed ($tag) did not get exactly the committed records"
  timeout 60 "$G" consume --bootstrap-server "$BOOTSTRAP" --topic payments --from-beginning --timeout-ms 5000 \
    >"$TMP/all-$tag.txt" || fail "read_uncommitted consume ($tag)"
  diff <(cat "$TMP/commit1.txt" "$TMP/abort.txt" "$TMP/commit2.txt" | sort) <(sort "$TMP/all-$tag.txt") ||
    fail "read_uncommitted ($tag) did not get every record, the aborted ones included"
}
check_consumers before-restart

# The brokers' logs hold an aborted-transaction index beside a segment of every partition the aborts
# reached, 34 bytes an entry.
txnindexes=$(find "$TMP/cluster" -name '*.txnindex' -size +0 | wc -l)
[ "$txnindexes" -gt 0 ] || fail "no .txnindex file on disk"
for f in $(find "$TMP/cluster" -name '*.txnindex'); do
  [ $(($(stat -c %s "$f") % 34)) = 0 ] || fail "$f is not made of 34-byte entries"
done

# A clean stop of broker 1 writes a producer snapshot at the end of each of its logs; restarted, it
# recovers from them and catches up. Then brokers 2 and 3 stop (controlled shutdown) and broker 1
# leads every partition: the read_committed consumer reads the aborted transactions from the
# indexes broker 1 recovered.
pid1=$(broker_pid 1)
command1=$(broker_command 1)
[ -n "$pid1" ] && [ -n "$command1" ] || fail "cluster up did not print broker 1's pid and command"
touch "$TMP/before-stop"
kill -TERM "$pid1"
until_true 60 sh -c "! kill -0 $pid1" || fail "broker 1 did not stop"
snapshots=$(find "$TMP/cluster" -path '*payments-*' -name '*.snapshot' -newer "$TMP/before-stop" | wc -l)
[ "$snapshots" -gt 0 ] || fail "no producer snapshot after broker 1's clean stop"
$command1 >"$TMP/restarted-broker.log" 2>&1 &
CHILD_PIDS+=($!)
isr_full() {
  [ "$("$G" topics --bootstrap-server "$BOOTSTRAP" --describe --topic payments | grep -c $'Isr: [1-3],[1-3],[1-3]$')" = 3 ]
}
until_true 90 isr_full || fail "broker 1 did not rejoin the ISR of every partition"
for b in 2 3; do
  p=$(broker_pid $b)
  kill -TERM "$p"
  until_true 90 sh -c "! kill -0 $p" || fail "broker $b did not stop"
done
led_by_1() {
  [ "$("$G" topics --bootstrap-server "$BOOTSTRAP" --describe --topic payments | grep -c $'\tLeader: 1\t')" = 3 ]
}
until_true 60 led_by_1 || fail "broker 1 does not lead every partition"
check_consumers after-restart
echo "PASS"
