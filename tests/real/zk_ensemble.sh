#!/usr/bin/env bash
# Gregor's brokers on Apache ZooKeeper: a three-server ZooKeeper 3.8 ensemble (Debian's zookeeper
# package: its QuorumPeerMain, a config of this test's own, loopback ports chosen per run, data
# under the test's temporary directory), three brokers on it under a chroot (`gregor cluster up
# --zookeeper-connect`), records round-tripped with kcat. Then the ZooKeeper leader is killed: the
# brokers' sessions move to the other servers and survive, and the cluster keeps electing Kafka
# leaders (the Kafka controller's broker is killed, another takes over, partitions get new leaders),
# and kcat round-trips records again.
source "$(dirname "$0")/lib.sh" "$1"
PYTHON=/usr/bin/python3
ZK_JAR=/usr/share/java/zookeeper.jar
require kcat "Debian package kcat"
require java "Debian package default-jre-headless"
[ -f "$ZK_JAR" ] || fail "$ZK_JAR is missing; it is needed by this test (Debian package zookeeper)"
"$PYTHON" -c "import kazoo" 2>/dev/null || fail "kazoo is not installed; it is needed by this test (Debian package python3-kazoo)"
KAZOO="$(dirname "$0")/zk_kazoo.py"

ZK_PIDS=()
mode() { "$PYTHON" "$KAZOO" "127.0.0.1:${CLIENT_PORT[$1]}" srvr; }
ensemble_ready() {
  local leaders=0 followers=0
  for i in 1 2 3; do
    case "$(mode "$i")" in
      leader) leaders=$((leaders + 1)) ;;
      follower) followers=$((followers + 1)) ;;
    esac
  done
  [ $leaders = 1 ] && [ $followers = 2 ]
}

# Ports: 3 x (client, quorum, election), at a base whose last two digits (55..89) no start_cluster
# port has, below the ephemeral range; an ensemble that does not come up is retried elsewhere.
for attempt in 1 2 3; do
  base=$((10000 + (RANDOM % 220) * 100 + 55 + RANDOM % 35))
  servers=""
  for i in 1 2 3; do
    CLIENT_PORT[$i]=$((base + i - 1))
    servers+="server.$i=127.0.0.1:$((base + 2 + i)):$((base + 5 + i))"$'\n'
  done
  for i in 1 2 3; do
    rm -rf "$TMP/zk$i" && mkdir -p "$TMP/zk$i/data"
    echo "$i" >"$TMP/zk$i/data/myid"
    cat >"$TMP/zk$i/zoo.cfg" <<CFG
tickTime=500
initLimit=20
syncLimit=10
dataDir=$TMP/zk$i/data
clientPort=${CLIENT_PORT[$i]}
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=srvr
$servers
CFG
    java -Xmx192m -XX:+UseSerialGC -cp "$ZK_JAR" org.apache.zookeeper.server.quorum.QuorumPeerMain "$TMP/zk$i/zoo.cfg" \
      >"$TMP/zookeeper-$i.log" 2>&1 &
    ZK_PIDS[$i]=$!
    CHILD_PIDS+=($!)
  done
  if until_true 60 ensemble_ready; then break; fi
  echo "the ensemble did not come up on ports $base.. (attempt $attempt)" >&2
  for i in 1 2 3; do kill -9 "${ZK_PIDS[$i]}" 2>/dev/null; wait "${ZK_PIDS[$i]}" 2>/dev/null; done
  [ $attempt -lt 3 ] || fail "no ZooKeeper ensemble"
done
ZK_ALL="127.0.0.1:${CLIENT_PORT[1]},127.0.0.1:${CLIENT_PORT[2]},127.0.0.1:${CLIENT_PORT[3]}"
echo "ZooKeeper ensemble up: $ZK_ALL"

start_cluster 3 --zookeeper-connect "$ZK_ALL/gregor" --config zookeeper.session.timeout.ms=10000
grep -q '^zk: pid' "$TMP/cluster.log" && fail "cluster up started gregor zk although --zookeeper-connect was given"
"$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --create --topic t --partitions 3 --replication-factor 3 >/dev/null ||
  fail "topics --create"
