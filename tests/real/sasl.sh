#!/usr/bin/env bash
# Issue 17, "any client can delete data", part SASL: a cluster whose client listener is
# SASL_PLAINTEXT (gregor cluster up --sasl) lets in only clients that authenticate, with PLAIN
# (sasl.plain.users) or SCRAM-SHA-256/512 (credentials in zk /config/users/NAME, written by
# `gregor configs --entity-type users`), as stock clients do it: kcat (librdkafka) and kafkajs.
# A wrong password is refused with SASL_AUTHENTICATION_FAILED's message, a client that does not
# authenticate gets nothing but ApiVersions, and the brokers still replicate on their PLAINTEXT
# REPLICATION listener.
source "$(dirname "$0")/lib.sh" "$1"
G="$GREGOR"
require kcat "Debian's kcat (librdkafka)"
require node "Debian's nodejs"
CLIENTS="$(cd "$(dirname "$0")/../clients" && pwd)"
[ -f "$CLIENTS/node_modules/kafkajs/package.json" ] ||
  fail "kafkajs is not installed in $CLIENTS (make test installs it; or: cd tests/clients && npm ci)"

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
echo "PASS"
