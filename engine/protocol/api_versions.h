// ApiVersions (api key 18): a client asks which versions of each API the broker implements.
// Gregor implements v0-3.
//
//   Request  v0-2: empty.  v3 (flexible): client_software_name COMPACT_STRING,
//            client_software_version COMPACT_STRING, tagged fields.
//   Response v0: error_code int16, api_keys [api_key int16, min_version int16, max_version int16]
//            v1-2: v0 + throttle_time_ms int32
//            v3 (flexible): error_code, api_keys COMPACT_ARRAY (each element ends with tagged
//            fields), throttle_time_ms, tagged fields (SupportedFeatures etc.: skipped, never sent).
//   The response header is always v0, even for v3 (see header.h).
//
// KIP-511: a request of a version the broker does not implement (say v4) is answered, not dropped,
// with the v0 body {error_code = UNSUPPORTED_VERSION, api_keys = [{18, min, max}]}; librdkafka then
// retries with v0 and kafkajs with v1. Closing the socket instead makes librdkafka fall back to
// broker.version.fallback and never learn the real versions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

struct ApiVersionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::API_VERSIONS;

  std::string client_software_name;     // v3+ ("librdkafka")
  std::string client_software_version;  // v3+ ("2.0.2")

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ApiVersionsRequest> decode(ByteReader& r, int16_t version);
  bool operator==(const ApiVersionsRequest&) const = default;
};

struct ApiVersionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::API_VERSIONS;
  using ApiVersion = ApiVersionRange;  // {api_key, min_version, max_version}

  ErrorCode error_code = ErrorCode::NONE;
  std::vector<ApiVersion> api_keys;
  int32_t throttle_time_ms = 0;  // v1+

  void encode(ByteWriter& w, int16_t version) const;
  static Result<ApiVersionsResponse> decode(ByteReader& r, int16_t version);
  bool operator==(const ApiVersionsResponse&) const = default;
};

// The answer to a supported ApiVersions request: every range of supported_api_versions().
ApiVersionsResponse make_api_versions_response();

// KIP-511: the answer to an ApiVersions request of an unsupported version. Encode it at v0 (body)
// with response header v0, whatever version was asked for.
ApiVersionsResponse make_unsupported_api_versions_response();
inline constexpr int16_t kUnsupportedApiVersionsReplyVersion = 0;

}  // namespace gregor::protocol
