#!/usr/bin/python3
# kafka-python 2.0.2 (Debian python3-kafka) against a Gregor cluster, with its DEFAULT broker version
# detection (no api_version pin): version probes, admin topic creation, produce, consume, a group
# that resumes from its commits, and offsets_for_times. Usage: kafka_python_client.py BOOTSTRAP
import sys
import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic

BOOTSTRAP = sys.argv[1]
TOPIC = "kp"
COUNT = 100
BASE_TS = 1_700_000_000_000  # ms: record i has timestamp BASE_TS + 1000 * i


def fail(why):
    print("FAIL: " + why, file=sys.stderr)
    sys.exit(1)


# 1. The version probe, many times: each new client probes ApiVersions then Metadata (v0 first).
probes = 20
for i in range(probes):
    c = KafkaConsumer(bootstrap_servers=BOOTSTRAP, request_timeout_ms=20000, consumer_timeout_ms=1000)
    version = c.config["api_version"]
    c.topics()
    c.close()
    if version is None or version < (1, 0, 0):
        fail("probe %d detected broker version %r" % (i, version))
print("probe: %d of %d clients detected broker version %r" % (probes, probes, version))

# 2. Admin: create the topic (CreateTopics at the version the client picks).
admin = KafkaAdminClient(bootstrap_servers=BOOTSTRAP, request_timeout_ms=30000)
admin.create_topics([NewTopic(name=TOPIC, num_partitions=3, replication_factor=3)], timeout_ms=30000)
deadline = time.time() + 30
while TOPIC not in admin.list_topics():
    if time.time() > deadline:
        fail("the created topic is not listed")
    time.sleep(0.1)
admin.close()
print("admin: created %s" % TOPIC)

# 3. Produce to partition 0 with explicit timestamps, acks=all.
producer = KafkaProducer(bootstrap_servers=BOOTSTRAP, acks="all", retries=5, request_timeout_ms=30000)
for i in range(COUNT):
    producer.send(TOPIC, key=b"k%d" % i, value=b"v%d" % i, partition=0, timestamp_ms=BASE_TS + 1000 * i)
producer.flush(60)
producer.close()
print("produce: %d records" % COUNT)

# 4. Consume everything from the beginning, without a group.
tp = TopicPartition(TOPIC, 0)
consumer = KafkaConsumer(bootstrap_servers=BOOTSTRAP, consumer_timeout_ms=10000, auto_offset_reset="earliest")
consumer.assign([tp])
consumer.seek_to_beginning(tp)
got = [m for m in consumer]
values = [m.value for m in got]
if values != [b"v%d" % i for i in range(COUNT)]:
    fail("consumed %d records, not the %d produced in order" % (len(values), COUNT))
if [m.timestamp for m in got] != [BASE_TS + 1000 * i for i in range(COUNT)]:
    fail("the consumed timestamps are not the produced ones")

# 5. offsets_for_times: the first record at or after the time (ListOffsets by timestamp).
for target, expected in ((BASE_TS + 30500, 31), (BASE_TS, 0), (BASE_TS + 1000 * (COUNT - 1), COUNT - 1)):
    found = consumer.offsets_for_times({tp: target})[tp]
    if found is None or found.offset != expected:
        fail("offsets_for_times(%d) = %r, expected offset %d" % (target, found, expected))
if consumer.offsets_for_times({tp: BASE_TS + 1000 * COUNT})[tp] is not None:
    fail("offsets_for_times after the last record found something")
consumer.close()
print("consume: %d records in order; offsets_for_times ok" % COUNT)

# 6. A group: the first member reads half and commits; a second member of the group resumes there.
def group_member():
    return KafkaConsumer(TOPIC, bootstrap_servers=BOOTSTRAP, group_id="kpg", enable_auto_commit=False,
                         auto_offset_reset="earliest", consumer_timeout_ms=15000, session_timeout_ms=10000)

first = group_member()
seen = []
for m in first:
    if m.partition == 0:
        seen.append(m.offset)
    if len(seen) == COUNT // 2:
        break
first.commit()
committed = first.committed(tp)
first.close()
if committed != COUNT // 2:
    fail("the group's committed offset is %r, expected %d" % (committed, COUNT // 2))

second = group_member()
rest = [m.offset for m in second if m.partition == 0]
second.close()
if rest != list(range(COUNT // 2, COUNT)):
    fail("the group did not resume from its commit: read %d records starting at %r" % (len(rest), rest[:1]))
print("group: resumed from offset %d and read the other %d" % (committed, len(rest)))
print("PASS")
