#!/usr/bin/env bash
# Kafka 0.8's ZooKeeper-coordinated consumer on real sockets: two `gregor consume --zookeeper-group`
# processes join one group through the cluster's zk, split the topic's partitions by range (each
# claims its own under /consumers/billing/owners), print every record exactly once between them,
# and leave their offsets in /consumers/billing/offsets, read back with kazoo (python3-kazoo).
source "$(dirname "$0")/lib.sh" "$1"
PYTHON=/usr/bin/python3
"$PYTHON" -c "import kazoo" 2>/dev/null || fail "kazoo is not installed; it is needed by this test (Debian package python3-kazoo)"

start_cluster 3
ZK=127.0.0.1:$((PORT_BASE + 100))
"$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --create --topic orders --partitions 4 --replication-factor 3 >/dev/null ||
  fail "topics --create"

zk_py() {
  "$PYTHON" - "$ZK" "$@" <<'PY'
import sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1], timeout=10)
zk.start(timeout=15)
what = sys.argv[2]
base = "/consumers/billing"
try:
    if what == "members":
        print(len(zk.get_children(base + "/ids")) if zk.exists(base + "/ids") else 0)
    elif what == "owners":
        owners = set()
        for p in range(4):
            path = "%s/owners/orders/%d" % (base, p)
            if not zk.exists(path):
                sys.exit(1)
            data, stat = zk.get(path)
            assert stat.ephemeralOwner != 0, path + " is not ephemeral"
            owners.add(data.decode())
        print(len(owners))
    elif what == "offsets":
        total = 0
        for p in range(4):
            data, stat = zk.get("%s/offsets/orders/%d" % (base, p))
            assert stat.ephemeralOwner == 0, "offsets are persistent"
            total += int(data.decode())
        print(total)
    elif what == "registration":
        for m in zk.get_children(base + "/ids"):
            data, _ = zk.get(base + "/ids/" + m)
            print(data.decode())
finally:
    zk.stop()
PY
}

for c in 1 2; do
  "$GREGOR" consume --bootstrap-server "$BOOTSTRAP" --topic orders --zookeeper-group billing --zookeeper "$ZK" \
    --from-beginning --print-offset --timeout-ms 15000 >"$TMP/c$c.out" 2>"$TMP/c$c.log" &
  CHILD_PIDS+=($!)
done
two_members() { [ "$(zk_py members)" = 2 ]; }
two_owners() { [ "$(zk_py owners)" = 2 ]; }
until_true 30 two_members || fail "the two consumers did not both register under /consumers/billing/ids"
until_true 30 two_owners || fail "the four partitions are not owned by two members"
zk_py registration | tee "$TMP/registration.txt"
grep -q '"subscription":{"orders":1}' "$TMP/registration.txt" || fail "the registration is not 0.8's JSON"
echo "two members registered; owners/orders/0..3 held by two members"

for i in $(seq 1 400); do echo "k$i:v$i"; done | "$GREGOR" produce --bootstrap-server "$BOOTSTRAP" --topic orders --key-separator : ||
  fail "produce"
for p in "${CHILD_PIDS[@]}"; do wait "$p" || fail "a consumer failed"; done
CHILD_PIDS=()
n1=$(wc -l <"$TMP/c1.out")
n2=$(wc -l <"$TMP/c2.out")
echo "consumer 1 printed $n1 records, consumer 2 printed $n2"
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || fail "one consumer printed nothing: the partitions were not split"
[ "$((n1 + n2))" = 400 ] || fail "together they printed $((n1 + n2)) records, not 400"
[ "$(cut -f2 "$TMP/c1.out" "$TMP/c2.out" | sort -u | wc -l)" = 400 ] || fail "a record was printed twice or not at all"
p1=$(cut -d@ -f1 "$TMP/c1.out" | sort -u | tr '\n' ' ')
p2=$(cut -d@ -f1 "$TMP/c2.out" | sort -u | tr '\n' ' ')
echo "consumer 1 read partitions $p1; consumer 2 read partitions $p2"
for p in $p1; do case " $p2" in *" $p "*) fail "partition $p was read by both";; esac; done
total=$(zk_py offsets) || fail "the offsets are not in /consumers/billing/offsets/orders"
[ "$total" = 400 ] || fail "the offsets in zk add up to $total, not 400"
echo "offsets in /consumers/billing/offsets/orders add up to 400"
[ "$(zk_py members)" = 0 ] || fail "the consumers' registrations outlived them"
echo "PASS"
