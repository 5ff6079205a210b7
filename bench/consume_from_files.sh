#!/usr/bin/env bash
# Consume throughput of a local real-socket Gregor cluster, and the CPU its brokers spend serving
# it, optionally against a second (baseline) binary in the same run.
#
# For each binary: `gregor cluster up` with 3 brokers, a topic with 3 partitions and RF 3 filled with
# RECORDS records of 1 KiB (acks=1, batch.size 262144), then `sync`. Then ROUNDS rounds in which
# the binaries take turns: `gregor bench consume` (always NEW's client, so only the brokers differ)
# reads the whole topic from the start, and the brokers' CPU time (user + system, /proc) is read
# before and after. It prints, per binary, the median MB/s of the consumer and the median broker
# CPU milliseconds per 100 MB consumed: what serving a fetch costs the leader (reading the log,
# building the response, writing it to the socket).
#
# Usage: bench/consume_from_files.sh [GREGOR] [RECORDS] [BASELINE_GREGOR] [ROUNDS]
#   defaults: build/gregor, 300000, none, 5.
set -euo pipefail
GREGOR=${1:-build/gregor}
RECORDS=${2:-300000}
BASELINE=${3:-}
ROUNDS=${4:-5}
for b in "$GREGOR" $BASELINE; do [ -x "$b" ] || { echo "no gregor binary at $b" >&2; exit 1; }; done
TMP=$(mktemp -d /tmp/gregor-bench-consume-XXXXXX)
CLUSTERS=()
cleanup() {
  set +e
  for c in "${CLUSTERS[@]}"; do kill -TERM "$c" 2>/dev/null && wait "$c"; done
  rm -rf "$TMP"
}
trap cleanup EXIT
# shellcheck source=bench/cluster_lib.sh
. "$(dirname "$0")/cluster_lib.sh"
PORT_BASE=$((10000 + (RANDOM % 110) * 200 + RANDOM % 50))
TICKS=$(getconf CLK_TCK)

# start NAME BINARY PORT: a cluster and its topic, filled.
start() {
  local name=$1 bin=$2 port=$3
  cluster_up "$name" "$bin" "$port"
  "$bin" topics --bootstrap-server "127.0.0.1:$port" --create --topic c3 --partitions 3 --replication-factor 3 >/dev/null
  "$bin" bench produce --bootstrap-server "127.0.0.1:$port" --topic c3 --records "$RECORDS" --acks 1 \
    --producer-property batch.size=262144 >"$TMP/$name.produce" || { cat "$TMP/$name.produce" >&2; exit 1; }
}

# broker_cpu_ms NAME: user + system CPU milliseconds of the cluster's broker processes so far.
broker_cpu_ms() {
  local total=0 pid
  for pid in $(awk '/^broker [0-9]+: pid/ {sub(":", "", $4); print $4}' "$TMP/$1.log"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo $((total * 1000 / TICKS))
}

NAMES=(after)
BINS=("$GREGOR")
[ -n "$BASELINE" ] && NAMES+=(before) && BINS+=("$BASELINE")
declare -A PORT
for i in "${!NAMES[@]}"; do
  PORT[${NAMES[$i]}]=$((PORT_BASE + 10 * i))
  start "${NAMES[$i]}" "${BINS[$i]}" "${PORT[${NAMES[$i]}]}"
done
sync

for round in $(seq 1 "$ROUNDS"); do
  order=("${NAMES[@]}")
  if [ $((round % 2)) -eq 0 ] && [ ${#NAMES[@]} -eq 2 ]; then order=(before after); fi
  for name in "${order[@]}"; do
    cpu0=$(broker_cpu_ms "$name")
    out=$("$GREGOR" bench consume --bootstrap-server "127.0.0.1:${PORT[$name]}" --topic c3 --messages "$RECORDS")
    cpu1=$(broker_cpu_ms "$name")
    # "N records consumed, R records/sec (M MB/sec) ...; X MB in S s in all, ..."
    mb=$(sed -n 's/.* \([0-9.]*\) MB in \([0-9.]*\) s in all.*/\1/p' <<<"$out")
    secs=$(sed -n 's/.* \([0-9.]*\) MB in \([0-9.]*\) s in all.*/\2/p' <<<"$out")
    echo "$name $round $mb $secs $((cpu1 - cpu0))" >>"$TMP/figures"
    echo "round $round $name: $out; brokers' CPU $((cpu1 - cpu0)) ms"
  done
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo
printf '%-7s | %-22s | %s\n' binary "consume MB/s (median)" "brokers' CPU ms per 100 MB (median)"
for name in "${NAMES[@]}"; do
  mbs=$(awk -v n="$name" '$1 == n && $4 > 0 {print $3 / $4}' "$TMP/figures" | median)
  cpu=$(awk -v n="$name" '$1 == n && $3 > 0 {print $5 * 100 / $3}' "$TMP/figures" | median)
  printf '%-7s | %22.1f | %.1f\n' "$name" "$mbs" "$cpu"
done
