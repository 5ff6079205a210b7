#include "engine/protocol/update_metadata.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

namespace {

using PartitionState = UpdateMetadataRequest::UpdateMetadataPartitionState;
using TopicState = UpdateMetadataRequest::UpdateMetadataTopicState;
using Endpoint = UpdateMetadataRequest::UpdateMetadataEndpoint;
using Broker = UpdateMetadataRequest::UpdateMetadataBroker;

void write_partition_state(ByteWriter& w, const PartitionState& p, int16_t version) {
  w.i32(p.partition_index);
  w.i32(p.controller_epoch);
  w.i32(p.leader);
  w.i32(p.leader_epoch);
  write_int32_array(w, p.isr);
  w.i32(p.zk_version);
  write_int32_array(w, p.replicas);
  if (version >= 4) write_int32_array(w, p.offline_replicas);
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
  if (version >= 4) p.offline_replicas = read_int32_array(r);
  return p;
}

constexpr size_t kMinPartitionStateBytes = 5 * 4 + 2 * 4;

void write_broker(ByteWriter& w, const Broker& b, int16_t version) {
  w.i32(b.id);
  if (version == 0) {
    GREGOR_ASSERT_MSG(b.endpoints.size() == 1, "UpdateMetadata v0 carries exactly one endpoint per broker");
    write_string(w, b.endpoints[0].host);
    w.i32(b.endpoints[0].port);
  } else {
    write_array(w, b.endpoints, [version](ByteWriter& out, const Endpoint& e) {
      out.i32(e.port);
      write_string(out, e.host);
      if (version >= 3) write_string(out, e.listener);
      out.i16(e.security_protocol);
    });
  }
  if (version >= 2) write_nullable_string(w, b.rack);
}

Broker read_broker(ByteReader& r, int16_t version) {
  Broker b;
  b.id = r.i32();
  if (version == 0) {
    Endpoint e;
    e.host = read_string(r);
    e.port = r.i32();
    b.endpoints.push_back(std::move(e));
  } else {
    b.endpoints = read_array<Endpoint>(r, 8, [version](ByteReader& in) {
      Endpoint e;
      e.port = in.i32();
      e.host = read_string(in);
      if (version >= 3) e.listener = read_string(in);
      e.security_protocol = in.i16();
      return e;
    });
  }
  if (version >= 2) b.rack = read_nullable_string(r);
  return b;
}

}  // namespace

void UpdateMetadataRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "UpdateMetadataRequest");
  w.i32(controller_id);
  w.i32(controller_epoch);
  if (version >= 5) w.i64(broker_epoch);
  if (version <= 4) {
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
  write_array(w, live_brokers, [version](ByteWriter& out, const Broker& b) { write_broker(out, b, version); });
}

Result<UpdateMetadataRequest> UpdateMetadataRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("UpdateMetadataRequest", version);
  UpdateMetadataRequest m;
  m.controller_id = r.i32();
  m.controller_epoch = r.i32();
  if (version >= 5) m.broker_epoch = r.i64();
  if (version <= 4) {
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
  m.live_brokers = read_array<Broker>(r, 8, [version](ByteReader& in) { return read_broker(in, version); });
  return finish_decode(r, std::move(m), "UpdateMetadataRequest", version);
}

void UpdateMetadataResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "UpdateMetadataResponse");
  write_error_code(w, error_code);
}

Result<UpdateMetadataResponse> UpdateMetadataResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("UpdateMetadataResponse", version);
  UpdateMetadataResponse m;
  m.error_code = read_error_code(r);
  return finish_decode(r, std::move(m), "UpdateMetadataResponse", version);
}

}  // namespace gregor::protocol
