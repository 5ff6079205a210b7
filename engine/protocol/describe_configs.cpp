#include "engine/protocol/describe_configs.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

const char* config_source_name(ConfigSource s) {
  switch (s) {
    case ConfigSource::DYNAMIC_TOPIC_CONFIG: return "DYNAMIC_TOPIC_CONFIG";
    case ConfigSource::DYNAMIC_BROKER_CONFIG: return "DYNAMIC_BROKER_CONFIG";
    case ConfigSource::DYNAMIC_DEFAULT_BROKER_CONFIG: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case ConfigSource::STATIC_BROKER_CONFIG: return "STATIC_BROKER_CONFIG";
    case ConfigSource::DEFAULT_CONFIG: return "DEFAULT_CONFIG";
    case ConfigSource::DYNAMIC_BROKER_LOGGER_CONFIG: return "DYNAMIC_BROKER_LOGGER_CONFIG";
    case ConfigSource::UNKNOWN: break;
  }
  return "UNKNOWN";
}

void DescribeConfigsRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "DescribeConfigsRequest");
  write_array(w, resources, [](ByteWriter& out, const DescribeConfigsResource& res) {
    out.i8(res.resource_type);
    write_string(out, res.resource_name);
    write_nullable_array(out, res.configuration_keys, [](ByteWriter& o, const std::string& k) { write_string(o, k); });
  });
  if (version >= 1) w.boolean(include_synonyms);
}

Result<DescribeConfigsRequest> DescribeConfigsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("DescribeConfigsRequest", version);
  DescribeConfigsRequest m;
  m.resources = read_array<DescribeConfigsResource>(r, 7, [](ByteReader& in) {
    DescribeConfigsResource res;
    res.resource_type = in.i8();
    res.resource_name = read_string(in);
    res.configuration_keys = read_nullable_array<std::string>(in, 2, [](ByteReader& i) { return read_string(i); });
    return res;
  });
  if (version >= 1) m.include_synonyms = r.boolean();
  return finish_decode(r, std::move(m), "DescribeConfigsRequest", version);
}

void DescribeConfigsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "DescribeConfigsResponse");
  w.i32(throttle_time_ms);
  write_array(w, results, [version](ByteWriter& out, const DescribeConfigsResult& res) {
    write_error_code(out, res.error_code);
    write_nullable_string(out, res.error_message);
    out.i8(res.resource_type);
    write_string(out, res.resource_name);
    write_array(out, res.configs, [version](ByteWriter& o, const DescribeConfigsResourceResult& c) {
      write_string(o, c.name);
      write_nullable_string(o, c.value);
      o.boolean(c.read_only);
      if (version == 0) o.boolean(c.is_default);
      if (version >= 1) o.i8(c.config_source);
      o.boolean(c.is_sensitive);
      if (version >= 1)
        write_array(o, c.synonyms, [](ByteWriter& s, const DescribeConfigsSynonym& syn) {
          write_string(s, syn.name);
          write_nullable_string(s, syn.value);
          s.i8(syn.source);
        });
    });
  });
}

Result<DescribeConfigsResponse> DescribeConfigsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("DescribeConfigsResponse", version);
  DescribeConfigsResponse m;
  m.throttle_time_ms = r.i32();
  m.results = read_array<DescribeConfigsResult>(r, 11, [version](ByteReader& in) {
    DescribeConfigsResult res;
    res.error_code = read_error_code(in);
    res.error_message = read_nullable_string(in);
    res.resource_type = in.i8();
    res.resource_name = read_string(in);
    res.configs = read_array<DescribeConfigsResourceResult>(in, 7, [version](ByteReader& i) {
      DescribeConfigsResourceResult c;
      c.name = read_string(i);
      c.value = read_nullable_string(i);
      c.read_only = i.boolean();
      if (version == 0) c.is_default = i.boolean();
      if (version >= 1) c.config_source = i.i8();
      c.is_sensitive = i.boolean();
      if (version >= 1)
        c.synonyms = read_array<DescribeConfigsSynonym>(i, 5, [](ByteReader& s) {
          DescribeConfigsSynonym syn;
          syn.name = read_string(s);
          syn.value = read_nullable_string(s);
          syn.source = s.i8();
          return syn;
        });
      return c;
    });
    return res;
  });
  return finish_decode(r, std::move(m), "DescribeConfigsResponse", version);
}

}  // namespace gregor::protocol
