#!/usr/bin/env bash
# Stock kafkajs 2.2.4's transactional producer and read_committed consumer against a 3-broker
# Gregor cluster: commit, abort, sendOffsets, fencing of a zombie: see tests/clients/kafkajs_txn_test.js.
source "$(dirname "$0")/lib.sh" "$1"
require_kafkajs
start_cluster 3
export KAFKAJS_NO_PARTITIONER_WARNING=1
timeout 120 node "$CLIENTS/kafkajs_txn_test.js" "$BOOTSTRAP" || fail "kafkajs transactions"
stop_cluster
echo "PASS"
