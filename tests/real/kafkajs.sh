#!/usr/bin/env bash
# Stock kafkajs 2.2.4 (npm, installed under tests/clients by `make test`) against a 3-broker
# Gregor cluster, in two node processes (the second resumes the first one's group from its
# commits): see tests/clients/kafkajs_test.js.
source "$(dirname "$0")/lib.sh" "$1"
require_kafkajs
grep -q '"version": "2.2.4"' "$CLIENTS/node_modules/kafkajs/package.json" || fail "kafkajs in $CLIENTS is not 2.2.4"

start_cluster 3
export KAFKAJS_NO_PARTITIONER_WARNING=1
timeout 120 node "$CLIENTS/kafkajs_test.js" first "$BOOTSTRAP" "$TMP/kafkajs-state.json" || fail "kafkajs, first process"
timeout 120 node "$CLIENTS/kafkajs_test.js" resume "$BOOTSTRAP" "$TMP/kafkajs-state.json" || fail "kafkajs, second process (resume)"
stop_cluster
echo "PASS"
