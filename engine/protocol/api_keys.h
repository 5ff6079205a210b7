// Kafka's API keys: the int16 at the start of every request header that names the request type.
//
// The numbers and names are Kafka's (apache/kafka clients/src/main/resources/common/message/*.json,
// ApiKeys.java), every key Kafka defines, so that a log line can name any request a client sends
// even when Gregor does not implement it. Which keys and versions Gregor implements is in
// api_versions_table.h; the enum is only the vocabulary. Being an int16 enum, an ApiKey holds any
// value read off the wire, including ones Kafka never assigned.
#pragma once

#include <cstdint>
#include <optional>

namespace gregor::protocol {

enum class ApiKey : int16_t {
  PRODUCE = 0,
  FETCH = 1,
  LIST_OFFSETS = 2,
  METADATA = 3,
  LEADER_AND_ISR = 4,
  STOP_REPLICA = 5,
  UPDATE_METADATA = 6,
  CONTROLLED_SHUTDOWN = 7,
  OFFSET_COMMIT = 8,
  OFFSET_FETCH = 9,
  FIND_COORDINATOR = 10,
  JOIN_GROUP = 11,
  HEARTBEAT = 12,
  LEAVE_GROUP = 13,
  SYNC_GROUP = 14,
  DESCRIBE_GROUPS = 15,
  LIST_GROUPS = 16,
  SASL_HANDSHAKE = 17,
  API_VERSIONS = 18,
  CREATE_TOPICS = 19,
  DELETE_TOPICS = 20,
  DELETE_RECORDS = 21,
  INIT_PRODUCER_ID = 22,
  OFFSET_FOR_LEADER_EPOCH = 23,
  ADD_PARTITIONS_TO_TXN = 24,
  ADD_OFFSETS_TO_TXN = 25,
  END_TXN = 26,
  WRITE_TXN_MARKERS = 27,
  TXN_OFFSET_COMMIT = 28,
  DESCRIBE_ACLS = 29,
  CREATE_ACLS = 30,
  DELETE_ACLS = 31,
  DESCRIBE_CONFIGS = 32,
  ALTER_CONFIGS = 33,
  ALTER_REPLICA_LOG_DIRS = 34,
  DESCRIBE_LOG_DIRS = 35,
  SASL_AUTHENTICATE = 36,
  CREATE_PARTITIONS = 37,
  CREATE_DELEGATION_TOKEN = 38,
  RENEW_DELEGATION_TOKEN = 39,
  EXPIRE_DELEGATION_TOKEN = 40,
  DESCRIBE_DELEGATION_TOKEN = 41,
  DELETE_GROUPS = 42,
  ELECT_LEADERS = 43,
  INCREMENTAL_ALTER_CONFIGS = 44,
  ALTER_PARTITION_REASSIGNMENTS = 45,
  LIST_PARTITION_REASSIGNMENTS = 46,
  OFFSET_DELETE = 47,
  DESCRIBE_CLIENT_QUOTAS = 48,
  ALTER_CLIENT_QUOTAS = 49,
  DESCRIBE_USER_SCRAM_CREDENTIALS = 50,
  ALTER_USER_SCRAM_CREDENTIALS = 51,
  VOTE = 52,
  BEGIN_QUORUM_EPOCH = 53,
  END_QUORUM_EPOCH = 54,
  DESCRIBE_QUORUM = 55,
  ALTER_PARTITION = 56,
  UPDATE_FEATURES = 57,
  ENVELOPE = 58,
  FETCH_SNAPSHOT = 59,
  DESCRIBE_CLUSTER = 60,
  DESCRIBE_PRODUCERS = 61,
  BROKER_REGISTRATION = 62,
  BROKER_HEARTBEAT = 63,
  UNREGISTER_BROKER = 64,
  DESCRIBE_TRANSACTIONS = 65,
  LIST_TRANSACTIONS = 66,
  ALLOCATE_PRODUCER_IDS = 67,
  CONSUMER_GROUP_HEARTBEAT = 68,
  CONSUMER_GROUP_DESCRIBE = 69,
  CONTROLLER_REGISTRATION = 70,
  GET_TELEMETRY_SUBSCRIPTIONS = 71,
  PUSH_TELEMETRY = 72,
  ASSIGN_REPLICAS_TO_DIRS = 73,
  LIST_CLIENT_METRICS_RESOURCES = 74,
  DESCRIBE_TOPIC_PARTITIONS = 75,
  SHARE_GROUP_HEARTBEAT = 76,
  SHARE_GROUP_DESCRIBE = 77,
  SHARE_FETCH = 78,
  SHARE_ACKNOWLEDGE = 79,
  ADD_RAFT_VOTER = 80,
  REMOVE_RAFT_VOTER = 81,
  UPDATE_RAFT_VOTER = 82,
  INITIALIZE_SHARE_GROUP_STATE = 83,
  READ_SHARE_GROUP_STATE = 84,
  WRITE_SHARE_GROUP_STATE = 85,
  DELETE_SHARE_GROUP_STATE = 86,
  READ_SHARE_GROUP_STATE_SUMMARY = 87,
};

// Kafka's name of the API ("Produce", "LeaderAndIsr"), or "Unknown" for a number Kafka never assigned.
const char* api_name(ApiKey key);

// The first version of the API that uses KIP-482 flexible encoding (compact strings and arrays,
// tagged fields, request header v2 / response header v1), from the message specs (api_specs.h).
// nullopt for an API whose versions are never flexible (SaslHandshake, OffsetDelete) or that
// Gregor's codec does not describe.
std::optional<int16_t> first_flexible_version(ApiKey key);

// True when (key, version) uses flexible encoding. False for APIs Gregor does not know.
bool is_flexible_version(ApiKey key, int16_t version);

}  // namespace gregor::protocol
