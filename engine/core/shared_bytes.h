// SharedBytes: an immutable view of bytes that keeps its buffer alive, shared instead of copied.
//
// Record batches travel from a producer's request through the leader's log to fetch responses
// and followers; each hop used to copy them. A SharedBytes is a (buffer, offset, length) triple
// whose buffer is reference counted: slicing and copying a SharedBytes copy no bytes, and the
// buffer lives as long as any view of it. The buffer may be a received frame (adopted without a
// copy), a page of the simulated disk's page cache (sim/sim_disk.h), or any Bytes.
//
// The bytes a SharedBytes shows never change: whoever owns the buffer writes only where no view
// reaches (the simulated disk copies a page before it writes into bytes it has shown, as a
// copy-on-write page cache does).
#pragma once

#include <cstring>
#include <memory>

#include "engine/core/bytes.h"

namespace gregor {

class SharedBytes {
 public:
  SharedBytes() = default;
  // Adopts the bytes (no copy).
  explicit SharedBytes(Bytes bytes) {
    if (bytes.empty()) return;
    auto owner = std::make_shared<const Bytes>(std::move(bytes));
    data_ = owner->data();
    size_ = owner->size();
    owner_ = std::move(owner);
  }
  // A view of [data, data + size) inside a buffer that `owner` keeps alive.
  SharedBytes(std::shared_ptr<const void> owner, const uint8_t* data, size_t size)
      : owner_(size ? std::move(owner) : nullptr), data_(size ? data : nullptr), size_(size) {}
  static SharedBytes copy_of(ByteView v) {
    if (v.empty()) return SharedBytes();
    auto owner = std::make_shared<const Bytes>(v.begin(), v.end());
    const uint8_t* data = owner->data();
    return SharedBytes(std::move(owner), data, v.size());
  }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ByteView view() const { return ByteView(data_, size_); }
  operator ByteView() const { return view(); }  // NOLINT: a view is what every reader takes
  uint8_t operator[](size_t i) const {
    GREGOR_ASSERT(i < size_);
    return data_[i];
  }

  // [offset, offset + length) of this view, sharing the buffer. REQUIRES: within the view.
  SharedBytes slice(size_t offset, size_t length) const {
    GREGOR_ASSERT(offset <= size_ && length <= size_ - offset);
    return SharedBytes(owner_, data_ + offset, length);
  }
  // Does v lie inside this view (so that slice can make it shared)?
  bool contains(ByteView v) const {
    return !v.empty() && data_ && v.data() >= data_ && v.data() + v.size() <= data_ + size_;
  }
  // v as a SharedBytes: a slice when it lies inside this view, else a copy.
  SharedBytes share(ByteView v) const {
    if (v.empty()) return SharedBytes();
    if (contains(v)) return slice(static_cast<size_t>(v.data() - data_), v.size());
    return copy_of(v);
  }
  // Are next's bytes the ones right after this view's, in the same buffer (so that one view could
  // cover both)? Two buffers may lie side by side in memory: the owner must be the same too.
  bool continues_into(const SharedBytes& next) const {
    return size_ > 0 && next.size_ > 0 && data_ + size_ == next.data_ && !owner_.owner_before(next.owner_) &&
           !next.owner_.owner_before(owner_);
  }
  // Grows this view over next's bytes. REQUIRES: continues_into(next).
  void extend_over(const SharedBytes& next) {
    GREGOR_ASSERT(continues_into(next));
    size_ += next.size_;
  }
  Bytes to_bytes() const { return Bytes(data_, data_ + size_); }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }

  // Equal bytes (not the same buffer).
  friend bool operator==(const SharedBytes& a, const SharedBytes& b) {
    return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_) == 0);
  }

 private:
  std::shared_ptr<const void> owner_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

inline ByteView as_view(const SharedBytes& b) { return b.view(); }

// A range of a frame's bytes that a shared buffer holds as well (position: where the range starts
// in the frame). The simulator hands such views along with a frame (Runtime::send_gather_views),
// so that decoding it at the receiver takes the sender's buffer instead of a slice of the frame:
// the same bytes, in the sender's memory (protocol::RecordsSource).
struct FrameView {
  size_t position = 0;
  SharedBytes bytes;
};

}  // namespace gregor
