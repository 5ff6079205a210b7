#include "engine/group/offsets_topic.h"

namespace gregor::group {

namespace {

// UTF-8 to UTF-16 code units as Java decodes a String; malformed input becomes U+FFFD.
std::vector<uint16_t> utf16_units(const std::string& s) {
  std::vector<uint16_t> out;
  size_t i = 0;
  const size_t n = s.size();
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  while (i < n) {
    uint8_t b0 = byte(i);
    uint32_t cp = 0xFFFD;
    size_t len = 1;
    if (b0 < 0x80) {
      cp = b0;
    } else if ((b0 & 0xE0) == 0xC0 && i + 1 < n && (byte(i + 1) & 0xC0) == 0x80) {
      cp = ((b0 & 0x1Fu) << 6) | (byte(i + 1) & 0x3Fu);
      len = 2;
      if (cp < 0x80) cp = 0xFFFD;
    } else if ((b0 & 0xF0) == 0xE0 && i + 2 < n && (byte(i + 1) & 0xC0) == 0x80 && (byte(i + 2) & 0xC0) == 0x80) {
      cp = ((b0 & 0x0Fu) << 12) | ((byte(i + 1) & 0x3Fu) << 6) | (byte(i + 2) & 0x3Fu);
      len = 3;
      if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    } else if ((b0 & 0xF8) == 0xF0 && i + 3 < n && (byte(i + 1) & 0xC0) == 0x80 && (byte(i + 2) & 0xC0) == 0x80 &&
               (byte(i + 3) & 0xC0) == 0x80) {
      cp = ((b0 & 0x07u) << 18) | ((byte(i + 1) & 0x3Fu) << 12) | ((byte(i + 2) & 0x3Fu) << 6) | (byte(i + 3) & 0x3Fu);
      len = 4;
      if (cp < 0x10000 || cp > 0x10FFFF) cp = 0xFFFD;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<uint16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<uint16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<uint16_t>(cp));
    }
    i += len;
  }
  return out;
}

}  // namespace

int32_t java_string_hash(const std::string& s) {
  uint32_t h = 0;  // Java's int arithmetic wraps; unsigned arithmetic has the same bits
  for (uint16_t unit : utf16_units(s)) h = 31u * h + unit;
  return static_cast<int32_t>(h);
}

int32_t partition_for_group(const std::string& group_id, int32_t num_partitions) {
  GREGOR_ASSERT(num_partitions > 0);
  return kafka_abs(java_string_hash(group_id)) % num_partitions;
}

Bytes encode_key(const OffsetCommitKey& k) {
  ByteWriter w;
  w.i16(kOffsetCommitKeyVersion);
  w.string(k.group);
  w.string(k.topic);
  w.i32(k.partition);
  return w.take();
}

Bytes encode_key(const GroupMetadataKey& k) {
  ByteWriter w;
  w.i16(kGroupMetadataKeyVersion);
  w.string(k.group);
  return w.take();
}

Bytes encode_value(const OffsetCommitValue& v) {
  ByteWriter w;
  w.i16(kOffsetCommitValueVersion);
  w.i64(v.offset);
  w.i32(v.leader_epoch);
  w.string(v.metadata);
  w.i64(v.commit_timestamp);
  return w.take();
}

Bytes encode_value(const GroupMetadataValue& v) {
  ByteWriter w;
  w.i16(kGroupMetadataValueVersion);
  w.string(v.protocol_type);
  w.i32(v.generation);
  w.nullable_string(v.protocol);
  w.nullable_string(v.leader);
  w.i64(v.current_state_timestamp);
  w.i32(static_cast<int32_t>(v.members.size()));
  for (const auto& m : v.members) {
    w.string(m.member_id);
    w.nullable_string(m.group_instance_id);
    w.string(m.client_id);
    w.string(m.client_host);
    w.i32(m.rebalance_timeout_ms);
    w.i32(m.session_timeout_ms);
    w.bytes(as_view(m.subscription));
    w.bytes(as_view(m.assignment));
  }
  return w.take();
}

namespace {

Result<OffsetCommitValue> decode_offset_value(ByteReader& r) {
  OffsetCommitValue v;
  int16_t version = r.i16();
  if (version < 0 || version > 3) return Status::error(StatusCode::kInvalidArgument, "OffsetCommitValue version " + std::to_string(version));
  v.offset = r.i64();
  if (version >= 3) v.leader_epoch = r.i32();
  v.metadata = r.string();
  v.commit_timestamp = r.i64();
  if (version == 1) (void)r.i64();  // expire_timestamp (offsets retention is not modelled)
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed OffsetCommitValue");
  return v;
}

Result<GroupMetadataValue> decode_group_value(ByteReader& r) {
  GroupMetadataValue v;
  int16_t version = r.i16();
  if (version < 0 || version > 3) return Status::error(StatusCode::kInvalidArgument, "GroupMetadataValue version " + std::to_string(version));
  v.protocol_type = r.string();
  v.generation = r.i32();
  v.protocol = r.nullable_string();
  v.leader = r.nullable_string();
  if (version >= 2) v.current_state_timestamp = r.i64();
  int32_t count = r.array_count(2 + 2 + 2 + 4 + 4 + 4);
  for (int32_t i = 0; i < count && r.ok(); i++) {
    GroupMemberValue m;
    m.member_id = r.string();
    if (version >= 3) m.group_instance_id = r.nullable_string();
    m.client_id = r.string();
    m.client_host = r.string();
    if (version >= 1) m.rebalance_timeout_ms = r.i32();
    m.session_timeout_ms = r.i32();
    if (version == 0) m.rebalance_timeout_ms = m.session_timeout_ms;
    m.subscription = r.bytes();
    m.assignment = r.bytes();
    v.members.push_back(std::move(m));
  }
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed GroupMetadataValue");
  return v;
}

}  // namespace

Result<OffsetsRecord> decode_offsets_record(const std::optional<Bytes>& key, const std::optional<Bytes>& value) {
  if (!key) return Status::error(StatusCode::kCorruption, "offsets topic record without a key");
  ByteReader kr(as_view(*key));
  int16_t key_version = kr.i16();
  OffsetsRecord out;
  if (key_version == 0 || key_version == 1) {
    OffsetCommitKey k;
    k.group = kr.string();
    k.topic = kr.string();
    k.partition = kr.i32();
    if (!kr.ok()) return Status::error(StatusCode::kCorruption, "malformed OffsetCommitKey");
    out.key = std::move(k);
    if (!value) {
      out.tombstone = true;
      return out;
    }
    ByteReader vr(as_view(*value));
    auto v = decode_offset_value(vr);
    if (!v) return v.status();
    out.offset_value = std::move(*v);
    return out;
  }
  if (key_version == 2) {
    GroupMetadataKey k;
    k.group = kr.string();
    if (!kr.ok()) return Status::error(StatusCode::kCorruption, "malformed GroupMetadataKey");
    out.key = std::move(k);
    if (!value) {
      out.tombstone = true;
      return out;
    }
    ByteReader vr(as_view(*value));
    auto v = decode_group_value(vr);
    if (!v) return v.status();
    out.group_value = std::move(*v);
    return out;
  }
  if (!kr.ok()) return Status::error(StatusCode::kCorruption, "malformed offsets topic key");
  return Status::error(StatusCode::kInvalidArgument, "unknown offsets topic key version " + std::to_string(key_version));
}

}  // namespace gregor::group