roundtrip() {  # roundtrip TAG: writes 100 records with kcat, then reads the whole topic back to its end
  seq 1 100 | sed "s/.*/$1-&/" >"$TMP/sent-$1.txt"
  timeout 60 kcat -b "$BOOTSTRAP" -P -t t -X message.timeout.ms=30000 -l "$TMP/sent-$1.txt" || fail "kcat -P ($1)"
  timeout 60 kcat -b "$BOOTSTRAP" -C -t t -o beginning -e -q >"$TMP/got-$1.txt" || fail "kcat -C ($1)"
  diff <(sort "$TMP"/sent-*.txt) <(sort "$TMP/got-$1.txt") >/dev/null ||
    fail "kcat -C did not read back exactly the records written so far ($1)"
}
roundtrip first
echo "kcat: records round-tripped through brokers on ZooKeeper"
ZKC="$ZK_ALL/gregor"
"$PYTHON" "$KAZOO" "$ZKC" owners >"$TMP/owners-before.txt" || fail "kazoo owners"
[ "$(wc -l <"$TMP/owners-before.txt")" = 3 ] || fail "not three brokers registered under /gregor/brokers/ids"

# Kill the ZooKeeper leader.
for i in 1 2 3; do [ "$(mode "$i")" = leader ] && leader=$i; done
echo "kill -9 ZooKeeper server $leader, the leader"
kill -9 "${ZK_PIDS[$leader]}"
new_leader() { for i in 1 2 3; do [ "$i" != "$leader" ] && [ "$(mode "$i")" = leader ] && return 0; done; return 1; }
until_true 60 new_leader || fail "the remaining ZooKeeper servers elected no leader"
ZKC=""
for i in 1 2 3; do [ "$i" != "$leader" ] && ZKC+="${ZKC:+,}127.0.0.1:${CLIENT_PORT[$i]}"; done
ZKC+="/gregor"
# The brokers resumed their sessions on the other servers: same registrations, same owners.
same_owners() { "$PYTHON" "$KAZOO" "$ZKC" owners | diff -q - "$TMP/owners-before.txt"; }
until_true 30 same_owners || { "$PYTHON" "$KAZOO" "$ZKC" owners; fail "the brokers' sessions did not survive the ZooKeeper leader's death"; }
echo "the brokers' sessions survived the ZooKeeper leader's death"
roundtrip second

# Kafka leader elections go on: the controller's broker dies, another broker takes over.
controller=$("$PYTHON" "$KAZOO" "$ZKC" controller) || fail "kazoo controller"
pid=$(broker_pid "$controller")
echo "kill -9 broker $controller (pid $pid), the Kafka controller"
kill -9 "$pid"
moved() { c=$("$PYTHON" "$KAZOO" "$ZKC" controller 2>/dev/null) && [ "$c" != "$controller" ]; }
until_true 60 moved || fail "no new Kafka controller after broker $controller died"
BOOTSTRAP=""
for b in 1 2 3; do [ "$b" != "$controller" ] && BOOTSTRAP+="${BOOTSTRAP:+,}127.0.0.1:$((PORT_BASE + b - 1))"; done
leaders_moved() {
  timeout 20 kcat -b "$BOOTSTRAP" -L -t t >"$TMP/metadata.txt" 2>&1 || return 1
  [ "$(grep -c 'partition [0-9]*, leader' "$TMP/metadata.txt")" = 3 ] || return 1
  ! grep -q "leader $controller," "$TMP/metadata.txt" && ! grep -q 'leader -1,' "$TMP/metadata.txt"
}
until_true 60 leaders_moved || { cat "$TMP/metadata.txt"; fail "the partitions did not get new leaders"; }
cat "$TMP/metadata.txt"
echo "broker $("$PYTHON" "$KAZOO" "$ZKC" controller) is the new controller; every partition has a live leader"
roundtrip third
echo "PASS"
