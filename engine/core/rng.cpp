#include "engine/core/rng.h"

namespace gregor {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
  uint64_t st = seed;
  for (auto& s : s_) s = splitmix64(st);
}

Rng Rng::derive(uint64_t seed, std::string_view label, uint64_t index) {
  // FNV-1a over the label, then mixed with the seed and index through splitmix64: streams with
  // different labels or indexes are unrelated.
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : label) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  uint64_t st = seed ^ h;
  uint64_t a = splitmix64(st);
  st = a ^ (index * 0xd1b54a32d192ed03ull);
  return Rng(splitmix64(st));
}

__extension__ typedef unsigned __int128 u128;  // g++ and clang; exact 64x64->128

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t Rng::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t Rng::uniform(uint64_t bound) {
  GREGOR_ASSERT(bound > 0);
  // Lemire, "Fast Random Integer Generation in an Interval" (2019).
  u128 m = static_cast<u128>(next_u64()) * bound;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < bound) {
    uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<u128>(next_u64()) * bound;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

int64_t Rng::range(int64_t lo, int64_t hi) {
  GREGOR_ASSERT(lo <= hi);
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(next_u64());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + uniform(span + 1));
}

double Rng::unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

}  // namespace gregor
