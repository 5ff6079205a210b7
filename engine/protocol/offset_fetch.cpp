#include "engine/protocol/offset_fetch.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void OffsetFetchRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "OffsetFetchRequest");
  GREGOR_ASSERT_MSG(version >= 2 || topics.has_value(), "OffsetFetch v1 cannot ask for all topics");
  write_string(w, group_id);
  write_nullable_array(w, topics, [](ByteWriter& out, const OffsetFetchRequestTopic& t) {
    write_string(out, t.name);
    write_int32_array(out, t.partition_indexes);
  });
}

Result<OffsetFetchRequest> OffsetFetchRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("OffsetFetchRequest", version);
  OffsetFetchRequest m;
  m.group_id = read_string(r);
  auto read_topic = [](ByteReader& in) {
    OffsetFetchRequestTopic t;
    t.name = read_string(in);
    t.partition_indexes = read_int32_array(in);
    return t;
  };
  if (version >= 2) {
    m.topics = read_nullable_array<OffsetFetchRequestTopic>(r, 6, read_topic);
  } else {
    m.topics = read_array<OffsetFetchRequestTopic>(r, 6, read_topic);
  }
  return finish_decode(r, std::move(m), "OffsetFetchRequest", version);
}

void OffsetFetchResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "OffsetFetchResponse");
  if (version >= 3) w.i32(throttle_time_ms);
  write_array(w, topics, [](ByteWriter& out, const OffsetFetchResponseTopic& t) {
    write_string(out, t.name);
    write_array(out, t.partitions, [](ByteWriter& o, const OffsetFetchResponsePartition& p) {
      o.i32(p.partition_index);
      o.i64(p.committed_offset);
      write_nullable_string(o, p.metadata);
      write_error_code(o, p.error_code);
    });
  });
  if (version >= 2) write_error_code(w, error_code);
}

Result<OffsetFetchResponse> OffsetFetchResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("OffsetFetchResponse", version);
  OffsetFetchResponse m;
  if (version >= 3) m.throttle_time_ms = r.i32();
  m.topics = read_array<OffsetFetchResponseTopic>(r, 6, [](ByteReader& in) {
    OffsetFetchResponseTopic t;
    t.name = read_string(in);
    t.partitions = read_array<OffsetFetchResponsePartition>(in, 16, [](ByteReader& i) {
      OffsetFetchResponsePartition p;
      p.partition_index = i.i32();
      p.committed_offset = i.i64();
      p.metadata = read_nullable_string(i);
      p.error_code = read_error_code(i);
      return p;
    });
    return t;
  });
  if (version >= 2) m.error_code = read_error_code(r);
  return finish_decode(r, std::move(m), "OffsetFetchResponse", version);
}

}  // namespace gregor::protocol
