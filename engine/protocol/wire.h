// Wire helpers shared by the per-API codecs: Kafka's strings, arrays, flexible (KIP-482) compact
// forms and tagged fields, on top of ByteWriter/ByteReader (engine/core/bytes.h).
//
// Encoding is trusted (Gregor's own values): a value that cannot be represented (a string longer
// than 32767 bytes) is a bug and asserts. Decoding is not trusted: every helper reads through the
// bounds-checked ByteReader, whose sticky ok() flag a decoder checks once at the end; an array
// count is checked against the bytes left before any element is read, so a hostile count cannot
// make a decoder allocate more than the input could hold.
//
// Primitive layouts (all big-endian):
//   STRING            int16 length + UTF-8; NULLABLE_STRING: length -1 = null
//   BYTES             int32 length + bytes; NULLABLE_BYTES (and RECORDS): length -1 = null
//   ARRAY             int32 count + elements; nullable arrays: count -1 = null
//   COMPACT_STRING    uvarint(length + 1) + UTF-8; 0 = null            (flexible versions only)
//   COMPACT_ARRAY     uvarint(count + 1) + elements; 0 = null          (flexible versions only)
//   TAGGED_FIELDS     uvarint count, then {uvarint tag, uvarint size, size bytes} each
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/assert.h"
#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/protocol/api_keys.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

// ---- strings ------------------------------------------------------------------------------------

inline void write_string(ByteWriter& w, std::string_view s) {
  GREGOR_ASSERT(s.size() <= static_cast<size_t>(std::numeric_limits<int16_t>::max()));
  w.string(s);
}
inline void write_nullable_string(ByteWriter& w, const std::optional<std::string>& s) {
  if (!s) return w.i16(-1);
  write_string(w, *s);
}
inline std::string read_string(ByteReader& r) { return r.string(); }
inline std::optional<std::string> read_nullable_string(ByteReader& r) { return r.nullable_string(); }

inline void write_bytes(ByteWriter& w, const Bytes& b) {
  GREGOR_ASSERT(b.size() <= static_cast<size_t>(std::numeric_limits<int32_t>::max()));
  w.bytes(as_view(b));
}
inline void write_nullable_bytes(ByteWriter& w, const std::optional<Bytes>& b) {
  if (!b) return w.i32(-1);
  write_bytes(w, *b);
}

void write_compact_string(ByteWriter& w, std::string_view s);
void write_compact_nullable_string(ByteWriter& w, const std::optional<std::string>& s);
std::string read_compact_string(ByteReader& r);  // null is malformed here
std::optional<std::string> read_compact_nullable_string(ByteReader& r);

// ---- error codes ------------------------------------------------------------------------------

inline void write_error_code(ByteWriter& w, ErrorCode e) { w.i16(static_cast<int16_t>(e)); }
// Any int16 is kept as read, including codes Kafka never assigned (error_name says so).
inline ErrorCode read_error_code(ByteReader& r) { return static_cast<ErrorCode>(r.i16()); }

// ---- tagged fields (flexible versions) ----------------------------------------------------------

// Gregor sends no tagged fields: an empty tag section is one zero byte.
inline void write_empty_tagged_fields(ByteWriter& w) { w.uvarint(0); }
// Skips a tag section, whatever it holds: unknown tags are ignorable by definition (KIP-482).
void skip_tagged_fields(ByteReader& r);

// ---- arrays -------------------------------------------------------------------------------------

// Reads an array count. nullopt for a null array (-1) when nullable; -1 where the field is not
// nullable, any other negative count, or a count that could not fit in the bytes left (each element
// takes at least min_element_bytes) marks the reader failed and yields 0.
std::optional<int32_t> read_array_count(ByteReader& r, size_t min_element_bytes, bool nullable);
// The same for COMPACT_ARRAY (uvarint count + 1, 0 = null).
std::optional<int32_t> read_compact_array_count(ByteReader& r, size_t min_element_bytes, bool nullable);

inline void write_array_count(ByteWriter& w, size_t n) {
  GREGOR_ASSERT(n <= static_cast<size_t>(std::numeric_limits<int32_t>::max()));
  w.i32(static_cast<int32_t>(n));
}

template <typename T, typename WriteElement>
void write_array(ByteWriter& w, const std::vector<T>& items, WriteElement&& write_element) {
  write_array_count(w, items.size());
  for (const T& item : items) write_element(w, item);
}

template <typename T, typename WriteElement>
void write_nullable_array(ByteWriter& w, const std::optional<std::vector<T>>& items,
                          WriteElement&& write_element) {
  if (!items) return w.i32(-1);
  write_array(w, *items, write_element);
}

// Reads count elements; stops early once the reader has failed, so garbage is never looped over.
template <typename T, typename ReadElement>
std::vector<T> read_elements(ByteReader& r, int32_t count, ReadElement&& read_element) {
  std::vector<T> items;
  for (int32_t i = 0; i < count && r.ok(); i++) items.push_back(read_element(r));
  return items;
}

template <typename T, typename ReadElement>
std::vector<T> read_array(ByteReader& r, size_t min_element_bytes, ReadElement&& read_element) {
  int32_t count = read_array_count(r, min_element_bytes, /*nullable=*/false).value_or(0);
  return read_elements<T>(r, count, read_element);
}

template <typename T, typename ReadElement>
std::optional<std::vector<T>> read_nullable_array(ByteReader& r, size_t min_element_bytes,
                                                  ReadElement&& read_element) {
  std::optional<int32_t> count = read_array_count(r, min_element_bytes, /*nullable=*/true);
  if (!count) return std::nullopt;
  return read_elements<T>(r, *count, read_element);
}

// Arrays of int32 (replica lists, partition indexes) are common enough to name.
void write_int32_array(ByteWriter& w, const std::vector<int32_t>& items);
std::vector<int32_t> read_int32_array(ByteReader& r);

// ---- versions and decode results ----------------------------------------------------------------

// Whether Gregor's codec implements (key, version): the advertised table (api_versions_table.h).
bool codec_supports(ApiKey key, int16_t version);

// REQUIRES: codec_supports(key, version). Encoding a version Gregor does not implement is a bug.
void assert_encodable(ApiKey key, int16_t version, const char* message_name);

// The Status of a decode that cannot start (version not implemented) or did not parse.
Status unsupported_version_status(const char* message_name, int16_t version);
Status malformed_status(const char* message_name, int16_t version);

// Wraps up a decode: the value if the reader is still ok, else a malformed-input Status.
template <typename T>
Result<T> finish_decode(const ByteReader& r, T value, const char* message_name, int16_t version) {
  if (!r.ok()) return malformed_status(message_name, version);
  return value;
}

}  // namespace gregor::protocol
