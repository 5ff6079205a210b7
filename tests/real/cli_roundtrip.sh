#!/usr/bin/env bash
# A 3-broker cluster from `gregor cluster up`; topic creation, list and describe; a produce/consume
# round trip with Gregor's own CLI, by hand-assigned partitions and in a group that resumes from its
# commits; groups --describe.
source "$(dirname "$0")/lib.sh" "$1"

start_cluster 3
G="$GREGOR"
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic orders --partitions 3 --replication-factor 3 \
  --config min.insync.replicas=2 >"$TMP/create.out" || fail "topics --create"
grep -qx "Created topic orders." "$TMP/create.out" || fail "topics --create said: $(cat "$TMP/create.out")"
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic orders --partitions 3 --replication-factor 3 2>"$TMP/again.err" &&
  fail "creating an existing topic succeeded"
grep -q "already exists" "$TMP/again.err" || fail "no 'already exists' error: $(cat "$TMP/again.err")"
"$G" topics --bootstrap-server "$BOOTSTRAP" --list | grep -qx orders || fail "topics --list lacks orders"
"$G" topics --bootstrap-server "$BOOTSTRAP" --describe --topic orders >"$TMP/describe.out"
cat "$TMP/describe.out"
[ "$(grep -c $'^\tTopic: orders\tPartition: [0-2]\tLeader: [1-3]\tReplicas: [1-3],[1-3],[1-3]\tIsr: [1-3],[1-3],[1-3]$' "$TMP/describe.out")" = 3 ] ||
  fail "describe does not show 3 fully replicated partitions"
grep -q $'^Topic: orders\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: min.insync.replicas=2$' "$TMP/describe.out" ||
  fail "describe does not show the topic's min.insync.replicas=2"

# kafka-configs: change a topic config at run time, read it back, refuse a bad one.
"$G" configs --bootstrap-server "$BOOTSTRAP" --entity-type topics --entity-name orders --alter \
  --add-config retention.ms=3600000,min.insync.replicas=1 >"$TMP/alter.out" || fail "configs --alter"
grep -qx "Completed updating config for topic orders." "$TMP/alter.out" || fail "configs --alter said: $(cat "$TMP/alter.out")"
"$G" configs --bootstrap-server "$BOOTSTRAP" --entity-type topics --entity-name orders --alter \
  --delete-config min.insync.replicas >/dev/null || fail "configs --alter --delete-config"
"$G" configs --bootstrap-server "$BOOTSTRAP" --topic orders --describe >"$TMP/configs.out" || fail "configs --describe"
cat "$TMP/configs.out"
grep -q "^  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000" "$TMP/configs.out" ||
  fail "configs --describe lacks retention.ms=3600000"
! grep -q "min.insync.replicas" "$TMP/configs.out" || fail "the deleted min.insync.replicas override is still listed"
"$G" configs --bootstrap-server "$BOOTSTRAP" --topic orders --alter --add-config min.insync.replicas=0 2>"$TMP/bad.err" &&
  fail "min.insync.replicas=0 was accepted"
grep -q "INVALID_CONFIG" "$TMP/bad.err" || fail "no INVALID_CONFIG for min.insync.replicas=0: $(cat "$TMP/bad.err")"
"$G" configs --bootstrap-server "$BOOTSTRAP" --entity-type brokers --entity-name 1 --describe --all >"$TMP/broker.out" ||
  fail "configs --describe of broker 1"
grep -q "^  replica.lag.time.max.ms=" "$TMP/broker.out" || fail "broker 1's configs lack replica.lag.time.max.ms"

seq 1 200 | sed 's/.*/key-&:value-&/' >"$TMP/sent.txt"
"$G" produce --bootstrap-server "$BOOTSTRAP" --topic orders --acks all --key-separator : <"$TMP/sent.txt" ||
  fail "produce failed"
timeout 60 "$G" consume --bootstrap-server "$BOOTSTRAP" --topic orders --from-beginning --max-messages 200 \
  --print-key >"$TMP/got.txt" || fail "consume failed"
diff <(sed 's/:/\t/' "$TMP/sent.txt" | sort) <(sort "$TMP/got.txt") || fail "consumed records differ from produced ones"
# read_committed (Fetch and ListOffsets isolation_level 1): without transactions, the same records.
timeout 60 "$G" consume --bootstrap-server "$BOOTSTRAP" --topic orders --from-beginning --max-messages 200 \
  --print-key --isolation-level read_committed >"$TMP/got-committed.txt" || fail "read_committed consume failed"
diff <(sort "$TMP/got.txt") <(sort "$TMP/got-committed.txt") || fail "read_committed consume differs"
"$G" consume --bootstrap-server "$BOOTSTRAP" --topic orders --isolation-level bogus --max-messages 1 2>/dev/null &&
  fail "consume took --isolation-level bogus"

# A group: reads 120 now, the other 80 in a second run that resumes from the committed offsets.
timeout 60 "$G" consume --bootstrap-server "$BOOTSTRAP" --topic orders --group g1 --from-beginning \
  --max-messages 120 >"$TMP/g1a.txt" || fail "group consume 1"
timeout 60 "$G" consume --bootstrap-server "$BOOTSTRAP" --topic orders --group g1 --from-beginning \
  --max-messages 80 >"$TMP/g1b.txt" || fail "group consume 2"
[ "$(wc -l <"$TMP/g1a.txt")" = 120 ] || fail "first group run got $(wc -l <"$TMP/g1a.txt") records"
diff <(cut -d: -f2 "$TMP/sent.txt" | sort) <(cat "$TMP/g1a.txt" "$TMP/g1b.txt" | sort) ||
  fail "the group's two runs do not add up to every record exactly once"
timeout 30 "$G" consume --bootstrap-server "$BOOTSTRAP" --topic orders --group g1 --timeout-ms 3000 >"$TMP/g1c.txt" ||
  fail "group consume 3"
[ ! -s "$TMP/g1c.txt" ] || fail "a third run after everything was committed got records: $(head -3 "$TMP/g1c.txt")"

if "$G" groups --bootstrap-server "$BOOTSTRAP" --describe --group g1 >"$TMP/groups.out" 2>"$TMP/groups.err"; then
  cat "$TMP/groups.out"
  grep -q "^GROUP .*TOPIC.*PARTITION.*CURRENT-OFFSET.*LOG-END-OFFSET.*LAG" "$TMP/groups.out" || fail "groups --describe header"
  [ "$(awk '$1=="g1" && $2=="orders" {lag+=$6} END {print lag+0}' "$TMP/groups.out")" = 0 ] || fail "group g1 has lag"
else
  cat "$TMP/groups.err" >&2
  fail "groups --describe"
fi
stop_cluster
echo "PASS"
