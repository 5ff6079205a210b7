// InitProducerId (api key 22): an idempotent (or transactional) producer obtains its producer id
// and epoch. Gregor implements v0-1 (v2+ is flexible; the minimum must stay 0 or librdkafka
// refuses enable.idempotence=true).
//
//   Request  transactional_id NULLABLE_STRING (null for an idempotent producer),
//            transaction_timeout_ms int32
//   Response throttle_time_ms int32, error_code int16, producer_id int64, producer_epoch int16
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct InitProducerIdRequest {
  static constexpr ApiKey kApiKey = ApiKey::INIT_PRODUCER_ID;

  std::optional<std::string> transactional_id;
  int32_t transaction_timeout_ms = 0;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<InitProducerIdRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const InitProducerIdRequest&) const = default;
};

struct InitProducerIdResponse {
  static constexpr ApiKey kApiKey = ApiKey::INIT_PRODUCER_ID;

  int32_t throttle_time_ms = 0;
  ErrorCode error_code = ErrorCode::NONE;
  int64_t producer_id = -1;
  int16_t producer_epoch = 0;

  void encode(ByteWriter& w, int16_t version) const;
  static Result<InitProducerIdResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const InitProducerIdResponse&) const = default;
};

}  // namespace gregor::protocol
