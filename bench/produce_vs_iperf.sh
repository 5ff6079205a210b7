#!/usr/bin/env bash
# Produce throughput of a local real-socket Gregor cluster next to the loopback TCP bandwidth of the
# same machine, in the same run: 3 brokers (gregor cluster up), a topic with RF 3, acks=all, 1 KiB
# records through `gregor bench produce`; then iperf3 over 127.0.0.1; then the ratio.
# Usage: bench/produce_vs_iperf.sh [GREGOR_BINARY] [RECORDS]   (defaults: build/gregor, 200000)
set -euo pipefail
GREGOR=${1:-build/gregor}
RECORDS=${2:-200000}
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (Debian package iperf3)" >&2; exit 1; }
[ -x "$GREGOR" ] || { echo "no gregor binary at $GREGOR" >&2; exit 1; }
TMP=$(mktemp -d /tmp/gregor-bench-XXXXXX)
CLUSTER=""
IPERF=""
cleanup() {
  set +e
  [ -n "$IPERF" ] && kill "$IPERF" 2>/dev/null
  [ -n "$CLUSTER" ] && kill -TERM "$CLUSTER" 2>/dev/null && wait "$CLUSTER"
  rm -rf "$TMP"
}
trap cleanup EXIT

PORT_BASE=$((10000 + (RANDOM % 220) * 100 + RANDOM % 50))
"$GREGOR" cluster up --brokers 3 --port-base "$PORT_BASE" --dir "$TMP/cluster" >"$TMP/cluster.log" 2>&1 &
CLUSTER=$!
deadline=$((SECONDS + 60))
until grep -q "^cluster ready" "$TMP/cluster.log"; do
  kill -0 "$CLUSTER" 2>/dev/null && [ $SECONDS -lt $deadline ] || { cat "$TMP/cluster.log" >&2; exit 1; }
  sleep 0.1
done
B=127.0.0.1:$PORT_BASE
"$GREGOR" topics --bootstrap-server "$B" --create --topic bench --partitions 3 --replication-factor 3 >/dev/null
echo "gregor bench produce: 3 brokers, 3 partitions, RF 3, acks=all, $RECORDS records of 1024 bytes"
"$GREGOR" bench produce --bootstrap-server "$B" --topic bench --records "$RECORDS" --record-size 1024 --acks all | tee "$TMP/bench.txt"
gregor_mb=$(sed -n 's/.*records\/sec (\([0-9.]*\) MB\/sec).*/\1/p' "$TMP/bench.txt")

IPERF_PORT=$((PORT_BASE + 50))
iperf3 -s -1 -p "$IPERF_PORT" >/dev/null 2>&1 &
IPERF=$!
until_listening=$((SECONDS + 10))
until iperf3 -c 127.0.0.1 -p "$IPERF_PORT" -t 5 -f M >"$TMP/iperf.txt" 2>&1; do
  [ $SECONDS -lt $until_listening ] || { cat "$TMP/iperf.txt" >&2; exit 1; }
  sleep 0.1
done
IPERF=""
iperf_mb=$(awk '/receiver/ {for (i = 1; i < NF; i++) if ($(i + 1) == "MBytes/sec") print $i}' "$TMP/iperf.txt")
echo "iperf3 loopback TCP (1 stream, 5 s): $iperf_mb MBytes/sec"
awk -v g="$gregor_mb" -v i="$iperf_mb" 'BEGIN { printf "ratio: gregor produce %.2f MB/s / loopback %.0f MB/s = %.4f (1 : %.0f)\n", g, i, g / i, i / g }'
