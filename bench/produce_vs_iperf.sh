#!/usr/bin/env bash
# Produce throughput and latency of a local real-socket Gregor cluster next to the loopback TCP
# bandwidth of the same machine, in the same run, optionally against a second (baseline) binary.
#
# For each binary: `gregor cluster up` with 3 brokers, a topic with 3 partitions and RF 3 and one
# with RF 1, then `gregor bench produce` with 1 KiB records as fast as it goes, for acks=all RF 3,
# acks=1 RF 3, acks=all RF 1 and acks=0 RF 3, each after `sync`. Then, for the first three, the same at half of the
# peak just measured (--throughput), for the latency there: p99 per record and per acknowledged
# batch. iperf3 over 127.0.0.1 (one stream, 5 s) runs before and after. The binaries take turns
# for every figure, so both see the same machine; the table gives MB/s, the ratio to iperf3 (the
# mean of its two runs) and the p99 latencies.
#
# Usage: bench/produce_vs_iperf.sh [GREGOR] [RECORDS] [BASELINE_GREGOR]
#   defaults: build/gregor, 200000, none. BENCH_PRODUCER_PROPERTIES (space-separated key=value)
#   go to every producer; unset, it is "batch.size=262144": with acks=all a leader takes one
#   produce request per connection at a time (as Kafka does) and each carries one batch per
#   partition, so batch.size sets how much a replication round trip moves (Kafka's default,
#   16384, moves 16 KiB per round trip). Set it to "" for the producer's own defaults (Kafka's).
#   A baseline binary without `bench produce --throughput` has its half-peak latency measured
#   with GREGOR's bench client against the baseline's cluster.
set -euo pipefail
GREGOR=${1:-build/gregor}
RECORDS=${2:-200000}
BASELINE=${3:-}
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (Debian package iperf3)" >&2; exit 1; }
for b in "$GREGOR" $BASELINE; do [ -x "$b" ] || { echo "no gregor binary at $b" >&2; exit 1; }; done
TMP=$(mktemp -d /tmp/gregor-bench-XXXXXX)
CLUSTERS=()
IPERF=""
cleanup() {
  set +e
  [ -n "$IPERF" ] && kill "$IPERF" 2>/dev/null
  for c in "${CLUSTERS[@]}"; do kill -TERM "$c" 2>/dev/null && wait "$c"; done
  rm -rf "$TMP"
}
trap cleanup EXIT
# shellcheck source=bench/cluster_lib.sh
. "$(dirname "$0")/cluster_lib.sh"

PROPS=()
BENCH_PRODUCER_PROPERTIES=${BENCH_PRODUCER_PROPERTIES-batch.size=262144}
for p in $BENCH_PRODUCER_PROPERTIES; do PROPS+=(--producer-property "$p"); done
PORT_BASE=$((10000 + (RANDOM % 110) * 200 + RANDOM % 50))

# start NAME BINARY PORT_BASE: a cluster, its topics; prints its bootstrap address.
start() {
  local name=$1 bin=$2 port=$3
  cluster_up "$name" "$bin" "$port"
  "$bin" topics --bootstrap-server "127.0.0.1:$port" --create --topic rf3 --partitions 3 --replication-factor 3 >/dev/null
  "$bin" topics --bootstrap-server "127.0.0.1:$port" --create --topic rf1 --partitions 3 --replication-factor 1 >/dev/null
}

iperf() {  # prints MBytes/sec of one 5 s single-stream run over loopback
  local port=$((PORT_BASE + 150))
  iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  IPERF=$!
  local until_listening=$((SECONDS + 10))
  until iperf3 -c 127.0.0.1 -p "$port" -t 5 -f M >"$TMP/iperf.txt" 2>&1; do
    [ $SECONDS -lt $until_listening ] || { cat "$TMP/iperf.txt" >&2; exit 1; }
    sleep 0.1
  done
  wait "$IPERF" 2>/dev/null || true
  IPERF=""
  awk '/receiver/ {for (i = 1; i < NF; i++) if ($(i + 1) == "MBytes/sec") print $i}' "$TMP/iperf.txt"
}

NAMES=(after)
BINS=("$GREGOR")
[ -n "$BASELINE" ] && NAMES+=(before) && BINS+=("$BASELINE")
declare -A PORT
for i in "${!NAMES[@]}"; do
  PORT[${NAMES[$i]}]=$((PORT_BASE + 10 * i))  # brokers there and up, zk 100 above
  start "${NAMES[$i]}" "${BINS[$i]}" "${PORT[${NAMES[$i]}]}"
done

echo "iperf3 loopback TCP (1 stream, 5 s), first run"
iperf1=$(iperf)
echo "  $iperf1 MBytes/sec"

