#!/usr/bin/env bash
# Issue 17, "any client can delete data", part SASL: a cluster whose client listener is
# SASL_PLAINTEXT (gregor cluster up --sasl) lets in only clients that authenticate, with PLAIN
# (sasl.plain.users) or SCRAM-SHA-256/512 (credentials in zk /config/users/NAME, written by
# `gregor configs --entity-type users`), as stock clients do it: kcat (librdkafka) and kafkajs.
# A wrong password is refused with SASL_AUTHENTICATION_FAILED's message, a client that does not
# authenticate gets nothing but ApiVersions, and the brokers still replicate on their PLAINTEXT
# REPLICATION listener. Gregor's own tools authenticate too (--command-config, --producer.config,
# --consumer.config: Kafka's client properties files). Then a cluster whose REPLICATION listener is
# SASL_PLAINTEXT as well (--sasl-inter-broker): the brokers authenticate to each other, replicate,
# and survive a kill -9 of a partition leader with every acks=all record kept.
source "$(dirname "$0")/lib.sh" "$1"
G="$GREGOR"
require kcat "Debian's kcat (librdkafka)"
require_kafkajs

start_cluster 3 --sasl --config sasl.plain.users=alice:alice-secret,admin:admin-secret
grep -q "CLIENT:SASL_PLAINTEXT" "$TMP/cluster.log" || fail "cluster up --sasl did not make CLIENT a SASL_PLAINTEXT listener"
REPLICATION=127.0.0.1:$((PORT_BASE + 200))

kcat_as() {  # MECHANISM USER PASSWORD kcat-args...
  local mechanism=$1 user=$2 password=$3
  shift 3
  timeout 60 kcat -b "$BOOTSTRAP" -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms="$mechanism" \
    -X sasl.username="$user" -X sasl.password="$password" "$@"
}

"$G" topics --bootstrap-server "$REPLICATION" --create --topic secured --partitions 3 --replication-factor 3 >/dev/null ||
  fail "topics --create on the REPLICATION listener"

# --- PLAIN -------------------------------------------------------------------------------------
seq 1 200 | sed 's/^/plain-/' >"$TMP/plain-sent.txt"
kcat_as PLAIN alice alice-secret -P -t secured -X acks=all <"$TMP/plain-sent.txt" 2>"$TMP/kcat-plain-produce.err" ||
  fail "kcat PLAIN produce: $(cat "$TMP/kcat-plain-produce.err")"
kcat_as PLAIN alice alice-secret -C -t secured -o beginning -e -q >"$TMP/plain-got.txt" 2>"$TMP/kcat-plain-consume.err" ||
  fail "kcat PLAIN consume: $(cat "$TMP/kcat-plain-consume.err")"
diff <(sort "$TMP/plain-sent.txt") <(grep '^plain-' "$TMP/plain-got.txt" | sort) >/dev/null ||
  fail "kcat PLAIN read back $(grep -c '^plain-' "$TMP/plain-got.txt") of 200 records"

# A wrong password, an unknown user: refused with Kafka's message, and nothing listed.
if kcat_as PLAIN alice wrong-password -L -m 10 >"$TMP/wrong.out" 2>"$TMP/wrong.err"; then
  fail "kcat PLAIN with a wrong password listed metadata"
fi
grep -q "Invalid username or password" "$TMP/wrong.err" ||
  fail "kcat PLAIN with a wrong password was not told 'Invalid username or password': $(tail -3 "$TMP/wrong.err")"
grep -q "secured" "$TMP/wrong.out" && fail "a refused client saw topic metadata"
if kcat_as PLAIN mallory alice-secret -L -m 10 >/dev/null 2>"$TMP/unknown.err"; then
  fail "kcat PLAIN as an unknown user listed metadata"
fi
# No SASL at all on the SASL listener: only ApiVersions is answered, the Metadata request closes it.
if timeout 30 kcat -b "$BOOTSTRAP" -L -m 5 >"$TMP/nosasl.out" 2>&1; then
  fail "kcat without SASL listed metadata on the SASL_PLAINTEXT listener"
