#include "engine/core/file_slice.h"

#include "engine/core/assert.h"

namespace gregor {

Result<Bytes> read_slices(const std::vector<FileSlice>& slices) {
  Bytes out;
  size_t total = 0;
  for (const FileSlice& s : slices) total += s.length;
  out.reserve(total);
  for (const FileSlice& s : slices) {
    auto part = s.file->read(s.offset, s.length);
    if (!part) return part.status();
    out.insert(out.end(), part->begin(), part->end());
  }
  return out;
}

Result<Bytes> fill_holes(Bytes bytes, const std::vector<FrameHole>& holes) {
  if (holes.empty()) return bytes;
  Bytes out;
  out.reserve(bytes.size() + hole_bytes(holes));
  size_t at = 0;
  for (const FrameHole& h : holes) {
    GREGOR_ASSERT(h.position >= at && h.position <= bytes.size());
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin() + static_cast<std::ptrdiff_t>(h.position));
    at = h.position;
    auto part = h.slice.file->read(h.slice.offset, h.slice.length);
    if (!part) return part.status();
    out.insert(out.end(), part->begin(), part->end());
  }
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end());
  return out;
}

size_t hole_bytes(const std::vector<FrameHole>& holes) {
  size_t n = 0;
  for (const FrameHole& h : holes) n += h.slice.length;
  return n;
}

}  // namespace gregor