CASES=("acks=all RF 3:all:rf3" "acks=1 RF 3:1:rf3" "acks=all RF 1:all:rf1" "acks=0 RF 3:0:rf3")
declare -A MB RATE P99 B99
# run NAME CASE_LABEL ACKS TOPIC [--throughput R]: one bench produce; sets MB, RATE, P99, B99.
run() {
  local name=$1 label=$2 acks=$3 topic=$4
  shift 4
  local bin=${BINS[0]}
  [ "$name" = before ] && bin=$BASELINE
  [ $# -gt 0 ] && bin=$GREGOR  # --throughput: the new client (a baseline may not have it)
  # No dirty page cache at the start of a run: `sync` writes back what the earlier runs wrote
  # (about 3 GB for the seven runs of 200,000 records at RF 3). Otherwise a run pays for the earlier
  # runs' writeback, which the kernel starts in the background at 10 % of memory
  # (dirty_background_ratio): a half-peak run measured then had a p99 20 to 70 times its median.
  sync
  "$bin" bench produce --bootstrap-server "127.0.0.1:${PORT[$name]}" --topic "$topic" --records "$RECORDS" \
    --record-size 1024 --acks "$acks" "${PROPS[@]}" "$@" >"$TMP/run.txt" 2>&1 || { cat "$TMP/run.txt" >&2; exit 1; }
  [ -z "${SHOWN_SETTINGS:-}" ] && SHOWN_SETTINGS=1 && grep "^producer:" "$TMP/run.txt" | sed 's/^/    /'
  grep -v "^producer:" "$TMP/run.txt" | sed 's/^/    /'
  local key="$name/$label${1:+/half}"
  MB[$key]=$(sed -n 's/.*records\/sec (\([0-9.]*\) MB\/sec).*/\1/p' "$TMP/run.txt")
  RATE[$key]=$(sed -n 's/.* records sent, \([0-9.]*\) records\/sec.*/\1/p' "$TMP/run.txt")
  P99[$key]=$(sed -n 's/.* \([0-9.]*\) ms 99th, .* ms 99.9th\.$/\1/p' "$TMP/run.txt")
  B99[$key]=$(sed -n 's/^per acknowledged batch: .* \([0-9.]*\) ms 99th,.*/\1/p' "$TMP/run.txt")
}

echo "gregor bench produce: 3 brokers, 3 partitions, $RECORDS records of 1024 bytes${BENCH_PRODUCER_PROPERTIES:+, $BENCH_PRODUCER_PROPERTIES}"
for c in "${CASES[@]}"; do
  IFS=: read -r label acks topic <<<"$c"
  for name in "${NAMES[@]}"; do
    echo "  $label, $name:"
    run "$name" "$label" "$acks" "$topic"
  done
done
echo "the same at half of each peak (latency)"
for c in "${CASES[@]:0:3}"; do
  IFS=: read -r label acks topic <<<"$c"
  for name in "${NAMES[@]}"; do
    half=$(awk -v r="${RATE[$name/$label]}" 'BEGIN { printf "%d", r / 2 }')
    echo "  $label, $name, --throughput $half:"
    run "$name" "$label" "$acks" "$topic" --throughput "$half"
  done
done

echo "iperf3 loopback TCP (1 stream, 5 s), second run"
iperf2=$(iperf)
echo "  $iperf2 MBytes/sec"
loopback=$(awk -v a="$iperf1" -v b="$iperf2" 'BEGIN { printf "%.0f", (a + b) / 2 }')

echo
echo "loopback (iperf3, mean of both runs): $loopback MB/s"
printf "%-14s" "case"
for name in "${NAMES[@]}"; do printf " | %-36s" "$name: MB/s, of loopback, p99 at half"; done
echo
for c in "${CASES[@]}"; do
  IFS=: read -r label acks topic <<<"$c"
  printf "%-14s" "$label"
  for name in "${NAMES[@]}"; do
    k="$name/$label"
    cell=$(awk -v m="${MB[$k]}" -v l="$loopback" 'BEGIN { printf "%7.2f MB/s %6.2f %%", m, 100 * m / l }')
    if [ -n "${P99[$k/half]:-}" ]; then
      cell="$cell, ${P99[$k/half]} ms/rec ${B99[$k/half]:-?} ms/batch"
    fi
    printf " | %-36s" "$cell"
  done
  echo
done
# The line older scripts and notes parse: acks=all RF 3 of the first binary against loopback.
awk -v g="${MB[after/acks=all RF 3]}" -v i="$loopback" \
  'BEGIN { printf "ratio: gregor produce %.2f MB/s / loopback %.0f MB/s = %.4f (1 : %.0f)\n", g, i, g / i, i / g }'
