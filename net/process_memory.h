// keep_freed_memory: a process of the real runtime keeps the heap memory it freed, for its next
// allocations, instead of handing it back to the kernel as soon as it can.
//
// A broker under load allocates and frees a buffer per request and per response, of up to a batch
// or a fetch in size (hundreds of KiB). glibc's defaults give freed memory at the top of the heap
// back to the kernel above 128 KiB (M_TRIM_THRESHOLD) and serve allocations above 128 KiB with
// mmap, so each such buffer came back as fresh pages, a page fault each: a fifth of the cluster's
// CPU in page faults and brk at 256 KiB batches. On a virtual machine with free page reporting the
// kernel in turn hands those pages to the host, and touching them again costs a fault on the host
// too. A JVM (Kafka) keeps its heap for the same reason. The process's footprint becomes its peak.
#pragma once

namespace gregor::net {

// Call once at the start of a process (run_node, the client commands). Idempotent. True when the
// C library took the settings; false where it is not glibc (nothing changes then).
bool keep_freed_memory();

}  // namespace gregor::net
