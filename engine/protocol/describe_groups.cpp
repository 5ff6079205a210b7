#include "engine/protocol/describe_groups.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void DescribeGroupsRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "DescribeGroupsRequest");
  write_array(w, groups, [](ByteWriter& out, const std::string& g) { write_string(out, g); });
  if (version >= 3) w.boolean(include_authorized_operations);
}

Result<DescribeGroupsRequest> DescribeGroupsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("DescribeGroupsRequest", version);
  DescribeGroupsRequest m;
  m.groups = read_array<std::string>(r, 2, [](ByteReader& in) { return read_string(in); });
  if (version >= 3) m.include_authorized_operations = r.boolean();
  return finish_decode(r, std::move(m), "DescribeGroupsRequest", version);
}

void DescribeGroupsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "DescribeGroupsResponse");
  if (version >= 1) w.i32(throttle_time_ms);
  write_array(w, groups, [version](ByteWriter& out, const DescribedGroup& g) {
    write_error_code(out, g.error_code);
    write_string(out, g.group_id);
    write_string(out, g.group_state);
    write_string(out, g.protocol_type);
    write_string(out, g.protocol_data);
    write_array(out, g.members, [version](ByteWriter& o, const DescribedGroupMember& m) {
      write_string(o, m.member_id);
      if (version >= 4) write_nullable_string(o, m.group_instance_id);
      write_string(o, m.client_id);
      write_string(o, m.client_host);
      write_bytes(o, m.member_metadata);
      write_bytes(o, m.member_assignment);
    });
    if (version >= 3) out.i32(g.authorized_operations);
  });
}

Result<DescribeGroupsResponse> DescribeGroupsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("DescribeGroupsResponse", version);
  DescribeGroupsResponse m;
  if (version >= 1) m.throttle_time_ms = r.i32();
  m.groups = read_array<DescribedGroup>(r, 14, [version](ByteReader& in) {
    DescribedGroup g;
    g.error_code = read_error_code(in);
    g.group_id = read_string(in);
    g.group_state = read_string(in);
    g.protocol_type = read_string(in);
    g.protocol_data = read_string(in);
    g.members = read_array<DescribedGroupMember>(in, 14, [version](ByteReader& i) {
      DescribedGroupMember member;
      member.member_id = read_string(i);
      if (version >= 4) member.group_instance_id = read_nullable_string(i);
      member.client_id = read_string(i);
      member.client_host = read_string(i);
      member.member_metadata = i.bytes();
      member.member_assignment = i.bytes();
      return member;
    });
    if (version >= 3) g.authorized_operations = in.i32();
    return g;
  });
  return finish_decode(r, std::move(m), "DescribeGroupsResponse", version);
}

}  // namespace gregor::protocol
