// What the kafkajs tests share: the client for the brokers on the command line, a watchdog that
// fails the test when it does not finish in time, check(), and the run of the test's main
// function that prints PASS or FAIL and sets the exit code.
'use strict';
const { Kafka } = require('kafkajs');

function makeKafka(clientId, brokersArg, logLevel, retries) {
  return new Kafka({ clientId, brokers: brokersArg.split(','), logLevel, retry: { retries } });
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

// Runs main(); PASS and exit 0 when it resolves, FAIL and exit 1 when it rejects or `seconds` pass.
function run(name, main, seconds = 110) {
  const watchdog = setTimeout(() => {
    console.error(`FAIL: ${name} did not finish within ${seconds} s`);
    process.exit(1);
  }, seconds * 1000);
  main().then(
    () => {
      clearTimeout(watchdog);
      console.log('PASS');
      process.exit(0);
    },
    (e) => {
      console.error('FAIL:', e && e.stack ? e.stack : e);
      process.exit(1);
    },
  );
}

module.exports = { makeKafka, check, run };
