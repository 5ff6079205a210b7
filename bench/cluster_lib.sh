# Sourced by the real-socket benchmarks: starting a local cluster and waiting until it is ready.
# The caller has TMP (a scratch directory) and CLUSTERS (an array; its cleanup stops each pid).

# cluster_up NAME BINARY PORT: `gregor cluster up` with 3 brokers from PORT (zk 100 above), its log
# in $TMP/NAME.log, data under $TMP/NAME; returns once it says "cluster ready" (exits on failure).
cluster_up() {
  local name=$1 bin=$2 port=$3
  "$bin" cluster up --brokers 3 --port-base "$port" --dir "$TMP/$name" >"$TMP/$name.log" 2>&1 &
  CLUSTERS+=($!)
  local deadline=$((SECONDS + 60))
  until grep -q "^cluster ready" "$TMP/$name.log"; do
    kill -0 "${CLUSTERS[-1]}" 2>/dev/null && [ $SECONDS -lt $deadline ] || { cat "$TMP/$name.log" >&2; exit 1; }
    sleep 0.1
  done
}
