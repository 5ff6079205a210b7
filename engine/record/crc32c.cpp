#include "engine/record/crc32c.h"

#include <array>
#include <cstring>

#include "engine/core/assert.h"

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define GREGOR_CRC32C_X86 1
#endif

namespace gregor::record {
namespace {

constexpr uint32_t kReflectedPolynomial = 0x82F63B78u;

// Slicing-by-8: table[k][b] is the CRC contribution of byte b followed by k zero bytes, so eight
// input bytes are folded per step with eight independent lookups instead of eight dependent ones.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; b++) {
    uint32_t c = b;
    for (int i = 0; i < 8; i++) c = (c & 1) ? (c >> 1) ^ kReflectedPolynomial : c >> 1;
    t[0][b] = c;
  }
  for (uint32_t b = 0; b < 256; b++)
    for (size_t k = 1; k < 8; k++) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  return t;
}

constexpr Tables kTables = make_tables();

uint32_t update_software(uint32_t state, const uint8_t* p, size_t n) {
  while (n >= 8) {
    uint32_t lo = state ^ (static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                           static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24);
    state = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
            kTables[4][lo >> 24] ^ kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^
            kTables[0][p[7]];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) state = (state >> 8) ^ kTables[0][(state ^ *p++) & 0xff];
  return state;
}

#ifdef GREGOR_CRC32C_X86
__attribute__((target("sse4.2"))) uint32_t update_hardware(uint32_t state, const uint8_t* p, size_t n) {
  uint64_t s = state;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);  // x86 is little-endian, which is the order the reflected CRC wants
    s = _mm_crc32_u64(s, word);
    p += 8;
    n -= 8;
  }
  uint32_t s32 = static_cast<uint32_t>(s);
  while (n-- > 0) s32 = _mm_crc32_u8(s32, *p++);
  return s32;
}
#endif

using UpdateFn = uint32_t (*)(uint32_t, const uint8_t*, size_t);

UpdateFn pick_update() {
#ifdef GREGOR_CRC32C_X86
  if (__builtin_cpu_supports("sse4.2")) return update_hardware;
#endif
  return update_software;
}

}  // namespace

bool crc32c_hardware_available() {
#ifdef GREGOR_CRC32C_X86
  return __builtin_cpu_supports("sse4.2");
#else
  return false;
#endif
}

uint32_t crc32c_extend_software(uint32_t crc, ByteView data) {
  return ~update_software(~crc, data.data(), data.size());
}

uint32_t crc32c_extend_hardware(uint32_t crc, ByteView data) {
#ifdef GREGOR_CRC32C_X86
  GREGOR_ASSERT(crc32c_hardware_available());
  return ~update_hardware(~crc, data.data(), data.size());
#else
  (void)crc;
  (void)data;
  GREGOR_UNREACHABLE("crc32c_extend_hardware without SSE4.2");
#endif
}

uint32_t crc32c_extend(uint32_t crc, ByteView data) {
  static const UpdateFn update = pick_update();
  return ~update(~crc, data.data(), data.size());
}

uint32_t crc32c(ByteView data) { return crc32c_extend(0, data); }

}  // namespace gregor::record
