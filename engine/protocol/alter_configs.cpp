#include "engine/protocol/alter_configs.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

namespace {

void write_responses(ByteWriter& w, int32_t throttle_time_ms, const std::vector<AlterConfigsResourceResponse>& responses) {
  w.i32(throttle_time_ms);
  write_array(w, responses, [](ByteWriter& out, const AlterConfigsResourceResponse& res) {
    write_error_code(out, res.error_code);
    write_nullable_string(out, res.error_message);
    out.i8(res.resource_type);
    write_string(out, res.resource_name);
  });
}

std::vector<AlterConfigsResourceResponse> read_responses(ByteReader& r) {
  return read_array<AlterConfigsResourceResponse>(r, 7, [](ByteReader& in) {
    AlterConfigsResourceResponse res;
    res.error_code = read_error_code(in);
    res.error_message = read_nullable_string(in);
    res.resource_type = in.i8();
    res.resource_name = read_string(in);
    return res;
  });
}

}  // namespace

void AlterConfigsRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "AlterConfigsRequest");
  write_array(w, resources, [](ByteWriter& out, const AlterConfigsResource& res) {
    out.i8(res.resource_type);
    write_string(out, res.resource_name);
    write_array(out, res.configs, [](ByteWriter& o, const AlterableConfig& c) {
      write_string(o, c.name);
      write_nullable_string(o, c.value);
    });
  });
  w.boolean(validate_only);
}

Result<AlterConfigsRequest> AlterConfigsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("AlterConfigsRequest", version);
  AlterConfigsRequest m;
  m.resources = read_array<AlterConfigsResource>(r, 7, [](ByteReader& in) {
    AlterConfigsResource res;
    res.resource_type = in.i8();
    res.resource_name = read_string(in);
    res.configs = read_array<AlterableConfig>(in, 4, [](ByteReader& i) {
      AlterableConfig c;
      c.name = read_string(i);
      c.value = read_nullable_string(i);
      return c;
    });
    return res;
  });
  m.validate_only = r.boolean();
  return finish_decode(r, std::move(m), "AlterConfigsRequest", version);
}

void AlterConfigsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "AlterConfigsResponse");
  write_responses(w, throttle_time_ms, responses);
}

Result<AlterConfigsResponse> AlterConfigsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("AlterConfigsResponse", version);
  AlterConfigsResponse m;
  m.throttle_time_ms = r.i32();
  m.responses = read_responses(r);
  return finish_decode(r, std::move(m), "AlterConfigsResponse", version);
}

void IncrementalAlterConfigsRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "IncrementalAlterConfigsRequest");
  write_array(w, resources, [](ByteWriter& out, const AlterConfigsResource& res) {
    out.i8(res.resource_type);
    write_string(out, res.resource_name);
    write_array(out, res.configs, [](ByteWriter& o, const AlterableConfig& c) {
      write_string(o, c.name);
      o.i8(c.config_operation);
      write_nullable_string(o, c.value);
    });
  });
  w.boolean(validate_only);
}

Result<IncrementalAlterConfigsRequest> IncrementalAlterConfigsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("IncrementalAlterConfigsRequest", version);
  IncrementalAlterConfigsRequest m;
  m.resources = read_array<AlterConfigsResource>(r, 7, [](ByteReader& in) {
    AlterConfigsResource res;
    res.resource_type = in.i8();
    res.resource_name = read_string(in);
    res.configs = read_array<AlterableConfig>(in, 5, [](ByteReader& i) {
      AlterableConfig c;
      c.name = read_string(i);
      c.config_operation = i.i8();
      c.value = read_nullable_string(i);
      return c;
    });
    return res;
  });
  m.validate_only = r.boolean();
  return finish_decode(r, std::move(m), "IncrementalAlterConfigsRequest", version);
}

void IncrementalAlterConfigsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "IncrementalAlterConfigsResponse");
  write_responses(w, throttle_time_ms, responses);
}

Result<IncrementalAlterConfigsResponse> IncrementalAlterConfigsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("IncrementalAlterConfigsResponse", version);
  IncrementalAlterConfigsResponse m;
  m.throttle_time_ms = r.i32();
  m.responses = read_responses(r);
  return finish_decode(r, std::move(m), "IncrementalAlterConfigsResponse", version);
}

}  // namespace gregor::protocol
