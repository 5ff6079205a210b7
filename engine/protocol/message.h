// Whole messages: a header and a body in one payload (what Runtime::send carries; the 4-byte
// size prefix is added only on a real socket, see frame.h).
//
//   request payload  = RequestHeader  (v1, or v2 for a flexible version) + request body
//   response payload = ResponseHeader (v0, or v1 for a flexible version; always v0 for
//                      ApiVersions) + response body
//
// The body types are the per-API structs (produce.h, fetch.h, ...): each has kApiKey,
// encode(ByteWriter&, version) and static decode(ByteReader&, version).
//
// Decoding here is strict: a body must be consumed to its last byte. Kafka ignores trailing bytes;
// Gregor rejects them so that a mismatch between an encoder and a decoder shows up as an error
// instead of silently dropped fields. Stock clients never send trailing bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/assert.h"
#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/header.h"

namespace gregor::protocol {

// A writer with room for the whole message: the body's exact encoded size (computed from the
// message, so growing a vector by doubling to hundreds of kilobytes, each step a fresh block whose
// pages fault in, never happens for the messages that carry records) plus the header's at most.
template <typename Message>
ByteWriter writer_for(const Message& body, int16_t version, const std::optional<std::string>& client_id) {
  Bytes buffer;
  buffer.reserve(16 + (client_id ? client_id->size() : 0) + body.encoded_size(version));
  return ByteWriter(std::move(buffer));
}

// REQUIRES: header.api_key == Request::kApiKey and a version of the API (Request::kMinVersion to
// kMaxVersion: Kafka 3.9's range, whatever the broker advertises).
template <typename Request>
Bytes encode_request(const RequestHeader& header, const Request& body) {
  GREGOR_ASSERT(header.api_key == Request::kApiKey);
  ByteWriter w = writer_for(body, header.api_version, header.client_id);
  header.encode(w);
  body.encode(w, header.api_version);
  return w.take();
}

// The response to a request with this header: same correlation id, same api version.
// REQUIRES: request_header.api_key == Response::kApiKey.
template <typename Response>
Bytes encode_response(const RequestHeader& request_header, const Response& body) {
  GREGOR_ASSERT(request_header.api_key == Response::kApiKey);
  ByteWriter w = writer_for(body, request_header.api_version, std::nullopt);
  ResponseHeader{request_header.correlation_id}.encode(
      w, response_header_version(Response::kApiKey, request_header.api_version));
  body.encode(w, request_header.api_version);
  return w.take();
}

// Decodes a body (request or response) that must fill `body` exactly.
template <typename Message>
Result<Message> decode_body(ByteView body, int16_t version) {
  ByteReader r(body);
  Result<Message> m = Message::decode(r, version);
  if (m.is_ok() && !r.at_end()) {
    return Status::error(StatusCode::kCorruption, std::to_string(r.remaining()) +
                                                      " trailing bytes after the body of " +
                                                      api_name(Message::kApiKey) + " v" +
                                                      std::to_string(version));
  }
  return m;
}

// The correlation id of a response payload: its first 4 bytes in every response header version,
// so a client can find the request it answers before it knows how to decode the rest.
Result<int32_t> response_correlation_id(ByteView payload);

// Decodes a whole response payload (header + body) to a request sent at `version`.
template <typename Response>
Result<Response> decode_response(ByteView payload, int16_t version) {
  ByteReader r(payload);
  Result<ResponseHeader> header = ResponseHeader::decode(r, response_header_version(Response::kApiKey, version));
  if (!header.is_ok()) return header.status();
  return decode_body<Response>(payload.subspan(r.position()), version);
}

}  // namespace gregor::protocol
