// kafkajs 2.2.4 against a Gregor cluster, in two processes:
//   node kafkajs_test.js first HOST:PORT[,...] STATE_FILE
//     admin createTopics (and TOPIC_ALREADY_EXISTS), an idempotent producer of 100 records, and a
//     group consumer that processes 60 of them, committing each, then exits (STATE_FILE keeps what
//     it saw and what was produced);
//   node kafkajs_test.js resume HOST:PORT[,...] STATE_FILE
//     a new process, same group: it must resume from the commits and get exactly the other 40.
'use strict';
const fs = require('fs');
const { logLevel, ConfigResourceTypes } = require('kafkajs');
const { makeKafka, check, run } = require('./kafkajs_common');

const phase = process.argv[2];
const stateFile = process.argv[4];
const kafka = makeKafka('gregor-kafkajs-test', process.argv[3], logLevel.WARN, 10);
const topic = 'js-orders';
const total = 100;
const firstRun = 60;


// Consumes as group `groupId` until `want` records were processed, committing each one's offset+1
// after processing it; records beyond `want` are left uncommitted for the next member.
async function consumeAndCommit(groupId, want) {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got = [];
  await new Promise((resolve, reject) => {
    consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic: t, partition, message }) => {
        if (got.length >= want) return;
        got.push(message.value.toString());
        await consumer.commitOffsets([{ topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
        if (got.length === want) resolve();
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  return got;
}

async function first() {
  const admin = kafka.admin();
  await admin.connect();
  const created = await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
  check(created === true, `createTopics returned ${created}, expected true`);
  const again = await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }] });
  check(again === false, `createTopics of an existing topic returned ${again}, expected false`);
  // Each broker learns of the topic from the controller's UpdateMetadata, so a broker other than
  // the one that answered may not list it yet (as in Kafka): wait for it, with a deadline.
  let listed = [];
  for (const deadline = Date.now() + 10000; ; await new Promise((r) => setTimeout(r, 100))) {
    listed = await admin.listTopics();
    if (listed.includes(topic) || Date.now() > deadline) break;
  }
  check(listed.includes(topic), `listTopics lacks ${topic} after 10 s: ${listed}`);
  console.log('admin: createTopics ok');

  // Topic configs: AlterConfigs replaces the overrides, DescribeConfigs reads them back with their source.
  const resource = { type: ConfigResourceTypes.TOPIC, name: topic };
  await admin.alterConfigs({ resources: [{ ...resource, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }] });
  const described = await admin.describeConfigs({ includeSynonyms: true, resources: [resource] });
  const entries = described.resources[0].configEntries;
  const isr = entries.find((e) => e.configName === 'min.insync.replicas');
  check(isr && isr.configValue === '2' && isr.configSource === 1,
    `min.insync.replicas after alterConfigs: ${JSON.stringify(isr)}`);
  const retention = entries.find((e) => e.configName === 'retention.ms');
  check(retention && retention.configSource === 5, `retention.ms should be a default: ${JSON.stringify(retention)}`);
  let refused = null;
  try {
    await admin.alterConfigs({ resources: [{ ...resource, configEntries: [{ name: 'min.insync.replicas', value: 'two' }] }] });
  } catch (e) {
    refused = e;
  }
  check(refused && refused.type === 'INVALID_CONFIG', `a malformed value was not refused with INVALID_CONFIG: ${refused}`);
  await admin.disconnect();
  console.log('admin: alterConfigs and describeConfigs ok');

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const values = [];
  for (let batch = 0; batch < 10; batch++) {
    const messages = [];
    for (let i = 0; i < total / 10; i++) {
      const n = batch * (total / 10) + i;
      values.push(`value-${n}`);
      messages.push({ key: `key-${n}`, value: `value-${n}` });
    }
    const result = await producer.send({ topic, acks: -1, messages });
    for (const r of result) check(r.errorCode === 0, `produce error ${r.errorCode}`);
  }
  await producer.disconnect();
  console.log(`idempotent producer: ${total} records acknowledged`);

  const seen = await consumeAndCommit('js-group', firstRun);
  console.log(`group consumer (process 1): ${seen.length} records, committed, exiting`);
  fs.writeFileSync(stateFile, JSON.stringify({ values, seen }));
}

async function resume() {
  const { values, seen } = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  const rest = await consumeAndCommit('js-group', total - firstRun);
  console.log(`group consumer (process 2, resumed from commits): ${rest.length} records`);
  const all = [...seen, ...rest].sort();
  check(new Set(all).size === all.length, 'a record was consumed twice across the restart');
  check(JSON.stringify(all) === JSON.stringify([...values].sort()), 'the two processes do not add up to every record');

  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchOffsets({ groupId: 'js-group', topics: [topic] });
  let committed = 0;
  for (const t of offsets) for (const p of t.partitions) committed += Number(p.offset);
  check(committed === total, `committed offsets add up to ${committed}, expected ${total}`);
  await admin.disconnect();
  console.log('fetchOffsets: the group committed every record');
}

const main = phase === 'first' ? first : phase === 'resume' ? resume : () => Promise.reject(new Error(`unknown phase ${phase}`));

run('kafkajs test', main);
