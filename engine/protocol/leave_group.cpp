#include "engine/protocol/leave_group.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void LeaveGroupRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "LeaveGroupRequest");
  write_string(w, group_id);
  write_string(w, member_id);
}

Result<LeaveGroupRequest> LeaveGroupRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("LeaveGroupRequest", version);
  LeaveGroupRequest m;
  m.group_id = read_string(r);
  m.member_id = read_string(r);
  return finish_decode(r, std::move(m), "LeaveGroupRequest", version);
}

void LeaveGroupResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "LeaveGroupResponse");
  if (version >= 1) w.i32(throttle_time_ms);
  write_error_code(w, error_code);
}

Result<LeaveGroupResponse> LeaveGroupResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("LeaveGroupResponse", version);
  LeaveGroupResponse m;
  if (version >= 1) m.throttle_time_ms = r.i32();
  m.error_code = read_error_code(r);
  return finish_decode(r, std::move(m), "LeaveGroupResponse", version);
}

}  // namespace gregor::protocol
