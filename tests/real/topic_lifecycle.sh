#!/usr/bin/env bash
# Topic lifecycle on real sockets and files: a topic made with `gregor topics --create` takes a
# produce through another broker at once, with retries off (kcat); a deleted and at once recreated
# topic starts at offset 0 everywhere, also on a broker that was down during the deletion (its old
# directory is retired as <topic>-<p>.<id>-delete, not served); then the admin commands:
# topics --alter --partitions, delete-records, leader-election.
source "$(dirname "$0")/lib.sh" "$1"
require kcat "Debian's kcat"

start_cluster 3
G="$GREGOR"
B2=127.0.0.1:$((PORT_BASE + 1))
B3=127.0.0.1:$((PORT_BASE + 2))
# 1. Create, then produce through broker 3 (bootstrap) with no retries: every time.
for i in $(seq 1 8); do
  "$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic "fresh-$i" --partitions 3 --replication-factor $((1 + i % 3)) \
    >/dev/null || fail "create fresh-$i"
  for p in 0 1 2; do
    echo "v$i-$p" | timeout 30 kcat -P -b "$B3" -t "fresh-$i" -p $p -X message.send.max.retries=0 -X retries=0 \
      -X topic.metadata.refresh.interval.ms=600000 2>"$TMP/kcat-$i-$p.err" || fail "produce to fresh-$i/$p: $(cat "$TMP/kcat-$i-$p.err")"
    ! grep -qi "fail\|error" "$TMP/kcat-$i-$p.err" || fail "produce to fresh-$i/$p: $(cat "$TMP/kcat-$i-$p.err")"
  done
  # Every broker lists the topic with its leaders.
  for b in "$BOOTSTRAP" "$B2" "$B3"; do
    n=$("$G" topics --bootstrap-server "$b" --describe --topic "fresh-$i" | grep -c $'\tLeader: [1-3]\t' || true)
    [ "$n" = 3 ] || fail "broker $b does not show 3 led partitions of fresh-$i right after its creation"
  done
done

# 2. Delete and recreate at once: the new partition 0 ends at offset 0, on every broker's disk.
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic phoenix --partitions 1 --replication-factor 3 >/dev/null ||
  fail "create phoenix"
seq 1 5 | "$G" produce --bootstrap-server "$BOOTSTRAP" --topic phoenix --acks all || fail "produce to phoenix"
end_offset() { timeout 30 kcat -b "$1" -Q -t phoenix:0:-1 2>/dev/null | sed -n 's/.*offset \([0-9-]*\).*/\1/p'; }
[ "$(end_offset "$BOOTSTRAP")" = 5 ] || fail "phoenix/0 does not end at 5 before its deletion"
"$G" topics --bootstrap-server "$BOOTSTRAP" --delete --topic phoenix || fail "delete phoenix"
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic phoenix --partitions 1 --replication-factor 3 >/dev/null ||
  fail "recreate phoenix at once"
for b in "$BOOTSTRAP" "$B2" "$B3"; do
  [ "$(end_offset "$b")" = 0 ] || fail "recreated phoenix/0 does not end at 0 (asked via $b): $(end_offset "$b")"
done
for d in "$TMP"/cluster/broker-*/phoenix-0; do
  for log in "$d"/*.log; do [ ! -s "$log" ] || fail "$log holds old data after the recreation"; done
done
ls -d "$TMP"/cluster/broker-*/phoenix-0.*-delete >/dev/null 2>&1 || fail "no retired phoenix-0.*-delete directory"

