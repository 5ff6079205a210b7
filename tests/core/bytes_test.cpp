// ByteWriter / ByteReader: Kafka's wire encodings, and a reader that never trusts its input.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <limits>

#include "engine/core/bytes.h"
#include "engine/core/rng.h"

using namespace gregor;

namespace {
Bytes bytes_of(std::initializer_list<int> v) {
  Bytes b;
  for (int x : v) b.push_back(static_cast<uint8_t>(x));
  return b;
}
}  // namespace

TEST_CASE("ByteWriter: integers are big-endian, as on Kafka's wire") {
  ByteWriter w;
  w.i8(-1);
  w.u8(0x80);
  w.i16(-2);
  w.u16(0x0102);
  w.i32(0x01020304);
  w.u32(0xfffffffe);
  w.i64(-3);
  w.u64(0x0102030405060708ull);
  w.boolean(true);
  w.boolean(false);
  CHECK(w.bytes_ref() == bytes_of({0xff, 0x80, 0xff, 0xfe, 0x01, 0x02, 0x01, 0x02, 0x03, 0x04, 0xff, 0xff, 0xff,
                                   0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd, 0x01, 0x02, 0x03, 0x04,
                                   0x05, 0x06, 0x07, 0x08, 0x01, 0x00}));
  Bytes b = w.take();
  ByteReader r(as_view(b));
  CHECK(r.i8() == -1);
  CHECK(r.u8() == 0x80);
  CHECK(r.i16() == -2);
  CHECK(r.u16() == 0x0102);
  CHECK(r.i32() == 0x01020304);
  CHECK(r.u32() == 0xfffffffeu);
  CHECK(r.i64() == -3);
  CHECK(r.u64() == 0x0102030405060708ull);
  CHECK(r.boolean());
  CHECK_FALSE(r.boolean());
  CHECK(r.ok());
  CHECK(r.at_end());
  CHECK(r.remaining() == 0);
}

TEST_CASE("ByteWriter/ByteReader: extreme integers round trip") {
  ByteWriter w;
  w.i16(INT16_MIN);
  w.i16(INT16_MAX);
  w.i32(INT32_MIN);
  w.i32(INT32_MAX);
  w.i64(INT64_MIN);
  w.i64(INT64_MAX);
  w.u64(UINT64_MAX);
  Bytes b = w.take();
  ByteReader r(as_view(b));
  CHECK(r.i16() == INT16_MIN);
  CHECK(r.i16() == INT16_MAX);
  CHECK(r.i32() == INT32_MIN);
  CHECK(r.i32() == INT32_MAX);
  CHECK(r.i64() == INT64_MIN);
  CHECK(r.i64() == INT64_MAX);
  CHECK(r.u64() == UINT64_MAX);
  CHECK(r.ok());
  CHECK(r.at_end());
}

TEST_CASE("varint: Kafka's zig-zag encoding, known bytes") {
  struct Case {
    int32_t value;
    Bytes encoded;
  };
  const Case cases[] = {
      {0, bytes_of({0x00})},
      {-1, bytes_of({0x01})},
      {1, bytes_of({0x02})},
      {-2, bytes_of({0x03})},
      {63, bytes_of({0x7e})},
      {-64, bytes_of({0x7f})},
      {64, bytes_of({0x80, 0x01})},
      {300, bytes_of({0xd8, 0x04})},
      {INT32_MAX, bytes_of({0xfe, 0xff, 0xff, 0xff, 0x0f})},
      {INT32_MIN, bytes_of({0xff, 0xff, 0xff, 0xff, 0x0f})},
  };
  for (const auto& c : cases) {
    INFO("value " << c.value);
    ByteWriter w;
    w.varint(c.value);
    CHECK(w.bytes_ref() == c.encoded);
    ByteReader r(as_view(c.encoded));
    CHECK(r.varint() == c.value);
    CHECK(r.ok());
    CHECK(r.at_end());
  }
}

TEST_CASE("varlong: Kafka's zig-zag encoding, known bytes and extremes") {
  struct Case {
    int64_t value;
    Bytes encoded;
  };
  const Case cases[] = {
      {0, bytes_of({0x00})},
      {-1, bytes_of({0x01})},
      {1, bytes_of({0x02})},
      {INT64_MAX, bytes_of({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})},
      {INT64_MIN, bytes_of({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})},
      {static_cast<int64_t>(INT32_MIN) - 1, bytes_of({0x81, 0x80, 0x80, 0x80, 0x10})},
  };
  for (const auto& c : cases) {
    INFO("value " << c.value);
    ByteWriter w;
    w.varlong(c.value);
    CHECK(w.bytes_ref() == c.encoded);
    ByteReader r(as_view(c.encoded));
    CHECK(r.varlong() == c.value);
    CHECK(r.ok());
    CHECK(r.at_end());
  }
}

