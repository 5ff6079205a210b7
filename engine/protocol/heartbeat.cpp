#include "engine/protocol/heartbeat.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void HeartbeatRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "HeartbeatRequest");
  write_string(w, group_id);
  w.i32(generation_id);
  write_string(w, member_id);
  if (version >= 3) write_nullable_string(w, group_instance_id);
}

Result<HeartbeatRequest> HeartbeatRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("HeartbeatRequest", version);
  HeartbeatRequest m;
  m.group_id = read_string(r);
  m.generation_id = r.i32();
  m.member_id = read_string(r);
  if (version >= 3) m.group_instance_id = read_nullable_string(r);
  return finish_decode(r, std::move(m), "HeartbeatRequest", version);
}

void HeartbeatResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "HeartbeatResponse");
  if (version >= 1) w.i32(throttle_time_ms);
  write_error_code(w, error_code);
}

Result<HeartbeatResponse> HeartbeatResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("HeartbeatResponse", version);
  HeartbeatResponse m;
  if (version >= 1) m.throttle_time_ms = r.i32();
  m.error_code = read_error_code(r);
  return finish_decode(r, std::move(m), "HeartbeatResponse", version);
}

}  // namespace gregor::protocol
