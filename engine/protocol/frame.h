// Kafka's framing on a byte stream: every request and response is an int32 size (big-endian)
// followed by that many bytes of payload (header + body).
//
// The engine exchanges payloads (Runtime::send carries a frame without its size prefix); the
// real-socket runtime frames them with frame() and cuts the inbound stream with FrameDecoder. A
// size that is negative or larger than the limit (Kafka's socket.request.max.bytes, default
// 104857600) is reported as soon as the 4 size bytes have arrived, before any body is buffered,
// as Kafka's NetworkReceive does; the connection must then be closed. A zero size is a valid
// (empty) frame: Kafka accepts it and fails later on the header, and so does Gregor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/status.h"

namespace gregor::protocol {

inline constexpr int32_t kSocketRequestMaxBytesDefault = 104857600;  // socket.request.max.bytes

// The size prefix followed by the payload. REQUIRES: payload.size() <= INT32_MAX.
Bytes frame(ByteView payload);

class FrameDecoder {
 public:
  // REQUIRES: max_frame_bytes >= 0. The limit is on the payload, as socket.request.max.bytes is.
  explicit FrameDecoder(int32_t max_frame_bytes = kSocketRequestMaxBytesDefault);

  // Appends bytes read from the stream. Ignored once the decoder has failed.
  void feed(ByteView chunk);

  // The next whole frame's payload, or nullopt when no whole frame is buffered yet or the stream
  // is malformed (check failed()). Frames come out in stream order.
  std::optional<Bytes> next();

  // True once a negative or oversized size was seen; sticky. The connection should be closed.
  bool failed() const { return !status_.is_ok(); }
  const Status& status() const { return status_; }

  // Bytes buffered and not yet returned as frames.
  size_t buffered_bytes() const { return buffer_.size() - start_; }
  int32_t max_frame_bytes() const { return max_frame_bytes_; }

 private:
  void compact();

  int32_t max_frame_bytes_;
  Bytes buffer_;
  size_t start_ = 0;  // first unconsumed byte of buffer_
  Status status_;
};

}  // namespace gregor::protocol
