// Rng: xoshiro256** seeded through splitmix64, streams derived by label, our own range reduction.
//
// The known answers below were computed with an independent implementation of the published
// algorithms (splitmix64, xoshiro256** 1.0, Lemire's bounded integers); they change only if the
// generator changes, which would silently change every recorded run.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include "engine/core/rng.h"

using namespace gregor;

TEST_CASE("splitmix64: known answer") {
  uint64_t state = 0;
  CHECK(splitmix64(state) == 0xe220a8397b1dcdafull);
  CHECK(state == 0x9e3779b97f4a7c15ull);
}

TEST_CASE("Rng: known answers for fixed seeds") {
  Rng r42(42);
  CHECK(r42.next_u64() == 0x15780b2e0c2ec716ull);
  CHECK(r42.next_u64() == 0x6104d9866d113a7eull);
  CHECK(r42.next_u64() == 0xae17533239e499a1ull);
  CHECK(r42.next_u64() == 0xecb8ad4703b360a1ull);

  Rng r0(0);
  CHECK(r0.next_u64() == 0x99ec5f36cb75f2b4ull);
  CHECK(r0.next_u64() == 0xbf6e1f784956452aull);
}

TEST_CASE("Rng::uniform: known answers (Lemire's reduction)") {
  Rng a(42);
  const std::array<uint64_t, 10> expected_a = {0, 3, 6, 9, 9, 7, 7, 8, 7, 5};
  for (uint64_t e : expected_a) CHECK(a.uniform(10) == e);
  Rng b(7);
  const std::array<uint64_t, 5> expected_b = {700578, 278752, 839629, 981100, 990863};
  for (uint64_t e : expected_b) CHECK(b.uniform(1000003) == e);
}

TEST_CASE("Rng::derive: known answers") {
  Rng node1 = Rng::derive(42, "node", 1);
  CHECK(node1.next_u64() == 0xad066cb25218c847ull);
  CHECK(node1.next_u64() == 0xd0741abcfee6d6b6ull);
  Rng net = Rng::derive(42, "net");
  CHECK(net.next_u64() == 0xacf2d30f07ab52f0ull);
  CHECK(net.next_u64() == 0x206850c281902375ull);
}

TEST_CASE("Rng: same seed same draws, different seed different draws") {
  Rng a(123), b(123), c(124);
  bool differs = false;
  for (int i = 0; i < 100; i++) {
    uint64_t x = a.next_u64();
    CHECK(x == b.next_u64());
    differs = differs || x != c.next_u64();
  }
  CHECK(differs);
}

TEST_CASE("Rng::derive: labels, indexes and seeds give distinct streams") {
  auto first_draws = [](Rng r) {
    std::vector<uint64_t> v;
    for (int i = 0; i < 4; i++) v.push_back(r.next_u64());
    return v;
  };
  std::set<std::vector<uint64_t>> seen;
  const char* labels[] = {"node", "net", "disk-faults", "nemesis", "power-loss", "nodf", ""};
  for (const char* label : labels)
    for (uint64_t index = 0; index < 8; index++)
      for (uint64_t seed : {0ull, 1ull, 42ull}) seen.insert(first_draws(Rng::derive(seed, label, index)));
  CHECK(seen.size() == std::size(labels) * 8 * 3);
  // Deriving is a pure function of its arguments.
  CHECK(first_draws(Rng::derive(9, "node", 3)) == first_draws(Rng::derive(9, "node", 3)));
  // A derived stream is not the master stream of the same seed.
  CHECK(first_draws(Rng::derive(9, "node", 0)) != first_draws(Rng(9)));
}

TEST_CASE("Rng::uniform: stays in range and hits every value of a small range") {
  Rng r(5);
  for (uint64_t bound : {1ull, 2ull, 3ull, 7ull, 10ull, 64ull, 1000ull}) {
    std::vector<uint64_t> hits(bound, 0);
    const uint64_t draws = bound * 200;
    for (uint64_t i = 0; i < draws; i++) {
      uint64_t v = r.uniform(bound);
      REQUIRE(v < bound);
      hits[v]++;
    }
    // Unbiased enough: every value is hit, and none more than 3 times its fair share. With 200
    // expected hits per value these bounds are many standard deviations wide.
    for (uint64_t v = 0; v < bound; v++) {
      INFO("bound " << bound << " value " << v);
      CHECK(hits[v] > 0);
      CHECK(hits[v] < 3 * 200);
      CHECK(hits[v] > 200 / 3);
    }
  }
  // A bound just above 2^63 exercises the rejection path often.
  const uint64_t big = (1ull << 63) + 12345;
  for (int i = 0; i < 1000; i++) REQUIRE(r.uniform(big) < big);
  for (int i = 0; i < 1000; i++) REQUIRE(r.uniform(UINT64_MAX) < UINT64_MAX);
}

TEST_CASE("Rng::range: inclusive bounds, negative ranges, the full 64-bit span") {
  Rng r(11);
  std::set<int64_t> seen;
  for (int i = 0; i < 2000; i++) {
    int64_t v = r.range(-3, 3);
    REQUIRE(v >= -3);
    REQUIRE(v <= 3);
    seen.insert(v);
  }
  CHECK(seen.size() == 7);
  CHECK(r.range(5, 5) == 5);
  CHECK(r.range(INT64_MIN, INT64_MIN) == INT64_MIN);
  CHECK(r.range(INT64_MAX, INT64_MAX) == INT64_MAX);
  bool negative = false, positive = false;
  for (int i = 0; i < 200; i++) {
    int64_t v = r.range(INT64_MIN, INT64_MAX);
    negative = negative || v < 0;
    positive = positive || v > 0;
  }
  CHECK(negative);
  CHECK(positive);
  for (int i = 0; i < 1000; i++) {
    int64_t v = r.range(INT64_MIN, INT64_MIN + 1);
    REQUIRE((v == INT64_MIN || v == INT64_MIN + 1));
  }
}

TEST_CASE("Rng::unit and chance") {
  Rng r(3);
  double sum = 0;
  for (int i = 0; i < 10000; i++) {
    double u = r.unit();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  CHECK(sum / 10000 == Approx(0.5).margin(0.02));
  int yes = 0;
  for (int i = 0; i < 10000; i++) yes += r.chance(0.25) ? 1 : 0;
  CHECK(yes > 2200);
  CHECK(yes < 2800);
  for (int i = 0; i < 100; i++) {
    CHECK_FALSE(r.chance(0.0));
    CHECK(r.chance(1.0));
  }
}
