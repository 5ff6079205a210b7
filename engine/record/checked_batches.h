// Batches whose CRC was checked and found good, remembered by where their bytes are, so that a
// check of the very same bytes again is skipped.
//
// The bytes of a SharedBytes never change while it is held (the simulator's disk copies a page
// before writing under a view of it: sim/sim_disk.h), and the memory cannot be reused while it is
// held. This remembers the last few checked batches as views it holds, so a batch at the same
// address with the same length is those bytes, unchanged. In the simulator that is common: the
// leader checks a batch as it reads it for one follower, reads the same page for the other, and
// each follower's Fetch response brings the leader's page itself (Runtime::send_gather_views), so
// one check stands for four. A producer remembers the batch it has just built (and computed the CRC
// of), and a Produce request in the simulator carries that very buffer to the leader, which then
// has no check left to do. Nothing else changes: a batch is skipped only where the check would
// find what it found before.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/bytes.h"
#include "engine/core/shared_bytes.h"

namespace gregor::record {

// The largest buffer a remembered batch may lie in: a remembered view holds its whole buffer (a
// page of the simulator's disk, a producer's batch), so a large read of a real disk is not held.
inline constexpr size_t kCheckedBufferBytesMax = 256 << 10;

// Remembers that batch (one whole batch) passed its CRC check just now, unless the buffer it lies in
// (buffer_bytes long) is larger than kCheckedBufferBytesMax.
void remember_checked(SharedBytes batch, size_t buffer_bytes);
// Whether these very bytes (same address and length) passed a check and are still held unchanged.
bool checked_before(ByteView batch);
// How many checks checked_before has spared on this thread (tests read it).
uint64_t checks_spared();

}  // namespace gregor::record
