// FileSlice: a range of a file that travels to a socket without passing through user space.
//
// Kafka's fetch path sends records from the segment files (FileRecords.writeTo: sendfile), so a
// fetched batch is never read into the broker's memory. Gregor's log can hand out the same: a
// FileSlice names an open file (kept open by whoever holds the slice, whatever happens to the
// file's name meanwhile) and a range of it. A runtime that writes to sockets sends slices with
// sendfile(2); everything else reads them into bytes (read_slices), in one place.
//
// A frame with slices is its bytes plus holes: each hole puts a slice's bytes at a position of the
// bytes (positions ascending; several holes may share a position and then follow in order).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"

namespace gregor {

// An open file of a Disk, for slices. The simulator's disk has none (Disk::open_shared is null
// there), so only the real runtime's files ever make slices.
class OpenFile {
 public:
  virtual ~OpenFile() = default;
  // Reads exactly len bytes at offset; kIoError when the file holds fewer (it was truncated).
  virtual Result<Bytes> read(uint64_t offset, size_t len) const = 0;
  // The operating system's descriptor, for sendfile; -1 when there is none.
  virtual int native_handle() const { return -1; }
};

struct FileSlice {
  std::shared_ptr<const OpenFile> file;
  uint64_t offset = 0;
  size_t length = 0;
};

struct FrameHole {
  size_t position = 0;  // in the frame's bytes
  FileSlice slice;
};

// The slices' bytes one after the other.
Result<Bytes> read_slices(const std::vector<FileSlice>& slices);
// bytes with every hole filled: the frame as one buffer.
Result<Bytes> fill_holes(Bytes bytes, const std::vector<FrameHole>& holes);
// The bytes the holes add to a frame.
size_t hole_bytes(const std::vector<FrameHole>& holes);

}  // namespace gregor
