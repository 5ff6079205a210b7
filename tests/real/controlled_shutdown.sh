#!/usr/bin/env bash
# A broker stopped with SIGTERM does Kafka's controlled shutdown (controlled.shutdown.enable, on by
# default) before it exits: it asks the controller to move its leaderships to other ISR members,
# the controller takes it out of the ISRs it follows, and it closes its ZooKeeper session. So its
# partitions have new leaders before the process is gone, not after zookeeper.session.timeout.ms
# (18 s by default, kept here). Then the whole cluster stops (`cluster up` on SIGTERM: brokers
# first, zk last) without any process being killed.
source "$(dirname "$0")/lib.sh" "$1"
G="$GREGOR"

start_cluster 3
EVERY_BROKER=$(sed -n 's/^cluster ready: .* bootstrap \([^ ]*\), data under .*/\1/p' "$TMP/cluster.log")
[ -n "$EVERY_BROKER" ] || fail "no bootstrap list in the cluster log"
"$G" topics --bootstrap-server "$EVERY_BROKER" --create --topic cs --partitions 3 --replication-factor 3 \
  --config min.insync.replicas=2 >/dev/null || fail "topics --create"
describe() { "$G" topics --bootstrap-server "$EVERY_BROKER" --describe --topic cs; }
isr_full() { [ "$(describe | grep -c $'Isr: [1-3],[1-3],[1-3]$')" = 3 ]; }
until_true 60 isr_full || fail "the ISRs did not fill"
produce_range() {  # FROM TO, acks=all
  seq "$1" "$2" | sed 's/.*/key-&:value-&/' | "$G" produce --bootstrap-server "$EVERY_BROKER" --topic cs --acks all --key-separator : ||
    fail "produce of records $1..$2 failed"
}
produce_range 1 300

victim=$(describe | sed -n 's/.*Partition: 0\tLeader: \([0-9]*\).*/\1/p')
[ -n "$victim" ] || fail "no leader for cs-0"
led_before=$(describe | grep -c $'\tLeader: '"$victim"$'\t')
pid=$(broker_pid "$victim")
echo "broker $victim (pid $pid) leads $led_before partition(s) of cs; SIGTERM"
start=$SECONDS
kill -TERM "$pid"
until_true 60 sh -c "! kill -0 $pid" || fail "broker $victim did not stop"
took=$((SECONDS - start))
echo "broker $victim stopped after ${took} s"
grep -q "controlled shutdown succeeded" "$TMP/cluster.log" ||
  fail "broker $victim did not report a controlled shutdown that succeeded"
grep -q "^broker $victim (pid $pid) exited with status 0" "$TMP/cluster.log" || fail "broker $victim did not exit with status 0"
# Its leaderships moved before it exited: right after the exit no partition names it as leader.
after=$(describe)
echo "$after"
echo "$after" | grep -q $'\tLeader: '"$victim"$'\t' && fail "broker $victim still leads a partition after its controlled shutdown"
[ "$took" -lt 18 ] || fail "the stop took ${took} s: as long as a session timeout"
# Its ISR memberships: the controller took it out of the ISRs; as in Kafka, the new leader of a
# partition it led may add it back in the moment before it exits (it follows until it stops), and
# then its closed zk session takes it out: within seconds, not the 18 s of a session timeout.
not_in_any_isr() {
  local isrs
  isrs=$(describe | sed -n 's/.*\tIsr: \([0-9,]*\)$/\1/p')
  [ "$(echo "$isrs" | wc -l)" = 3 ] && ! echo "$isrs" | tr ',' '\n' | grep -qx "$victim"
}
until_true 10 not_in_any_isr || fail "broker $victim is still in an ISR 10 s after it stopped"
[ $((SECONDS - start)) -lt 18 ] || fail "broker $victim left the ISRs only after $((SECONDS - start)) s: a session timeout"

# The two others take acks=all writes at once (min.insync.replicas=2), and nothing acknowledged is lost.
produce_range 301 600
"$G" consume --bootstrap-server "$EVERY_BROKER" --topic cs --from-beginning --max-messages 600 --timeout-ms 30000 \
  --print-key >"$TMP/consumed.txt" || fail "consume failed"
seq 1 600 | sed 's/.*/key-&	value-&/' | sort >"$TMP/sent.txt"
sort "$TMP/consumed.txt" | diff -q "$TMP/sent.txt" - >/dev/null || fail "the 600 acknowledged records did not all come back"

# Restarted, it rejoins every ISR.
$(broker_command "$victim") >"$TMP/restarted-broker.log" 2>&1 &
CHILD_PIDS+=($!)
until_true 90 isr_full || fail "broker $victim did not rejoin the ISR of every partition"

# The whole cluster: the brokers stop first (one controlled-shutdown attempt each), zk last, and
# nothing needs SIGKILL. (The restarted broker is the test's own child, stopped first.)
kill -TERM "${CHILD_PIDS[0]}"
wait "${CHILD_PIDS[0]}" || fail "the restarted broker did not exit cleanly"
CHILD_PIDS=()
stop_cluster
grep -q "SIGKILL" "$TMP/cluster.log" && fail "cluster up had to SIGKILL a process"
zk_exit=$(grep -n "^zk (pid [0-9]*) exited" "$TMP/cluster.log" | cut -d: -f1)
last_broker_exit=$(grep -n "^broker [0-9]* (pid [0-9]*) exited" "$TMP/cluster.log" | tail -n 1 | cut -d: -f1)
[ -n "$zk_exit" ] && [ -n "$last_broker_exit" ] && [ "$zk_exit" -gt "$last_broker_exit" ] || fail "zk did not stop after the brokers"
echo "PASS: controlled shutdown on SIGTERM"
