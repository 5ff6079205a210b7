#!/usr/bin/env bash
# Builds a target that includes a header against the layer direction and passes only when the
# build fails because that header cannot be found.
# usage: layer_probe.sh CMAKE BUILD_DIR TARGET HEADER
set -u
cmake="$1"; build="$2"; target="$3"; header="$4"
out=$("$cmake" --build "$build" --target "$target" 2>&1)
status=$?
if [ $status = 0 ]; then
  echo "$target compiled: $header is reachable from where the layer rule forbids it"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -q "$header: No such file or directory"; then
  echo "$target failed to build, but not for the layer rule:"
  printf '%s\n' "$out" | tail -20
  exit 1
fi
echo "$target does not compile: $header is out of its reach, as the layer rule says"
