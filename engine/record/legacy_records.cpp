#include "engine/record/legacy_records.h"

#include <zlib.h>

#include <algorithm>
#include <string>

#include "engine/record/batch_split.h"
#include "engine/record/compression.h"

namespace gregor::record {
namespace {

constexpr size_t kEntryOverhead = 12;      // offset and message_size
constexpr size_t kMessageV0Bytes = 14;     // crc, magic, attributes, key and value lengths
constexpr size_t kMessageV1Bytes = 22;     // the same and a timestamp
constexpr int8_t kLegacyTimestampTypeMask = 0x08;
// Wrappers inside wrappers are refused, so one level of nesting is all there is.
constexpr size_t kMessagesPerSetMax = 1 << 20;

Status corrupt(const std::string& what) { return Status::error(StatusCode::kCorruption, "message set: " + what); }
Status invalid(const std::string& what) { return Status::error(StatusCode::kInvalidArgument, "message set: " + what); }

struct Message {
  int64_t offset = 0;
  int8_t magic = 0;
  int8_t attributes = 0;
  int64_t timestamp = kNoTimestamp;
  std::optional<Bytes> key;
  std::optional<Bytes> value;
  int codec() const { return attributes & 0x07; }
};

// Reads every entry of a message set; `inner` sets are those inside a wrapper.
Status read_entries(ByteView data, std::vector<Message>& out) {
  ByteReader r(data);
  while (!r.at_end()) {
    if (out.size() >= kMessagesPerSetMax) return corrupt("more than " + std::to_string(kMessagesPerSetMax) + " messages");
    Message m;
    m.offset = r.i64();
    const int32_t size = r.i32();
    if (!r.ok()) return corrupt("truncated entry header");
    if (size < static_cast<int32_t>(kMessageV0Bytes) || static_cast<size_t>(size) > r.remaining())
      return corrupt("message size " + std::to_string(size) + " with " + std::to_string(r.remaining()) + " bytes left");
    ByteView body = r.raw(static_cast<size_t>(size));
    ByteReader b(body);
    const uint32_t crc = b.u32();
    if (crc32_ieee(body.subspan(4)) != crc) return corrupt("message at offset " + std::to_string(m.offset) + ": bad crc");
    m.magic = b.i8();
    m.attributes = b.i8();
    if (m.magic == kMagicV1) {
      if (body.size() < kMessageV1Bytes) return corrupt("magic 1 message too short");
      m.timestamp = b.i64();
    } else if (m.magic != kMagicV0) {
      return corrupt("magic " + std::to_string(m.magic) + " in a message set");
    }
    m.key = b.nullable_bytes();
    m.value = b.nullable_bytes();
    if (!b.ok() || !b.at_end()) return corrupt("message at offset " + std::to_string(m.offset) + ": fields do not match its size");
    if (!is_known_compression(m.codec()) || m.codec() == static_cast<int>(CompressionType::kZstd))
      return corrupt("codec " + std::to_string(m.codec()) + " in a magic " + std::to_string(m.magic) + " message");
    out.push_back(std::move(m));
  }
  return Status::ok();
}

void write_message(ByteWriter& w, int64_t offset, int8_t magic, int8_t attributes, int64_t timestamp,
                   const std::optional<Bytes>& key, const std::optional<Bytes>& value) {
  w.i64(offset);
  const size_t size_at = w.size();
  w.i32(0);
  const size_t crc_at = w.size();
  w.u32(0);
  w.i8(magic);
  w.i8(attributes);
  if (magic == kMagicV1) w.i64(timestamp);
  w.nullable_bytes(key);
  w.nullable_bytes(value);
  const size_t end = w.size();
  w.patch_u32(size_at, static_cast<uint32_t>(end - crc_at));
  w.patch_u32(crc_at, crc32_ieee(ByteView(w.bytes_ref()).subspan(crc_at + 4, end - crc_at - 4)));
}

}  // namespace

uint32_t crc32_ieee(ByteView data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; feed large inputs in pieces.
  constexpr size_t kChunk = 1u << 30;
  for (size_t at = 0; at < data.size(); at += kChunk) {
    const size_t n = std::min(kChunk, data.size() - at);
    crc = crc32(crc, data.data() + at, static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

Result<int8_t> peek_magic(ByteView records) {
  if (records.size() <= kLegacyMagicPosition)
    return Status::error(StatusCode::kCorruption, "records of " + std::to_string(records.size()) + " bytes: no magic byte");
  return static_cast<int8_t>(records[kLegacyMagicPosition]);
}

Result<LegacyMessageSet> parse_legacy_message_set(ByteView data) {
  std::vector<Message> outer;
  GREGOR_RETURN_IF_ERROR(read_entries(data, outer));
  if (outer.empty()) return invalid("no message");
  LegacyMessageSet set;
  set.magic = outer.front().magic;
  set.compression = static_cast<CompressionType>(outer.front().codec());
  set.log_append_time = set.magic == kMagicV1 && (outer.front().attributes & kLegacyTimestampTypeMask) != 0;
  for (Message& m : outer) {
    if (m.magic != set.magic) return invalid("messages of magic " + std::to_string(set.magic) + " and " + std::to_string(m.magic));
    const bool log_append_time = m.magic == kMagicV1 && (m.attributes & kLegacyTimestampTypeMask) != 0;
    if (m.codec() == 0) {
      set.records.push_back(Record{m.offset, m.timestamp, std::move(m.key), std::move(m.value), {}});
      continue;
    }
    if (!m.value) return corrupt("compressed message at offset " + std::to_string(m.offset) + " without a value");
    auto inflated = decompress(static_cast<CompressionType>(m.codec()), as_view(*m.value));
    if (!inflated) return inflated.status();
    std::vector<Message> inner;
    GREGOR_RETURN_IF_ERROR(read_entries(as_view(*inflated), inner));
    if (inner.empty()) return invalid("compressed message at offset " + std::to_string(m.offset) + " holds no message");
    const int64_t last_relative = inner.back().offset;
    for (Message& i : inner) {
      if (i.magic != m.magic) return invalid("inner message of magic " + std::to_string(i.magic) + " in a magic " +
                                             std::to_string(m.magic) + " wrapper");
      if (i.codec() != 0) return invalid("compressed inner message");
      Record rec;
      rec.offset = m.magic == kMagicV1 ? m.offset - last_relative + i.offset : i.offset;
      rec.timestamp = log_append_time ? m.timestamp : i.timestamp;
      rec.key = std::move(i.key);
      rec.value = std::move(i.value);
      set.records.push_back(std::move(rec));
    }
  }
  return set;
}

Bytes build_legacy_message_set(int8_t magic, CompressionType compression, const std::vector<Record>& records,
                               bool log_append_time) {
  GREGOR_ASSERT(magic == kMagicV0 || magic == kMagicV1);
  GREGOR_ASSERT(!records.empty());
  GREGOR_ASSERT(compression != CompressionType::kZstd);
  const int8_t type_bit = magic == kMagicV1 && log_append_time ? kLegacyTimestampTypeMask : 0;
  ByteWriter w;
  if (compression == CompressionType::kNone) {
    for (const Record& r : records) write_message(w, r.offset, magic, type_bit, r.timestamp, r.key, r.value);
    return w.take();
  }
  ByteWriter inner;
  int64_t max_timestamp = kNoTimestamp;
  for (const Record& r : records) {
    const int64_t offset = magic == kMagicV1 ? r.offset - records.front().offset : r.offset;
    write_message(inner, offset, magic, type_bit, r.timestamp, r.key, r.value);
    max_timestamp = std::max(max_timestamp, r.timestamp);
  }
  const Bytes compressed = compress(compression, as_view(inner.bytes_ref()));
  write_message(w, records.back().offset, magic, static_cast<int8_t>(type_bit | static_cast<int>(compression)),
                max_timestamp, std::nullopt, compressed);
  return w.take();
}

Result<Bytes> down_convert(ByteView batches, int8_t to_magic, int64_t fetch_offset) {
  GREGOR_ASSERT(to_magic == kMagicV0 || to_magic == kMagicV1);
  auto split = split_batches(batches, false);
  if (!split) return split.status();
  Bytes out;
  for (const BatchView& b : split->batches) {
    if (b.header.is_control()) continue;
    const auto codec = static_cast<CompressionType>(b.header.compression());
    if (codec == CompressionType::kZstd)
      return Status::error(StatusCode::kInvalidArgument, "a zstd batch at offset " + std::to_string(b.header.base_offset) +
                                                             " cannot be converted to magic " + std::to_string(to_magic));
    auto records = decode_records(b.bytes);
    if (!records) return records.status();
    if (codec == CompressionType::kNone)
      std::erase_if(*records, [&](const Record& r) { return r.offset < fetch_offset; });
    if (records->empty()) continue;
    const CompressionType target =
        to_magic == kMagicV0 && codec == CompressionType::kLz4 ? CompressionType::kNone : codec;
    Bytes set = build_legacy_message_set(to_magic, target, *records, b.header.is_log_append_time());
    out.insert(out.end(), set.begin(), set.end());
  }
  return out;
}

}  // namespace gregor::record
