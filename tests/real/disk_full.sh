#!/usr/bin/env bash
# Storage fault with real files (issue 17): broker 2's --data-dir is a small tmpfs of its own. While
# `gregor produce --acks all` writes to a topic with RF 3 and min.insync.replicas 2, broker 2's disk
# fills up. Broker 2 must take its log directory offline (it is its only one: the broker closes its
# zk session and halts, as Kafka does), its log must name the full disk, its partitions must get new
# leaders at once, and every record the producer saw acknowledged must be consumed afterwards. Then
# the disk grows and broker 2, restarted with its command line, rejoins the ISR.
# Mounting needs root (or CAP_SYS_ADMIN): without it the test is skipped (exit 77), saying why.
source "$(dirname "$0")/lib.sh" "$1"

FULL_BROKER=2
MOUNT="$TMP/cluster/broker-$FULL_BROKER"
mounted=""
before_cluster_start() {
  mkdir -p "$MOUNT"
  if ! mount -t tmpfs -o size=2m gregor-disk-full "$MOUNT" 2>"$TMP/mount.err"; then
    echo "SKIP: cannot mount a tmpfs for broker $FULL_BROKER's data directory: $(cat "$TMP/mount.err")" >&2
    exit 77
  fi
  mounted=$MOUNT
}
test_cleanup() {
  if [ -n "$mounted" ]; then umount "$mounted" 2>/dev/null || umount -l "$mounted" 2>/dev/null; fi
  mounted=""
}

start_cluster 3 --config zookeeper.session.timeout.ms=6000 --config min.insync.replicas=2
"$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --create --topic full --partitions 3 --replication-factor 3 \
  --config min.insync.replicas=2 >/dev/null || fail "topics --create"
describe() { "$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --describe --topic full; }
led=$(describe | grep -c $'Leader: '"$FULL_BROKER"$'\t' || true)
[ "$led" -gt 0 ] || fail "broker $FULL_BROKER leads no partition of full: $(describe)"
pid=$(broker_pid $FULL_BROKER)
command=$(broker_command $FULL_BROKER)
[ -n "$pid" ] && [ -n "$command" ] || fail "cluster up did not print broker $FULL_BROKER's pid and command"
echo "broker $FULL_BROKER (pid $pid) leads $led partition(s) of full; its data directory is a 2 MiB tmpfs"

mkfifo "$TMP/input"
"$GREGOR" produce --bootstrap-server "$BOOTSTRAP" --topic full --acks all --print-offsets \
  --producer-property linger.ms=5 <"$TMP/input" >"$TMP/acks.txt" 2>"$TMP/producer.log" &
PRODUCER=$!
CHILD_PIDS+=($PRODUCER)
exec 3>"$TMP/input"
pad=$(head -c 1000 /dev/zero | tr '\0' 'x')
n=0
halted_at=""
# About 6 MB in all (every broker holds every partition): three times what broker 2's disk holds.
for chunk in $(seq 1 60); do
  for i in $(seq 1 100); do
    n=$((n + 1))
    echo "record-$n-$pad" >&3
  done
  if [ -z "$halted_at" ] && ! kill -0 "$pid" 2>/dev/null; then halted_at=$n; echo "broker $FULL_BROKER halted after $n records were sent"; fi
  sleep 0.05
done
exec 3>&-
deadline=$((SECONDS + 150))
while kill -0 $PRODUCER 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "the producer did not finish within 150 s"
  sleep 0.2
done
wait $PRODUCER || echo "the producer reports failed records (allowed: only acknowledged ones count)"

# The broker halted on its own (exit status 1), and said why.
until_true 30 bash -c "! kill -0 $pid" || fail "broker $FULL_BROKER still runs with a full disk"
grep -q "broker-$FULL_BROKER.*Shutdown broker because all log dirs in .*broker-$FULL_BROKER have failed" "$TMP/cluster.log" ||
  fail "broker $FULL_BROKER's log does not say its log directory failed"
grep "Shutdown broker because" "$TMP/cluster.log" | grep -q "No space left on device" ||
  fail "broker $FULL_BROKER's log does not name the full disk: $(grep 'Shutdown broker' "$TMP/cluster.log")"
echo "broker $FULL_BROKER's log: $(grep -m1 'Shutdown broker because' "$TMP/cluster.log" | cut -c1-200)"

# Its leaderships moved: every partition has a leader, none is broker 2.
leaders_moved() {
  local d
  d=$(describe) || return 1
  [ "$(grep -c $'Leader: [13]\t' <<<"$d")" = 3 ]
}
until_true 30 leaders_moved || fail "the partitions did not get new leaders: $(describe)"

acked=$(wc -l <"$TMP/acks.txt")
echo "$acked of $n records acknowledged"
[ "$acked" -gt 3000 ] || fail "only $acked records were acknowledged: writes stopped with broker $FULL_BROKER's disk"

timeout 60 "$GREGOR" consume --bootstrap-server "$BOOTSTRAP" --topic full --from-beginning --timeout-ms 5000 \
  >"$TMP/consumed.txt" || fail "consume failed"
missing=$(comm -23 <(cut -f1 "$TMP/acks.txt" | sort -u) <(sort -u "$TMP/consumed.txt") | wc -l)
[ "$missing" = 0 ] || fail "$missing acknowledged records are missing"
echo "all $acked acknowledged records consumed"

# A healed disk: more space, the same command line; broker 2 catches up and rejoins every ISR.
mount -o remount,size=64m "$MOUNT" || fail "cannot grow the tmpfs"
echo "restarting broker $FULL_BROKER on a 64 MiB disk: $command"
$command >"$TMP/restarted-broker.log" 2>&1 &
CHILD_PIDS+=($!)
isr_full() { [ "$(describe | grep -c $'Isr: [1-3],[1-3],[1-3]$')" = 3 ]; }
until_true 90 isr_full || fail "broker $FULL_BROKER did not rejoin the ISR after its disk grew: $(describe)"
echo "broker $FULL_BROKER is back in every ISR"
stop_cluster
echo "PASS"
