#include "engine/protocol/consumer_protocol.h"

#include <algorithm>

namespace gregor::protocol {

namespace {
constexpr int16_t kSubscriptionVersion = 1;
constexpr int16_t kAssignmentVersion = 1;

void write_partitions(ByteWriter& w, const PartitionsByTopic& p) {
  w.i32(static_cast<int32_t>(p.size()));
  for (const auto& [topic, parts] : p) {
    w.string(topic);
    w.i32(static_cast<int32_t>(parts.size()));
    for (int32_t x : parts) w.i32(x);
  }
}

PartitionsByTopic read_partitions(ByteReader& r) {
  PartitionsByTopic out;
  int32_t topics = r.array_count(2 + 4);
  for (int32_t i = 0; i < topics && r.ok(); i++) {
    std::string topic = r.string();
    int32_t n = r.array_count(4);
    auto& v = out[topic];
    for (int32_t j = 0; j < n && r.ok(); j++) v.push_back(r.i32());
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  return out;
}

void write_nullable_bytes(ByteWriter& w, const std::optional<Bytes>& b) {
  if (!b) return w.i32(-1);
  w.bytes(as_view(*b));
}
}  // namespace

Bytes encode_subscription(const Subscription& s) {
  ByteWriter w;
  w.i16(kSubscriptionVersion);
  w.i32(static_cast<int32_t>(s.topics.size()));
  for (const auto& t : s.topics) w.string(t);
  write_nullable_bytes(w, s.user_data);
  write_partitions(w, s.owned_partitions);
  return w.take();
}

Result<Subscription> decode_subscription(ByteView data) {
  ByteReader r(data);
  Subscription s;
  int16_t version = r.i16();
  if (version < 0) return Status::error(StatusCode::kCorruption, "negative subscription version");
  int32_t n = r.array_count(2);
  for (int32_t i = 0; i < n && r.ok(); i++) s.topics.push_back(r.string());
  s.user_data = r.nullable_bytes();
  // Newer versions only append fields, so a reader of v3 reads the prefix of anything later.
  if (version >= 1) s.owned_partitions = read_partitions(r);
  if (version >= 2) s.generation_id = r.i32();
  if (version >= 3) (void)r.nullable_string();
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed consumer subscription");
  return s;
}

Bytes encode_assignment(const Assignment& a) {
  ByteWriter w;
  w.i16(kAssignmentVersion);
  write_partitions(w, a.partitions);
  write_nullable_bytes(w, a.user_data);
  return w.take();
}

Result<Assignment> decode_assignment(ByteView data) {
  Assignment a;
  if (data.empty()) return a;  // the coordinator fills missing assignments with empty bytes
  ByteReader r(data);
  int16_t version = r.i16();
  if (version < 0) return Status::error(StatusCode::kCorruption, "negative assignment version");
  a.partitions = read_partitions(r);
  a.user_data = r.nullable_bytes();
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed consumer assignment");
  return a;
}

std::string format_partitions(const PartitionsByTopic& p) {
  std::string out;
  for (const auto& [topic, parts] : p)
    for (int32_t x : parts) {
      if (!out.empty()) out += ",";
      out += topic + "-" + std::to_string(x);
    }
  return out;
}

size_t count_partitions(const PartitionsByTopic& p) {
  size_t n = 0;
  for (const auto& [t, v] : p) n += v.size();
  return n;
}

}  // namespace gregor::protocol
