// The first step of serving a request: read its header and decide how to answer.
//
// parse_request(payload) reads the request header and checks (api key, version) against the
// advertised table (api_versions_table.h). Three outcomes, as a Kafka broker has them:
//   kHandle                      supported: decode the body with decode_body<XRequest>(body,
//                                header.api_version) and answer with encode_response(header, ...)
//   kReplyUnsupportedApiVersions an ApiVersions request of a version Gregor does not implement:
//                                send unsupported_api_versions_reply(header.correlation_id) (KIP-511);
//                                never close here, or librdkafka gives up on the broker's versions
//   kCloseConnection             a malformed header, an unknown api key or an unsupported version
//                                of any other API: Kafka's SocketServer closes the connection
//                                ("Received request api key X with version Y which is not enabled"),
//                                and so does Gregor; `error` says why, for the log
// A body that then fails to decode is also a reason to close (Kafka's InvalidRequestException).
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/bytes.h"
#include "engine/protocol/header.h"

namespace gregor::protocol {

enum class RequestAction { kHandle, kReplyUnsupportedApiVersions, kCloseConnection };

struct InboundRequest {
  RequestAction action = RequestAction::kCloseConnection;
  RequestHeader header;  // as read; default-valued when the header itself was malformed
  ByteView body;         // the bytes after the header: a view into the payload given to parse_request
  std::string error;     // for kCloseConnection: why

  ByteReader body_reader() const { return ByteReader(body); }
};

// REQUIRES: payload outlives the returned body view.
InboundRequest parse_request(ByteView payload);

// The KIP-511 reply payload: response header v0 + ApiVersions v0 body {UNSUPPORTED_VERSION,
// [{18, min, max}]}.
Bytes unsupported_api_versions_reply(int32_t correlation_id);

}  // namespace gregor::protocol
