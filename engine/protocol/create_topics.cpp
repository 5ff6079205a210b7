#include "engine/protocol/create_topics.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void CreateTopicsRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "CreateTopicsRequest");
  write_array(w, topics, [](ByteWriter& out, const CreatableTopic& t) {
    write_string(out, t.name);
    out.i32(t.num_partitions);
    out.i16(t.replication_factor);
    write_array(out, t.assignments, [](ByteWriter& o, const CreatableReplicaAssignment& a) {
      o.i32(a.partition_index);
      write_int32_array(o, a.broker_ids);
    });
    write_array(out, t.configs, [](ByteWriter& o, const CreatableTopicConfig& c) {
      write_string(o, c.name);
      write_nullable_string(o, c.value);
    });
  });
  w.i32(timeout_ms);
  if (version >= 1) w.boolean(validate_only);
}

Result<CreateTopicsRequest> CreateTopicsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("CreateTopicsRequest", version);
  CreateTopicsRequest m;
  m.topics = read_array<CreatableTopic>(r, 16, [](ByteReader& in) {
    CreatableTopic t;
    t.name = read_string(in);
    t.num_partitions = in.i32();
    t.replication_factor = in.i16();
    t.assignments = read_array<CreatableReplicaAssignment>(in, 8, [](ByteReader& i) {
      CreatableReplicaAssignment a;
      a.partition_index = i.i32();
      a.broker_ids = read_int32_array(i);
      return a;
    });
    t.configs = read_array<CreatableTopicConfig>(in, 4, [](ByteReader& i) {
      CreatableTopicConfig c;
      c.name = read_string(i);
      c.value = read_nullable_string(i);
      return c;
    });
    return t;
  });
  m.timeout_ms = r.i32();
  if (version >= 1) m.validate_only = r.boolean();
  return finish_decode(r, std::move(m), "CreateTopicsRequest", version);
}

void CreateTopicsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "CreateTopicsResponse");
  if (version >= 2) w.i32(throttle_time_ms);
  write_array(w, topics, [version](ByteWriter& out, const CreatableTopicResult& t) {
    write_string(out, t.name);
    write_error_code(out, t.error_code);
    if (version >= 1) write_nullable_string(out, t.error_message);
  });
}

Result<CreateTopicsResponse> CreateTopicsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("CreateTopicsResponse", version);
  CreateTopicsResponse m;
  if (version >= 2) m.throttle_time_ms = r.i32();
  m.topics = read_array<CreatableTopicResult>(r, 4, [version](ByteReader& in) {
    CreatableTopicResult t;
    t.name = read_string(in);
    t.error_code = read_error_code(in);
    if (version >= 1) t.error_message = read_nullable_string(in);
    return t;
  });
  return finish_decode(r, std::move(m), "CreateTopicsResponse", version);
}

}  // namespace gregor::protocol
