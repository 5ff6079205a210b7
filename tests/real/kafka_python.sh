#!/usr/bin/env bash
# Stock kafka-python 2.0.2 (Debian python3-kafka) against a 3-broker Gregor cluster with its default
# broker version detection: tests/real/kafka_python_client.py.
source "$(dirname "$0")/lib.sh" "$1"
/usr/bin/python3 -c 'import kafka' 2>/dev/null || fail "kafka-python is not installed (Debian package python3-kafka)"

start_cluster 3
timeout 300 /usr/bin/python3 "$(dirname "$0")/kafka_python_client.py" "$BOOTSTRAP" || fail "kafka-python client"
stop_cluster
echo "PASS"
