#!/usr/bin/env bash
# The simulator's speed, two builds compared run for run on the same (possibly busy) machine.
#
# Usage: bench/sim-speed.sh [-n ROUNDS] NEW_GREGOR [OLD_GREGOR]
#
# Each round runs every measurement below with NEW, then with OLD (then OLD first in the next round,
# so neither always runs on the warmer machine), and prints, per figure, the median over the rounds
# of each build and the median of the per-round NEW/OLD ratios. With one binary, only its figures.
# Every measurement uses commands that every build of gregor has:
#   bare loop        gregor bench sim-loop                       events per wall s of the bare event loop
#   cluster          gregor bench cluster --seconds 60           simulated s per wall s, and its loop
#                                                               events/s as a share of the same round's bare loop
#   failover         gregor run scenarios/leader-failover.yaml   simulated s per wall s
#   e2e              gregor bench e2e --seconds 60               records produced, acked and consumed per wall s
#   swarm            gregor swarm --seeds 100 --jobs 2           seeds per wall minute
# `gregor bench sim-speed` prints the same figures for one build, as ratios inside one process.
set -euo pipefail
ROUNDS=3
if [ "${1:-}" = "-n" ]; then ROUNDS=$2; shift 2; fi
NEW=${1:?usage: bench/sim-speed.sh [-n ROUNDS] NEW_GREGOR [OLD_GREGOR]}
OLD=${2:-}
cd "$(dirname "$0")/.."
TMP=$(mktemp -d /tmp/gregor-sim-speed-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# measure BINARY TAG ROUND: appends "tag round figure value" lines to $TMP/figures.
measure() {
  local g=$1 tag=$2 round=$3 out
  out=$("$g" bench sim-loop --events 2000000)
  echo "$tag $round bare_loop_events_per_s $(awk '/event loop:/ {print $3}' <<<"$out")" >>"$TMP/figures"
  out=$("$g" bench cluster --seconds 60)
  echo "$tag $round cluster_sim_s_per_wall_s $(awk '/simulated s per wall s/ {for (i = 1; i <= NF; i++) if ($i == "->") print $(i + 1)}' <<<"$out")" >>"$TMP/figures"
  echo "$tag $round cluster_loop_events_per_s $(sed -n 's/.*loop events (\([0-9.]*\)\/s).*/\1/p' <<<"$out")" >>"$TMP/figures"
  out=$("$g" run scenarios/leader-failover.yaml -q)
  echo "$tag $round failover_sim_s_per_wall_s $(sed -n 's/^run: .*(\([0-9.]*\)x).*/\1/p' <<<"$out")" >>"$TMP/figures"
  out=$("$g" bench e2e --seconds 60)
  echo "$tag $round e2e_records_per_wall_s $(sed -n 's/.*->  *\([0-9.]*\) records per wall s.*/\1/p' <<<"$out" | head -1)" >>"$TMP/figures"
  out=$("$g" swarm --seeds 100 --jobs 2 --out "$TMP/swarm-out" 2>&1)
  echo "$tag $round swarm_seeds_per_min $(sed -n 's/^swarm: .* in .*: \([0-9.]*\) seeds\/min.*/\1/p' <<<"$out")" >>"$TMP/figures"
}

for round in $(seq 1 "$ROUNDS"); do
  if [ -z "$OLD" ]; then
    measure "$NEW" new "$round"
  elif [ $((round % 2)) = 1 ]; then
    measure "$NEW" new "$round"; measure "$OLD" old "$round"
  else
    measure "$OLD" old "$round"; measure "$NEW" new "$round"
  fi
  echo "round $round of $ROUNDS done" >&2
done

python3 - "$TMP/figures" "${OLD:+yes}" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 4]
have_old = sys.argv[2] == "yes"
val = {}
for tag, rnd, fig, v in rows:
    val[(tag, int(rnd), fig)] = float(v)
rounds = sorted({k[1] for k in val})
# The loop's share: cluster loop events/s over the same round's bare loop events/s.
for tag in ("new", "old"):
    for r in rounds:
        if (tag, r, "cluster_loop_events_per_s") in val:
            val[(tag, r, "cluster_loop_share_of_bare")] = val[(tag, r, "cluster_loop_events_per_s")] / val[(tag, r, "bare_loop_events_per_s")]
figures = ["cluster_sim_s_per_wall_s", "failover_sim_s_per_wall_s", "cluster_loop_events_per_s", "bare_loop_events_per_s",
           "cluster_loop_share_of_bare", "e2e_records_per_wall_s", "swarm_seeds_per_min"]
med = lambda xs: statistics.median(xs) if xs else float("nan")
print(f"{len(rounds)} round(s); medians" + ("; new/old is the median of the per-round ratios" if have_old else ""))
print(f"{'figure':30} {'new':>14}" + (f" {'old':>14} {'new/old':>8}" if have_old else ""))
for f in figures:
    new = [val[("new", r, f)] for r in rounds if ("new", r, f) in val]
    line = f"{f:30} {med(new):14.4g}"
    if have_old:
        old = [val[("old", r, f)] for r in rounds if ("old", r, f) in val]
        ratios = [val[("new", r, f)] / val[("old", r, f)] for r in rounds if ("new", r, f) in val and ("old", r, f) in val]
        line += f" {med(old):14.4g} {med(ratios):8.3f}"
    print(line)
EOF
