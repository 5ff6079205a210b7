#include "engine/protocol/produce.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

size_t ProduceRequest::encoded_size_hint() const {
  size_t size = 2 + (transactional_id ? transactional_id->size() : 0) + 2 + 4 + 4;
  for (const TopicProduceData& t : topic_data) {
    size += 2 + t.name.size() + 4;
    for (const PartitionProduceData& p : t.partition_data) size += 4 + 4 + (p.records ? p.records->size() : 0);
  }
  return size;
}

void ProduceRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ProduceRequest");
  write_nullable_string(w, transactional_id);
  w.i16(acks);
  w.i32(timeout_ms);
  write_array(w, topic_data, [](ByteWriter& out, const TopicProduceData& t) {
    write_string(out, t.name);
    write_array(out, t.partition_data, [](ByteWriter& o, const PartitionProduceData& p) {
      o.i32(p.index);
      write_nullable_bytes(o, p.records);
    });
  });
}

Result<ProduceRequest> ProduceRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ProduceRequest", version);
  ProduceRequest m;
  m.transactional_id = read_nullable_string(r);
  m.acks = r.i16();
  m.timeout_ms = r.i32();
  m.topic_data = read_array<TopicProduceData>(r, 6, [](ByteReader& in) {
    TopicProduceData t;
    t.name = read_string(in);
    t.partition_data = read_array<PartitionProduceData>(in, 8, [](ByteReader& i) {
      PartitionProduceData p;
      p.index = i.i32();
      p.records = i.nullable_bytes();
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "ProduceRequest", version);
}

void ProduceResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ProduceResponse");
  write_array(w, responses, [version](ByteWriter& out, const TopicProduceResponse& t) {
    write_string(out, t.name);
    write_array(out, t.partition_responses, [version](ByteWriter& o, const PartitionProduceResponse& p) {
      o.i32(p.index);
      write_error_code(o, p.error_code);
      o.i64(p.base_offset);
      o.i64(p.log_append_time_ms);
      if (version >= 5) o.i64(p.log_start_offset);
    });
  });
  w.i32(throttle_time_ms);
}

Result<ProduceResponse> ProduceResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ProduceResponse", version);
  ProduceResponse m;
  m.responses = read_array<TopicProduceResponse>(r, 6, [version](ByteReader& in) {
    TopicProduceResponse t;
    t.name = read_string(in);
    t.partition_responses = read_array<PartitionProduceResponse>(in, 22, [version](ByteReader& i) {
      PartitionProduceResponse p;
      p.index = i.i32();
      p.error_code = read_error_code(i);
      p.base_offset = i.i64();
      p.log_append_time_ms = i.i64();
      if (version >= 5) p.log_start_offset = i.i64();
      return p;
    });
    return t;
  });
  m.throttle_time_ms = r.i32();
  return finish_decode(r, std::move(m), "ProduceResponse", version);
}

}  // namespace gregor::protocol
