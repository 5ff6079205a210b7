// Metadata (api key 3): the cluster's brokers, its controller and every requested topic's
// partitions with leader, replicas and ISR. Gregor implements v1-4.
//
//   Request  topics NULLABLE [name STRING] (null = all topics, empty = none),
//            allow_auto_topic_creation bool (v4+)
//   Response throttle_time_ms int32 (v3+), brokers [node_id int32, host STRING, port int32,
//            rack NULLABLE_STRING], cluster_id NULLABLE_STRING (v2+), controller_id int32,
//            topics [error_code int16, name STRING, is_internal bool, partitions [error_code int16,
//              partition_index int32, leader_id int32, replica_nodes [int32], isr_nodes [int32]]]
//
// kafkajs throws on any topic or partition error: use LEADER_NOT_AVAILABLE (retriable) during an
// election, never REPLICA_NOT_AVAILABLE for a healthy partition.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct MetadataRequest {
  static constexpr ApiKey kApiKey = ApiKey::METADATA;

  struct MetadataRequestTopic {
    std::string name;
    bool operator==(const MetadataRequestTopic&) const = default;
  };

  std::optional<std::vector<MetadataRequestTopic>> topics;  // nullopt = all topics
  bool allow_auto_topic_creation = true;                    // v4+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<MetadataRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const MetadataRequest&) const = default;
};

struct MetadataResponse {
  static constexpr ApiKey kApiKey = ApiKey::METADATA;

  struct MetadataResponseBroker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    bool operator==(const MetadataResponseBroker&) const = default;
  };
  struct MetadataResponsePartition {
    ErrorCode error_code = ErrorCode::NONE;
    int32_t partition_index = 0;
    int32_t leader_id = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    bool operator==(const MetadataResponsePartition&) const = default;
  };
  struct MetadataResponseTopic {
    ErrorCode error_code = ErrorCode::NONE;
    std::string name;
    bool is_internal = false;
    std::vector<MetadataResponsePartition> partitions;
    bool operator==(const MetadataResponseTopic&) const = default;
  };

  int32_t throttle_time_ms = 0;  // v3+
  std::vector<MetadataResponseBroker> brokers;
  std::optional<std::string> cluster_id;  // v2+
  int32_t controller_id = -1;
  std::vector<MetadataResponseTopic> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<MetadataResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const MetadataResponse&) const = default;
};

}  // namespace gregor::protocol
