// LeaderAndIsr (api key 4), inter-broker: the controller tells a broker which partitions it leads
// or follows, with each partition's leader, leader epoch, ISR and zk version. Gregor implements
// v0-3 (flexible from v4) and its controller sends v3 (kLeaderAndIsrVersion).
//
//   Request  controller_id int32, controller_epoch int32, broker_epoch int64 (v2+),
//            v0-1: ungrouped_partition_states [topic_name STRING, <partition state>]
//            v2+:  topic_states [topic_name STRING, partition_states [<partition state>]]
//            live_leaders [broker_id int32, host_name STRING, port int32]
//            <partition state> = partition_index int32, controller_epoch int32, leader int32,
//              leader_epoch int32, isr [int32], zk_version int32, replicas [int32],
//              adding_replicas [int32] (v3+), removing_replicas [int32] (v3+), is_new bool (v1+)
//   Response error_code int16, partition_errors [topic_name STRING, partition_index int32,
//            error_code int16]
//
// Gregor keeps one shape for every version: partitions grouped by topic (topic_states). At v0-1 the
// codec writes them ungrouped, each with its topic name, and reading groups consecutive partitions
// of the same topic, so a request round-trips exactly.
// zk_version is the field Kafka's later JSON calls PartitionEpoch; Gregor keeps the ZooKeeper-era
// name because it is the version of /brokers/topics/T/partitions/P/state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct LeaderAndIsrRequest {
  static constexpr ApiKey kApiKey = ApiKey::LEADER_AND_ISR;

  struct LeaderAndIsrPartitionState {
    int32_t partition_index = 0;
    int32_t controller_epoch = 0;
    int32_t leader = -1;
    int32_t leader_epoch = 0;
    std::vector<int32_t> isr;
    int32_t zk_version = 0;
    std::vector<int32_t> replicas;
    std::vector<int32_t> adding_replicas;    // v3+
    std::vector<int32_t> removing_replicas;  // v3+
    bool is_new = false;                     // v1+
    bool operator==(const LeaderAndIsrPartitionState&) const = default;
  };
  struct LeaderAndIsrTopicState {
    std::string topic_name;
    std::vector<LeaderAndIsrPartitionState> partition_states;
    bool operator==(const LeaderAndIsrTopicState&) const = default;
  };
  struct LeaderAndIsrLiveLeader {
    int32_t broker_id = 0;
    std::string host_name;
    int32_t port = 0;
    bool operator==(const LeaderAndIsrLiveLeader&) const = default;
  };

  int32_t controller_id = 0;
  int32_t controller_epoch = 0;
  int64_t broker_epoch = -1;  // v2+
  std::vector<LeaderAndIsrTopicState> topic_states;
  std::vector<LeaderAndIsrLiveLeader> live_leaders;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<LeaderAndIsrRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const LeaderAndIsrRequest&) const = default;
};

struct LeaderAndIsrResponse {
  static constexpr ApiKey kApiKey = ApiKey::LEADER_AND_ISR;

  struct LeaderAndIsrPartitionError {
    std::string topic_name;
    int32_t partition_index = 0;
    ErrorCode error_code = ErrorCode::NONE;
    bool operator==(const LeaderAndIsrPartitionError&) const = default;
  };

  ErrorCode error_code = ErrorCode::NONE;
  std::vector<LeaderAndIsrPartitionError> partition_errors;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<LeaderAndIsrResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const LeaderAndIsrResponse&) const = default;
};

}  // namespace gregor::protocol
