// Deterministic randomness: xoshiro256** seeded through splitmix64, with our own range reduction.
//
// The standard distributions (std::uniform_int_distribution and friends) are not specified bit for
// bit and differ between standard libraries, so they would break "same seed, same run" across
// machines; Gregor never uses them. A run has one master seed; every consumer of randomness (each
// node, each fault source) draws from its own stream derived from (seed, stream label), so adding a
// node does not shift the draws of any other.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/core/assert.h"

namespace gregor {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  // A stream independent of every other label: derive(seed, "node", 3), derive(seed, "net").
  static Rng derive(uint64_t seed, std::string_view label, uint64_t index = 0);

  uint64_t next_u64();
  // Uniform in [0, bound), unbiased (Lemire's multiply-shift with rejection). REQUIRES: bound > 0.
  uint64_t uniform(uint64_t bound);
  // Uniform in [lo, hi] inclusive. REQUIRES: lo <= hi.
  int64_t range(int64_t lo, int64_t hi);
  // Uniform double in [0, 1) from the top 53 bits.
  double unit();
  // True with probability p.
  bool chance(double p) { return unit() < p; }

 private:
  uint64_t s_[4];
};

uint64_t splitmix64(uint64_t& state);

}  // namespace gregor
