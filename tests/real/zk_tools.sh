#!/usr/bin/env bash
# ZooKeeper's own tools read a Gregor cluster's zk, as an operator of a ZooKeeper-era Kafka would:
# kazoo (Debian's python3-kazoo) and zkCli.sh (Debian's zookeeper 3.8) list /brokers/ids, get
# /controller and a partition's state znode, and each sees its watch on /controller fire when the
# controller moves (its broker is killed; its session expires; another broker wins the election).
source "$(dirname "$0")/lib.sh" "$1"
PYTHON=/usr/bin/python3
ZKCLI=/usr/share/zookeeper/bin/zkCli.sh
"$PYTHON" -c "import kazoo" 2>/dev/null || fail "kazoo is not installed; it is needed by this test (Debian package python3-kazoo)"
[ -x "$ZKCLI" ] || fail "zkCli.sh is not installed; it is needed by this test (Debian package zookeeper)"
require java "Debian package default-jre-headless"
KAZOO="$(dirname "$0")/zk_kazoo.py"

# A short zk session, so that the killed controller's session expires within seconds.
start_cluster 3 --config zookeeper.session.timeout.ms=6000
ZK=127.0.0.1:$((PORT_BASE + 100))
"$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --create --topic orders --partitions 2 --replication-factor 3 >/dev/null ||
  fail "topics --create"
state_ready() { "$PYTHON" "$KAZOO" "$ZK" inspect orders 3; }
until_true 30 state_ready || { "$PYTHON" "$KAZOO" "$ZK" inspect orders 3; fail "kazoo: the znodes are not Kafka's"; }
controller=$("$PYTHON" "$KAZOO" "$ZK" inspect orders 3) || fail "kazoo inspect"
echo "kazoo: 3 brokers registered, broker $controller is the controller"

# zkCli.sh, one command per run, as operators use it in scripts.
zkcli() { timeout 60 "$ZKCLI" -server "$ZK" "$@" 2>&1 | grep -v '^$\|^SLF4J:\|^Connecting to \|^WATCHER::\|^WatchedEvent state:SyncConnected type:None'; }
zkcli ls /brokers/ids >"$TMP/ls.txt"
cat "$TMP/ls.txt"
grep -qx '\[1, 2, 3\]' "$TMP/ls.txt" || fail "zkCli.sh ls /brokers/ids did not print [1, 2, 3]"
zkcli get /controller >"$TMP/controller.txt"
cat "$TMP/controller.txt"
grep -q "\"brokerid\":$controller" "$TMP/controller.txt" || fail "zkCli.sh get /controller does not name broker $controller"
zkcli get -s /brokers/topics/orders/partitions/0/state >"$TMP/state.txt"
cat "$TMP/state.txt"
grep -q '"leader_epoch":' "$TMP/state.txt" || fail "zkCli.sh get of the partition state shows no leader_epoch"
grep -q '^dataVersion = ' "$TMP/state.txt" || fail "zkCli.sh get -s shows no Stat"
grep -q '^ephemeralOwner = 0x0$' "$TMP/state.txt" || fail "the partition state is not persistent"
zkcli ls /zookeeper | grep -qx '\[config, quota\]' || fail "zkCli.sh ls /zookeeper does not show ZooKeeper's system znodes"

# Watches: zkCli.sh in interactive mode (commands on its standard input) leaves `get -w`'s watch,
# kazoo a one-shot watch (get with a watcher); then the controller's broker dies.
mkfifo "$TMP/zkcli.in"
"$ZKCLI" -server "$ZK" <"$TMP/zkcli.in" >"$TMP/zkcli-watch.log" 2>&1 &
CHILD_PIDS+=($!)
exec 4>"$TMP/zkcli.in"
echo "get -w /controller" >&4
until_true 60 grep -q '"brokerid"' "$TMP/zkcli-watch.log" || fail "zkCli.sh did not get /controller with a watch"
"$PYTHON" "$KAZOO" "$ZK" await-move "$controller" 60 >"$TMP/new-controller.txt" 2>"$TMP/kazoo-watch.log" &
KAZOO_WATCH=$!
CHILD_PIDS+=($KAZOO_WATCH)
until_true 30 grep -q '^watching$' "$TMP/new-controller.txt" || fail "kazoo did not set its watch"
pid=$(broker_pid "$controller")
echo "kill -9 broker $controller (pid $pid), the controller"
kill -9 "$pid"
wait $KAZOO_WATCH || { cat "$TMP/kazoo-watch.log" >&2; fail "kazoo's watch did not see the controller move"; }
new=$(grep -v '^watching$' "$TMP/new-controller.txt")
cat "$TMP/kazoo-watch.log"
[ -n "$new" ] && [ "$new" != "$controller" ] || fail "the new controller ($new) is not another broker"
echo "kazoo: the controller moved from broker $controller to broker $new"
until_true 30 grep -q 'WatchedEvent state:SyncConnected type:NodeDeleted path:/controller' "$TMP/zkcli-watch.log" ||
  fail "zkCli.sh's watch on /controller did not fire"
echo "get /controller" >&4
echo "quit" >&4
exec 4>&-
until_true 30 grep -q "\"brokerid\":$new" "$TMP/zkcli-watch.log" || fail "zkCli.sh does not see broker $new as the controller"
grep 'WatchedEvent state:SyncConnected type:NodeDeleted' "$TMP/zkcli-watch.log"
echo "PASS"
