#include "engine/protocol/offset_for_leader_epoch.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void OffsetForLeaderEpochRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "OffsetForLeaderEpochRequest");
  if (version >= 3) w.i32(replica_id);
  write_array(w, topics, [version](ByteWriter& out, const OffsetForLeaderTopic& t) {
    write_string(out, t.topic);
    write_array(out, t.partitions, [version](ByteWriter& o, const OffsetForLeaderPartition& p) {
      o.i32(p.partition);
      if (version >= 2) o.i32(p.current_leader_epoch);
      o.i32(p.leader_epoch);
    });
  });
}

Result<OffsetForLeaderEpochRequest> OffsetForLeaderEpochRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("OffsetForLeaderEpochRequest", version);
  OffsetForLeaderEpochRequest m;
  if (version >= 3) m.replica_id = r.i32();
  m.topics = read_array<OffsetForLeaderTopic>(r, 6, [version](ByteReader& in) {
    OffsetForLeaderTopic t;
    t.topic = read_string(in);
    t.partitions = read_array<OffsetForLeaderPartition>(in, 8, [version](ByteReader& i) {
      OffsetForLeaderPartition p;
      p.partition = i.i32();
      if (version >= 2) p.current_leader_epoch = i.i32();
      p.leader_epoch = i.i32();
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "OffsetForLeaderEpochRequest", version);
}

void OffsetForLeaderEpochResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "OffsetForLeaderEpochResponse");
  if (version >= 2) w.i32(throttle_time_ms);
  write_array(w, topics, [version](ByteWriter& out, const OffsetForLeaderTopicResult& t) {
    write_string(out, t.topic);
    write_array(out, t.partitions, [version](ByteWriter& o, const EpochEndOffset& p) {
      write_error_code(o, p.error_code);
      o.i32(p.partition);
      if (version >= 1) o.i32(p.leader_epoch);
      o.i64(p.end_offset);
    });
  });
}

Result<OffsetForLeaderEpochResponse> OffsetForLeaderEpochResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("OffsetForLeaderEpochResponse", version);
  OffsetForLeaderEpochResponse m;
  if (version >= 2) m.throttle_time_ms = r.i32();
  m.topics = read_array<OffsetForLeaderTopicResult>(r, 6, [version](ByteReader& in) {
    OffsetForLeaderTopicResult t;
    t.topic = read_string(in);
    t.partitions = read_array<EpochEndOffset>(in, 14, [version](ByteReader& i) {
      EpochEndOffset p;
      p.error_code = read_error_code(i);
      p.partition = i.i32();
      if (version >= 1) p.leader_epoch = i.i32();
      p.end_offset = i.i64();
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "OffsetForLeaderEpochResponse", version);
}

}  // namespace gregor::protocol
