// Bytes and the two cursors that every codec in Gregor uses.
//
// ByteWriter appends big-endian integers (Kafka's wire order), Kafka's zig-zag varints (used inside
// RecordBatch records) and unsigned varints (flexible versions). ByteReader reads them back and
// never reads past the end: a short or malformed input sets a sticky error flag and yields zeros,
// so a decoder checks ok() once at the end instead of after every field. Input from a socket or a
// disk is never trusted.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/assert.h"

namespace gregor {

using Bytes = std::vector<uint8_t>;
using ByteView = std::span<const uint8_t>;

inline ByteView as_view(const Bytes& b) { return ByteView(b.data(), b.size()); }
inline ByteView as_view(std::string_view s) {
  return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}
inline Bytes to_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }
inline std::string to_string(ByteView b) { return std::string(b.begin(), b.end()); }
std::string hex(ByteView b);

// Writes the n low bytes of v at p, big-endian (a header field patched in place).
inline void put_be(uint8_t* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; i--) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

class ByteWriter {
 public:
  // Room for a request or response header, or a small message, from the start: a vector grown from
  // empty one field at a time would reallocate at 1, 2, 4, ... 128 bytes.
  static constexpr size_t kInitialCapacity = 256;
  ByteWriter() { buf_.reserve(kInitialCapacity); }
  explicit ByteWriter(Bytes initial) : buf_(std::move(initial)) {}

