// The primitives of Kafka's wire encoding that the generated message codecs (specs/*.yaml, built
// by tools/protogen) are made of, on top of ByteWriter/ByteReader (engine/core/bytes.h).
//
// Layouts (big-endian), classic and flexible (KIP-482, the versions an API's spec marks flexible):
//   STRING   int16 length + UTF-8 (-1 = null)      | COMPACT: uvarint(length + 1) + UTF-8 (0 = null)
//   BYTES    int32 length + bytes (-1 = null)      | COMPACT: uvarint(length + 1) + bytes (0 = null)
//   ARRAY    int32 count + elements (-1 = null)    | COMPACT: uvarint(count + 1) + elements (0 = null)
//   RECORDS  as BYTES (records_field.h)
//   UUID     16 bytes (most significant half first)
//   TAGGED_FIELDS (flexible only, at the end of every struct): uvarint count, then per field
//            uvarint tag, uvarint size, size bytes; ascending tags.
//
// Encoding is trusted (Gregor's own values): a null where the version does not allow one, or a
// string longer than 32767 bytes, is a bug and asserts. Decoding is not trusted: every read goes
// through the bounds-checked ByteReader, whose sticky ok() flag the message decoder checks once at
// the end; a length or count is checked against the bytes left before anything is allocated, so a
// hostile count cannot make a decoder reserve more than the input could hold.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/assert.h"
#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/core/uuid.h"

// The primitives below are a few instructions each and run for every field of every message: they
// are always inlined into the generated code (g++ leaves some out of line otherwise, at a cost the
// codec benchmarks show on small messages).
#define GREGOR_CODEC_INLINE [[gnu::always_inline]] inline