fi
grep -q "secured" "$TMP/nosasl.out" && fail "a client without SASL saw topic metadata"
# A mechanism the broker does not offer.
if kcat_as SCRAM-SHA-1 alice alice-secret -L -m 10 >/dev/null 2>"$TMP/mech.err"; then
  fail "kcat with SCRAM-SHA-1 listed metadata"
fi

# --- SCRAM -------------------------------------------------------------------------------------
"$G" configs --bootstrap-server "$REPLICATION" --entity-type users --entity-name bob --alter \
  --add-config 'SCRAM-SHA-256=[iterations=8192,password=bob-secret],SCRAM-SHA-512=[password=bob-secret-512]' ||
  fail "gregor configs --entity-type users --alter"
# Stored as Kafka stores it: salt, stored and server keys, iterations; never the password.
/usr/bin/python3 - "127.0.0.1:$((PORT_BASE + 100))" >"$TMP/bob.json" <<'PY' || fail "reading /config/users/bob with kazoo"
import sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1]); zk.start(timeout=20)
print(zk.get("/config/users/bob")[0].decode()); zk.stop()
PY
grep -Eq '"SCRAM-SHA-256": *"salt=[A-Za-z0-9+/=]+,stored_key=[A-Za-z0-9+/=]+,server_key=[A-Za-z0-9+/=]+,iterations=8192"' "$TMP/bob.json" ||
  fail "/config/users/bob is not Kafka's SCRAM credential: $(cat "$TMP/bob.json")"
grep -q "bob-secret" "$TMP/bob.json" && fail "/config/users/bob holds the password"
for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
  password=bob-secret
  [ $mechanism = SCRAM-SHA-512 ] && password=bob-secret-512
  seq 1 100 | sed "s/^/$mechanism-/" >"$TMP/$mechanism-sent.txt"
  kcat_as $mechanism bob $password -P -t secured -X acks=all <"$TMP/$mechanism-sent.txt" 2>"$TMP/kcat-$mechanism.err" ||
    fail "kcat $mechanism produce: $(cat "$TMP/kcat-$mechanism.err")"
  kcat_as $mechanism bob $password -C -t secured -o beginning -e -q >"$TMP/$mechanism-got.txt" 2>>"$TMP/kcat-$mechanism.err" ||
    fail "kcat $mechanism consume: $(cat "$TMP/kcat-$mechanism.err")"
  [ "$(grep -c "^$mechanism-" "$TMP/$mechanism-got.txt")" = 100 ] || fail "kcat $mechanism read back too few records"
  if kcat_as $mechanism bob wrong-password -L -m 10 >/dev/null 2>"$TMP/wrong-$mechanism.err"; then
    fail "kcat $mechanism with a wrong password listed metadata"
  fi
  grep -q "invalid credentials with SASL mechanism $mechanism" "$TMP/wrong-$mechanism.err" ||
    fail "kcat $mechanism with a wrong password: not Kafka's message: $(tail -3 "$TMP/wrong-$mechanism.err")"
done
# SCRAM for a user without credentials (alice is a PLAIN user only).
if kcat_as SCRAM-SHA-256 alice alice-secret -L -m 10 >/dev/null 2>"$TMP/nocred.err"; then
  fail "kcat SCRAM-SHA-256 for a user without SCRAM credentials listed metadata"
fi
# Removing the credential locks bob out of SCRAM-SHA-256 at his next connection.
"$G" configs --bootstrap-server "$REPLICATION" --entity-type users --entity-name bob --alter --delete-config SCRAM-SHA-256 ||
  fail "gregor configs --delete-config SCRAM-SHA-256"
if kcat_as SCRAM-SHA-256 bob bob-secret -L -m 10 >/dev/null 2>&1; then
  fail "bob's deleted SCRAM-SHA-256 credential still let him in"
