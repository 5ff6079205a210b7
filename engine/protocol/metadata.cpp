#include "engine/protocol/metadata.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void MetadataRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "MetadataRequest");
  write_nullable_array(w, topics, [](ByteWriter& out, const MetadataRequestTopic& t) {
    write_string(out, t.name);
  });
  if (version >= 4) w.boolean(allow_auto_topic_creation);
}

Result<MetadataRequest> MetadataRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("MetadataRequest", version);
  MetadataRequest m;
  m.topics = read_nullable_array<MetadataRequestTopic>(r, 2, [](ByteReader& in) {
    return MetadataRequestTopic{read_string(in)};
  });
  if (version >= 4) m.allow_auto_topic_creation = r.boolean();
  return finish_decode(r, std::move(m), "MetadataRequest", version);
}

void MetadataResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "MetadataResponse");
  if (version >= 3) w.i32(throttle_time_ms);
  write_array(w, brokers, [](ByteWriter& out, const MetadataResponseBroker& b) {
    out.i32(b.node_id);
    write_string(out, b.host);
    out.i32(b.port);
    write_nullable_string(out, b.rack);
  });
  if (version >= 2) write_nullable_string(w, cluster_id);
  w.i32(controller_id);
  write_array(w, topics, [](ByteWriter& out, const MetadataResponseTopic& t) {
    write_error_code(out, t.error_code);
    write_string(out, t.name);
    out.boolean(t.is_internal);
    write_array(out, t.partitions, [](ByteWriter& o, const MetadataResponsePartition& p) {
      write_error_code(o, p.error_code);
      o.i32(p.partition_index);
      o.i32(p.leader_id);
      write_int32_array(o, p.replica_nodes);
      write_int32_array(o, p.isr_nodes);
    });
  });
}

Result<MetadataResponse> MetadataResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("MetadataResponse", version);
  MetadataResponse m;
  if (version >= 3) m.throttle_time_ms = r.i32();
  m.brokers = read_array<MetadataResponseBroker>(r, 12, [](ByteReader& in) {
    MetadataResponseBroker b;
    b.node_id = in.i32();
    b.host = read_string(in);
    b.port = in.i32();
    b.rack = read_nullable_string(in);
    return b;
  });
  if (version >= 2) m.cluster_id = read_nullable_string(r);
  m.controller_id = r.i32();
  m.topics = read_array<MetadataResponseTopic>(r, 9, [](ByteReader& in) {
    MetadataResponseTopic t;
    t.error_code = read_error_code(in);
    t.name = read_string(in);
    t.is_internal = in.boolean();
    t.partitions = read_array<MetadataResponsePartition>(in, 18, [](ByteReader& i) {
      MetadataResponsePartition p;
      p.error_code = read_error_code(i);
      p.partition_index = i.i32();
      p.leader_id = i.i32();
      p.replica_nodes = read_int32_array(i);
      p.isr_nodes = read_int32_array(i);
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "MetadataResponse", version);
}

}  // namespace gregor::protocol
