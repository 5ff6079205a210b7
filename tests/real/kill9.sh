#!/usr/bin/env bash
# Fault test with real processes: while `gregor produce --acks all` writes to a topic with RF 3 and
# min.insync.replicas 2, kill -9 the partition leader's broker process, then restart it with its
# command line and data directory. Every record the producer saw acknowledged must be consumed
# afterwards; one missing fails the test.
source "$(dirname "$0")/lib.sh" "$1"

# A short zk session so that the dead broker's registration expires soon and the controller elects
# a new leader within seconds (Kafka's default is 18 s).
start_cluster 3 --config zookeeper.session.timeout.ms=6000 --config min.insync.replicas=2
"$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --create --topic acked --partitions 1 --replication-factor 3 \
  --config min.insync.replicas=2 >/dev/null || fail "topics --create"
leader=$("$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --describe --topic acked | sed -n 's/.*Partition: 0\tLeader: \([0-9]*\).*/\1/p')
[ -n "$leader" ] || fail "no leader for acked-0"
pid=$(broker_pid "$leader")
command=$(broker_command "$leader")
[ -n "$pid" ] && [ -n "$command" ] || fail "cluster up did not print broker $leader's pid and command"
echo "leader of acked-0 is broker $leader (pid $pid)"

mkfifo "$TMP/input"
"$GREGOR" produce --bootstrap-server "$BOOTSTRAP" --topic acked --acks all --print-offsets \
  --producer-property linger.ms=1 <"$TMP/input" >"$TMP/acks.txt" 2>"$TMP/producer.log" &
PRODUCER=$!
CHILD_PIDS+=($PRODUCER)
exec 3>"$TMP/input"
n=0
for chunk in $(seq 1 60); do
  for i in $(seq 1 50); do
    n=$((n + 1))
    echo "record-$n" >&3
  done
  if [ "$chunk" = 15 ]; then
    until_true 30 test -s "$TMP/acks.txt" || fail "nothing was acknowledged before the kill"
    echo "kill -9 broker $leader after $(wc -l <"$TMP/acks.txt") acknowledged records"
    kill -9 "$pid"
  fi
  if [ "$chunk" = 40 ]; then
    echo "restarting broker $leader: $command"
    $command >"$TMP/restarted-broker.log" 2>&1 3>&- &  # not holding the producer's input open
    CHILD_PIDS+=($!)
  fi
  sleep 0.1
done
exec 3>&-
deadline=$((SECONDS + ${KILL9_PRODUCER_WAIT:-150}))
while kill -0 $PRODUCER 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "the producer did not finish within 150 s"
  sleep 0.2
done
wait $PRODUCER || echo "the producer reports failed records (allowed: only acknowledged ones count)"
acked=$(wc -l <"$TMP/acks.txt")
echo "$acked of $n records acknowledged"
[ "$acked" -gt 0 ] || fail "no record was acknowledged"

# The restarted broker recovers its log and rejoins the ISR.
isr_full() { "$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --describe --topic acked | grep -q $'Isr: [1-3],[1-3],[1-3]$'; }
until_true 90 isr_full || fail "broker $leader did not rejoin the ISR"
grep -q "record-" "$TMP/acks.txt"

timeout 60 "$GREGOR" consume --bootstrap-server "$BOOTSTRAP" --topic acked --from-beginning --timeout-ms 5000 \
  >"$TMP/consumed.txt" || fail "consume failed"
missing=$(comm -23 <(cut -f1 "$TMP/acks.txt" | sort -u) <(sort -u "$TMP/consumed.txt") | wc -l)
[ "$missing" = 0 ] || fail "$missing acknowledged records are missing, e.g. $(comm -23 <(cut -f1 "$TMP/acks.txt" | sort -u) <(sort -u "$TMP/consumed.txt") | head -3 | tr '\n' ' ')"
# Offsets are unique: no two acknowledged records claim the same one.
dups=$(cut -f2 "$TMP/acks.txt" | sort | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "$dups offsets were acknowledged for two different records"
echo "all $acked acknowledged records consumed after the leader's kill -9 and restart"
stop_cluster
echo "PASS"
