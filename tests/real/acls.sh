#!/usr/bin/env bash
# Issue 17, part ACLs: a SASL cluster with the authorizer on (authorizer.class.name) and
# super.users=User:admin;User:ANONYMOUS (the brokers talk to each other as ANONYMOUS on their
# PLAINTEXT REPLICATION listener, where Gregor's CLI connects too). Without an ACL bob may not
# produce (TOPIC_AUTHORIZATION_FAILED); `gregor acls --add` lets bob write and alice read, kcat
# shows both; `gregor acls --remove` denies bob again; the ACLs are in zk as Kafka keeps them; and
# kafkajs' admin createAcls/describeAcls/deleteAcls round trip as a super user and are refused to
# a plain user.
source "$(dirname "$0")/lib.sh" "$1"
G="$GREGOR"
require kcat "Debian's kcat (librdkafka)"
require_kafkajs

start_cluster 3 --sasl --config sasl.plain.users=admin:admin-secret,alice:alice-secret,bob:bob-secret \
  --config authorizer.class.name=kafka.security.authorizer.AclAuthorizer --config 'super.users=User:admin;User:ANONYMOUS'
REPLICATION=127.0.0.1:$((PORT_BASE + 200))

kcat_as() {  # USER PASSWORD kcat-args...
  local user=$1 password=$2
  shift 2
  timeout 30 kcat -b "$BOOTSTRAP" -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=PLAIN \
    -X sasl.username="$user" -X sasl.password="$password" "$@"
}
# bob produces one line; true when it was acknowledged.
bob_produces() {  # VALUE
  echo "$1" | kcat_as bob bob-secret -P -t orders -X acks=all -X message.timeout.ms=5000 2>"$TMP/bob.err" &&
    ! grep -qi "fail\|error" "$TMP/bob.err"
}

"$G" topics --bootstrap-server "$REPLICATION" --create --topic orders --partitions 3 --replication-factor 3 >/dev/null ||
  fail "topics --create on the REPLICATION listener (User:ANONYMOUS, a super user)"

# No ACL: bob is refused.
bob_produces denied-1 && fail "bob produced without any ACL"
grep -qi "authorization failed" "$TMP/bob.err" || fail "bob was not told TOPIC_AUTHORIZATION_FAILED: $(tail -3 "$TMP/bob.err")"
# The superuser admin may.
echo "from-admin" | kcat_as admin admin-secret -P -t orders -X acks=all 2>"$TMP/admin.err" || fail "admin produce: $(cat "$TMP/admin.err")"

# ACLs: bob writes orders, alice reads it.
"$G" acls --bootstrap-server "$REPLICATION" --add --allow-principal User:bob --operation Write --topic orders \
  >"$TMP/add-bob.out" || fail "gregor acls --add for bob"
grep -q "principal=User:bob, host=\*, operation=WRITE, permissionType=ALLOW" "$TMP/add-bob.out" ||
  fail "acls --add did not show bob's ACL: $(cat "$TMP/add-bob.out")"
"$G" acls --bootstrap-server "$REPLICATION" --add --allow-principal User:alice --operation Read --topic ord \
  --resource-pattern-type prefixed >/dev/null || fail "gregor acls --add for alice (prefixed)"
ok=""
for i in $(seq 1 20); do
  if bob_produces "bob-$i"; then ok=1; break; fi
  sleep 0.5
done
[ -n "$ok" ] || fail "bob still could not produce after --add: $(tail -3 "$TMP/bob.err")"
kcat_as alice alice-secret -C -t orders -o beginning -e -q >"$TMP/alice.out" 2>"$TMP/alice.err" ||
  fail "alice consume: $(cat "$TMP/alice.err")"
grep -q "^bob-" "$TMP/alice.out" || fail "alice did not read bob's record: $(cat "$TMP/alice.out")"
grep -q "^from-admin" "$TMP/alice.out" || fail "alice did not read admin's record"
# alice may read, not write.
if echo "alice-x" | kcat_as alice alice-secret -P -t orders -X acks=all -X message.timeout.ms=5000 2>"$TMP/alice-p.err" &&
  ! grep -qi "fail\|error" "$TMP/alice-p.err"; then
  fail "alice produced with Read only"
fi

# In zk as Kafka keeps them.
/usr/bin/python3 - "127.0.0.1:$((PORT_BASE + 100))" >"$TMP/zk.txt" <<'PY' || fail "reading /kafka-acl with kazoo"
import sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1]); zk.start(timeout=20)
print(zk.get("/kafka-acl/Topic/orders")[0].decode())
print(zk.get("/kafka-acl-extended/prefixed/Topic/ord")[0].decode())
print(len(zk.get_children("/kafka-acl-changes")), len(zk.get_children("/kafka-acl-extended-changes")))
zk.stop()
PY
grep -Eq '"principal": *"User:bob"' "$TMP/zk.txt" && grep -Eq '"operation": *"Write"' "$TMP/zk.txt" &&
  grep -Eq '"permissionType": *"Allow"' "$TMP/zk.txt" || fail "/kafka-acl/Topic/orders is not Kafka's JSON: $(cat "$TMP/zk.txt")"
grep -Eq '"principal": *"User:alice"' "$TMP/zk.txt" || fail "/kafka-acl-extended/prefixed/Topic/ord: $(cat "$TMP/zk.txt")"

"$G" acls --bootstrap-server "$REPLICATION" --list >"$TMP/list.out" || fail "gregor acls --list"
grep -q "ResourcePattern(resourceType=TOPIC, name=ord, patternType=PREFIXED)" "$TMP/list.out" ||
  fail "acls --list: $(cat "$TMP/list.out")"

# --remove: bob is refused again.
"$G" acls --bootstrap-server "$REPLICATION" --remove --force --allow-principal User:bob --operation Write --topic orders \
  >/dev/null || fail "gregor acls --remove"
denied=""
for i in $(seq 1 20); do
  if ! bob_produces "bob-late-$i"; then denied=1; break; fi
  sleep 0.5
done
[ -n "$denied" ] || fail "bob could still produce after --remove"
grep -qi "authorization failed" "$TMP/bob.err" || fail "bob after --remove: $(tail -3 "$TMP/bob.err")"

# kafkajs' admin ACL calls.
export KAFKAJS_NO_PARTITIONER_WARNING=1
timeout 120 node "$CLIENTS/kafkajs_acls_test.js" "$BOOTSTRAP" admin admin-secret bob bob-secret || fail "kafkajs acls"

# The brokers kept replicating as User:ANONYMOUS (a super user).
"$G" topics --bootstrap-server "$REPLICATION" --describe --topic orders >"$TMP/describe.txt" || fail "topics --describe"
[ "$(grep -c 'Isr: [0-9],[0-9],[0-9]' "$TMP/describe.txt")" = 3 ] || fail "replication broke: $(cat "$TMP/describe.txt")"
stop_cluster
echo "PASS"
