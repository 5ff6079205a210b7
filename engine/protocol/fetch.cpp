#include "engine/protocol/fetch.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void FetchRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "FetchRequest");
  w.i32(replica_id);
  w.i32(max_wait_ms);
  w.i32(min_bytes);
  w.i32(max_bytes);
  w.i8(isolation_level);
  if (version >= 7) {
    w.i32(session_id);
    w.i32(session_epoch);
  }
  write_array(w, topics, [version](ByteWriter& out, const FetchTopic& t) {
    write_string(out, t.topic);
    write_array(out, t.partitions, [version](ByteWriter& o, const FetchPartition& p) {
      o.i32(p.partition);
      if (version >= 9) o.i32(p.current_leader_epoch);
      o.i64(p.fetch_offset);
      if (version >= 5) o.i64(p.log_start_offset);
      o.i32(p.partition_max_bytes);
    });
  });
  if (version >= 7) {
    write_array(w, forgotten_topics_data, [](ByteWriter& out, const ForgottenTopic& t) {
      write_string(out, t.topic);
      write_int32_array(out, t.partitions);
    });
  }
  if (version >= 11) write_string(w, rack_id);
}

Result<FetchRequest> FetchRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("FetchRequest", version);
  FetchRequest m;
  m.replica_id = r.i32();
  m.max_wait_ms = r.i32();
  m.min_bytes = r.i32();
  m.max_bytes = r.i32();
  m.isolation_level = r.i8();
  if (version >= 7) {
    m.session_id = r.i32();
    m.session_epoch = r.i32();
  }
  m.topics = read_array<FetchTopic>(r, 6, [version](ByteReader& in) {
    FetchTopic t;
    t.topic = read_string(in);
    t.partitions = read_array<FetchPartition>(in, 16, [version](ByteReader& i) {
      FetchPartition p;
      p.partition = i.i32();
      if (version >= 9) p.current_leader_epoch = i.i32();
      p.fetch_offset = i.i64();
      if (version >= 5) p.log_start_offset = i.i64();
      p.partition_max_bytes = i.i32();
      return p;
    });
    return t;
  });
  if (version >= 7) {
    m.forgotten_topics_data = read_array<ForgottenTopic>(r, 6, [](ByteReader& in) {
      ForgottenTopic t;
      t.topic = read_string(in);
      t.partitions = read_int32_array(in);
      return t;
    });
  }
  if (version >= 11) m.rack_id = read_string(r);
  return finish_decode(r, std::move(m), "FetchRequest", version);
}

size_t FetchResponse::encoded_size_hint() const {
  size_t size = 4 + 2 + 4 + 4;
  for (const FetchableTopicResponse& t : responses) {
    size += 2 + t.topic.size() + 4;
    for (const PartitionData& p : t.partitions) {
      size += 4 + 2 + 8 + 8 + 8 + 4 + 4 + 4 + (p.records ? p.records->size() : 0);
      if (p.aborted_transactions) size += 16 * p.aborted_transactions->size();
    }
  }
  return size;
}

void FetchResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "FetchResponse");
  w.i32(throttle_time_ms);
  if (version >= 7) {
    write_error_code(w, error_code);
    w.i32(session_id);
  }
  write_array(w, responses, [version](ByteWriter& out, const FetchableTopicResponse& t) {
    write_string(out, t.topic);
    write_array(out, t.partitions, [version](ByteWriter& o, const PartitionData& p) {
      o.i32(p.partition_index);
      write_error_code(o, p.error_code);
      o.i64(p.high_watermark);
      o.i64(p.last_stable_offset);
      if (version >= 5) o.i64(p.log_start_offset);
      write_nullable_array(o, p.aborted_transactions, [](ByteWriter& a, const AbortedTransaction& x) {
        a.i64(x.producer_id);
        a.i64(x.first_offset);
      });
      if (version >= 11) o.i32(p.preferred_read_replica);
      write_nullable_bytes(o, p.records);
    });
  });
}

Result<FetchResponse> FetchResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("FetchResponse", version);
  FetchResponse m;
  m.throttle_time_ms = r.i32();
  if (version >= 7) {
    m.error_code = read_error_code(r);
    m.session_id = r.i32();
  }
  m.responses = read_array<FetchableTopicResponse>(r, 6, [version](ByteReader& in) {
    FetchableTopicResponse t;
    t.topic = read_string(in);
    t.partitions = read_array<PartitionData>(in, 30, [version](ByteReader& i) {
      PartitionData p;
      p.partition_index = i.i32();
      p.error_code = read_error_code(i);
      p.high_watermark = i.i64();
      p.last_stable_offset = i.i64();
      if (version >= 5) p.log_start_offset = i.i64();
      p.aborted_transactions = read_nullable_array<AbortedTransaction>(i, 16, [](ByteReader& a) {
        AbortedTransaction x;
        x.producer_id = a.i64();
        x.first_offset = a.i64();
        return x;
      });
      if (version >= 11) p.preferred_read_replica = i.i32();
      p.records = i.nullable_bytes();
      return p;
    });
    return t;
  });
  return finish_decode(r, std::move(m), "FetchResponse", version);
}

}  // namespace gregor::protocol
