#include "engine/client/partitioner.h"

namespace gregor::client {

int32_t murmur2(ByteView data) {
  // Unsigned arithmetic with the same bits as Java's wrapping int arithmetic.
  const uint32_t length = static_cast<uint32_t>(data.size());
  const uint32_t m = 0x5bd1e995u;
  const int r = 24;
  uint32_t h = 0x9747b28cu ^ length;
  const uint32_t length4 = length / 4;
  for (uint32_t i = 0; i < length4; i++) {
    const uint32_t i4 = i * 4;
    uint32_t k = static_cast<uint32_t>(data[i4]) | (static_cast<uint32_t>(data[i4 + 1]) << 8) |
                 (static_cast<uint32_t>(data[i4 + 2]) << 16) | (static_cast<uint32_t>(data[i4 + 3]) << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  const uint32_t tail = length & ~3u;
  switch (length % 4) {
    case 3: h ^= static_cast<uint32_t>(data[tail + 2]) << 16; [[fallthrough]];
    case 2: h ^= static_cast<uint32_t>(data[tail + 1]) << 8; [[fallthrough]];
    case 1:
      h ^= static_cast<uint32_t>(data[tail]);
      h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

}  // namespace gregor::client