# The same with broker 3 down while the topic is deleted: its old files stay until it is back.
seq 1 7 | "$G" produce --bootstrap-server "$BOOTSTRAP" --topic phoenix --acks all || fail "produce to phoenix (2)"
until_true 30 test "$(end_offset "$BOOTSTRAP")" = 7 || fail "phoenix/0 does not end at 7"
until_true 30 test -s "$(ls "$TMP"/cluster/broker-3/phoenix-0/*.log | head -n 1)" || fail "broker 3 has no phoenix data"
pid3=$(broker_pid 3)
kill -9 "$pid3"
cmd3=$(broker_command 3)
# The controller has noticed (zk session expiry): broker 3 left phoenix's ISR. Only then is the
# deletion sure not to wait for broker 3.
isr_without_3() { "$G" topics --bootstrap-server "$BOOTSTRAP" --describe --topic phoenix | grep -q $'\tIsr: [12],[12]$'; }
until_true 90 isr_without_3 || fail "broker 3 did not leave phoenix's ISR after its kill"
"$G" topics --bootstrap-server "$BOOTSTRAP" --delete --topic phoenix || fail "delete phoenix while broker 3 is down"
old_id=$(sed -n 's/^topic_id: //p' "$TMP/cluster/broker-3/phoenix-0/partition.metadata")
[ -n "$old_id" ] || fail "broker 3's phoenix-0 has no partition.metadata"
$cmd3 >"$TMP/broker-3-again.log" 2>&1 &
CHILD_PIDS+=($!)
until_true 60 "$G" topics --bootstrap-server "$B3" --list || fail "broker 3 did not come back"
until_true 60 bash -c "'$G' topics --bootstrap-server '$BOOTSTRAP' --create --topic phoenix --partitions 1 --replication-factor 3" ||
  fail "recreate phoenix with broker 3 back"
until_true 30 test -f "$TMP/cluster/broker-3/phoenix-0/partition.metadata" || fail "broker 3 did not open the new phoenix-0"
new_id=$(sed -n 's/^topic_id: //p' "$TMP/cluster/broker-3/phoenix-0/partition.metadata")
[ -n "$new_id" ] && [ "$new_id" != "$old_id" ] || fail "broker 3's phoenix-0 still names the old topic id ($old_id / $new_id)"
for log in "$TMP"/cluster/broker-3/phoenix-0/*.log; do [ ! -s "$log" ] || fail "broker 3 serves old data in $log"; done
ls -d "$TMP"/cluster/broker-3/phoenix-0.*-delete >/dev/null 2>&1 || fail "broker 3 did not retire its old phoenix-0"

# 3. The admin commands.
"$G" topics --bootstrap-server "$BOOTSTRAP" --alter --topic fresh-1 --partitions 5 || fail "topics --alter --partitions 5"
[ "$("$G" topics --bootstrap-server "$B2" --describe --topic fresh-1 | grep -c $'\tLeader: [1-3]\t')" = 5 ] ||
  fail "fresh-1 does not have 5 led partitions after --alter"
"$G" topics --bootstrap-server "$BOOTSTRAP" --alter --topic fresh-1 --partitions 2 2>"$TMP/shrink.err" &&
  fail "shrinking a topic succeeded"
grep -q INVALID_PARTITIONS "$TMP/shrink.err" || fail "no INVALID_PARTITIONS: $(cat "$TMP/shrink.err")"
seq 1 10 | timeout 30 kcat -P -b "$BOOTSTRAP" -t fresh-2 -p 0 -X acks=all || fail "produce to fresh-2/0"
echo '{"partitions":[{"topic":"fresh-2","partition":0,"offset":4}],"version":1}' >"$TMP/trim.json"
"$G" delete-records --bootstrap-server "$BOOTSTRAP" --offset-json-file "$TMP/trim.json" >"$TMP/trim.out" || fail "delete-records: $(cat "$TMP/trim.out")"
grep -q $'^partition: fresh-2-0\tlow_watermark: 4$' "$TMP/trim.out" || fail "delete-records said: $(cat "$TMP/trim.out")"
[ "$(timeout 30 kcat -b "$B2" -Q -t fresh-2:0:-2 | sed -n 's/.*offset \([0-9-]*\).*/\1/p')" = 4 ] ||
  fail "the earliest offset of fresh-2/0 is not 4 after delete-records"
"$G" leader-election --bootstrap-server "$BOOTSTRAP" --election-type PREFERRED --all-topic-partitions >"$TMP/elect.out" ||
  fail "leader-election: $(cat "$TMP/elect.out")"
grep -q "^Valid replica already elected for partitions" "$TMP/elect.out" || fail "leader-election said: $(cat "$TMP/elect.out")"
stop_cluster
echo "PASS"