TEST_CASE("varint/varlong/uvarint: random values round trip") {
  Rng rng(2024);
  ByteWriter w;
  std::vector<int32_t> ints;
  std::vector<int64_t> longs;
  std::vector<uint32_t> uints;
  std::vector<uint64_t> ulongs;
  for (int i = 0; i < 2000; i++) {
    // Mix small and full-width values: shift a random word right by a random amount.
    uint64_t x = rng.next_u64() >> rng.uniform(64);
    ints.push_back(static_cast<int32_t>(static_cast<uint32_t>(x)));
    longs.push_back(static_cast<int64_t>(x ^ (rng.chance(0.5) ? ~0ull : 0ull)));
    uints.push_back(static_cast<uint32_t>(x));
    ulongs.push_back(x);
    w.varint(ints.back());
    w.varlong(longs.back());
    w.uvarint(uints.back());
    w.uvarint64(ulongs.back());
  }
  Bytes b = w.take();
  ByteReader r(as_view(b));
  for (size_t i = 0; i < ints.size(); i++) {
    REQUIRE(r.varint() == ints[i]);
    REQUIRE(r.varlong() == longs[i]);
    REQUIRE(r.uvarint() == uints[i]);
    REQUIRE(r.uvarint64() == ulongs[i]);
  }
  CHECK(r.ok());
  CHECK(r.at_end());
}

TEST_CASE("uvarint: unsigned encoding, known bytes") {
  ByteWriter w;
  w.uvarint(0);
  w.uvarint(127);
  w.uvarint(128);
  w.uvarint(UINT32_MAX);
  w.uvarint64(UINT64_MAX);
  CHECK(w.bytes_ref() == bytes_of({0x00, 0x7f, 0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0x01}));
  Bytes b = w.take();
  ByteReader r(as_view(b));
  CHECK(r.uvarint() == 0);
  CHECK(r.uvarint() == 127);
  CHECK(r.uvarint() == 128);
  CHECK(r.uvarint() == UINT32_MAX);
  CHECK(r.uvarint64() == UINT64_MAX);
  CHECK(r.ok());
}

TEST_CASE("strings and bytes: lengths, null, empty") {
  ByteWriter w;
  w.string("orders");
  w.string("");
  w.nullable_string(std::nullopt);
  w.nullable_string(std::string("x"));
  w.bytes(as_view(std::string_view("\x01\x02", 2)));
  w.nullable_bytes(std::nullopt);
  w.nullable_bytes(Bytes{});
  w.raw("tail");
  CHECK(w.bytes_ref() == bytes_of({0, 6, 'o', 'r', 'd', 'e', 'r', 's', 0, 0, 0xff, 0xff, 0, 1, 'x', 0, 0, 0, 2, 1, 2,
                                   0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 't', 'a', 'i', 'l'}));
  Bytes b = w.take();
  ByteReader r(as_view(b));
  CHECK(r.string() == "orders");
  CHECK(r.string().empty());
  CHECK_FALSE(r.nullable_string().has_value());
  auto x = r.nullable_string();
  REQUIRE(x.has_value());
  CHECK(*x == "x");
  CHECK(r.bytes() == bytes_of({1, 2}));
  CHECK_FALSE(r.nullable_bytes().has_value());
  auto empty = r.nullable_bytes();
  REQUIRE(empty.has_value());
  CHECK(empty->empty());
  CHECK(to_string(r.raw(4)) == "tail");
  CHECK(r.ok());
  CHECK(r.at_end());
}

TEST_CASE("ByteWriter::patch_u32 fills a length prefix in place") {
  ByteWriter w;
  w.u32(0);
  w.string("abc");
  w.patch_u32(0, static_cast<uint32_t>(w.size() - 4));
  ByteReader r(as_view(w.bytes_ref()));
  CHECK(r.u32() == 5);
  CHECK(r.string() == "abc");
  CHECK(r.ok());
}

TEST_CASE("ByteReader: a short input fails, stays failed and yields zeros") {
  Bytes b = bytes_of({0x01, 0x02, 0x03});
  ByteReader r(as_view(b));
  CHECK(r.i32() == 0);  // 3 bytes left, 4 needed
  CHECK_FALSE(r.ok());
  CHECK(r.remaining() == 0);
  // Sticky: even a read that would fit now fails.
  CHECK(r.u8() == 0);
  CHECK(r.i16() == 0);
  CHECK(r.raw(1).empty());
  CHECK(r.string().empty());
  CHECK(r.varint() == 0);
  CHECK_FALSE(r.ok());
}

TEST_CASE("ByteReader: malformed varints fail") {
  SECTION("a varint longer than 5 bytes") {
    Bytes b = bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x01});
    ByteReader r(as_view(b));
    r.varint();
    CHECK_FALSE(r.ok());
  }
  SECTION("a varlong longer than 10 bytes") {
    Bytes b(11, 0x80);
    b.push_back(0x01);
    ByteReader r(as_view(b));
    r.varlong();
    CHECK_FALSE(r.ok());
  }
  SECTION("a varint cut off after a continuation byte") {
    Bytes b = bytes_of({0x80, 0x80});
    ByteReader r(as_view(b));
    CHECK(r.varint() == 0);
    CHECK_FALSE(r.ok());
  }
  SECTION("an empty input") {
    Bytes b;
    ByteReader r(as_view(b));
    CHECK(r.uvarint64() == 0);
    CHECK_FALSE(r.ok());
  }
}

