#!/usr/bin/env bash
# Issue 17: the controller's requests on a listener of their own (Kafka's control.plane.listener.name).
# A cluster with three listeners per broker, CLIENT, REPLICATION and CONTROL (cluster up
# --control-plane-listener). The controller must send LeaderAndIsr, UpdateMetadata and StopReplica to
# the other brokers' CONTROL listeners, on connections of their own:
# 1. the controller's process, and no other, holds a connection to every other broker's CONTROL port;
# 2. a kill -9 of a leader that is not the controller: the new leader is told on CONTROL, and every
#    acknowledged record is read back.
source "$(dirname "$0")/lib.sh" "$1"
G="$GREGOR"
require ss "iproute2"
require python3 "reading /controller with kazoo"

start_cluster 3 --control-plane-listener --config zookeeper.session.timeout.ms=6000
# Every broker's CLIENT address: the broker killed below may be broker 1, whose address alone is
# $BOOTSTRAP (the test failed whenever broker 1 led the first partition not led by the controller).
EVERY_BROKER=$(sed -n 's/^cluster ready: .* bootstrap \([^ ]*\), data under .*/\1/p' "$TMP/cluster.log")
[ -n "$EVERY_BROKER" ] || fail "no bootstrap list in the cluster log"
grep -q "control.plane.listener.name=CONTROL" "$TMP/cluster.log" || fail "cluster up did not set control.plane.listener.name"
control_port() { echo $((PORT_BASE + 300 + $1 - 1)); }

controller_id() {
  /usr/bin/python3 - "127.0.0.1:$((PORT_BASE + 100))" <<'PY'
import json, sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1])
zk.start(timeout=20)
data, _ = zk.get("/controller")
print(json.loads(data)["brokerid"])
zk.stop()
PY
}
# The pids of the processes holding an established connection to 127.0.0.1:PORT.
clients_of_port() { ss -Htnp state established "( dport = :$1 )" | grep -o 'pid=[0-9]*' | sort -u | sed 's/pid=//'; }

"$G" topics --bootstrap-server "$EVERY_BROKER" --create --topic cp --partitions 3 --replication-factor 3 \
  --config min.insync.replicas=2 >/dev/null || fail "topics --create"
records=0
produce_some() {  # N
  local from=$((records + 1)) to=$((records + $1))
  seq $from $to | sed 's/.*/key-&:value-&/' >>"$TMP/sent.txt"
  seq $from $to | sed 's/.*/key-&:value-&/' |
    "$G" produce --bootstrap-server "$EVERY_BROKER" --topic cp --acks all --key-separator : ||
    fail "produce of records $from..$to failed"
  records=$to
}
produce_some 300

controller=$(controller_id) || fail "no /controller"
controller_pid=$(broker_pid "$controller")
echo "controller: broker $controller (pid $controller_pid)"
# 1. The controller's connections to every other broker's CONTROL listener.
for b in 1 2 3; do
  [ "$b" = "$controller" ] && continue
  until_true 30 bash -c "ss -Htnp state established '( dport = :$(control_port "$b") )' | grep -q 'pid=$controller_pid,'" ||
    fail "the controller (pid $controller_pid) holds no connection to broker $b's CONTROL port $(control_port "$b")"
  others=$(clients_of_port "$(control_port "$b")" | grep -vx "$controller_pid" || true)
  [ -z "$others" ] || fail "processes other than the controller connect to broker $b's CONTROL port: $others"
done
echo "the controller reaches brokers on CONTROL"

# 2. kill -9 a leader that is not the controller.
victim=""
for p in 0 1 2; do
  l=$("$G" topics --bootstrap-server "$EVERY_BROKER" --describe --topic cp | sed -n "s/.*Partition: $p\tLeader: \([0-9]*\).*/\1/p")
  if [ -n "$l" ] && [ "$l" != "$controller" ]; then victim=$l; victim_partition=$p; break; fi
done
[ -n "$victim" ] || fail "every partition of cp is led by the controller (broker $controller)"
echo "kill -9 broker $victim (leader of cp-$victim_partition)"
kill -9 "$(broker_pid "$victim")"
new_leader_elected() {
  local l
  l=$("$G" topics --bootstrap-server "$EVERY_BROKER" --describe --topic cp | sed -n "s/.*Partition: $victim_partition\tLeader: \([0-9]*\).*/\1/p")
  [ -n "$l" ] && [ "$l" != "$victim" ] && [ "$l" != "-1" ]
}
until_true 60 new_leader_elected || fail "no new leader for cp-$victim_partition after broker $victim died"
produce_some 300

# Nothing acknowledged was lost on the way.
timeout 60 "$G" consume --bootstrap-server "$EVERY_BROKER" --topic cp --from-beginning --max-messages $records \
  --print-key >"$TMP/got.txt" || fail "consume failed: got $(wc -l <"$TMP/got.txt") of $records"
diff <(sed 's/:/\t/' "$TMP/sent.txt" | sort) <(sort "$TMP/got.txt") >/dev/null || fail "the records read back differ"
stop_cluster
echo "PASS"
