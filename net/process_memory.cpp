#include "net/process_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gregor::net {

void keep_freed_memory() {
#if defined(__GLIBC__)
  // Large buffers from the heap, not mmap (32 MiB is glibc's upper bound for this setting; larger
  // allocations are rare and still mmapped) ...
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  // ... and freed memory stays with the process unless a whole GiB lies free at the top of the heap.
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
  // The heap grows in steps of 16 MiB, not 128 KiB: fewer brk calls while it reaches its peak.
  mallopt(M_TOP_PAD, 16 * 1024 * 1024);
#endif
}

}  // namespace gregor::net
