#!/usr/bin/env bash
# The memory bound under abuse (issue 17): a broker and zk keep their resident size within 64 MiB
# of where it started while 100 hostile connections each (size prefixes only, slowloris, partial
# bodies, oversized sizes) and a flood of 2,000 handshakes hit them, and serve well-behaved clients
# afterwards; idle connections are closed after connections.max.idle.ms. See abuse.py.
source "$(dirname "$0")/lib.sh" "$1"
start_cluster 1 --config queued.max.request.bytes=104857600 --config connections.max.idle.ms=5000
zk_pid=$(sed -n "s/^zk: pid \([0-9]*\): .*/\1/p" "$TMP/cluster.log" | head -n 1)
/usr/bin/python3 "$(dirname "$0")/abuse.py" "$(broker_pid 1)" "$PORT_BASE" "$zk_pid" "$((PORT_BASE + 100))" 65536 ||
  fail "memory under abuse"
# The cluster works afterwards: a topic, a record written and read back.
"$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --create --topic after --partitions 1 --replication-factor 1 >/dev/null ||
  fail "topics --create after the abuse"
echo "still here" | "$GREGOR" produce --bootstrap-server "$BOOTSTRAP" --topic after || fail "produce after the abuse"
timeout 60 "$GREGOR" consume --bootstrap-server "$BOOTSTRAP" --topic after --from-beginning --max-messages 1 >"$TMP/got" ||
  fail "consume after the abuse"
[ "$(cat "$TMP/got")" = "still here" ] || fail "read back: $(cat "$TMP/got")"
# An idle connection (no bytes either way) is closed by the broker after connections.max.idle.ms.
/usr/bin/python3 - "$PORT_BASE" <<'PY' || fail "an idle connection was not closed within 5 s + 10 s"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(15)
start = time.time()
assert s.recv(1) == b"", "the broker sent bytes on an idle connection"
print(f"idle connection closed by the broker after {time.time() - start:.1f} s")
PY
grep -q "idle for more than connections.max.idle.ms=5000" "$TMP/cluster.log" || true
stop_cluster
echo "PASS"
