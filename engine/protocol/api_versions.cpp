#include "engine/protocol/api_versions.h"

namespace gregor::protocol {

namespace {

ApiVersionsResponse::ApiVersion entry(const ApiVersionRange& range) {
  ApiVersionsResponse::ApiVersion v;
  v.api_key = range.api_key;
  v.min_version = range.min_version;
  v.max_version = range.max_version;
  return v;
}

}  // namespace

ApiVersionsResponse make_api_versions_response() {
  ApiVersionsResponse m;
  for (const ApiVersionRange& range : supported_api_versions()) m.api_keys.push_back(entry(range));
  return m;
}

ApiVersionsResponse make_unsupported_api_versions_response() {
  ApiVersionsResponse m;
  m.error_code = ErrorCode::UNSUPPORTED_VERSION;
  std::optional<ApiVersionRange> own = supported_range(ApiKey::API_VERSIONS);
  GREGOR_ASSERT(own.has_value());
  m.api_keys.push_back(entry(*own));
  return m;
}

}  // namespace gregor::protocol
