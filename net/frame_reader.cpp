#include "net/frame_reader.h"

#include <algorithm>
#include <cstring>

#include "engine/core/assert.h"

namespace gregor::net {

void encode_frame_size(uint32_t payload_bytes, uint8_t out[kFrameSizeBytes]) {
  out[0] = static_cast<uint8_t>(payload_bytes >> 24);
  out[1] = static_cast<uint8_t>(payload_bytes >> 16);
  out[2] = static_cast<uint8_t>(payload_bytes >> 8);
  out[3] = static_cast<uint8_t>(payload_bytes);
}

FrameReader::FrameReader(int32_t max_frame_bytes) : max_frame_bytes_(max_frame_bytes), buffer_(kReadChunkBytes) {
  GREGOR_ASSERT(max_frame_bytes > 0);
}

std::span<uint8_t> FrameReader::prepare(size_t arrived_bytes) {
  if (direct_active_ && direct_.size() < static_cast<size_t>(declared_size_)) {
    // The frame's own buffer grows as its bytes arrive (doubling, so copies stay linear), never
    // when its size is read: a peer that declares 100 MB and sends 4 bytes costs a read chunk or
    // two, not 100 MB. Bytes that have arrived already are taken in one read: a 256 KiB fetch
    // response that is all there is read at once, not in a read per doubling.
    const size_t room = direct_.size() - direct_filled_;
    if (room == 0 || arrived_bytes > room) {
      const size_t doubled = room == 0 ? 2 * direct_.size() : direct_.size();
      direct_.resize(std::min(static_cast<size_t>(declared_size_), std::max(doubled, direct_filled_ + arrived_bytes)));
    }
  }
  prepared_direct_ = direct_active_ && direct_filled_ < direct_.size();
  if (prepared_direct_) return std::span<uint8_t>(direct_.data() + direct_filled_, direct_.size() - direct_filled_);
  if (begin_ == end_) begin_ = end_ = 0;
  size_t want = kReadChunkBytes;
  if (declared_size_ >= 0 && !direct_active_) {
    // The whole frame must end up contiguous: make room for the rest of it at once.
    size_t frame_total = kFrameSizeBytes + static_cast<size_t>(declared_size_);
    size_t have = end_ - begin_;
    if (frame_total > have) want = std::max(want, frame_total - have);
  }
  if (buffer_.size() - end_ < want) {
    if (begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (buffer_.size() - end_ < want) buffer_.resize(end_ + want);
  }
  // Bound: a frame of up to a read chunk (larger ones get their own buffer) plus a read chunk.
  GREGOR_ASSERT(buffer_.size() <= kBufferBytesMax);
  return std::span<uint8_t>(buffer_.data() + end_, buffer_.size() - end_);
}

void FrameReader::commit(size_t n) {
  if (prepared_direct_) {
    GREGOR_ASSERT(n <= direct_.size() - direct_filled_);
    direct_filled_ += n;
    return;
  }
  GREGOR_ASSERT(n <= buffer_.size() - end_);
  end_ += n;
}

FrameReader::Outcome FrameReader::next(Bytes* frame) {
  if (failed_ != Outcome::kNeedMore) return failed_;
  if (direct_active_) {
    if (direct_filled_ < static_cast<size_t>(declared_size_)) return Outcome::kNeedMore;
    GREGOR_ASSERT(direct_filled_ == direct_.size());
    *frame = std::move(direct_);
    direct_ = Bytes();
    direct_active_ = prepared_direct_ = false;
    direct_filled_ = 0;
    declared_size_ = -1;
    return Outcome::kFrame;
  }
  size_t have = end_ - begin_;
  if (have < kFrameSizeBytes) return Outcome::kNeedMore;
  const uint8_t* p = buffer_.data() + begin_;
  int32_t size = static_cast<int32_t>((static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
                                      (static_cast<uint32_t>(p[2]) << 8) | static_cast<uint32_t>(p[3]));
  declared_size_ = size;
  if (size < 0) return failed_ = Outcome::kNegativeSize;
  if (size > max_frame_bytes_) return failed_ = Outcome::kOversized;
  size_t total = kFrameSizeBytes + static_cast<size_t>(size);
  if (have < total) {
    if (static_cast<size_t>(size) > kReadChunkBytes) {
      // Everything buffered belongs to this frame: move it to the frame's own buffer, once. That
      // buffer starts at twice what arrived (at least two read chunks) and grows in prepare().
      direct_filled_ = have - kFrameSizeBytes;
      direct_.resize(std::min(static_cast<size_t>(size), std::max(2 * kReadChunkBytes, 2 * direct_filled_)));
      std::memcpy(direct_.data(), p + kFrameSizeBytes, direct_filled_);
      begin_ = end_;
      direct_active_ = true;
    }
    return Outcome::kNeedMore;
  }
  frame->assign(p + kFrameSizeBytes, p + total);
  begin_ += total;
  declared_size_ = -1;
  return Outcome::kFrame;
}

}  // namespace gregor::net
