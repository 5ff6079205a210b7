// The protocol tests' view of every advertised API, type-erased so that one loop can run a check
// over all of them: the sample encodings (samples.h) and the decoders, per direction.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "engine/core/bytes.h"
#include "engine/protocol/api_keys.h"

namespace gregor::protocol::testing {

struct Direction {
  std::function<Bytes(int16_t version)> encode_sample;
  // decode_body<T>: true when the bytes decode (strictly, every byte consumed).
  std::function<bool(ByteView body, int16_t version)> decodes;
  // Encode the sample, decode, compare with the sample, re-encode and compare bytes (Catch checks).
  std::function<void(int16_t version)> check_round_trip;
};

struct ApiCodecs {
  Direction request;
  Direction response;
};

const std::map<ApiKey, ApiCodecs>& api_catalog();

}  // namespace gregor::protocol::testing
