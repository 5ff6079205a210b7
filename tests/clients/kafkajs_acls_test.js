// kafkajs 2.2.4's admin ACL calls against a Gregor cluster with an authorizer: as a super user
// (SASL PLAIN) createAcls, describeAcls (a LITERAL and a PREFIXED binding found by MATCH) and
// deleteAcls round trip; a user who is not a super user and has no Alter on the cluster is refused
// with CLUSTER_AUTHORIZATION_FAILED.
// usage: node kafkajs_acls_test.js BOOTSTRAP ADMIN ADMIN_PASSWORD USER USER_PASSWORD
'use strict';
const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = require('kafkajs');
const { check, run } = require('./kafkajs_common');

const [bootstrap, adminUser, adminPassword, user, userPassword] = process.argv.slice(2);
const client = (username, password) =>
  new Kafka({
    clientId: 'gregor-kafkajs-acls',
    brokers: bootstrap.split(','),
    sasl: { mechanism: 'plain', username, password },
    logLevel: logLevel.NOTHING,
    retry: { retries: 2 },
  });

const binding = (name, patternType, principal, operation) => ({
  resourceType: AclResourceTypes.TOPIC,
  resourceName: name,
  resourcePatternType: patternType,
  principal,
  host: '*',
  operation,
  permissionType: AclPermissionTypes.ALLOW,
});

async function main() {
  const admin = client(adminUser, adminPassword).admin();
  await admin.connect();
  await admin.createAcls({
    acl: [
      binding('js-orders', ResourcePatternTypes.LITERAL, 'User:carol', AclOperationTypes.READ),
      binding('js-', ResourcePatternTypes.PREFIXED, 'User:carol', AclOperationTypes.WRITE),
    ],
  });
  // The ACLs reach every broker through the change notifications; describe until they show.
  let found = [];
  for (let i = 0; i < 50 && found.length < 2; i++) {
    const { resources } = await admin.describeAcls({
      resourceType: AclResourceTypes.TOPIC,
      resourceName: 'js-orders',
      resourcePatternType: ResourcePatternTypes.MATCH,
      principal: 'User:carol',
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    found = resources;
    if (found.length < 2) await new Promise((r) => setTimeout(r, 200));
  }
  check(found.length === 2, `describeAcls MATCH js-orders found ${JSON.stringify(found)}`);
  const prefixed = found.find((r) => r.resourcePatternType === ResourcePatternTypes.PREFIXED);
  check(prefixed && prefixed.resourceName === 'js-' && prefixed.acls[0].operation === AclOperationTypes.WRITE,
    `the PREFIXED binding: ${JSON.stringify(prefixed)}`);

  const { filterResponses } = await admin.deleteAcls({
    filters: [{
      resourceType: AclResourceTypes.TOPIC,
      resourcePatternType: ResourcePatternTypes.ANY,
      principal: 'User:carol',
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    }],
  });
  check(filterResponses.length === 1 && filterResponses[0].errorCode === 0, `deleteAcls: ${JSON.stringify(filterResponses)}`);
  check(filterResponses[0].matchingAcls.length === 2, `deleteAcls removed ${JSON.stringify(filterResponses[0].matchingAcls)}`);
  const after = await admin.describeAcls({
    resourceType: AclResourceTypes.ANY,
    resourcePatternType: ResourcePatternTypes.ANY,
    principal: 'User:carol',
    operation: AclOperationTypes.ANY,
    permissionType: AclPermissionTypes.ANY,
  });
  check(after.resources.length === 0, `after deleteAcls: ${JSON.stringify(after.resources)}`);
  await admin.disconnect();

  // Not a super user, no Alter on the cluster: refused.
  const other = client(user, userPassword).admin();
  await other.connect();
  let refused = null;
  try {
    await other.createAcls({ acl: [binding('x', ResourcePatternTypes.LITERAL, `User:${user}`, AclOperationTypes.ALL)] });
  } catch (e) {
    refused = e;
  }
  check(refused && /CLUSTER_AUTHORIZATION_FAILED|[Cc]luster authorization/.test(`${refused.type} ${refused.message}`),
    `createAcls by ${user}: ${refused ? `${refused.type} ${refused.message}` : 'accepted'}`);
  await other.disconnect();
}

run('kafkajs acls', main);
