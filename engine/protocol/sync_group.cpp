#include "engine/protocol/sync_group.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void SyncGroupRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "SyncGroupRequest");
  write_string(w, group_id);
  w.i32(generation_id);
  write_string(w, member_id);
  if (version >= 3) write_nullable_string(w, group_instance_id);
  write_array(w, assignments, [](ByteWriter& out, const SyncGroupRequestAssignment& a) {
    write_string(out, a.member_id);
    write_bytes(out, a.assignment);
  });
}

Result<SyncGroupRequest> SyncGroupRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("SyncGroupRequest", version);
  SyncGroupRequest m;
  m.group_id = read_string(r);
  m.generation_id = r.i32();
  m.member_id = read_string(r);
  if (version >= 3) m.group_instance_id = read_nullable_string(r);
  m.assignments = read_array<SyncGroupRequestAssignment>(r, 6, [](ByteReader& in) {
    SyncGroupRequestAssignment a;
    a.member_id = read_string(in);
    a.assignment = in.bytes();
    return a;
  });
  return finish_decode(r, std::move(m), "SyncGroupRequest", version);
}

void SyncGroupResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "SyncGroupResponse");
  if (version >= 1) w.i32(throttle_time_ms);
  write_error_code(w, error_code);
  write_bytes(w, assignment);
}

Result<SyncGroupResponse> SyncGroupResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("SyncGroupResponse", version);
  SyncGroupResponse m;
  if (version >= 1) m.throttle_time_ms = r.i32();
  m.error_code = read_error_code(r);
  m.assignment = r.bytes();
  return finish_decode(r, std::move(m), "SyncGroupResponse", version);
}

}  // namespace gregor::protocol
