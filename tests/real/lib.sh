# Helpers for the real-socket tests: a `gregor cluster up` of their own on loopback ports nobody
# else uses, started and stopped by the test, bounded waits, and logs shown on failure.
# Usage: source lib.sh GREGOR_BINARY
set -euo pipefail

GREGOR=$1
[ -x "$GREGOR" ] || { echo "FAIL: no gregor binary at $GREGOR" >&2; exit 1; }
TMP=$(mktemp -d /tmp/gregor-real-test-XXXXXX)
CHILD_PIDS=()
CLUSTER_PID=""

dump_logs() {
  for f in "$TMP"/*.log; do
    [ -f "$f" ] || continue
    echo "----- $(basename "$f") (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

cleanup() {
  local rc=$?
  set +e
  [ $rc -ne 0 ] && dump_logs
  for p in "${CHILD_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  [ -n "$CLUSTER_PID" ] && kill -TERM "$CLUSTER_PID" 2>/dev/null
  for p in "${CHILD_PIDS[@]}" $CLUSTER_PID; do wait "$p" 2>/dev/null; done
  # A test's own teardown after its processes are gone (unmounting what it mounted under $TMP).
  if declare -F test_cleanup >/dev/null; then test_cleanup; fi
  [ -n "${GREGOR_TEST_KEEP:-}" ] && echo "kept $TMP" >&2 || rm -rf "$TMP"
  exit $rc
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

require() {
  command -v "$1" >/dev/null 2>&1 || fail "$1 is not installed; it is needed by this test ($2)"
}

# require_kafkajs: node, and kafkajs where make test installs it (tests/clients); sets CLIENTS.
require_kafkajs() {
  require node "Debian's nodejs"
  CLIENTS="$(cd "$(dirname "${BASH_SOURCE[0]}")/../clients" && pwd)"
  [ -f "$CLIENTS/node_modules/kafkajs/package.json" ] ||
    fail "kafkajs is not installed in $CLIENTS (make test installs it; or: cd tests/clients && npm ci)"
}

# until_true SECONDS COMMAND...: runs COMMAND every 100 ms until it succeeds; fails after SECONDS.
until_true() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}

# start_cluster BROKERS [cluster up options...]: sets PORT_BASE, BOOTSTRAP, CLUSTER_PID. Ports are
# drawn at random below the ephemeral range (so no outbound connection holds them); a start that
# fails (a port taken) is retried on other ports.
start_cluster() {
  local brokers=$1
  shift
  for attempt in 1 2 3 4; do
    PORT_BASE=$((10000 + (RANDOM % 220) * 100 + RANDOM % 50))
    rm -rf "$TMP/cluster"
    # A test's own preparation of the data directories (mounting one), on every attempt.
    if declare -F before_cluster_start >/dev/null; then before_cluster_start; fi
    "$GREGOR" cluster up --brokers "$brokers" --port-base "$PORT_BASE" --dir "$TMP/cluster" "$@" >"$TMP/cluster.log" 2>&1 &
    CLUSTER_PID=$!
    local deadline=$((SECONDS + 60))
    while ! grep -q "^cluster ready" "$TMP/cluster.log"; do
      kill -0 "$CLUSTER_PID" 2>/dev/null || break
      [ $SECONDS -lt $deadline ] || fail "the cluster was not ready within 60 s"
      sleep 0.1
    done
    if grep -q "^cluster ready" "$TMP/cluster.log"; then
      BOOTSTRAP=127.0.0.1:$PORT_BASE
      return 0
    fi
    wait "$CLUSTER_PID" || true
    CLUSTER_PID=""
    echo "cluster start failed on port base $PORT_BASE (attempt $attempt); trying other ports" >&2
    tail -n 5 "$TMP/cluster.log" >&2
  done
  fail "could not start a cluster"
}

stop_cluster() {
  kill -TERM "$CLUSTER_PID"
  wait "$CLUSTER_PID" || fail "gregor cluster up did not exit cleanly"
  CLUSTER_PID=""
}

# broker_pid N / broker_command N: as `gregor cluster up` printed them.
broker_pid() { sed -n "s/^broker $1: pid \([0-9]*\): .*/\1/p" "$TMP/cluster.log" | head -n 1; }
broker_command() { sed -n "s/^broker $1: pid [0-9]*: //p" "$TMP/cluster.log" | head -n 1; }
