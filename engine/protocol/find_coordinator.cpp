#include "engine/protocol/find_coordinator.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void FindCoordinatorRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "FindCoordinatorRequest");
  write_string(w, key);
  if (version >= 1) w.i8(key_type);
}

Result<FindCoordinatorRequest> FindCoordinatorRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("FindCoordinatorRequest", version);
  FindCoordinatorRequest m;
  m.key = read_string(r);
  if (version >= 1) m.key_type = r.i8();
  return finish_decode(r, std::move(m), "FindCoordinatorRequest", version);
}

void FindCoordinatorResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "FindCoordinatorResponse");
  if (version >= 1) w.i32(throttle_time_ms);
  write_error_code(w, error_code);
  if (version >= 1) write_nullable_string(w, error_message);
  w.i32(node_id);
  write_string(w, host);
  w.i32(port);
}

Result<FindCoordinatorResponse> FindCoordinatorResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("FindCoordinatorResponse", version);
  FindCoordinatorResponse m;
  if (version >= 1) m.throttle_time_ms = r.i32();
  m.error_code = read_error_code(r);
  if (version >= 1) m.error_message = read_nullable_string(r);
  m.node_id = r.i32();
  m.host = read_string(r);
  m.port = r.i32();
  return finish_decode(r, std::move(m), "FindCoordinatorResponse", version);
}

}  // namespace gregor::protocol
