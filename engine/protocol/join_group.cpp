#include "engine/protocol/join_group.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void JoinGroupRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "JoinGroupRequest");
  write_string(w, group_id);
  w.i32(session_timeout_ms);
  if (version >= 1) w.i32(rebalance_timeout_ms);
  write_string(w, member_id);
  if (version >= 5) write_nullable_string(w, group_instance_id);
  write_string(w, protocol_type);
  write_array(w, protocols, [](ByteWriter& out, const JoinGroupRequestProtocol& p) {
    write_string(out, p.name);
    write_bytes(out, p.metadata);
  });
}

Result<JoinGroupRequest> JoinGroupRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("JoinGroupRequest", version);
  JoinGroupRequest m;
  m.group_id = read_string(r);
  m.session_timeout_ms = r.i32();
  if (version >= 1) m.rebalance_timeout_ms = r.i32();
  m.member_id = read_string(r);
  if (version >= 5) m.group_instance_id = read_nullable_string(r);
  m.protocol_type = read_string(r);
  m.protocols = read_array<JoinGroupRequestProtocol>(r, 6, [](ByteReader& in) {
    JoinGroupRequestProtocol p;
    p.name = read_string(in);
    p.metadata = in.bytes();
    return p;
  });
  return finish_decode(r, std::move(m), "JoinGroupRequest", version);
}

void JoinGroupResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "JoinGroupResponse");
  if (version >= 2) w.i32(throttle_time_ms);
  write_error_code(w, error_code);
  w.i32(generation_id);
  write_string(w, protocol_name);
  write_string(w, leader);
  write_string(w, member_id);
  write_array(w, members, [version](ByteWriter& out, const JoinGroupResponseMember& m) {
    write_string(out, m.member_id);
    if (version >= 5) write_nullable_string(out, m.group_instance_id);
    write_bytes(out, m.metadata);
  });
}

Result<JoinGroupResponse> JoinGroupResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("JoinGroupResponse", version);
  JoinGroupResponse m;
  if (version >= 2) m.throttle_time_ms = r.i32();
  m.error_code = read_error_code(r);
  m.generation_id = r.i32();
  m.protocol_name = read_string(r);
  m.leader = read_string(r);
  m.member_id = read_string(r);
  m.members = read_array<JoinGroupResponseMember>(r, 6, [version](ByteReader& in) {
    JoinGroupResponseMember member;
    member.member_id = read_string(in);
    if (version >= 5) member.group_instance_id = read_nullable_string(in);
    member.metadata = in.bytes();
    return member;
  });
  return finish_decode(r, std::move(m), "JoinGroupResponse", version);
}

}  // namespace gregor::protocol
