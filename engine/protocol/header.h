// Kafka's request and response headers (RequestHeader.json, ResponseHeader.json).
//
//   Request header v0: api_key int16, api_version int16, correlation_id int32
//                  v1: v0 + client_id NULLABLE_STRING (int16 length, -1 = null)
//                  v2: v1 + tagged fields. client_id keeps its int16 length even here, so that any
//                      broker can read the header of an ApiVersions request of any version.
//   Response header v0: correlation_id int32;  v1: v0 + tagged fields.
//
// Which version applies follows from the API version: v2/v1 exactly when that API version is
// flexible, v1/v0 otherwise. Two exceptions: ControlledShutdown v0 uses request header v0, and an
// ApiVersions response always uses response header v0 (a client that does not yet know the
// broker's versions must be able to read it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"

namespace gregor::protocol {

// 0, 1 or 2. For an API Gregor does not know, 1 (its flexible versions are unknown).
int16_t request_header_version(ApiKey key, int16_t api_version);
// 0 or 1.
int16_t response_header_version(ApiKey key, int16_t api_version);

struct RequestHeader {
  ApiKey api_key = ApiKey::API_VERSIONS;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id;  // absent in header v0 (decodes as nullopt)

  // Writes the header in the version request_header_version(api_key, api_version) gives.
  void encode(ByteWriter& w) const;
  // Reads api_key and api_version, derives the header version from them, reads the rest.
  // Fails on truncated input; tagged fields (header v2) are skipped.
  static Result<RequestHeader> decode(ByteReader& r);

  bool operator==(const RequestHeader&) const = default;
};

struct ResponseHeader {
  int32_t correlation_id = 0;

  // header_version is response_header_version(api key, api version) of the request answered.
  void encode(ByteWriter& w, int16_t header_version) const;
  static Result<ResponseHeader> decode(ByteReader& r, int16_t header_version);

  bool operator==(const ResponseHeader&) const = default;
};

}  // namespace gregor::protocol
