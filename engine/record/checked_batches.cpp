#include "engine/record/checked_batches.h"

#include <array>
#include <cstddef>
#include <utility>

namespace gregor::record {
namespace {

// A few: a batch is checked again within a fetch or two of the first check (or of the producer
// building it), and each entry holds the buffer it lies in (a page of the simulated disk, a
// producer's batch) alive until it is replaced.
struct Checked {
  std::array<SharedBytes, 16> views;
  size_t next = 0;
  uint64_t spared = 0;
};
thread_local Checked checked;

}  // namespace

void remember_checked(SharedBytes batch, size_t buffer_bytes) {
  if (batch.empty() || buffer_bytes > kCheckedBufferBytesMax) return;
  checked.views[checked.next] = std::move(batch);
  checked.next = (checked.next + 1) % checked.views.size();
}

bool checked_before(ByteView batch) {
  if (batch.empty()) return false;
  for (const SharedBytes& v : checked.views)
    if (v.data() == batch.data() && v.size() == batch.size()) {
      checked.spared++;
      return true;
    }
  return false;
}

uint64_t checks_spared() { return checked.spared; }

}  // namespace gregor::record
