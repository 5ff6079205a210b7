#include "engine/protocol/header.h"

#include "engine/protocol/codec.h"

namespace gregor::protocol {

int16_t request_header_version(ApiKey key, int16_t api_version) {
  if (key == ApiKey::CONTROLLED_SHUTDOWN && api_version == 0) return 0;
  return is_flexible_version(key, api_version) ? 2 : 1;
}

int16_t response_header_version(ApiKey key, int16_t api_version) {
  if (key == ApiKey::API_VERSIONS) return 0;
  return is_flexible_version(key, api_version) ? 1 : 0;
}

void RequestHeader::encode(ByteWriter& w) const {
  int16_t header_version = request_header_version(api_key, api_version);
  w.i16(static_cast<int16_t>(api_key));
  w.i16(api_version);
  w.i32(correlation_id);
  if (header_version >= 1) codec::put_nullable_string(w, client_id, /*flexible=*/false, true, "client_id");
  if (header_version >= 2) w.uvarint(0);  // no tagged fields
}

Result<RequestHeader> RequestHeader::decode(ByteReader& r) {
  RequestHeader h;
  h.api_key = static_cast<ApiKey>(r.i16());
  h.api_version = r.i16();
  h.correlation_id = r.i32();
  int16_t header_version = request_header_version(h.api_key, h.api_version);
  if (header_version >= 1) h.client_id = codec::get_nullable_string(r, /*flexible=*/false, true);
  if (header_version >= 2) codec::skip_tagged_fields(r);
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed request header");
  return h;
}

void ResponseHeader::encode(ByteWriter& w, int16_t header_version) const {
  GREGOR_ASSERT(header_version == 0 || header_version == 1);
  w.i32(correlation_id);
  if (header_version >= 1) w.uvarint(0);  // no tagged fields
}

Result<ResponseHeader> ResponseHeader::decode(ByteReader& r, int16_t header_version) {
  ResponseHeader h;
  h.correlation_id = r.i32();
  if (header_version >= 1) codec::skip_tagged_fields(r);
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed response header");
  return h;
}

}  // namespace gregor::protocol
