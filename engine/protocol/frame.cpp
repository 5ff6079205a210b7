#include "engine/protocol/frame.h"

#include <limits>

#include "engine/core/assert.h"

namespace gregor::protocol {

Bytes frame(ByteView payload) {
  GREGOR_ASSERT(payload.size() <= static_cast<size_t>(std::numeric_limits<int32_t>::max()));
  ByteWriter w;
  w.i32(static_cast<int32_t>(payload.size()));
  w.raw(payload);
  return w.take();
}

FrameDecoder::FrameDecoder(int32_t max_frame_bytes) : max_frame_bytes_(max_frame_bytes) {
  GREGOR_ASSERT(max_frame_bytes >= 0);
}

void FrameDecoder::feed(ByteView chunk) {
  if (failed()) return;
  compact();
  buffer_.insert(buffer_.end(), chunk.begin(), chunk.end());
}

std::optional<Bytes> FrameDecoder::next() {
  if (failed() || buffered_bytes() < 4) return std::nullopt;
  ByteReader size_reader(ByteView(buffer_.data() + start_, 4));
  int32_t size = size_reader.i32();
  if (size < 0) {
    status_ = Status::error(StatusCode::kCorruption,
                            "invalid frame size " + std::to_string(size) + " (negative)");
    return std::nullopt;
  }
  if (size > max_frame_bytes_) {
    status_ = Status::error(StatusCode::kOutOfRange, "frame size " + std::to_string(size) +
                                                         " larger than " + std::to_string(max_frame_bytes_));
    return std::nullopt;
  }
  size_t total = 4 + static_cast<size_t>(size);
  if (buffered_bytes() < total) return std::nullopt;
  auto first = buffer_.begin() + static_cast<std::ptrdiff_t>(start_ + 4);
  Bytes payload(first, first + size);
  start_ += total;
  return payload;
}

void FrameDecoder::compact() {
  // Drop consumed bytes once they are at least half the buffer, so the buffer's size stays within
  // twice what is unconsumed and each byte is moved O(1) times on average.
  if (start_ > 0 && start_ * 2 >= buffer_.size()) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(start_));
    start_ = 0;
  }
}

}  // namespace gregor::protocol
