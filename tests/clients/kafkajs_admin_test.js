// kafkajs 2.2.4's admin client against a Gregor cluster, for the admin APIs Gregor added from
// Kafka 3.9: describeCluster, createPartitions, deleteTopicRecords, deleteGroups (and the offsets
// that go with a group), with the errors Kafka gives.
//   node kafkajs_admin_test.js HOST:PORT[,...]
'use strict';
const { logLevel } = require('kafkajs');
const { makeKafka, check, run } = require('./kafkajs_common');

const kafka = makeKafka('gregor-kafkajs-admin', process.argv[2], logLevel.NOTHING, 5);
const topic = 'js-admin';

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  const cluster = await admin.describeCluster();
  check(cluster.brokers.length === 3, `describeCluster: ${cluster.brokers.length} brokers, expected 3`);
  check(cluster.controller >= 1 && cluster.controller <= 3, `describeCluster: controller ${cluster.controller}`);
  check(typeof cluster.clusterId === 'string' && cluster.clusterId.length === 22, `describeCluster: cluster id ${cluster.clusterId}`);
  console.log('admin: describeCluster ok');

  check(await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 3 }], waitForLeaders: true }),
    'createTopics returned false');
  await admin.createPartitions({ topicPartitions: [{ topic, count: 4 }] });
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  check(md.topics[0].partitions.length === 4, `after createPartitions: ${md.topics[0].partitions.length} partitions`);
  let refused = null;
  try {
    await admin.createPartitions({ topicPartitions: [{ topic, count: 3 }] });
  } catch (e) {
    refused = e;
  }
  check(refused && /INVALID_PARTITIONS|partitions/i.test(String(refused.type || refused.message)),
    `shrinking was not refused with INVALID_PARTITIONS: ${refused}`);
  console.log('admin: createPartitions ok');

  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, value: `v${i}` })) });
  await producer.disconnect();
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '6' }] });
  const offsets = await admin.fetchTopicOffsets(topic);
  const p0 = offsets.find((o) => o.partition === 0);
  check(p0.low === '6' && p0.high === '10', `after deleteTopicRecords: low ${p0.low}, high ${p0.high}; expected 6 and 10`);
  console.log('admin: deleteTopicRecords ok');

  await admin.setOffsets({ groupId: 'js-admin-group', topic, partitions: [{ partition: 0, offset: '8' }] });
  const before = await admin.fetchOffsets({ groupId: 'js-admin-group', topics: [topic] });
  check(before[0].partitions.find((p) => p.partition === 0).offset === '8', 'setOffsets did not commit 8');
  const deleted = await admin.deleteGroups(['js-admin-group']);
  check(deleted.length === 1 && deleted[0].errorCode === 0, `deleteGroups: ${JSON.stringify(deleted)}`);
  const after = await admin.fetchOffsets({ groupId: 'js-admin-group', topics: [topic] });
  check(after[0].partitions.find((p) => p.partition === 0).offset === '-1', 'the deleted group still has its offset');
  let notFound = null;
  try {
    await admin.deleteGroups(['js-admin-group']);
  } catch (e) {
    notFound = e;
  }
  check(notFound && JSON.stringify(notFound.groups || notFound.message).includes('GROUP_ID_NOT_FOUND'),
    `deleting it again did not say GROUP_ID_NOT_FOUND: ${notFound && JSON.stringify(notFound.groups || notFound.message)}`);
  console.log('admin: deleteGroups ok');
  await admin.disconnect();
}

run('kafkajs admin test', main);
