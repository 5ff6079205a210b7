#include "engine/protocol/wire.h"

#include "engine/protocol/api_versions_table.h"

namespace gregor::protocol {

void write_compact_string(ByteWriter& w, std::string_view s) {
  GREGOR_ASSERT(s.size() < static_cast<size_t>(std::numeric_limits<int32_t>::max()));
  w.uvarint(static_cast<uint32_t>(s.size() + 1));
  w.raw(s);
}

void write_compact_nullable_string(ByteWriter& w, const std::optional<std::string>& s) {
  if (!s) return w.uvarint(0);
  write_compact_string(w, *s);
}

std::optional<std::string> read_compact_nullable_string(ByteReader& r) {
  uint32_t n = r.uvarint();
  if (!r.ok() || n == 0) return std::nullopt;
  // Kafka caps a string at int16 length even in compact form (it is still a Java String field).
  if (n - 1 > static_cast<uint32_t>(std::numeric_limits<int16_t>::max())) {
    r.fail();
    return std::nullopt;
  }
  return to_string(r.raw(n - 1));
}

std::string read_compact_string(ByteReader& r) {
  std::optional<std::string> s = read_compact_nullable_string(r);
  if (!s) {
    r.fail();
    return {};
  }
  return std::move(*s);
}

void skip_tagged_fields(ByteReader& r) {
  uint32_t count = r.uvarint();
  // Each field takes at least two bytes (tag and size), which bounds a hostile count.
  if (static_cast<uint64_t>(count) * 2 > r.remaining()) {
    r.fail();
    return;
  }
  for (uint32_t i = 0; i < count && r.ok(); i++) {
    (void)r.uvarint();  // tag
    uint32_t size = r.uvarint();
    r.skip(size);
  }
}

namespace {

std::optional<int32_t> checked_count(ByteReader& r, int64_t count, size_t min_element_bytes,
                                     bool nullable) {
  if (!r.ok()) return 0;
  if (count == -1 && nullable) return std::nullopt;
  if (count < 0 || count > std::numeric_limits<int32_t>::max() ||
      static_cast<uint64_t>(count) * min_element_bytes > r.remaining()) {
    r.fail();
    return 0;
  }
  return static_cast<int32_t>(count);
}

}  // namespace

std::optional<int32_t> read_array_count(ByteReader& r, size_t min_element_bytes, bool nullable) {
  int32_t count = r.i32();
  return checked_count(r, count, min_element_bytes, nullable);
}

std::optional<int32_t> read_compact_array_count(ByteReader& r, size_t min_element_bytes,
                                                bool nullable) {
  int64_t count = static_cast<int64_t>(r.uvarint()) - 1;
  return checked_count(r, count, min_element_bytes, nullable);
}

void write_int32_array(ByteWriter& w, const std::vector<int32_t>& items) {
  write_array(w, items, [](ByteWriter& out, int32_t v) { out.i32(v); });
}

std::vector<int32_t> read_int32_array(ByteReader& r) {
  return read_array<int32_t>(r, 4, [](ByteReader& in) { return in.i32(); });
}

bool codec_supports(ApiKey key, int16_t version) { return is_version_supported(key, version); }

void assert_encodable(ApiKey key, int16_t version, const char* message_name) {
  GREGOR_ASSERT_MSG(codec_supports(key, version),
                    std::string("encoding ") + message_name + " at unsupported version " +
                        std::to_string(version));
}

Status unsupported_version_status(const char* message_name, int16_t version) {
  return Status::error(StatusCode::kInvalidArgument,
                       std::string(message_name) + " v" + std::to_string(version) + " is not supported");
}

Status malformed_status(const char* message_name, int16_t version) {
  return Status::error(StatusCode::kCorruption,
                       std::string("malformed ") + message_name + " v" + std::to_string(version));
}

}  // namespace gregor::protocol
