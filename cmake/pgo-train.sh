#!/usr/bin/env bash
# The training run of profile-guided optimization (see cmake/layers.cmake and the Makefile's build):
# the instrumented gregor of BUILD_DIR runs the simulator's workloads, and its counts land in
# BUILD_DIR/pgo/profile (the folder cmake/layers.cmake compiles into it) for the optimized build.
# The workloads: the cluster benchmark, and every story of the scenario library once (seed 1).
# `bench e2e` and the swarm are left out, so that they measure the result on work the training did
# not see.
#
# Usage: cmake/pgo-train.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: cmake/pgo-train.sh BUILD_DIR}" && pwd)
profile=$build/pgo/profile
cd "$(dirname "$0")/.."
# Counts add up over runs: start from none, so that a retraining does not mix in an older build's.
rm -rf "$profile"
mkdir -p "$profile"
"$build/gregor" bench cluster --seconds 60 >/dev/null
for f in scenarios/*.yaml; do
  "$build/gregor" run "$f" --seed 1 -q >/dev/null
done
echo "pgo: trained $(find "$profile" -name '*.gcda' | wc -l) object files' counts into $profile"
