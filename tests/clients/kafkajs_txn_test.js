// kafkajs 2.2.4's transactional producer against a Gregor cluster (KIP-98): a transaction that
// commits records on three partitions, one that aborts, one that commits consumer offsets with
// its records (sendOffsets), and a second producer with the same transactional.id that fences the
// first while its transaction is open (the coordinator aborts what the fenced one left). A
// read_committed consumer (kafkajs' default) must see exactly the committed records; a
// read_uncommitted one sees the aborted ones too (they are in the log, between markers).
//   node kafkajs_txn_test.js HOST:PORT[,...]
'use strict';
const { logLevel } = require('kafkajs');
const { makeKafka, check, run } = require('./kafkajs_common');

const kafka = makeKafka('gregor-kafkajs-txn', process.argv[2], logLevel.NOTHING, 8);
const topic = 'js-txn';
const input = 'js-txn-in';
const group = 'js-txn-group';

// Three records per partition, with values that say which transaction wrote them.
function records(tag, n) {
  return Array.from({ length: n }, (_, i) => ({ partition: i % 3, key: `${tag}-${i}`, value: `${tag}-${i}` }));
}

// Reads `topic` from the beginning until every value in `expected` was seen; returns every value seen.
async function readUntil(groupId, readUncommitted, expected) {
  const consumer = kafka.consumer({ groupId, readUncommitted, maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen = [];
  await new Promise((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ message }) => {
          seen.push(message.value.toString());
          if (expected.every((v) => seen.includes(v))) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return seen;
}

function isFenced(e) {
  const text = `${e && e.type} ${e && e.message}`;
  return /PRODUCER_FENCED|INVALID_PRODUCER_EPOCH|fenced/i.test(text);
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  check(
    await admin.createTopics({
      topics: [
        { topic, numPartitions: 3, replicationFactor: 3 },
        { topic: input, numPartitions: 1, replicationFactor: 3 },
      ],
      waitForLeaders: true,
    }),
    'createTopics returned false',
  );

  // The group's coordinator comes up with __consumer_offsets, made on the first lookup; until its
  // leader has loaded it, brokers answer NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS, and
  // kafkajs' sendOffsets asks the coordinator it found first again and again. Wait for it here.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.fetchOffsets({ groupId: group, topics: [input] });
      break;
    } catch (e) {
      if (attempt >= 50) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const p1 = kafka.producer({ transactionalId: 'js-tx', maxInFlightRequests: 1, idempotent: true });
  await p1.connect();

  let t = await p1.transaction();
  await t.send({ topic, messages: records('committed-a', 9) });
  await t.commit();
  console.log('txn: commit ok');

  t = await p1.transaction();
  await t.send({ topic, messages: records('aborted', 6) });
  await t.abort();
  console.log('txn: abort ok');

  t = await p1.transaction();
  await t.send({ topic, messages: records('committed-b', 6) });
  await t.sendOffsets({ consumerGroupId: group, topics: [{ topic: input, partitions: [{ partition: 0, offset: '7' }] }] });
  await t.commit();
  // EndTxn answers once the coordinator has written PREPARE_COMMIT; the markers, which make the
  // offsets visible to an OffsetFetch without require_stable (kafkajs'), follow (as in Kafka). On
  // a loaded machine the first fetch can come before them: ask until they are there.
  let committed;
  for (let attempt = 0; attempt < 50; attempt++) {
    const offsets = await admin.fetchOffsets({ groupId: group, topics: [input] });
    committed = offsets[0].partitions.find((p) => p.partition === 0).offset;
    if (committed !== '-1') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  check(committed === '7', `sendOffsets: the group's committed offset is ${committed}, expected 7`);
  console.log('txn: sendOffsets ok');

  // A zombie: p1 leaves a transaction open; p2, the same transactional.id, fences it.
  const zombie = await p1.transaction();
  await zombie.send({ topic, messages: records('zombie', 3) });
  const p2 = kafka.producer({ transactionalId: 'js-tx', maxInFlightRequests: 1, idempotent: true });
  await p2.connect();
  // kafkajs sends InitProducerId with the transactional.id when the first transaction begins.
  const t2 = await p2.transaction();
  let fenced = null;
  try {
    await zombie.send({ topic, messages: records('zombie-late', 3) });
    await zombie.commit();
  } catch (e) {
    fenced = e;
  }
  check(fenced && isFenced(fenced), `the old producer was not fenced: ${fenced && (fenced.type || fenced.message)}`);
  console.log('txn: fencing ok');
  await t2.send({ topic, messages: records('committed-c', 3) });
  await t2.commit();
  await p2.disconnect();
  await p1.disconnect().catch(() => {});

  // The last committed transaction wrote to every partition, so a consumer that saw all of it
  // has passed every aborted record's offset.
  const expected = [...records('committed-a', 9), ...records('committed-b', 6), ...records('committed-c', 3)].map(
    (r) => r.value,
  );
  const committedView = await readUntil('js-txn-read-committed', false, expected);
  const bad = committedView.filter((v) => !expected.includes(v));
  check(bad.length === 0, `read_committed saw records of aborted transactions: ${bad.join(' ')}`);
  check(committedView.length === expected.length, `read_committed saw ${committedView.length} records, expected ${expected.length}`);
  console.log(`txn: read_committed saw the ${expected.length} committed records and nothing else`);

  const aborted = records('aborted', 6).map((r) => r.value);
  const uncommittedView = await readUntil('js-txn-read-uncommitted', true, [...expected, ...aborted]);
  check(aborted.every((v) => uncommittedView.includes(v)), 'read_uncommitted did not see the aborted records');
  console.log('txn: read_uncommitted sees the aborted records');
  await admin.disconnect();
}

run('kafkajs txn test', main);
