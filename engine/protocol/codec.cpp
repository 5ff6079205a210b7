#include "engine/protocol/codec.h"

namespace gregor::protocol {

namespace codec {

namespace {

// The length or count as read: int32, or uvarint - 1 when flexible (so null is -1 in both).
int64_t read_raw_length(ByteReader& r, bool flexible) {
  if (flexible) return static_cast<int64_t>(r.uvarint()) - 1;
  return r.i32();
}

}  // namespace

int32_t get_length(ByteReader& r, bool flexible, bool nullable, size_t min_element_bytes) {
  int64_t n = read_raw_length(r, flexible);
  if (!r.ok()) return 0;
  if (n == -1 && nullable) return -1;
  if (n < 0 || n > std::numeric_limits<int32_t>::max() ||
      static_cast<uint64_t>(n) * min_element_bytes > r.remaining()) {
    r.fail();
    return 0;
  }
  return static_cast<int32_t>(n);
}

std::optional<std::string> get_nullable_string(ByteReader& r, bool flexible, bool nullable) {
  int64_t n = flexible ? static_cast<int64_t>(r.uvarint()) - 1 : r.i16();
  if (!r.ok()) return std::nullopt;
  if (n == -1 && nullable) return std::nullopt;
  // Kafka caps a string at int16 length even in compact form (it is still a Java String field).
  if (n < 0 || n > 0x7fff) {
    r.fail();
    return std::nullopt;
  }
  ByteView v = r.raw(static_cast<size_t>(n));
  if (!r.ok()) return std::nullopt;
  return std::string(v.begin(), v.end());
}

std::optional<ByteView> get_nullable_bytes_view(ByteReader& r, bool flexible, bool nullable) {
  int32_t n = get_length(r, flexible, nullable, 1);
  if (!r.ok() || n < 0) return std::nullopt;
  ByteView v = r.raw(static_cast<size_t>(n));
  if (!r.ok()) return std::nullopt;
  return v;
}

size_t put_unknown_tags_below(ByteWriter& w, const TaggedFields& fields, size_t from, uint64_t below) {
  for (; from < fields.size() && fields[from].tag < below; from++) {
    w.uvarint(fields[from].tag);
    GREGOR_ASSERT(fields[from].data.size() < 0x7fffffff);
    w.uvarint(static_cast<uint32_t>(fields[from].data.size()));
    w.raw(as_view(fields[from].data));
  }
  return from;
}

size_t unknown_tags_size(const TaggedFields& fields) {
  size_t size = 0;
  for (const RawTaggedField& f : fields) {
    size += uvarint_size(f.tag) + uvarint_size(f.data.size()) + f.data.size();
  }
  return size;
}

uint32_t get_tag_count(ByteReader& r) {
  uint32_t count = r.uvarint();
  if (static_cast<uint64_t>(count) * 2 > r.remaining()) {
    r.fail();
    return 0;
  }
  return count;
}

bool get_tagged_field(ByteReader& r, uint32_t& tag, ByteView& data) {
  tag = r.uvarint();
  uint32_t size = r.uvarint();
  data = r.raw(size);
  return r.ok();
}

void put_unknown_tags(ByteWriter& w, const TaggedFields& fields) {
  GREGOR_ASSERT(fields.size() < 0x7fffffff);
  w.uvarint(static_cast<uint32_t>(fields.size()));
  put_unknown_tags_below(w, fields, 0, UINT64_MAX);
}

void get_unknown_tags(ByteReader& r, TaggedFields& fields) {
  uint32_t count = get_tag_count(r);
  for (uint32_t i = 0; i < count && r.ok(); i++) {
    uint32_t tag = 0;
    ByteView data;
    if (!get_tagged_field(r, tag, data)) return;
    fields.push_back(RawTaggedField{tag, Bytes(data.begin(), data.end())});
  }
}

size_t unknown_tags_section_size(const TaggedFields& fields) {
  return uvarint_size(fields.size()) + unknown_tags_size(fields);
}

void skip_tagged_fields(ByteReader& r) {
  uint32_t count = get_tag_count(r);
  for (uint32_t i = 0; i < count && r.ok(); i++) {
    uint32_t tag = 0;
    ByteView data;
    if (!get_tagged_field(r, tag, data)) return;
  }
}

}  // namespace codec

Status unsupported_version_status(const char* message_name, int16_t version) {
  return Status::error(StatusCode::kInvalidArgument,
                       std::string(message_name) + " v" + std::to_string(version) + " is not supported");
}

Status malformed_status(const char* message_name, int16_t version) {
  return Status::error(StatusCode::kCorruption,
                       std::string("malformed ") + message_name + " v" + std::to_string(version));
}

}  // namespace gregor::protocol
