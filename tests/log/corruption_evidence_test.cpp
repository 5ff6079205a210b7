// Torn tail or corruption (engine/log/corruption_evidence.h): a flipped bit anywhere a torn write
// cannot reach is found; a torn write, as the simulator makes them, never looks like corruption.
#include <catch2/catch.hpp>

#include "engine/core/rng.h"
#include "engine/log/corruption_evidence.h"
#include "engine/record/crc32c.h"
#include "log_test_support.h"

using namespace gregor;
using namespace gregor::log;
using namespace gregor::log::testing;

namespace {

// Batches at offsets 0, 3, 6, ... of `count` batches with 3 records each, back to back.
Bytes segment_of(int count, size_t value_bytes) {
  Bytes out;
  for (int i = 0; i < count; i++) {
    Bytes b = make_batch(3, "b" + std::to_string(i), 1000 + i, value_bytes);
    record::set_base_offset(b, 3 * i);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// Where the first batch that is not whole, intact and in sequence starts, and the offset it
// should have (what recovery's scan stops at).
std::pair<size_t, int64_t> first_bad(const Bytes& file) {
  size_t at = 0;
  int64_t expected = 0;
  while (at < file.size()) {
    auto h = record::parse_batch_header(ByteView(file).subspan(at), true);
    if (!h || h->base_offset != expected) break;
    at += h->size_bytes();
    expected = h->next_offset();
  }
  return {at, expected};
}

std::string evidence(const Bytes& file) {
  auto [at, expected] = first_bad(file);
  REQUIRE(at < file.size());
  return corruption_evidence(ByteView(file).subspan(at), file.size() - at, expected);
}

}  // namespace

TEST_CASE("crc32c: one flipped bit is located from the two CRCs", "[record][crc]") {
  Rng rng = Rng::derive(1, "crc-bit");
  for (size_t length : {1u, 7u, 61u, 1000u, 20000u}) {
    Bytes data(length);
    for (auto& b : data) b = static_cast<uint8_t>(rng.next_u64());
    const uint32_t stored = record::crc32c(as_view(data));
    for (int trial = 0; trial < 20; trial++) {
      const uint64_t bit = rng.uniform(8 * length);
      Bytes flipped = data;
      flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      const auto found = record::crc32c_single_bit_error(stored, record::crc32c(as_view(flipped)), length);
      REQUIRE(found.has_value());
      CHECK(*found == bit);
      // Two flipped bits are never taken for one.
      const uint64_t other = (bit + 1 + rng.uniform(8 * length - 1)) % (8 * length);
      if (other == bit) continue;
      flipped[other / 8] ^= static_cast<uint8_t>(1u << (other % 8));
      CHECK_FALSE(record::crc32c_single_bit_error(stored, record::crc32c(as_view(flipped)), length).has_value());
    }
  }
  CHECK_FALSE(record::crc32c_single_bit_error(5, 5, 10).has_value());
}

TEST_CASE("corruption evidence: a flipped bit in a log is not taken for a torn tail", "[log][corruption]") {
  const Bytes file = segment_of(6, 200);
  const size_t last = first_bad(Bytes(file.begin(), file.end() - 1)).first;  // where the last batch starts
  SECTION("in the data of the last batch, far from the end of the file") {
    Bytes f = file;
    f[last + 80] ^= 0x10;
    CHECK_THAT(evidence(f), Catch::Contains("one flipped bit"));
  }
  SECTION("in the stored CRC of the last batch") {
    Bytes f = file;
    f[last + record::kCrcPosition + 2] ^= 0x01;
    CHECK_THAT(evidence(f), Catch::Contains("stored CRC"));
  }
  SECTION("in the length field of the last batch") {
    Bytes f = file;
    f[last + record::kBatchLengthPosition + 2] ^= 0x04;
    CHECK_THAT(evidence(f), Catch::Contains("length field"));
  }
  SECTION("in the length field of a batch in the middle: the batches behind it are found") {
    Bytes f = file;
    f[record::kBatchLengthPosition] ^= 0x40;  // the first batch's length, high byte of the low half
    CHECK_FALSE(evidence(f).empty());
  }
  SECTION("in the magic byte or the base offset of the last batch") {
    Bytes f = file;
    f[last + record::kMagicPosition] ^= 0x08;
    CHECK_THAT(evidence(f), Catch::Contains("magic"));
    f = file;
    f[last + 3] ^= 0x02;
    CHECK_THAT(evidence(f), Catch::Contains("base offset"));
  }
  SECTION("two bits in one batch with batches behind it") {
    Bytes f = file;
    f[100] ^= 0x01;
    f[130] ^= 0x80;
    CHECK_THAT(evidence(f), Catch::Contains("follows it"));
  }
}

TEST_CASE("corruption evidence: a torn tail is never taken for corruption", "[log][power]") {
  // The simulator's power loss: the durable part, then a prefix of what was appended since, its
  // last bytes (at most kTornWriteBytesMax) garbage.
  Rng rng = Rng::derive(2, "torn-tails");
  int torn = 0;
  for (int trial = 0; trial < 3000; trial++) {
    const Bytes file = segment_of(2 + static_cast<int>(rng.uniform(4)), rng.uniform(300));
    const size_t synced = static_cast<size_t>(rng.uniform(file.size()));
    const size_t kept = synced + static_cast<size_t>(rng.uniform(file.size() - synced + 1));
    Bytes f(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(kept));
    if (kept > synced) {
      const uint64_t garbage = 1 + rng.uniform(std::min<uint64_t>(kept - synced, kTornWriteBytesMax));
      for (uint64_t i = 0; i < garbage; i++) f[f.size() - 1 - i] = static_cast<uint8_t>(rng.next_u64());
    }
    auto [at, expected] = first_bad(f);
    if (at == f.size()) continue;  // cut between batches, or the garbage changed nothing
    torn++;
    INFO("trial " << trial << " kept " << kept << " of " << file.size());
    CHECK(corruption_evidence(ByteView(f).subspan(at), f.size() - at, expected) == "");
  }
  CHECK(torn > 1500);
}
