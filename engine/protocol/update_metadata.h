// UpdateMetadata (api key 6), inter-broker: the controller pushes the cluster's live brokers and
// every partition's leader and ISR to each broker's metadata cache, which answers clients'
// Metadata requests. Gregor implements v0-5 (flexible from v6); its controller sends v5
// (kUpdateMetadataVersion).
//
//   Request  controller_id int32, controller_epoch int32, broker_epoch int64 (v5+),
//            v0-4: ungrouped_partition_states [topic_name STRING, <partition state>]
//            v5:   topic_states [topic_name STRING, partition_states [<partition state>]]
//            live_brokers [id int32,
//              v0:  v0_host STRING, v0_port int32
//              v1+: endpoints [port int32, host STRING, listener STRING (v3+), security_protocol int16]
//              rack NULLABLE_STRING (v2+)]
//            <partition state> = partition_index int32, controller_epoch int32, leader int32,
//              leader_epoch int32, isr [int32], zk_version int32, replicas [int32],
//              offline_replicas [int32] (v4+)
//   Response error_code int16
//
// One shape for every version, as in leader_and_isr.h: partitions grouped by topic (written
// ungrouped at v0-4, regrouped by consecutive topic on reading), and a broker's address as a list
// of endpoints (at v0 exactly one, written as v0_host/v0_port and read back as one endpoint with
// security_protocol 0 = PLAINTEXT).
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

inline constexpr int16_t kSecurityProtocolPlaintext = 0;

struct UpdateMetadataRequest {
  static constexpr ApiKey kApiKey = ApiKey::UPDATE_METADATA;

  struct UpdateMetadataPartitionState {
    int32_t partition_index = 0;
    int32_t controller_epoch = 0;
    int32_t leader = -1;
    int32_t leader_epoch = 0;
    std::vector<int32_t> isr;
    int32_t zk_version = 0;
    std::vector<int32_t> replicas;
    std::vector<int32_t> offline_replicas;  // v4+
    bool operator==(const UpdateMetadataPartitionState&) const = default;
  };
  struct UpdateMetadataTopicState {
    std::string topic_name;
    std::vector<UpdateMetadataPartitionState> partition_states;
    bool operator==(const UpdateMetadataTopicState&) const = default;
  };
  struct UpdateMetadataEndpoint {
    int32_t port = 0;
    std::string host;
    std::string listener;  // v3+
    int16_t security_protocol = kSecurityProtocolPlaintext;
    bool operator==(const UpdateMetadataEndpoint&) const = default;
  };
  struct UpdateMetadataBroker {
    int32_t id = 0;
    std::vector<UpdateMetadataEndpoint> endpoints;  // REQUIRES at v0: exactly one
    std::optional<std::string> rack;                // v2+
    bool operator==(const UpdateMetadataBroker&) const = default;
  };

  int32_t controller_id = 0;
  int32_t controller_epoch = 0;
  int64_t broker_epoch = -1;  // v5+
  std::vector<UpdateMetadataTopicState> topic_states;
  std::vector<UpdateMetadataBroker> live_brokers;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<UpdateMetadataRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const UpdateMetadataRequest&) const = default;
};

struct UpdateMetadataResponse {
  static constexpr ApiKey kApiKey = ApiKey::UPDATE_METADATA;

  ErrorCode error_code = ErrorCode::NONE;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<UpdateMetadataResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const UpdateMetadataResponse&) const = default;
};

}  // namespace gregor::protocol
