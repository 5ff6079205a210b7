// StopReplica (api key 5), inter-broker: the controller tells a broker to stop replicating
// partitions, and to delete them when a topic is deleted or a replica reassigned away. Gregor
// implements v0-1 (flexible from v2); its controller sends v1 (kStopReplicaVersion).
//
//   Request  controller_id int32, controller_epoch int32, broker_epoch int64 (v1+),
//            delete_partitions bool,
//            v0: ungrouped_partitions [topic_name STRING, partition_index int32]
//            v1: topics [name STRING, partition_indexes [int32]]
//   Response error_code int16, partition_errors [topic_name STRING, partition_index int32,
//            error_code int16]
//
// One shape for both versions: partitions grouped by topic (written ungrouped at v0, regrouped by
// consecutive topic on reading).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct StopReplicaRequest {
  static constexpr ApiKey kApiKey = ApiKey::STOP_REPLICA;

  struct StopReplicaTopic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    bool operator==(const StopReplicaTopic&) const = default;
  };

  int32_t controller_id = 0;
  int32_t controller_epoch = 0;
  int64_t broker_epoch = -1;  // v1+
  bool delete_partitions = false;
  std::vector<StopReplicaTopic> topics;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<StopReplicaRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const StopReplicaRequest&) const = default;
};

struct StopReplicaResponse {
  static constexpr ApiKey kApiKey = ApiKey::STOP_REPLICA;

  struct StopReplicaPartitionError {
    std::string topic_name;
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::NONE;
    bool operator==(const StopReplicaPartitionError&) const = default;
  };

  ErrorCode error_code = ErrorCode::NONE;
  std::vector<StopReplicaPartitionError> partition_errors;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<StopReplicaResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const StopReplicaResponse&) const = default;
};

}  // namespace gregor::protocol
