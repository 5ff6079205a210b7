#!/usr/bin/env bash
# kafka-reassign-partitions on real sockets: a partition on brokers 1,2,3 of a 4-broker cluster
# moves to 2,3,4 (gregor reassign-partitions --execute) while kcat writes to it with acks=all and
# idempotence; --list and --verify follow the move; broker 1 deletes its copy; every record kcat
# had acknowledged is read back after the move. Then --generate proposes a placement, and a
# cancellation of a move that has none says NO_REASSIGNMENT_IN_PROGRESS.
source "$(dirname "$0")/lib.sh" "$1"
require kcat "Debian's kcat"

start_cluster 4
G="$GREGOR"
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic moving --partitions 1 --replication-factor 3 >/dev/null ||
  fail "create moving"
move() {  # move REPLICAS (comma-separated) FILE
  echo "{\"version\":1,\"partitions\":[{\"topic\":\"moving\",\"partition\":0,\"replicas\":[$1]}]}" >"$2"
  "$G" reassign-partitions --bootstrap-server "$BOOTSTRAP" --execute --reassignment-json-file "$2" >"$2.out" ||
    fail "reassign-partitions --execute to $1: $(cat "$2.out")"
}
completed() { "$G" reassign-partitions --bootstrap-server "$BOOTSTRAP" --verify --reassignment-json-file "$1" | grep -q "is completed"; }
# Put the partition on 1,2,3 first (wherever the topic's creation placed it).
move 1,2,3 "$TMP/first.json"
until_true 60 completed "$TMP/first.json" || fail "the partition did not settle on 1,2,3"
"$G" topics --bootstrap-server "$BOOTSTRAP" --describe --topic moving | grep -q $'\tReplicas: 1,2,3\t' ||
  fail "moving-0 is not on 1,2,3: $("$G" topics --bootstrap-server "$BOOTSTRAP" --describe --topic moving)"

# kcat writes batches of records with acks=all while the partition moves; a batch whose kcat exits
# 0 was acknowledged whole.
load() {
  local b=0
  while [ ! -f "$TMP/stop-load" ] && [ $b -lt 200 ]; do
    b=$((b + 1))
    seq 1 200 | sed "s/^/b$b-/" >"$TMP/batch-$b.txt"
    if timeout 60 kcat -P -b "$BOOTSTRAP" -t moving -p 0 -X acks=all -X enable.idempotence=true -X message.timeout.ms=50000 \
      -l "$TMP/batch-$b.txt" 2>>"$TMP/kcat.err"; then
      cat "$TMP/batch-$b.txt" >>"$TMP/acked.txt"
    fi
  done
}
load &
LOAD=$!
CHILD_PIDS+=($LOAD)
until_true 30 test -s "$TMP/acked.txt" || fail "kcat got nothing acknowledged before the move"

move 2,3,4 "$TMP/move.json"
grep -q "Successfully started partition reassignments for moving-0" "$TMP/move.json.out" ||
  fail "--execute did not say it started: $(cat "$TMP/move.json.out")"
grep -q '"replicas":\[1,2,3\]' "$TMP/move.json.out" || fail "--execute did not print the current assignment for a rollback"
until_true 120 completed "$TMP/move.json" || fail "the move to 2,3,4 did not complete: $("$G" reassign-partitions --bootstrap-server "$BOOTSTRAP" --list)"
touch "$TMP/stop-load"
wait $LOAD || true
"$G" reassign-partitions --bootstrap-server "$BOOTSTRAP" --list | grep -q "No partition reassignments found" ||
  fail "--list still shows a reassignment"
describe=$("$G" topics --bootstrap-server "$BOOTSTRAP" --describe --topic moving)
echo "$describe" | grep -q $'\tReplicas: 2,3,4\t' || fail "moving-0 is not on 2,3,4 after the move: $describe"
echo "$describe" | grep -Eq $'\tLeader: [234]\t' || fail "moving-0 is not led by 2, 3 or 4: $describe"
until_true 60 bash -c "! ls -d '$TMP'/cluster/broker-1/moving-0 >/dev/null 2>&1" || fail "broker 1 kept its copy of moving-0"
until_true 60 test -d "$TMP/cluster/broker-4/moving-0" || fail "broker 4 has no copy of moving-0"

# Every acknowledged record is there, read from the new replicas.
acked=$(wc -l <"$TMP/acked.txt")
[ "$acked" -ge 400 ] || fail "only $acked records were acknowledged under the move"
timeout 60 kcat -C -b "$BOOTSTRAP" -t moving -p 0 -o beginning -e -f '%s\n' >"$TMP/read.txt" 2>"$TMP/kcat-read.err" ||
  fail "kcat -C: $(cat "$TMP/kcat-read.err")"
missing=$(comm -23 <(sort -u "$TMP/acked.txt") <(sort -u "$TMP/read.txt") | wc -l)
[ "$missing" = 0 ] || fail "$missing acknowledged records are missing after the move, e.g. $(comm -23 <(sort -u "$TMP/acked.txt") <(sort -u "$TMP/read.txt") | head -3 | tr '\n' ' ')"
echo "all $acked acknowledged records read back after the move from 1,2,3 to 2,3,4"

# --generate proposes; --cancel with no move in progress is refused as Kafka refuses it.
echo '{"version":1,"topics":[{"topic":"moving"}]}' >"$TMP/topics.json"
"$G" reassign-partitions --bootstrap-server "$BOOTSTRAP" --generate --topics-to-move-json-file "$TMP/topics.json" \
  --broker-list 1,2,3 >"$TMP/generate.out" || fail "--generate: $(cat "$TMP/generate.out")"
grep -q "Proposed partition reassignment configuration" "$TMP/generate.out" || fail "--generate printed no proposal"
proposal=$(tail -n 1 "$TMP/generate.out")
echo "$proposal" | grep -q '"replicas":\[[123],[123],[123]\]' || fail "--generate proposed other brokers than 1,2,3: $proposal"
if "$G" reassign-partitions --bootstrap-server "$BOOTSTRAP" --cancel --reassignment-json-file "$TMP/move.json" >"$TMP/cancel.out"; then
  fail "--cancel with nothing to cancel succeeded"
fi
grep -q "NO_REASSIGNMENT_IN_PROGRESS" "$TMP/cancel.out" || fail "--cancel did not say NO_REASSIGNMENT_IN_PROGRESS: $(cat "$TMP/cancel.out")"
# A bad file: the file and the problem, exit 2.
echo '{"version":1,"partitions":[{"topic":"moving"}]}' >"$TMP/bad.json"
set +e
"$G" reassign-partitions --bootstrap-server "$BOOTSTRAP" --execute --reassignment-json-file "$TMP/bad.json" 2>"$TMP/bad.err"
rc=$?
set -e
[ $rc = 2 ] && grep -q "bad.json" "$TMP/bad.err" || fail "a malformed file: exit $rc, $(cat "$TMP/bad.err")"
stop_cluster
echo "PASS"