fi
kcat_as SCRAM-SHA-512 bob bob-secret-512 -L -m 10 >/dev/null 2>&1 || fail "deleting SCRAM-SHA-256 also removed bob's SCRAM-SHA-512"
"$G" configs --bootstrap-server "$REPLICATION" --entity-type users --entity-name carol --alter \
  --add-config 'SCRAM-SHA-256=[iterations=100,password=x]' 2>"$TMP/few.err" && fail "100 iterations were accepted"
grep -q "UNACCEPTABLE_CREDENTIAL" "$TMP/few.err" || fail "too few iterations: $(cat "$TMP/few.err")"

# --- kafkajs -----------------------------------------------------------------------------------
"$G" configs --bootstrap-server "$REPLICATION" --entity-type users --entity-name dave --alter \
  --add-config 'SCRAM-SHA-256=[password=dave-secret]' >/dev/null || fail "adding dave"
export KAFKAJS_NO_PARTITIONER_WARNING=1
timeout 120 node "$CLIENTS/kafkajs_sasl_test.js" "$BOOTSTRAP" plain alice alice-secret secured ok || fail "kafkajs plain"
timeout 120 node "$CLIENTS/kafkajs_sasl_test.js" "$BOOTSTRAP" scram-sha-256 dave dave-secret secured ok || fail "kafkajs scram-sha-256"
timeout 120 node "$CLIENTS/kafkajs_sasl_test.js" "$BOOTSTRAP" plain alice wrong secured wrong || fail "kafkajs plain, wrong password"
timeout 120 node "$CLIENTS/kafkajs_sasl_test.js" "$BOOTSTRAP" scram-sha-256 dave wrong secured wrong ||
  fail "kafkajs scram-sha-256, wrong password"

# The brokers kept replicating on REPLICATION: every replica of every partition is in sync.
"$G" topics --bootstrap-server "$REPLICATION" --describe --topic secured >"$TMP/describe.txt" || fail "topics --describe"
[ "$(grep -c 'Isr: [0-9],[0-9],[0-9]' "$TMP/describe.txt")" = 3 ] || fail "replication broke: $(cat "$TMP/describe.txt")"
stop_cluster

# --- Gregor's own clients on the SASL listener -------------------------------------------------
cat >"$TMP/alice.properties" <<'PROPS'
# kafka-topics --command-config style
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
    username="alice" password="alice-secret";
PROPS
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.username=bob\nsasl.password=bob-secret-512\n' \
  >"$TMP/bob.properties"
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username=alice\nsasl.password=nope\n' >"$TMP/wrong.properties"
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\nsasl.username=alice\nsasl.password=alice-secret\n' \
  >"$TMP/mechanism.properties"
printf 'security.protocol=SASL_PLAINTEXT\n\nsasl.mechanism PLAIN\n' >"$TMP/malformed.properties"
start_cluster 3 --sasl --config sasl.plain.users=alice:alice-secret --config sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512
REPLICATION=127.0.0.1:$((PORT_BASE + 200))
"$G" configs --bootstrap-server "$REPLICATION" --entity-type users --entity-name bob --alter \
  --add-config 'SCRAM-SHA-512=[password=bob-secret-512]' >/dev/null || fail "adding bob"
"$G" topics --bootstrap-server "$BOOTSTRAP" --command-config "$TMP/alice.properties" --create --topic cli \
  --partitions 2 --replication-factor 3 >/dev/null || fail "gregor topics --create with --command-config (PLAIN)"
"$G" topics --bootstrap-server "$BOOTSTRAP" --command-config "$TMP/bob.properties" --list >"$TMP/cli-list.txt" ||
  fail "gregor topics --list with --command-config (SCRAM-SHA-512)"
grep -qx cli "$TMP/cli-list.txt" || fail "topics --list over SASL did not list cli: $(cat "$TMP/cli-list.txt")"
seq 1 300 | sed 's/^/cli-/' | "$G" produce --bootstrap-server "$BOOTSTRAP" --producer.config "$TMP/alice.properties" \
  --topic cli --acks all >/dev/null 2>"$TMP/cli-produce.err" || fail "gregor produce over SASL: $(cat "$TMP/cli-produce.err")"
