#include "engine/protocol/offset_commit.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void OffsetCommitRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "OffsetCommitRequest");
  write_string(w, group_id);
  w.i32(generation_id);
  write_string(w, member_id);
  if (version <= 4) w.i64(retention_time_ms);
  write_array(w, topics, [](ByteWriter& out, const OffsetCommitRequestTopic& t) {
    write_string(out, t.name);
    write_array(out, t.partitions, [](ByteWriter& o, const OffsetCommitRequestPartition& p) {
      o.i32(p.partition_index);
      o.i64(p.committed_offset);
      write_nullable_string(o, p.committed_metadata);
    });
  });
}

Result<OffsetCommitRequest> OffsetCommitRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("OffsetCommitRequest", version);
  OffsetCommitRequest m;
  m.group_id = read_string(r);
  m.generation_id = r.i32();
  m.member_id = read_string(r);
  if (version <= 4) m.retention_time_ms = r.i64();
  m.topics = read_array<OffsetCommitRequestTopic>(r, 6, [](ByteReader& in) {
    OffsetCommitRequestTopic t;
    t.name = read_string(in);
    t.partitions = read_array<OffsetCommitRequestPartition>(in, 14, [](ByteReader& i) {
      OffsetCommitRequestPartition p;
      p.partition_index = i.i32();
      p.committed_offset = i.i64();
      p.committed_metadata = read_nullable_string(i);
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "OffsetCommitRequest", version);
}

void OffsetCommitResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "OffsetCommitResponse");
  if (version >= 3) w.i32(throttle_time_ms);
  write_array(w, topics, [](ByteWriter& out, const OffsetCommitResponseTopic& t) {
    write_string(out, t.name);
    write_array(out, t.partitions, [](ByteWriter& o, const OffsetCommitResponsePartition& p) {
      o.i32(p.partition_index);
      write_error_code(o, p.error_code);
    });
  });
}

Result<OffsetCommitResponse> OffsetCommitResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("OffsetCommitResponse", version);
  OffsetCommitResponse m;
  if (version >= 3) m.throttle_time_ms = r.i32();
  m.topics = read_array<OffsetCommitResponseTopic>(r, 6, [](ByteReader& in) {
    OffsetCommitResponseTopic t;
    t.name = read_string(in);
    t.partitions = read_array<OffsetCommitResponsePartition>(in, 6, [](ByteReader& i) {
      OffsetCommitResponsePartition p;
      p.partition_index = i.i32();
      p.error_code = read_error_code(i);
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "OffsetCommitResponse", version);
}

}  // namespace gregor::protocol
