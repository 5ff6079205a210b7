// Torn tail or corruption: what recovery decides about a bad batch it found above the recovery point.
//
// Above the recovery point nothing was fsynced, so a bad batch there may be a torn write of a
// power loss: Kafka's LogSegment.recover cuts it and everything after it, silently. But a bit that
// flips on the medium (or in memory before a write) lands anywhere, and when it lands in the
// unflushed part of a log, cutting it silently loses records that may have been acknowledged
// (swarm safe seeds 2634 and 4852, issue 17). The two leave different traces, and this function
// looks for the traces only corruption leaves. A torn write keeps a prefix of what was appended and
// garbles at most its last kTornWriteBytesMax bytes; it never leaves
//   - a whole batch, with a matching CRC, after the bad spot (the bytes after a torn spot were
//     never written);
//   - a whole batch that one flipped bit in its length, magic, base offset or CRC field explains
//     (those fields are outside the CRC, or are the CRC);
//   - a whole batch whose CRC mismatch one flipped bit explains, farther from the end of the file
//     than a torn write reaches (crc32c_single_bit_error finds the bit).
// A torn write's garbage may by chance differ from what was written in one bit only, which is why
// the last bytes of the file are excluded from the last rule.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/bytes.h"

namespace gregor::log {

// The most bytes a torn write garbles at the end of a file: the simulator's power-loss model
// (sim/sim_disk.cpp uses this constant). Nothing before those bytes changes, so a bad byte farther
// from the end of the file is corruption. A real disk tears whole sectors, but leaves old or zeroed
// data there, never a single flipped bit in data it wrote.
inline constexpr uint64_t kTornWriteBytesMax = 16;

// How much of a file past a bad batch the search reads (it reads the rest of the file up to this).
inline constexpr uint64_t kCorruptionEvidenceWindowBytes = 8 << 20;

// from_bad_batch: the file's bytes from the bad batch on (at most the window); bytes_to_file_end:
// how many bytes the file holds from there (from_bad_batch.size() when the window reached the end);
// expected_offset: the base offset the bad batch should have. Returns why the bad batch cannot be
// a torn write, in words, or "" when it can be one.
std::string corruption_evidence(ByteView from_bad_batch, uint64_t bytes_to_file_end, int64_t expected_offset);

}  // namespace gregor::log
