#include "engine/protocol/list_groups.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void ListGroupsRequest::encode(ByteWriter& w, int16_t version) const {
  (void)w;
  assert_encodable(kApiKey, version, "ListGroupsRequest");
}

Result<ListGroupsRequest> ListGroupsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ListGroupsRequest", version);
  return finish_decode(r, ListGroupsRequest{}, "ListGroupsRequest", version);
}

void ListGroupsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ListGroupsResponse");
  if (version >= 1) w.i32(throttle_time_ms);
  write_error_code(w, error_code);
  write_array(w, groups, [](ByteWriter& out, const ListedGroup& g) {
    write_string(out, g.group_id);
    write_string(out, g.protocol_type);
  });
}

Result<ListGroupsResponse> ListGroupsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ListGroupsResponse", version);
  ListGroupsResponse m;
  if (version >= 1) m.throttle_time_ms = r.i32();
  m.error_code = read_error_code(r);
  m.groups = read_array<ListedGroup>(r, 4, [](ByteReader& in) {
    ListedGroup g;
    g.group_id = read_string(in);
    g.protocol_type = read_string(in);
    return g;
  });
  return finish_decode(r, std::move(m), "ListGroupsResponse", version);
}

}  // namespace gregor::protocol
