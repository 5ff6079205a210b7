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

#include "engine/core/bytes.h"

namespace gregor::record {

uint32_t crc32c(ByteView data);
// The CRC of (what `crc` was computed over) followed by `data`: crc32c_extend(crc32c(a), b) ==
// crc32c(a + b), and crc32c_extend(0, b) == crc32c(b).
uint32_t crc32c_extend(uint32_t crc, ByteView data);

// The two implementations, for tests and the benchmark; crc32c() picks one of them.
uint32_t crc32c_extend_software(uint32_t crc, ByteView data);
uint32_t crc32c_extend_hardware(uint32_t crc, ByteView data);  // REQUIRES: crc32c_hardware_available()
bool crc32c_hardware_available();

}  // namespace gregor::record
