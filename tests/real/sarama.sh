#!/usr/bin/env bash
# Stock Sarama 1.22 (Debian golang-github-shopify-sarama-dev, built in GOPATH mode from
# /usr/share/gocode with Debian's Go, no network) against a 3-broker Gregor cluster, with
# config.Version 0.10.2.0, 1.0.0 and 2.1.0: tests/real/sarama_client/main.go.
source "$(dirname "$0")/lib.sh" "$1"
require go "Debian package golang-go"
[ -d /usr/share/gocode/src/github.com/Shopify/sarama ] ||
  fail "Sarama's sources are not installed (Debian package golang-github-shopify-sarama-dev)"

# GOPATH mode: Debian's Go sources, then the client's own directory. The build cache lives next to
# the gregor binary, so later runs do not compile Sarama again.
GO_CACHE_DIR="$(cd "$(dirname "$1")" && pwd)/go-build-cache"
mkdir -p "$TMP/go/src/saramaclient"
cp "$(dirname "$0")/sarama_client/main.go" "$TMP/go/src/saramaclient/"
(cd "$TMP/go/src/saramaclient" &&
  GO111MODULE=off GOFLAGS= GOPROXY=off GOPATH="/usr/share/gocode:$TMP/go" GOCACHE="$GO_CACHE_DIR" \
    CGO_CFLAGS="-Wno-deprecated-declarations" go build -o "$TMP/sarama_client" . >"$TMP/go-build.log" 2>&1) ||
  fail "building the Sarama client: $(tail -n 20 "$TMP/go-build.log")"

start_cluster 3
for version in 0.10.2.0 1.0.0 2.1.0; do  # Sarama spells 1.0+ with three numbers
  echo "== config.Version $version"
  timeout 240 "$TMP/sarama_client" "$BOOTSTRAP" "$version" "sarama-${version//./-}" || fail "Sarama with config.Version $version"
done
stop_cluster
echo "PASS"
