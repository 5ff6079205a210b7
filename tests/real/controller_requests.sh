#!/usr/bin/env bash
# Issue 17, "any client can delete data": a StopReplica (delete=true, controller epoch INT32_MAX)
# sent by an ordinary client deleted a topic's data on every replica and fenced the real controller.
# 1. With a CLIENT and a REPLICATION listener (cluster up --separate-listeners), controller requests
#    on the CLIENT listener are refused with CLUSTER_AUTHORIZATION_FAILED (31): nothing is deleted,
#    the controller stays in charge, and Metadata tells each listener its own addresses.
# 2. With the default single PLAINTEXT listener, broker epochs (KIP-380, the czxid of
#    /brokers/ids/N) refuse a request naming an older registration of the broker (STALE_BROKER_EPOCH,
#    77) before anything else is looked at, as Kafka does. (A request with the broker's current epoch,
#    or with none (-1), is served there, as in Kafka: separate listeners are the defence.)
source "$(dirname "$0")/lib.sh" "$1"
G="$GREGOR"
FORGE="/usr/bin/python3 $(dirname "$0")/forge_controller_request.py"
require python3 "forged requests"

records=300
produce_records() {  # TOPIC
  seq 1 $records | sed 's/.*/key-&:value-&/' >"$TMP/sent-$1.txt"
  "$G" produce --bootstrap-server "$BOOTSTRAP" --topic "$1" --acks all --key-separator : <"$TMP/sent-$1.txt" ||
    fail "produce to $1 failed"
}
all_records_there() {  # TOPIC
  timeout 60 "$G" consume --bootstrap-server "$BOOTSTRAP" --topic "$1" --from-beginning --max-messages $records \
    --print-key >"$TMP/got-$1.txt" || fail "consume of $1 failed (records lost?): got $(wc -l <"$TMP/got-$1.txt")"
  diff <(sed 's/:/\t/' "$TMP/sent-$1.txt" | sort) <(sort "$TMP/got-$1.txt") >/dev/null ||
    fail "the records of $1 read back differ from those produced"
}
create_topic() {  # TOPIC
  "$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$1" --partitions 3 --replication-factor 3 >/dev/null ||
    fail "topics --create $1"
}
# The controller still leads: a topic created now gets leaders (the brokers accept its
# LeaderAndIsr, so they did not adopt the forged controller epoch) and takes writes.
controller_not_fenced() {  # TOPIC
  create_topic "$1"
  produce_records "$1"
  all_records_there "$1"
}
expect_answer() {  # WANT DESCRIPTION ARGS...
  local want=$1 what=$2 got
  shift 2
  got=$($FORGE "$@") || fail "$what: the forging client failed"
  [ "$got" = "$want" ] || fail "$what: answered $got, not $want"
}

# --- 1. Separate listeners -------------------------------------------------------------------------
start_cluster 3 --separate-listeners
grep -q "listeners=CLIENT://" "$TMP/cluster.log" || fail "cluster up --separate-listeners did not set listeners"
create_topic victims
produce_records victims
for b in 1 2 3; do
  client=$((PORT_BASE + b - 1))
  replication=$((PORT_BASE + 200 + b - 1))
  expect_answer 31 "StopReplica on broker $b's CLIENT listener" "$client" stop-replica victims 3 -1
  expect_answer 31 "StopReplica (a stale epoch) on broker $b's CLIENT listener" "$client" stop-replica victims 3 0
  expect_answer 31 "UpdateMetadata on broker $b's CLIENT listener" "$client" update-metadata -1
  expect_answer 31 "ControlledShutdown on broker $b's CLIENT listener" "$client" controlled-shutdown "$b" -1
  # WriteTxnMarkers is inter-broker too (a transaction coordinator's): refused per partition.
  expect_answer 31 "WriteTxnMarkers on broker $b's CLIENT listener" "$client" write-txn-markers victims
  # Metadata answers with the addresses of the listener it came on.
  $FORGE "$client" metadata >"$TMP/md-client-$b"
  $FORGE "$replication" metadata >"$TMP/md-replication-$b"
  diff <(printf '1 127.0.0.1:%s\n2 127.0.0.1:%s\n3 127.0.0.1:%s\n' $PORT_BASE $((PORT_BASE + 1)) $((PORT_BASE + 2))) \
    <(sort "$TMP/md-client-$b") || fail "Metadata on broker $b's CLIENT listener does not list CLIENT addresses"
  diff <(printf '1 127.0.0.1:%s\n2 127.0.0.1:%s\n3 127.0.0.1:%s\n' $((PORT_BASE + 200)) $((PORT_BASE + 201)) $((PORT_BASE + 202))) \
    <(sort "$TMP/md-replication-$b") || fail "Metadata on broker $b's REPLICATION listener does not list REPLICATION addresses"
done
for b in 1 2 3; do
  for p in 0 1 2; do
    [ -d "$TMP/cluster/broker-$b/victims-$p" ] || fail "broker $b lost its replica victims-$p"
  done
done
all_records_there victims
controller_not_fenced after
stop_cluster

# --- 2. One PLAINTEXT listener: broker epochs -------------------------------------------------------
start_cluster 3
create_topic victims
produce_records victims
# The broker epoch is the czxid of the broker's registration: one below it is stale.
/usr/bin/python3 - "127.0.0.1:$((PORT_BASE + 100))" >"$TMP/czxids" <<'PY' || fail "reading the brokers' czxids with kazoo"
import sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1])
zk.start(timeout=20)
for b in (1, 2, 3):
    print(b, zk.exists(f"/brokers/ids/{b}").czxid)
zk.stop()
PY
stale_answers=0
for b in 1 2 3; do
  port=$((PORT_BASE + b - 1))
  czxid=$(sed -n "s/^$b //p" "$TMP/czxids")
  [ -n "$czxid" ] || fail "no czxid for broker $b"
  expect_answer 77 "StopReplica with broker $b's epoch - 1" "$port" stop-replica victims 3 $((czxid - 1))
  expect_answer 77 "StopReplica with broker epoch 0 to broker $b" "$port" stop-replica victims 3 0
  expect_answer 77 "UpdateMetadata with a stale broker epoch to broker $b" "$port" update-metadata 0
  got=$($FORGE "$port" controlled-shutdown "$b" 0)
  case "$got" in
    77) stale_answers=$((stale_answers + 1)) ;;  # the controller: this registration is older
    41) ;;                                       # NOT_CONTROLLER
    *) fail "ControlledShutdown with a stale epoch to broker $b answered $got" ;;
  esac
done
[ "$stale_answers" = 1 ] || fail "$stale_answers brokers answered a stale ControlledShutdown with STALE_BROKER_EPOCH, not 1 (the controller)"
all_records_there victims
controller_not_fenced after
stop_cluster
echo "PASS"
