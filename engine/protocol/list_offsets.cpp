#include "engine/protocol/list_offsets.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void ListOffsetsRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ListOffsetsRequest");
  w.i32(replica_id);
  if (version >= 2) w.i8(isolation_level);
  write_array(w, topics, [](ByteWriter& out, const ListOffsetsTopic& t) {
    write_string(out, t.name);
    write_array(out, t.partitions, [](ByteWriter& o, const ListOffsetsPartition& p) {
      o.i32(p.partition_index);
      o.i64(p.timestamp);
    });
  });
}

Result<ListOffsetsRequest> ListOffsetsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ListOffsetsRequest", version);
  ListOffsetsRequest m;
  m.replica_id = r.i32();
  if (version >= 2) m.isolation_level = r.i8();
  m.topics = read_array<ListOffsetsTopic>(r, 6, [](ByteReader& in) {
    ListOffsetsTopic t;
    t.name = read_string(in);
    t.partitions = read_array<ListOffsetsPartition>(in, 12, [](ByteReader& i) {
      ListOffsetsPartition p;
      p.partition_index = i.i32();
      p.timestamp = i.i64();
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "ListOffsetsRequest", version);
}

void ListOffsetsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ListOffsetsResponse");
  if (version >= 2) w.i32(throttle_time_ms);
  write_array(w, topics, [](ByteWriter& out, const ListOffsetsTopicResponse& t) {
    write_string(out, t.name);
    write_array(out, t.partitions, [](ByteWriter& o, const ListOffsetsPartitionResponse& p) {
      o.i32(p.partition_index);
      write_error_code(o, p.error_code);
      o.i64(p.timestamp);
      o.i64(p.offset);
    });
  });
}

Result<ListOffsetsResponse> ListOffsetsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ListOffsetsResponse", version);
  ListOffsetsResponse m;
  if (version >= 2) m.throttle_time_ms = r.i32();
  m.topics = read_array<ListOffsetsTopicResponse>(r, 6, [](ByteReader& in) {
    ListOffsetsTopicResponse t;
    t.name = read_string(in);
    t.partitions = read_array<ListOffsetsPartitionResponse>(in, 22, [](ByteReader& i) {
      ListOffsetsPartitionResponse p;
      p.partition_index = i.i32();
      p.error_code = read_error_code(i);
      p.timestamp = i.i64();
      p.offset = i.i64();
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "ListOffsetsResponse", version);
}

}  // namespace gregor::protocol
