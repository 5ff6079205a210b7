#include "engine/protocol/api_versions_table.h"

#include <array>

namespace gregor::protocol {

namespace {

// Ordered by api key. Each line: the range, then why (reference §4, the clients' needs).
constexpr std::array kTable = {
    ApiVersionRange{ApiKey::PRODUCE, 0, 11},             // Kafka 3.9's: v0-2 message sets converted on append
    ApiVersionRange{ApiKey::FETCH, 0, 17},               // Kafka 3.9's: v0-3 down-converted, v13+ topic ids
    ApiVersionRange{ApiKey::LIST_OFFSETS, 0, 9},         // Kafka 3.9's: v0 offset list, v7 max timestamp
    ApiVersionRange{ApiKey::METADATA, 0, 12},            // Kafka 3.9's: v0 empty = all, v10+ topic ids
    ApiVersionRange{ApiKey::LEADER_AND_ISR, 0, 7},       // Kafka 3.9's: v5+ answers by topic id
    ApiVersionRange{ApiKey::STOP_REPLICA, 0, 4},         // Kafka 3.9's: v3+ per-partition epochs and deletes
    ApiVersionRange{ApiKey::UPDATE_METADATA, 0, 8},      // Kafka 3.9's: v7 topic ids (what the controller sends)
    ApiVersionRange{ApiKey::CONTROLLED_SHUTDOWN, 0, 3},  // Kafka 3.9's: v0 has a header without client id
    ApiVersionRange{ApiKey::OFFSET_COMMIT, 0, 9},        // Kafka 3.9's: v0 simple commits, v6 leader epoch, v7 static members
    ApiVersionRange{ApiKey::OFFSET_FETCH, 0, 9},         // Kafka 3.9's: v5 leader epoch, v8+ several groups
    ApiVersionRange{ApiKey::FIND_COORDINATOR, 0, 6},     // Kafka 3.9's: v4+ batched keys
    ApiVersionRange{ApiKey::JOIN_GROUP, 0, 9},           // Kafka 3.9's: v4 MEMBER_ID_REQUIRED, v5 static members
    ApiVersionRange{ApiKey::HEARTBEAT, 0, 4},            // Kafka 3.9's
    ApiVersionRange{ApiKey::LEAVE_GROUP, 0, 5},          // Kafka 3.9's: v3+ batched members
    ApiVersionRange{ApiKey::SYNC_GROUP, 0, 5},           // Kafka 3.9's: v5 protocol type/name checked
    ApiVersionRange{ApiKey::DESCRIBE_GROUPS, 0, 5},      // Kafka 3.9's
    ApiVersionRange{ApiKey::LIST_GROUPS, 0, 5},          // Kafka 3.9's: v4 states filter, v5 types filter
    ApiVersionRange{ApiKey::SASL_HANDSHAKE, 0, 1},       // Kafka 3.9's: v0 raw tokens follow, v1 SaslAuthenticate
    ApiVersionRange{ApiKey::API_VERSIONS, 0, 4},         // Kafka 3.9's: v3 flexible (librdkafka's first request)
    ApiVersionRange{ApiKey::CREATE_TOPICS, 0, 7},        // Kafka 3.9's: v5 configs in the answer, v7 topic id
    ApiVersionRange{ApiKey::DELETE_TOPICS, 0, 6},        // Kafka 3.9's: v6 by topic id
    ApiVersionRange{ApiKey::DELETE_RECORDS, 0, 2},       // Kafka 3.9's
    ApiVersionRange{ApiKey::INIT_PRODUCER_ID, 0, 5},     // Kafka 3.9's (min 0 for librdkafka's idempotent producer)
    ApiVersionRange{ApiKey::OFFSET_FOR_LEADER_EPOCH, 0, 4},  // Kafka 3.9's
    ApiVersionRange{ApiKey::ADD_PARTITIONS_TO_TXN, 0, 5},  // Kafka 3.9's: v4+ brokers verify (KIP-890)
    ApiVersionRange{ApiKey::ADD_OFFSETS_TO_TXN, 0, 4},   // Kafka 3.9's
    ApiVersionRange{ApiKey::END_TXN, 0, 4},              // Kafka 3.9's
    ApiVersionRange{ApiKey::WRITE_TXN_MARKERS, 0, 1},    // Kafka 3.9's: inter-broker, transaction markers (KIP-98)
    ApiVersionRange{ApiKey::TXN_OFFSET_COMMIT, 0, 4},    // Kafka 3.9's: v3 generation and member (KIP-447)
    ApiVersionRange{ApiKey::DESCRIBE_ACLS, 0, 3},        // Kafka 3.9's: v1 pattern types, v3 User resources
    ApiVersionRange{ApiKey::CREATE_ACLS, 0, 3},          // Kafka 3.9's
    ApiVersionRange{ApiKey::DELETE_ACLS, 0, 3},          // Kafka 3.9's
    ApiVersionRange{ApiKey::DESCRIBE_CONFIGS, 0, 4},     // Kafka 3.9's: v3 documentation and types
    ApiVersionRange{ApiKey::ALTER_CONFIGS, 0, 2},        // Kafka 3.9's
    ApiVersionRange{ApiKey::DESCRIBE_LOG_DIRS, 0, 4},    // Kafka 3.9's
    ApiVersionRange{ApiKey::SASL_AUTHENTICATE, 0, 2},    // Kafka 3.9's: v1 session lifetime (KIP-368)
    ApiVersionRange{ApiKey::CREATE_PARTITIONS, 0, 3},    // Kafka 3.9's
    ApiVersionRange{ApiKey::DELETE_GROUPS, 0, 2},        // Kafka 3.9's
    ApiVersionRange{ApiKey::ELECT_LEADERS, 0, 2},        // Kafka 3.9's
    ApiVersionRange{ApiKey::INCREMENTAL_ALTER_CONFIGS, 0, 1},  // Kafka 3.9's
    ApiVersionRange{ApiKey::ALTER_PARTITION_REASSIGNMENTS, 0, 0},  // Kafka 3.9's
    ApiVersionRange{ApiKey::LIST_PARTITION_REASSIGNMENTS, 0, 0},   // Kafka 3.9's
    ApiVersionRange{ApiKey::OFFSET_DELETE, 0, 0},        // Kafka 3.9's (never flexible)
    ApiVersionRange{ApiKey::ALTER_USER_SCRAM_CREDENTIALS, 0, 0},  // Kafka 3.9's (KIP-554)
    ApiVersionRange{ApiKey::DESCRIBE_CLUSTER, 0, 1},     // Kafka 3.9's
    ApiVersionRange{ApiKey::DESCRIBE_PRODUCERS, 0, 0},   // Kafka 3.9's (KIP-664)
    ApiVersionRange{ApiKey::DESCRIBE_TRANSACTIONS, 0, 0},  // Kafka 3.9's (KIP-664)
    ApiVersionRange{ApiKey::LIST_TRANSACTIONS, 0, 1},    // Kafka 3.9's: v1 duration filter (KIP-994)
};

}  // namespace

std::span<const ApiVersionRange> supported_api_versions() { return kTable; }

std::optional<ApiVersionRange> supported_range(ApiKey key) {
  for (const ApiVersionRange& range : kTable) {
    if (range.api_key == key) return range;
  }
  return std::nullopt;
}

bool is_version_supported(ApiKey key, int16_t version) {
  std::optional<ApiVersionRange> range = supported_range(key);
  return range.has_value() && version >= range->min_version && version <= range->max_version;
}

}  // namespace gregor::protocol
