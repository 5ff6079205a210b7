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

// Processing n zero bytes is a linear map of the 32-bit state over GF(2) (multiplication by
// x^(8n) modulo the polynomial). Tabulated per state byte, it lets independent CRCs of adjacent
// blocks be combined: crc(A || B) = shift_len(B)(crc(A)) ^ crc_from_zero(B).
struct ZeroShift {
  uint32_t table[4][256];
  uint32_t operator()(uint32_t s) const {
    return table[0][s & 0xff] ^ table[1][(s >> 8) & 0xff] ^ table[2][(s >> 16) & 0xff] ^ table[3][s >> 24];
  }
};

ZeroShift make_zero_shift(size_t zero_bytes) {
  uint32_t basis[32];
  for (int bit = 0; bit < 32; bit++) {
    uint32_t s = 1u << bit;
    for (size_t i = 0; i < zero_bytes; i++) s = (s >> 8) ^ kTables[0][s & 0xff];
    basis[bit] = s;
  }
  ZeroShift z{};
  for (int k = 0; k < 4; k++)
    for (uint32_t b = 0; b < 256; b++)
      for (int j = 0; j < 8; j++)
        if (b & (1u << j)) z.table[k][b] ^= basis[8 * k + j];
  return z;
}

#ifdef GREGOR_CRC32C_X86
// The crc32 instruction has a latency of three cycles and a throughput of one per cycle, so three
// independent streams over three adjacent blocks run about three times as fast as one; their
// results are then combined with the zero-shift tables. Long blocks for the bulk, short ones for
// what remains, single stream for the last bytes.
constexpr size_t kLongBlockBytes = 4096;
constexpr size_t kShortBlockBytes = 256;

__attribute__((target("sse4.2"))) inline uint64_t crc_word(uint64_t s, const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);  // x86 is little-endian, which is the order the reflected CRC wants
  return _mm_crc32_u64(s, word);
}

template <size_t kBlock>
__attribute__((target("sse4.2"))) uint32_t three_streams(uint32_t state, const uint8_t*& p, size_t& n,
                                                         const ZeroShift& shift) {
  while (n >= 3 * kBlock) {
    uint64_t a = state, b = 0, c = 0;
    for (size_t i = 0; i < kBlock; i += 8) {
      a = crc_word(a, p + i);
      b = crc_word(b, p + kBlock + i);
      c = crc_word(c, p + 2 * kBlock + i);
    }
    state = shift(shift(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^ static_cast<uint32_t>(c);
    p += 3 * kBlock;
    n -= 3 * kBlock;
  }
  return state;
}

__attribute__((target("sse4.2"))) uint32_t update_hardware(uint32_t state, const uint8_t* p, size_t n) {
  static const ZeroShift long_shift = make_zero_shift(kLongBlockBytes);
  static const ZeroShift short_shift = make_zero_shift(kShortBlockBytes);
  state = three_streams<kLongBlockBytes>(state, p, n, long_shift);
  state = three_streams<kShortBlockBytes>(state, p, n, short_shift);
  uint64_t s = state;
  while (n >= 8) {
    s = crc_word(s, p);
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

std::optional<uint64_t> crc32c_single_bit_error(uint32_t stored, uint32_t computed, uint64_t length_bytes) {
  // With the initial value and final xor cancelling out, stored ^ computed is the raw register a
  // message of zeros with that one bit set leaves: the bit shifted through the remaining bits of
  // the message. A bit at index g (byte g / 8, bit g % 8, LSB first as the reflected CRC reads)
  // becomes the register value 1 after g % 8 plain shifts, then goes through 8 * length_bytes - g
  // shifts with the polynomial.
  const uint32_t syndrome = stored ^ computed;
  if (syndrome == 0) return std::nullopt;
  const uint64_t bits = 8 * length_bytes;
  uint32_t state = 1;
  for (uint64_t shifts = 1; shifts <= bits; shifts++) {
    state = (state & 1) ? (state >> 1) ^ kReflectedPolynomial : state >> 1;
    if (state == syndrome) return bits - shifts;
  }
  return std::nullopt;
}

}  // namespace gregor::record
