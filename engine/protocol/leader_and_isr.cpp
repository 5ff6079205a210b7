#include "engine/protocol/leader_and_isr.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

namespace {

using PartitionState = LeaderAndIsrRequest::LeaderAndIsrPartitionState;
using TopicState = LeaderAndIsrRequest::LeaderAndIsrTopicState;

void write_partition_state(ByteWriter& w, const PartitionState& p, int16_t version) {
  w.i32(p.partition_index);
  w.i32(p.controller_epoch);
  w.i32(p.leader);
  w.i32(p.leader_epoch);
  write_int32_array(w, p.isr);
  w.i32(p.zk_version);
  write_int32_array(w, p.replicas);
  if (version >= 3) {
    write_int32_array(w, p.adding_replicas);
    write_int32_array(w, p.removing_replicas);
  }
  if (version >= 1) w.boolean(p.is_new);
}

PartitionState read_partition_state(ByteReader& r, int16_t version) {
  PartitionState p;
  p.partition_index = r.i32();
  p.controller_epoch = r.i32();
  p.leader = r.i32();
  p.leader_epoch = r.i32();
  p.isr = read_int32_array(r);
  p.zk_version = r.i32();
  p.replicas = read_int32_array(r);
  if (version >= 3) {
    p.adding_replicas = read_int32_array(r);
    p.removing_replicas = read_int32_array(r);
  }
  if (version >= 1) p.is_new = r.boolean();
  return p;
}

// The smallest encoded partition state: five int32s, two empty arrays (plus the v3 arrays and the
// v1 flag, which only make it larger).
constexpr size_t kMinPartitionStateBytes = 5 * 4 + 2 * 4;

}  // namespace

void LeaderAndIsrRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "LeaderAndIsrRequest");
  w.i32(controller_id);
  w.i32(controller_epoch);
  if (version >= 2) w.i64(broker_epoch);
  if (version <= 1) {
    size_t count = 0;
    for (const TopicState& t : topic_states) count += t.partition_states.size();
    write_array_count(w, count);
    for (const TopicState& t : topic_states) {
      for (const PartitionState& p : t.partition_states) {
        write_string(w, t.topic_name);
        write_partition_state(w, p, version);
      }
    }
  } else {
    write_array(w, topic_states, [version](ByteWriter& out, const TopicState& t) {
      write_string(out, t.topic_name);
      write_array(out, t.partition_states, [version](ByteWriter& o, const PartitionState& p) {
        write_partition_state(o, p, version);
      });
    });
  }
  write_array(w, live_leaders, [](ByteWriter& out, const LeaderAndIsrLiveLeader& l) {
    out.i32(l.broker_id);
    write_string(out, l.host_name);
    out.i32(l.port);
  });
}

Result<LeaderAndIsrRequest> LeaderAndIsrRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("LeaderAndIsrRequest", version);
  LeaderAndIsrRequest m;
  m.controller_id = r.i32();
  m.controller_epoch = r.i32();
  if (version >= 2) m.broker_epoch = r.i64();
  if (version <= 1) {
    int32_t count = read_array_count(r, 2 + kMinPartitionStateBytes, false).value_or(0);
    for (int32_t i = 0; i < count && r.ok(); i++) {
      std::string topic_name = read_string(r);
      PartitionState p = read_partition_state(r, version);
      if (m.topic_states.empty() || m.topic_states.back().topic_name != topic_name) {
        m.topic_states.push_back(TopicState{std::move(topic_name), {}});
      }
      m.topic_states.back().partition_states.push_back(std::move(p));
    }
  } else {
    m.topic_states = read_array<TopicState>(r, 6, [version](ByteReader& in) {
      TopicState t;
      t.topic_name = read_string(in);
      t.partition_states = read_array<PartitionState>(
          in, kMinPartitionStateBytes, [version](ByteReader& i) { return read_partition_state(i, version); });
      return t;
    });
  }
  m.live_leaders = read_array<LeaderAndIsrLiveLeader>(r, 10, [](ByteReader& in) {
    LeaderAndIsrLiveLeader l;
    l.broker_id = in.i32();
    l.host_name = read_string(in);
    l.port = in.i32();
    return l;
  });
  return finish_decode(r, std::move(m), "LeaderAndIsrRequest", version);
}

void LeaderAndIsrResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "LeaderAndIsrResponse");
  write_error_code(w, error_code);
  write_array(w, partition_errors, [](ByteWriter& out, const LeaderAndIsrPartitionError& e) {
    write_string(out, e.topic_name);
    out.i32(e.partition_index);
    write_error_code(out, e.error_code);
  });
}

Result<LeaderAndIsrResponse> LeaderAndIsrResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("LeaderAndIsrResponse", version);
  LeaderAndIsrResponse m;
  m.error_code = read_error_code(r);
  m.partition_errors = read_array<LeaderAndIsrPartitionError>(r, 8, [](ByteReader& in) {
    LeaderAndIsrPartitionError e;
    e.topic_name = read_string(in);
    e.partition_index = in.i32();
    e.error_code = read_error_code(in);
    return e;
  });
  return finish_decode(r, std::move(m), "LeaderAndIsrResponse", version);
}

}  // namespace gregor::protocol
