#!/usr/bin/env bash
# Stock kafkajs 2.2.4's admin client (describeCluster, createPartitions, deleteTopicRecords,
# deleteGroups) against a 3-broker Gregor cluster: see tests/clients/kafkajs_admin_test.js.
source "$(dirname "$0")/lib.sh" "$1"
require_kafkajs
start_cluster 3
export KAFKAJS_NO_PARTITIONER_WARNING=1
timeout 120 node "$CLIENTS/kafkajs_admin_test.js" "$BOOTSTRAP" || fail "kafkajs admin"
stop_cluster
echo "PASS"