timeout 60 "$G" consume --bootstrap-server "$BOOTSTRAP" --consumer.config "$TMP/bob.properties" --topic cli \
  --from-beginning --max-messages 300 --timeout-ms 10000 >"$TMP/cli-got.txt" 2>"$TMP/cli-consume.err" ||
  fail "gregor consume over SASL: $(cat "$TMP/cli-consume.err")"
[ "$(grep -c '^cli-' "$TMP/cli-got.txt")" = 300 ] || fail "gregor consume over SASL read $(grep -c '^cli-' "$TMP/cli-got.txt") of 300"
"$G" configs --bootstrap-server "$BOOTSTRAP" --command-config "$TMP/alice.properties" --entity-type topics \
  --entity-name cli --describe >/dev/null || fail "gregor configs --describe with --command-config"
# Refused: the server's message, at once (a bad password is not retried until the timeout).
start=$SECONDS
"$G" topics --bootstrap-server "$BOOTSTRAP" --command-config "$TMP/wrong.properties" --list >/dev/null 2>"$TMP/cli-wrong.err" &&
  fail "gregor topics with a wrong password listed topics"
grep -q "SASL_AUTHENTICATION_FAILED: Authentication failed: Invalid username or password" "$TMP/cli-wrong.err" ||
  fail "gregor topics with a wrong password: $(cat "$TMP/cli-wrong.err")"
[ $((SECONDS - start)) -lt 10 ] || fail "a wrong password took $((SECONDS - start)) s to report"
echo cli-x | timeout 60 "$G" produce --bootstrap-server "$BOOTSTRAP" --producer.config "$TMP/wrong.properties" \
  --topic cli >/dev/null 2>"$TMP/cli-wrong-produce.err" && fail "gregor produce with a wrong password succeeded"
grep -q "SASL_AUTHENTICATION_FAILED" "$TMP/cli-wrong-produce.err" || fail "produce, wrong password: $(cat "$TMP/cli-wrong-produce.err")"
"$G" topics --bootstrap-server "$BOOTSTRAP" --command-config "$TMP/mechanism.properties" --list >/dev/null \
  2>"$TMP/cli-mech.err" && fail "a mechanism the brokers do not enable listed topics"
grep -q "UNSUPPORTED_SASL_MECHANISM: Client SASL mechanism 'SCRAM-SHA-256' not enabled in the server" "$TMP/cli-mech.err" ||
  fail "unsupported mechanism: $(cat "$TMP/cli-mech.err")"
# A malformed properties file: its name and line, exit 2.
set +e
"$G" topics --bootstrap-server "$BOOTSTRAP" --command-config "$TMP/malformed.properties" --list >/dev/null 2>"$TMP/cli-bad.err"
rc=$?
set -e
[ $rc = 2 ] || fail "a malformed --command-config exited $rc, not 2"
grep -q "malformed.properties:3: expected key=value" "$TMP/cli-bad.err" || fail "malformed file: $(cat "$TMP/cli-bad.err")"
stop_cluster

# --- SASL between the brokers ------------------------------------------------------------------
start_cluster 3 --sasl-inter-broker --config sasl.plain.users=alice:alice-secret \
  --config zookeeper.session.timeout.ms=6000 --config min.insync.replicas=2
grep -q "REPLICATION:SASL_PLAINTEXT" "$TMP/cluster.log" || fail "--sasl-inter-broker did not make REPLICATION SASL_PLAINTEXT"
REPLICATION=127.0.0.1:$((PORT_BASE + 200))
BROKER_PROPS="$TMP/cluster/broker-client.properties"
[ -f "$BROKER_PROPS" ] || fail "cluster up --sasl-inter-broker wrote no broker-client.properties"
# Nobody gets in on REPLICATION with a wrong password.
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username=broker\nsasl.password=guess\n' >"$TMP/guess.properties"
"$G" topics --bootstrap-server "$REPLICATION" --command-config "$TMP/guess.properties" --list >/dev/null 2>&1 &&
  fail "REPLICATION let in a guessed broker password"