TEST_CASE("ByteReader: malformed lengths fail without reading past the end") {
  SECTION("negative STRING length") {
    Bytes b = bytes_of({0xff, 0xff, 'a'});
    ByteReader r(as_view(b));
    CHECK(r.string().empty());
    CHECK_FALSE(r.ok());
  }
  SECTION("STRING length beyond the input") {
    Bytes b = bytes_of({0x00, 0x05, 'a', 'b'});
    ByteReader r(as_view(b));
    CHECK(r.string().empty());
    CHECK_FALSE(r.ok());
  }
  SECTION("NULLABLE_STRING length below -1") {
    Bytes b = bytes_of({0xff, 0xfe, 'a'});
    ByteReader r(as_view(b));
    CHECK_FALSE(r.nullable_string().has_value());
    CHECK_FALSE(r.ok());
  }
  SECTION("NULLABLE_STRING cut short") {
    Bytes b = bytes_of({0x00});
    ByteReader r(as_view(b));
    CHECK_FALSE(r.nullable_string().has_value());
    CHECK_FALSE(r.ok());
  }
  SECTION("negative BYTES length") {
    Bytes b = bytes_of({0xff, 0xff, 0xff, 0xfe});
    ByteReader r(as_view(b));
    CHECK(r.bytes().empty());
    CHECK_FALSE(r.ok());
  }
  SECTION("BYTES length of 2 GiB in a tiny input") {
    Bytes b = bytes_of({0x7f, 0xff, 0xff, 0xff, 1, 2, 3});
    ByteReader r(as_view(b));
    CHECK(r.bytes().empty());
    CHECK_FALSE(r.ok());
  }
  SECTION("NULLABLE_BYTES below -1") {
    Bytes b = bytes_of({0x80, 0x00, 0x00, 0x00});
    ByteReader r(as_view(b));
    CHECK_FALSE(r.nullable_bytes().has_value());
    CHECK_FALSE(r.ok());
  }
  SECTION("array count larger than the bytes left") {
    Bytes b = bytes_of({0x00, 0x00, 0x00, 0x03, 1, 2, 3, 4, 5});
    ByteReader r(as_view(b));
    CHECK(r.array_count(2) == 0);  // 3 elements of at least 2 bytes need 6, 5 are left
    CHECK_FALSE(r.ok());
  }
  SECTION("a hostile array count") {
    Bytes b = bytes_of({0x7f, 0xff, 0xff, 0xff});
    ByteReader r(as_view(b));
    CHECK(r.array_count() == 0);
    CHECK_FALSE(r.ok());
  }
  SECTION("array count -1 (null) reads as 0 and stays ok; -2 fails") {
    Bytes b = bytes_of({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe});
    ByteReader r(as_view(b));
    CHECK(r.array_count() == 0);
    CHECK(r.ok());
    CHECK(r.array_count() == 0);
    CHECK_FALSE(r.ok());
  }
  SECTION("a plausible array count is accepted") {
    Bytes b = bytes_of({0x00, 0x00, 0x00, 0x02, 1, 2});
    ByteReader r(as_view(b));
    CHECK(r.array_count(1) == 2);
    CHECK(r.ok());
    CHECK(r.remaining() == 2);
  }
  SECTION("raw and skip past the end") {
    Bytes b = bytes_of({1, 2, 3});
    ByteReader r(as_view(b));
    r.skip(2);
    CHECK(r.ok());
    CHECK(r.raw(2).empty());
    CHECK_FALSE(r.ok());
    CHECK(r.position() <= b.size());
  }
}

TEST_CASE("ByteReader: random garbage never reads out of bounds") {
  // Each input lives in its own exactly-sized heap buffer, so an out-of-bounds read is caught by
  // the sanitizers; here we also check that position() never passes the end.
  Rng rng(99);
  for (int round = 0; round < 3000; round++) {
    Bytes b(rng.uniform(24));
    for (auto& c : b) c = static_cast<uint8_t>(rng.uniform(256));
    ByteReader r(as_view(b));
    for (int op = 0; op < 16; op++) {
      switch (rng.uniform(12)) {
        case 0: (void)r.i8(); break;
        case 1: (void)r.i16(); break;
        case 2: (void)r.i32(); break;
        case 3: (void)r.i64(); break;
        case 4: (void)r.varint(); break;
        case 5: (void)r.varlong(); break;
        case 6: (void)r.uvarint(); break;
        case 7: (void)r.string(); break;
        case 8: (void)r.nullable_string(); break;
        case 9: (void)r.bytes(); break;
        case 10: (void)r.nullable_bytes(); break;
        case 11: (void)r.array_count(4); break;
      }
      REQUIRE(r.position() <= b.size());
      if (r.ok()) REQUIRE(r.remaining() == b.size() - r.position());
    }
  }
}

TEST_CASE("hex, to_bytes, to_string") {
  CHECK(hex(as_view(bytes_of({0x00, 0x0f, 0xa5, 0xff}))) == "000fa5ff");
  CHECK(hex(ByteView{}).empty());
  CHECK(to_string(as_view(to_bytes("kafka"))) == "kafka");
}
