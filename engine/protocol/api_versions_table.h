// The API versions every Gregor broker advertises in ApiVersions and implements: one table, so
// that every broker of a cluster advertises the same ranges (kafkajs reuses the seed broker's
// version map for every broker) and so that the codecs implement exactly what is advertised.
//
// Why these ranges (docs/protocol.md): Kafka 3.9's whole range of every client and admin API the
// broker implements, each version with its semantics (issue 16); flexible versions included, which
// librdkafka 2.0.2 and kafka-python pick where offered (kafkajs 2.2.4 has no flexible support and
// stays on the older versions, which every range still starts from). The inter-broker APIs
// (LeaderAndIsr, StopReplica, ControlledShutdown) keep their last non-flexible versions and
// UpdateMetadata goes to v7 (topic ids); a ZooKeeper-era Kafka broker advertises them too.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "engine/protocol/api_keys.h"

namespace gregor::protocol {

struct ApiVersionRange {
  ApiKey api_key;
  int16_t min_version;
  int16_t max_version;
  bool operator==(const ApiVersionRange&) const = default;
};

// The advertised ranges, ordered by api key.
std::span<const ApiVersionRange> supported_api_versions();

// The range for one API, or nullopt when Gregor does not implement it.
std::optional<ApiVersionRange> supported_range(ApiKey key);

bool is_version_supported(ApiKey key, int16_t version);

// The version Gregor's own brokers send of each inter-broker request (the highest non-flexible one,
// except LeaderAndIsr, sent at v5 for its topic ids).
inline constexpr int16_t kLeaderAndIsrVersion = 5;  // v5: topic ids (KIP-516)
inline constexpr int16_t kStopReplicaVersion = 1;
inline constexpr int16_t kUpdateMetadataVersion = 7;  // v7: topic ids (KIP-516)
inline constexpr int16_t kControlledShutdownVersion = 2;
inline constexpr int16_t kOffsetForLeaderEpochVersion = 3;
// Followers replicate with Fetch at this version (replica_id = the follower's broker id).
inline constexpr int16_t kReplicaFetchVersion = 11;

}  // namespace gregor::protocol