"$G" topics --bootstrap-server "$REPLICATION" --command-config "$BROKER_PROPS" --create --topic ib --partitions 1 \
  --replication-factor 3 --config min.insync.replicas=2 >/dev/null || fail "topics --create on the SASL REPLICATION listener"
# Every broker's CLIENT listener: the leader (maybe broker 1, $BOOTSTRAP) is killed below.
ALL_CLIENT=127.0.0.1:$PORT_BASE,127.0.0.1:$((PORT_BASE + 1)),127.0.0.1:$((PORT_BASE + 2))
describe_ib() { "$G" topics --bootstrap-server "$ALL_CLIENT" --command-config "$TMP/alice.properties" --describe --topic ib; }
isr_full() { describe_ib | grep -q $'Isr: [1-3],[1-3],[1-3]$'; }
until_true 60 isr_full || fail "the followers did not join the ISR over SASL: $(describe_ib)"
leader=$(describe_ib | sed -n 's/.*Partition: 0\tLeader: \([0-9]*\).*/\1/p')
[ -n "$leader" ] || fail "no leader for ib-0"
pid=$(broker_pid "$leader")
[ -n "$pid" ] || fail "no pid for broker $leader"
mkfifo "$TMP/ib-input"
"$G" produce --bootstrap-server "$ALL_CLIENT" --producer.config "$TMP/alice.properties" --topic ib --acks all \
  --print-offsets --producer-property linger.ms=1 <"$TMP/ib-input" >"$TMP/ib-acks.txt" 2>"$TMP/ib-producer.log" &
PRODUCER=$!
CHILD_PIDS+=($PRODUCER)
exec 3>"$TMP/ib-input"
n=0
for chunk in $(seq 1 30); do
  for i in $(seq 1 50); do
    n=$((n + 1))
    echo "ib-$n" >&3
  done
  if [ "$chunk" = 10 ]; then
    until_true 30 test -s "$TMP/ib-acks.txt" || fail "nothing was acknowledged before the kill"
    echo "kill -9 broker $leader (leader of ib-0) after $(wc -l <"$TMP/ib-acks.txt") acknowledged records"
    kill -9 "$pid"
  fi
  sleep 0.1
done
exec 3>&-
deadline=$((SECONDS + 150))
while kill -0 $PRODUCER 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "the producer did not finish within 150 s"
  sleep 0.2
done
wait $PRODUCER || echo "the producer reports failed records (allowed: only acknowledged ones count)"
acked=$(wc -l <"$TMP/ib-acks.txt")
echo "$acked of $n records acknowledged"
[ "$acked" -gt $((n / 2)) ] || fail "only $acked of $n records acknowledged: no new leader over SASL?"
new_leader=$(describe_ib | sed -n 's/.*Partition: 0\tLeader: \([0-9]*\).*/\1/p')
[ -n "$new_leader" ] && [ "$new_leader" != "$leader" ] || fail "no new leader after the kill (leader: '$new_leader')"
timeout 60 "$G" consume --bootstrap-server "$ALL_CLIENT" --consumer.config "$TMP/alice.properties" --topic ib \
  --from-beginning --timeout-ms 5000 >"$TMP/ib-consumed.txt" 2>"$TMP/ib-consume.err" || fail "consume: $(cat "$TMP/ib-consume.err")"
missing=$(comm -23 <(cut -f1 "$TMP/ib-acks.txt" | sort -u) <(sort -u "$TMP/ib-consumed.txt") | wc -l)
[ "$missing" = 0 ] || fail "$missing acknowledged records are missing after the leader's kill"
echo "inter-broker SASL: all $acked acknowledged records kept after broker $leader's kill -9; new leader $new_leader"
stop_cluster
echo "PASS"
