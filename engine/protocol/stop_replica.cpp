#include "engine/protocol/stop_replica.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void StopReplicaRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "StopReplicaRequest");
  w.i32(controller_id);
  w.i32(controller_epoch);
  if (version >= 1) w.i64(broker_epoch);
  w.boolean(delete_partitions);
  if (version == 0) {
    size_t count = 0;
    for (const StopReplicaTopic& t : topics) count += t.partition_indexes.size();
    write_array_count(w, count);
    for (const StopReplicaTopic& t : topics) {
      for (int32_t partition : t.partition_indexes) {
        write_string(w, t.name);
        w.i32(partition);
      }
    }
  } else {
    write_array(w, topics, [](ByteWriter& out, const StopReplicaTopic& t) {
      write_string(out, t.name);
      write_int32_array(out, t.partition_indexes);
    });
  }
}

Result<StopReplicaRequest> StopReplicaRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("StopReplicaRequest", version);
  StopReplicaRequest m;
  m.controller_id = r.i32();
  m.controller_epoch = r.i32();
  if (version >= 1) m.broker_epoch = r.i64();
  m.delete_partitions = r.boolean();
  if (version == 0) {
    int32_t count = read_array_count(r, 6, false).value_or(0);
    for (int32_t i = 0; i < count && r.ok(); i++) {
      std::string name = read_string(r);
      int32_t partition = r.i32();
      if (m.topics.empty() || m.topics.back().name != name) m.topics.push_back(StopReplicaTopic{std::move(name), {}});
      m.topics.back().partition_indexes.push_back(partition);
    }
  } else {
    m.topics = read_array<StopReplicaTopic>(r, 6, [](ByteReader& in) {
      StopReplicaTopic t;
      t.name = read_string(in);
      t.partition_indexes = read_int32_array(in);
      return t;
    });
  }
  return finish_decode(r, std::move(m), "StopReplicaRequest", version);
}

void StopReplicaResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "StopReplicaResponse");
  write_error_code(w, error_code);
  write_array(w, partition_errors, [](ByteWriter& out, const StopReplicaPartitionError& e) {
    write_string(out, e.topic_name);
    out.i32(e.partition_index);
    write_error_code(out, e.error_code);
  });
}

Result<StopReplicaResponse> StopReplicaResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("StopReplicaResponse", version);
  StopReplicaResponse m;
  m.error_code = read_error_code(r);
  m.partition_errors = read_array<StopReplicaPartitionError>(r, 8, [](ByteReader& in) {
    StopReplicaPartitionError e;
    e.topic_name = read_string(in);
    e.partition_index = in.i32();
    e.error_code = read_error_code(in);
    return e;
  });
  return finish_decode(r, std::move(m), "StopReplicaResponse", version);
}

}  // namespace gregor::protocol
