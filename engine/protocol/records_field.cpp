#include "engine/protocol/records_field.h"

#include "engine/core/assert.h"

namespace gregor::protocol {

Records Records::of_files(std::vector<FileSlice> slices) {
  Records r;
  for (const FileSlice& s : slices) GREGOR_ASSERT(s.file != nullptr);
  if (slices.empty()) {
    r.bytes_ = SharedBytes();
    return r;
  }
  r.slices_ = std::move(slices);
  return r;
}

size_t Records::byte_size() const {
  if (bytes_) return bytes_->size();
  size_t n = 0;
  for (const FileSlice& s : slices_) n += s.length;
  return n;
}

const SharedBytes& Records::bytes() const {
  GREGOR_ASSERT(has_value());
  if (!bytes_) {
    // Read from the files once. The broker reads slices only on paths that send them from the
    // files; reading them here is for everything else (tests, a connection to self), and a file
    // that lost the range meanwhile is a bug on those paths.
    auto read = read_slices(slices_);
    GREGOR_ASSERT_MSG(read.is_ok(), "records: a file slice cannot be read");
    bytes_ = SharedBytes(std::move(*read));
  }
  return *bytes_;
}

}  // namespace gregor::protocol
