#include "net/process_memory.h"

#include <cstdlib>  // defines __GLIBC__ on glibc (through <features.h>); tested below

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gregor::net {

bool keep_freed_memory() {
#if defined(__GLIBC__)
  // Large buffers from the heap, not mmap (32 MiB is glibc's upper bound for this setting; larger
  // allocations are rare and still mmapped) ...
  bool ok = mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024) == 1;
  // ... and freed memory stays with the process unless a whole GiB lies free at the top of the heap.
  ok = mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024) == 1 && ok;
  // The heap grows in steps of 16 MiB, not 128 KiB: fewer brk calls while it reaches its peak.
  ok = mallopt(M_TOP_PAD, 16 * 1024 * 1024) == 1 && ok;
  return ok;
#else
  return false;
#endif
}

}  // namespace gregor::net
