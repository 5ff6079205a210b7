#include "engine/protocol/api_versions.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void ApiVersionsRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ApiVersionsRequest");
  if (version >= 3) {
    write_compact_string(w, client_software_name);
    write_compact_string(w, client_software_version);
    write_empty_tagged_fields(w);
  }
}

Result<ApiVersionsRequest> ApiVersionsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ApiVersionsRequest", version);
  ApiVersionsRequest m;
  if (version >= 3) {
    m.client_software_name = read_compact_string(r);
    m.client_software_version = read_compact_string(r);
    skip_tagged_fields(r);
  }
  return finish_decode(r, std::move(m), "ApiVersionsRequest", version);
}

void ApiVersionsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ApiVersionsResponse");
  bool flexible = version >= 3;
  write_error_code(w, error_code);
  if (flexible) {
    w.uvarint(static_cast<uint32_t>(api_keys.size() + 1));
  } else {
    write_array_count(w, api_keys.size());
  }
  for (const ApiVersion& a : api_keys) {
    w.i16(static_cast<int16_t>(a.api_key));
    w.i16(a.min_version);
    w.i16(a.max_version);
    if (flexible) write_empty_tagged_fields(w);
  }
  if (version >= 1) w.i32(throttle_time_ms);
  if (flexible) write_empty_tagged_fields(w);
}

Result<ApiVersionsResponse> ApiVersionsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ApiVersionsResponse", version);
  bool flexible = version >= 3;
  ApiVersionsResponse m;
  m.error_code = read_error_code(r);
  int32_t count = flexible ? read_compact_array_count(r, 7, false).value_or(0)
                           : read_array_count(r, 6, false).value_or(0);
  m.api_keys = read_elements<ApiVersion>(r, count, [&](ByteReader& in) {
    ApiVersion a{};
    a.api_key = static_cast<ApiKey>(in.i16());
    a.min_version = in.i16();
    a.max_version = in.i16();
    if (flexible) skip_tagged_fields(in);
    return a;
  });
  if (version >= 1) m.throttle_time_ms = r.i32();
  if (flexible) skip_tagged_fields(r);
  return finish_decode(r, std::move(m), "ApiVersionsResponse", version);
}

ApiVersionsResponse make_api_versions_response() {
  ApiVersionsResponse m;
  for (const ApiVersionRange& range : supported_api_versions()) m.api_keys.push_back(range);
  return m;
}

ApiVersionsResponse make_unsupported_api_versions_response() {
  ApiVersionsResponse m;
  m.error_code = ErrorCode::UNSUPPORTED_VERSION;
  std::optional<ApiVersionRange> own = supported_range(ApiKey::API_VERSIONS);
  GREGOR_ASSERT(own.has_value());
  m.api_keys.push_back(*own);
  return m;
}

}  // namespace gregor::protocol
