// ApiVersions (api key 18): a client asks which versions of each API the broker implements. The
// messages are generated from specs/api_versions.yaml (versions 0-4, flexible from 3). The response
// header is always v0, even at flexible versions (see header.h).
//
// KIP-511: a request of a version the broker does not implement is answered, not dropped, with
// the v0 body {error_code = UNSUPPORTED_VERSION, api_keys = [{18, min, max}]}; librdkafka then
// retries with v0 and kafkajs with v1. Closing the socket instead makes librdkafka fall back to
// broker.version.fallback and never learn the real versions.
#pragma once

#include <cstdint>

#include "engine/protocol/api_versions_table.h"
#include "generated/protocol/api_versions.h"

namespace gregor::protocol {

// The answer to a supported ApiVersions request: every range of supported_api_versions().
ApiVersionsResponse make_api_versions_response();

// KIP-511: the answer to an ApiVersions request of an unsupported version. Encode it at v0 (body)
// with response header v0, whatever version was asked for.
ApiVersionsResponse make_unsupported_api_versions_response();
inline constexpr int16_t kUnsupportedApiVersionsReplyVersion = 0;

}  // namespace gregor::protocol
