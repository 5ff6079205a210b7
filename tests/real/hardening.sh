#!/usr/bin/env bash
# The smaller gaps of issue 17, each as a user meets it: command-line arguments that used to hang,
# overflow or overwrite; data directories that are files or already in use; illegal topic names and
# partition counts on a real cluster; and `cluster up` stopped by SIGTERM to its process group (each
# node stops once, cleanly).
source "$(dirname "$0")/lib.sh" "$1"
G="$GREGOR"
SCEN="$(cd "$(dirname "$0")/../.." && pwd)/scenarios/leader-failover.yaml"

# expect_exit CODE SECONDS PATTERN COMMAND...: COMMAND exits with CODE within SECONDS and its stderr
# matches PATTERN (grep -E).
expect_exit() {
  local code=$1 seconds=$2 pattern=$3 rc=0
  shift 3
  timeout "$seconds" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  [ "$rc" = "$code" ] || fail "'$*' exited with $rc, not $code: $(head -c 600 "$TMP/err")"
  grep -Eq -e "$pattern" "$TMP/err" || fail "'$*' did not say /$pattern/: $(head -c 600 "$TMP/err")"
}

# --- Arguments -------------------------------------------------------------------------------------
expect_exit 2 10 "must not be negative" "$G" bench sim-loop --events -1
expect_exit 2 10 "--seconds must be more than 0" "$G" bench cluster --seconds 0
expect_exit 2 10 "--rate must be" "$G" bench e2e --rate -5
expect_exit 2 10 "must not be negative" "$G" check-determinism "$SCEN" --seeds -3

# The largest seed is a seed like any other: one run twice, the same, exit 0 (it used to wrap).
timeout 120 "$G" check-determinism "$SCEN" --first-seed 18446744073709551615 --until 2s >"$TMP/det.out" ||
  fail "check-determinism at the largest seed: $(cat "$TMP/det.out")"
grep -q "^determinism: 1 of 1 seeds gave the same run twice" "$TMP/det.out" || fail "$(cat "$TMP/det.out")"
grep -q "^seed 18446744073709551615 " "$TMP/det.out" || fail "the largest seed was not run: $(cat "$TMP/det.out")"

# run --trace keeps an existing file unless --force.
echo "precious" >"$TMP/trace.db"
expect_exit 2 30 "already exists.*--force" "$G" run "$SCEN" --until 1s --quiet --trace "$TMP/trace.db"
[ "$(cat "$TMP/trace.db")" = precious ] || fail "run --trace changed an existing file"
timeout 60 "$G" run "$SCEN" --until 1s --quiet --trace "$TMP/trace.db" --force >/dev/null 2>"$TMP/err" ||
  [ $? = 1 ] || fail "run --trace --force: $(cat "$TMP/err")"
[ "$(head -c 15 "$TMP/trace.db")" = "SQLite format 3" ] || fail "run --trace --force did not write a trace"

# Bounded reads and validated scenarios.
expect_exit 2 10 "/dev/zero: larger than 1 MiB" "$G" run /dev/zero
printf 'name: t\ncluster:\n  brokers: 1\ntopics:\n  - name: or/ders\n' >"$TMP/bad-topic.yaml"
expect_exit 2 10 "bad-topic.yaml:5: topics\[0\]\.name: Topic name \"or/ders\" is illegal" "$G" run "$TMP/bad-topic.yaml"

# --- Data directories ------------------------------------------------------------------------------
echo "not a directory" >"$TMP/plain-file"
expect_exit 1 10 "is not a directory" "$G" zk --id 1 --listen 127.0.0.1:$((20000 + RANDOM % 10000)) --data-dir "$TMP/plain-file"
expect_exit 1 10 "is not a directory" "$G" broker --id 1 --listen 127.0.0.1:$((20000 + RANDOM % 10000)) --zookeeper-connect 127.0.0.1:1 \
  --data-dir "$TMP/plain-file"

# --- A real cluster --------------------------------------------------------------------------------
# Started in a session of its own, so that the test can signal its whole process group.
PORT_BASE=$((10000 + (RANDOM % 220) * 100 + RANDOM % 50))
setsid "$G" cluster up --brokers 2 --port-base "$PORT_BASE" --dir "$TMP/cluster" >"$TMP/cluster.log" 2>&1 &
CLUSTER_PID=$!
until_true 60 grep -q "^cluster ready" "$TMP/cluster.log" || fail "the cluster was not ready within 60 s"
BOOTSTRAP=127.0.0.1:$PORT_BASE

# A second broker over broker 1's data directory is refused: the directory is locked.
[ -f "$TMP/cluster/broker-1/.lock" ] || fail "broker 1's data directory has no .lock"
expect_exit 1 10 "in use by another process" "$G" broker --id 7 --listen 127.0.0.1:$((20000 + RANDOM % 10000)) \
  --zookeeper-connect "127.0.0.1:$((PORT_BASE + 100))" --data-dir "$TMP/cluster/broker-1"
expect_exit 1 10 "in use by another process" "$G" zk --id 2 --listen 127.0.0.1:$((20000 + RANDOM % 10000)) --data-dir "$TMP/cluster/zk"

# Illegal topic names: answered at once, not after delivery.timeout.ms.
start=$SECONDS
echo hello | expect_exit 1 30 "INVALID_TOPIC_EXCEPTION" "$G" produce --bootstrap-server "$BOOTSTRAP" --topic a/b
[ $((SECONDS - start)) -lt 20 ] || fail "produce --topic a/b took $((SECONDS - start)) s"
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic du.p --partitions 1 --replication-factor 1 >/dev/null ||
  fail "topics --create du.p"
expect_exit 1 30 "INVALID_TOPIC_EXCEPTION.*collides" "$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic du_p \
  --partitions 1 --replication-factor 1

# Huge partition counts are refused before anything is allocated; the controller stays small.
expect_exit 1 30 "INVALID_PARTITIONS" "$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic huge \
  --partitions 2147483647 --replication-factor 1
for b in 1 2; do
  pid=$(broker_pid $b)
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
  [ "$rss" -lt 400000 ] || fail "broker $b uses $rss kB after the huge CreateTopics"
done
"$G" topics --bootstrap-server "$BOOTSTRAP" --create --topic after --partitions 2 --replication-factor 2 >/dev/null ||
  fail "the cluster no longer creates topics"

# SIGTERM to the whole process group: cluster up and every node get it; each node stops once,
# cleanly (exit status 0), never killed by the repeated signal.
kill -TERM -- "-$CLUSTER_PID"
wait "$CLUSTER_PID" || fail "gregor cluster up did not exit cleanly after SIGTERM to its group"
CLUSTER_PID=""
for node in zk-1 broker-1 broker-2; do
  n=$(grep -c "\[$node\] stopping: " "$TMP/cluster.log" || true)
  [ "$n" = 1 ] || fail "$node logged 'stopping' $n times"
done
for child in zk "broker 1" "broker 2"; do
  grep -q "^$child (pid [0-9]*) exited with status 0$" "$TMP/cluster.log" ||
    fail "$child did not exit with status 0: $(grep "^$child " "$TMP/cluster.log" | tail -2)"
done
! grep -q "killed by signal" "$TMP/cluster.log" || fail "$(grep "killed by signal" "$TMP/cluster.log")"
echo "PASS"
