#include "engine/protocol/dispatch.h"

#include "engine/protocol/api_versions.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/protocol/message.h"

namespace gregor::protocol {

InboundRequest parse_request(ByteView payload) {
  InboundRequest in;
  ByteReader r(payload);
  Result<RequestHeader> header = RequestHeader::decode(r);
  if (!header.is_ok()) {
    in.error = header.status().to_string();
    return in;
  }
  in.header = std::move(header).value();
  in.body = payload.subspan(r.position());
  const RequestHeader& h = in.header;
  if (is_version_supported(h.api_key, h.api_version)) {
    in.action = RequestAction::kHandle;
  } else if (h.api_key == ApiKey::API_VERSIONS) {
    in.action = RequestAction::kReplyUnsupportedApiVersions;
  } else if (!supported_range(h.api_key).has_value()) {
    in.error = std::string("unsupported api key ") + std::to_string(static_cast<int16_t>(h.api_key)) + " (" +
               api_name(h.api_key) + ")";
  } else {
    in.error = std::string("received request api key ") + api_name(h.api_key) + " with version " +
               std::to_string(h.api_version) + " which is not enabled";
  }
  return in;
}

Bytes unsupported_api_versions_reply(int32_t correlation_id) {
  ByteWriter w;
  ResponseHeader{correlation_id}.encode(w, 0);
  make_unsupported_api_versions_response().encode(w, kUnsupportedApiVersionsReplyVersion);
  return w.take();
}

}  // namespace gregor::protocol