  void i8(int8_t v) { buf_.push_back(static_cast<uint8_t>(v)); }
  void u8(uint8_t v) { buf_.push_back(v); }
  void i16(int16_t v) { be(static_cast<uint16_t>(v), 2); }
  void u16(uint16_t v) { be(v, 2); }
  void i32(int32_t v) { be(static_cast<uint32_t>(v), 4); }
  void u32(uint32_t v) { be(v, 4); }
  void i64(int64_t v) { be(static_cast<uint64_t>(v), 8); }
  void u64(uint64_t v) { be(v, 8); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void raw(ByteView b) {
    // A large run of bytes (a message's records) grows the buffer with room left for the fields
    // after it: grown to fit exactly, the next field would move the whole buffer again.
    if (buf_.capacity() - buf_.size() < b.size()) buf_.reserve(std::max(2 * buf_.capacity(), buf_.size() + b.size() + kInitialCapacity));
    buf_.insert(buf_.end(), b.begin(), b.end());
  }
  void raw(std::string_view s) { raw(as_view(s)); }

  // Kafka's zig-zag signed varints (RecordBatch records).
  void varint(int32_t v) { uvarint64(static_cast<uint64_t>((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31))); }
  void varlong(int64_t v) { uvarint64((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  // Unsigned varints (flexible versions, compact lengths).
  void uvarint(uint32_t v) { uvarint64(v); }
  void uvarint64(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    buf_.push_back(static_cast<uint8_t>(v));
  }

  // Kafka STRING / NULLABLE_STRING (int16 length, -1 = null) and BYTES (int32 length, -1 = null).
  // REQUIRES: s.size() <= 32767 (a longer STRING cannot be encoded; writing it is a bug).
  void string(std::string_view s) {
    GREGOR_ASSERT_MSG(s.size() <= 0x7fff, "STRING longer than 32767 bytes");
    i16(static_cast<int16_t>(s.size()));
    raw(s);
  }
  void nullable_string(const std::optional<std::string>& s) {
    if (!s) return i16(-1);
    string(*s);
  }
  // REQUIRES: b.size() <= 2^31 - 1.
  void bytes(ByteView b) {
    GREGOR_ASSERT_MSG(b.size() <= 0x7fffffff, "BYTES longer than 2^31 - 1 bytes");
    i32(static_cast<int32_t>(b.size()));
    raw(b);
  }
  void nullable_bytes(const std::optional<Bytes>& b) {
    if (!b) return i32(-1);
    bytes(as_view(*b));
  }

  size_t size() const { return buf_.size(); }
  // Overwrite 4 bytes at pos (for length prefixes and CRCs filled in after the body).
  void patch_u32(size_t pos, uint32_t v) {
    GREGOR_ASSERT(pos <= buf_.size() && buf_.size() - pos >= 4);
    for (int i = 0; i < 4; i++) buf_[pos + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (24 - 8 * i));
  }
  const Bytes& bytes_ref() const { return buf_; }
  Bytes take() { return std::move(buf_); }

 private:
  // Always inlined: it is most of the cost of writing a message field, and g++ stops inlining it
  // into the larger generated protocol encoders.
  [[gnu::always_inline]] void be(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; i--) buf_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  Bytes buf_;
};

class ByteReader {
 public:
  explicit ByteReader(ByteView data) : data_(data) {}

  bool ok() const { return ok_; }
  size_t remaining() const { return ok_ ? data_.size() - pos_ : 0; }
  size_t position() const { return pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  void fail() { ok_ = false; }

  int8_t i8() { return static_cast<int8_t>(be(1)); }
  uint8_t u8() { return static_cast<uint8_t>(be(1)); }
  int16_t i16() { return static_cast<int16_t>(be(2)); }
  uint16_t u16() { return static_cast<uint16_t>(be(2)); }
  int32_t i32() { return static_cast<int32_t>(be(4)); }
  uint32_t u32() { return static_cast<uint32_t>(be(4)); }
  int64_t i64() { return static_cast<int64_t>(be(8)); }
  uint64_t u64() { return be(8); }
  bool boolean() { return u8() != 0; }

  ByteView raw(size_t n) {
    if (!need(n)) return {};
    ByteView v = data_.subspan(pos_, n);
    pos_ += n;
    return v;
  }
  void skip(size_t n) { (void)raw(n); }

  int32_t varint() {
    uint64_t u = uvarint64(5);
    return static_cast<int32_t>(static_cast<uint32_t>(u >> 1) ^ (~static_cast<uint32_t>(u & 1) + 1));
  }
  int64_t varlong() {
    uint64_t u = uvarint64(10);
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  uint32_t uvarint() { return static_cast<uint32_t>(uvarint64(5)); }
  uint64_t uvarint64(int max_bytes = 10) {
    uint64_t result = 0;
    for (int i = 0; i < max_bytes; i++) {
      if (!need(1)) return 0;
      uint8_t b = data_[pos_++];
      result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) return result;
    }
    ok_ = false;  // too long: malformed
    return 0;
  }

  std::string string() {
    int16_t n = i16();
    if (n < 0) {
      ok_ = false;
      return {};
    }
    return to_string(raw(static_cast<size_t>(n)));
  }
  std::optional<std::string> nullable_string() {
    int16_t n = i16();
    if (n < -1) ok_ = false;
    if (n < 0 || !ok_) return std::nullopt;
    return to_string(raw(static_cast<size_t>(n)));
  }
  Bytes bytes() {
    int32_t n = i32();
    if (n < 0) {
      ok_ = false;
      return {};
    }
    ByteView v = raw(static_cast<size_t>(n));
    return Bytes(v.begin(), v.end());
  }
  std::optional<Bytes> nullable_bytes() {
    int32_t n = i32();
    if (n < -1) ok_ = false;
    if (n < 0 || !ok_) return std::nullopt;
    ByteView v = raw(static_cast<size_t>(n));
    return Bytes(v.begin(), v.end());
  }
  // An array count that must be plausible for the bytes left (each element at least min_elem_bytes),
  // so a hostile count cannot make a decoder reserve gigabytes. -1 (null) reads as 0 here.
  int32_t array_count(size_t min_elem_bytes = 1) {
    int32_t n = i32();
    if (n < -1 || (n > 0 && static_cast<size_t>(n) * min_elem_bytes > remaining())) {
      ok_ = false;
      return 0;
    }
    return n < 0 ? 0 : n;
  }

 private:
  bool need(size_t n) {
    if (!ok_ || data_.size() - pos_ < n) {
      ok_ = false;
      return false;
    }
    return true;
  }
  uint64_t be(int n) {
    if (!need(static_cast<size_t>(n))) return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = (v << 8) | data_[pos_++];
    return v;
  }
  ByteView data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace gregor
