// CRC-32C (Castagnoli), the checksum of Kafka's RecordBatch v2.
//
// Polynomial 0x1EDC6F41 (reflected 0x82F63B78), initial value and final xor 0xFFFFFFFF, as in
// RFC 3720 and java.util.zip.CRC32C. The check value is crc32c("123456789") == 0xE3069283.
//
// Where the CPU has SSE4.2 the crc32 instruction does the work; otherwise a slicing-by-8 table.
// The choice is made once, at run time, from the CPU's feature flags; both give the same bits,
// so determinism does not depend on the machine.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/core/bytes.h"

namespace gregor::record {

uint32_t crc32c(ByteView data);
// The CRC of (what `crc` was computed over) followed by `data`: crc32c_extend(crc32c(a), b) ==
// crc32c(a + b), and crc32c_extend(0, b) == crc32c(b).
uint32_t crc32c_extend(uint32_t crc, ByteView data);

// Where one flipped bit would explain a CRC mismatch: given the CRC stored for `length_bytes` of
// data and the CRC computed over them now, the index (from the first byte, bit 0 the least
// significant) of the single bit whose flip turns one into the other; nullopt when no single bit
// does. CRC-32C is linear, so the difference of the two CRCs depends only on where the bit is, and
// distinct positions give distinct differences for any length below 2^31 bits: the answer is
// unique. Linear in length_bytes (a shift and a conditional xor per bit).
std::optional<uint64_t> crc32c_single_bit_error(uint32_t stored, uint32_t computed, uint64_t length_bytes);

// The two implementations, for tests and the benchmark; crc32c() picks one of them.
uint32_t crc32c_extend_software(uint32_t crc, ByteView data);
uint32_t crc32c_extend_hardware(uint32_t crc, ByteView data);  // REQUIRES: crc32c_hardware_available()
bool crc32c_hardware_available();

}  // namespace gregor::record
