// ControlledShutdown (api key 7), inter-broker: a broker about to stop asks the controller to move
// its partition leaderships away first. Gregor implements v1-2 (v0 uses request header v0, without
// client id; v3 is flexible); brokers send v2 (kControlledShutdownVersion).
//
//   Request  broker_id int32, broker_epoch int64 (v2+)
//   Response error_code int16, remaining_partitions [topic_name STRING, partition_index int32]
//            (the partitions the broker still leads; empty when it may shut down)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct ControlledShutdownRequest {
  static constexpr ApiKey kApiKey = ApiKey::CONTROLLED_SHUTDOWN;

  int32_t broker_id = 0;
  int64_t broker_epoch = -1;  // v2+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ControlledShutdownRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const ControlledShutdownRequest&) const = default;
};

struct ControlledShutdownResponse {
  static constexpr ApiKey kApiKey = ApiKey::CONTROLLED_SHUTDOWN;

  struct RemainingPartition {
    std::string topic_name;
    int32_t partition_index = 0;
    bool operator==(const RemainingPartition&) const = default;
  };

  ErrorCode error_code = ErrorCode::NONE;
  std::vector<RemainingPartition> remaining_partitions;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ControlledShutdownResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const ControlledShutdownResponse&) const = default;
};

}  // namespace gregor::protocol
