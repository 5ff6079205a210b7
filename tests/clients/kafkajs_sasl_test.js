// kafkajs 2.2.4 against a Gregor SASL_PLAINTEXT listener: produce and read back with the given
// mechanism (plain, scram-sha-256, scram-sha-512), or, with "wrong", expect authentication to fail.
// usage: node kafkajs_sasl_test.js BOOTSTRAP MECHANISM USER PASSWORD TOPIC ok|wrong
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, mechanism, username, password, topic, expect] = process.argv.slice(2);
const kafka = new Kafka({
  clientId: 'gregor-kafkajs-sasl',
  brokers: bootstrap.split(','),
  sasl: { mechanism, username, password },
  logLevel: logLevel.NOTHING,
  retry: { retries: expect === 'wrong' ? 0 : 5 },
});

async function roundTrip() {
  const producer = kafka.producer();
  await producer.connect();
  const messages = [];
  for (let i = 0; i < 50; i++) messages.push({ key: `k${i}`, value: `${mechanism}-${i}` });
  await producer.send({ topic, messages, acks: -1 });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: `sasl-${mechanism}-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen = new Set();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`read ${seen.size} of 50 records`)), 60000);
    consumer.run({
      eachMessage: async ({ message }) => {
        const v = message.value.toString();
        if (v.startsWith(`${mechanism}-`)) seen.add(v);
        if (seen.size === 50) { clearTimeout(timer); resolve(); }
      },
    });
  });
  await consumer.disconnect();
}

async function main() {
  if (expect === 'wrong') {
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.listTopics();
    } catch (e) {
      const text = `${e.name}: ${e.message}`;
      if (/SASL|[Aa]uthentication/.test(text)) {
        console.log(`refused as expected: ${text}`);
        return;
      }
      throw new Error(`failed, but not with an authentication error: ${text}`);
    }
    throw new Error('a wrong password was accepted');
  }
  await roundTrip();
  console.log(`kafkajs ${mechanism}: 50 records produced and read back`);
}

main().then(() => process.exit(0), (e) => { console.error(`FAIL: ${e.stack || e}`); process.exit(1); });
