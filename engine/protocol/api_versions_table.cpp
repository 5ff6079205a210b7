#include "engine/protocol/api_versions_table.h"

#include <array>

namespace gregor::protocol {

namespace {

// Ordered by api key. Each line: the range, then why (reference §4, the clients' needs).
constexpr std::array kTable = {
    ApiVersionRange{ApiKey::PRODUCE, 0, 11},             // Kafka 3.9's: v0-2 message sets converted on append
    ApiVersionRange{ApiKey::FETCH, 0, 12},               // v0-3 down-converted; v13+ needs topic ids (not yet)
    ApiVersionRange{ApiKey::LIST_OFFSETS, 0, 9},         // Kafka 3.9's: v0 offset list, v7 max timestamp
    ApiVersionRange{ApiKey::METADATA, 1, 4},             // v1+: controller id; v4 auto-create flag
    ApiVersionRange{ApiKey::LEADER_AND_ISR, 0, 7},       // Kafka 3.9's; the controller sends v5 (topic ids)
    ApiVersionRange{ApiKey::STOP_REPLICA, 0, 1},         // flexible from v2
    ApiVersionRange{ApiKey::UPDATE_METADATA, 0, 5},      // flexible from v6
    ApiVersionRange{ApiKey::CONTROLLED_SHUTDOWN, 1, 2},  // v0 has a header without client id
    ApiVersionRange{ApiKey::OFFSET_COMMIT, 2, 5},        // librdkafka needs an overlap with 1-2
    ApiVersionRange{ApiKey::OFFSET_FETCH, 1, 4},         // kafkajs starts at v1; v6 is flexible
    ApiVersionRange{ApiKey::FIND_COORDINATOR, 0, 2},     // min must be 0 (librdkafka feature check)
    ApiVersionRange{ApiKey::JOIN_GROUP, 0, 5},           // v4+ MEMBER_ID_REQUIRED
    ApiVersionRange{ApiKey::HEARTBEAT, 0, 3},
    ApiVersionRange{ApiKey::LEAVE_GROUP, 0, 1},          // v3 batches members: not needed
    ApiVersionRange{ApiKey::SYNC_GROUP, 0, 3},
    ApiVersionRange{ApiKey::DESCRIBE_GROUPS, 0, 4},      // flexible from v5
    ApiVersionRange{ApiKey::LIST_GROUPS, 0, 2},          // flexible from v3
    ApiVersionRange{ApiKey::API_VERSIONS, 0, 3},         // v3 flexible: librdkafka's first request
    ApiVersionRange{ApiKey::CREATE_TOPICS, 0, 3},        // flexible from v5
    ApiVersionRange{ApiKey::DELETE_TOPICS, 0, 3},        // flexible from v4
    ApiVersionRange{ApiKey::DELETE_RECORDS, 0, 2},       // Kafka 3.9's
    ApiVersionRange{ApiKey::INIT_PRODUCER_ID, 0, 1},     // min 0 (IdempotentProducer); v2 flexible
    ApiVersionRange{ApiKey::OFFSET_FOR_LEADER_EPOCH, 0, 3},  // flexible from v4
    ApiVersionRange{ApiKey::DESCRIBE_CONFIGS, 0, 2},     // kafkajs 0-2; v3 adds documentation
    ApiVersionRange{ApiKey::ALTER_CONFIGS, 0, 1},        // flexible from v2
    ApiVersionRange{ApiKey::DESCRIBE_LOG_DIRS, 0, 4},    // Kafka 3.9's
    ApiVersionRange{ApiKey::CREATE_PARTITIONS, 0, 3},    // Kafka 3.9's
    ApiVersionRange{ApiKey::DELETE_GROUPS, 0, 2},        // Kafka 3.9's
    ApiVersionRange{ApiKey::ELECT_LEADERS, 0, 2},        // Kafka 3.9's
    ApiVersionRange{ApiKey::INCREMENTAL_ALTER_CONFIGS, 0, 0},  // flexible from v1
    ApiVersionRange{ApiKey::OFFSET_DELETE, 0, 0},        // Kafka 3.9's (never flexible)
    ApiVersionRange{ApiKey::DESCRIBE_CLUSTER, 0, 1},     // Kafka 3.9's
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