namespace gregor::protocol {

// A tagged field that the decoder did not know (a newer peer's field, or a tag of a later version):
// kept as read so that re-encoding the message gives the same bytes, as Kafka's generated code does.
struct RawTaggedField {
  uint32_t tag = 0;
  Bytes data{};
  bool operator==(const RawTaggedField&) const = default;
};
using TaggedFields = std::vector<RawTaggedField>;

namespace codec {

GREGOR_CODEC_INLINE size_t uvarint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

// ---- lengths (strings, bytes, arrays) -----------------------------------------------------------

// An array count, or a BYTES length: int32, or uvarint(n + 1) when flexible.
GREGOR_CODEC_INLINE void put_length(ByteWriter& w, size_t n, bool flexible) {
  GREGOR_ASSERT(n <= static_cast<size_t>(std::numeric_limits<int32_t>::max()));
  if (flexible) {
    w.uvarint(static_cast<uint32_t>(n + 1));
  } else {
    w.i32(static_cast<int32_t>(n));
  }
}
GREGOR_CODEC_INLINE size_t length_size(size_t n, bool flexible) { return flexible ? uvarint_size(n + 1) : 4; }

// Null for an array, BYTES or RECORDS. REQUIRES: nullable (the field's spec allows null at this
// version); `what` names the field for the assertion.
GREGOR_CODEC_INLINE void put_null_length(ByteWriter& w, bool flexible, bool nullable, const char* what) {
  GREGOR_ASSERT_MSG(nullable, std::string("null written where ") + what + " is not nullable");
  if (flexible) {
    w.uvarint(0);
  } else {
    w.i32(-1);
  }
}

// Reads an array count (or BYTES length): -1 for null when nullable; a null where not nullable,
// any other negative count, or a count that could not fit in the bytes left (each element takes at
// least min_element_bytes) fails the reader and yields 0.
int32_t get_length(ByteReader& r, bool flexible, bool nullable, size_t min_element_bytes);

// How many elements to reserve room for up front: the count is already checked against the bytes
// left, and the cap keeps a large hostile frame from making a decoder reserve many times its size
// (the vector still grows to any real count).
GREGOR_CODEC_INLINE size_t reserve_hint(int32_t count) { return std::min<size_t>(static_cast<size_t>(count), 1024); }

// ---- strings ------------------------------------------------------------------------------------

GREGOR_CODEC_INLINE void put_string(ByteWriter& w, std::string_view s, bool flexible) {
  GREGOR_ASSERT_MSG(s.size() <= 0x7fff, "STRING longer than 32767 bytes");
  if (flexible) {
    w.uvarint(static_cast<uint32_t>(s.size() + 1));
  } else {
    w.i16(static_cast<int16_t>(s.size()));
  }
  w.raw(s);
}
GREGOR_CODEC_INLINE void put_nullable_string(ByteWriter& w, const std::optional<std::string>& s, bool flexible,
                                bool nullable, const char* what) {
  if (s) return put_string(w, *s, flexible);
  GREGOR_ASSERT_MSG(nullable, std::string("null written where ") + what + " is not nullable");
  if (flexible) {
    w.uvarint(0);
  } else {
    w.i16(-1);
  }
}
GREGOR_CODEC_INLINE size_t string_size(std::string_view s, bool flexible) {
  return (flexible ? uvarint_size(s.size() + 1) : 2) + s.size();
}
GREGOR_CODEC_INLINE size_t nullable_string_size(const std::optional<std::string>& s, bool flexible) {
  return s ? string_size(*s, flexible) : (flexible ? 1 : 2);
}

// A null where the field is not nullable, a negative length other than -1, a length past the
// bytes left or (compact) past 32767 fail the reader.
std::optional<std::string> get_nullable_string(ByteReader& r, bool flexible, bool nullable);
GREGOR_CODEC_INLINE std::string get_string(ByteReader& r, bool flexible) {
  std::optional<std::string> s = get_nullable_string(r, flexible, false);
  return s ? std::move(*s) : std::string();
}

// ---- bytes --------------------------------------------------------------------------------------

GREGOR_CODEC_INLINE void put_bytes(ByteWriter& w, ByteView b, bool flexible) {
  put_length(w, b.size(), flexible);
  w.raw(b);
}
GREGOR_CODEC_INLINE void put_nullable_bytes(ByteWriter& w, const std::optional<Bytes>& b, bool flexible, bool nullable,
                               const char* what) {
  if (b) return put_bytes(w, as_view(*b), flexible);
  put_null_length(w, flexible, nullable, what);
}
GREGOR_CODEC_INLINE size_t bytes_size(size_t n, bool flexible) { return length_size(n, flexible) + n; }
GREGOR_CODEC_INLINE size_t nullable_bytes_size(const std::optional<Bytes>& b, bool flexible) {
  return b ? bytes_size(b->size(), flexible) : (flexible ? 1 : 4);
}
// A view into the reader's input (no copy); nullopt for null. Failures as for get_length.
std::optional<ByteView> get_nullable_bytes_view(ByteReader& r, bool flexible, bool nullable);
GREGOR_CODEC_INLINE std::optional<Bytes> get_nullable_bytes(ByteReader& r, bool flexible, bool nullable) {
  std::optional<ByteView> v = get_nullable_bytes_view(r, flexible, nullable);
  if (!v) return std::nullopt;
  return Bytes(v->begin(), v->end());
}
GREGOR_CODEC_INLINE Bytes get_bytes(ByteReader& r, bool flexible) {
  std::optional<Bytes> b = get_nullable_bytes(r, flexible, false);
  return b ? std::move(*b) : Bytes();
}

// ---- fixed-size values --------------------------------------------------------------------------

GREGOR_CODEC_INLINE void put_uuid(ByteWriter& w, const Uuid& id) {
  w.u64(id.most_significant());
  w.u64(id.least_significant());
}
GREGOR_CODEC_INLINE Uuid get_uuid(ByteReader& r) {
  uint64_t high = r.u64();
  uint64_t low = r.u64();
  return Uuid(high, low);
}
GREGOR_CODEC_INLINE void put_float64(ByteWriter& w, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  w.u64(bits);
}
GREGOR_CODEC_INLINE double get_float64(ByteReader& r) {
  uint64_t bits = r.u64();
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// ---- tagged fields ------------------------------------------------------------------------------

// Writes the unknown fields of `fields` from index `from` whose tag is below `below`; returns the
// index of the first one not written. Known and unknown fields thereby come out in tag order.
size_t put_unknown_tags_below(ByteWriter& w, const TaggedFields& fields, size_t from, uint64_t below);
size_t unknown_tags_size(const TaggedFields& fields);

// Reads a tag section's count; each field takes at least two bytes, which bounds a hostile count.
uint32_t get_tag_count(ByteReader& r);
// Reads one field's tag and a view of its data; false (and the reader failed) when malformed.
bool get_tagged_field(ByteReader& r, uint32_t& tag, ByteView& data);
// A whole tag section of a struct without known tags: the unknown fields, kept as read.
void put_unknown_tags(ByteWriter& w, const TaggedFields& fields);
void get_unknown_tags(ByteReader& r, TaggedFields& fields);
size_t unknown_tags_section_size(const TaggedFields& fields);

// Skips a whole tag section (request and response headers, whose tags Gregor does not keep).
void skip_tagged_fields(ByteReader& r);
// A known tagged field is decoded from its own bytes and must use all of them.
GREGOR_CODEC_INLINE void finish_tagged_field(ByteReader& r, const ByteReader& field) {
  if (!field.ok() || !field.at_end()) r.fail();
}

}  // namespace codec

// The Status of a decode that cannot start (a version outside the API's range) or did not parse.
Status unsupported_version_status(const char* message_name, int16_t version);
Status malformed_status(const char* message_name, int16_t version);

}  // namespace gregor::protocol
