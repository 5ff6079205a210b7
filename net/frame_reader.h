// FrameReader: splits a TCP byte stream into Kafka's size-prefixed frames.
//
// Wire format (Kafka's, for requests and responses alike): a frame is an int32 big-endian size N,
// then N bytes of payload. Gregor's Runtime::send and Node::on_message carry the payload only: the
// transport adds the 4-byte size when writing and strips it when reading, so a frame means the
// same bytes in the simulator and on a socket. A zero-size frame is legal (the payload is empty).
//
// The reader owns one buffer. The socket reads into prepare(), commits what arrived, and next()
// takes complete frames out in arrival order. A declared size that is negative or larger than the
// limit (socket.request.max.bytes) is reported as soon as the 4 size bytes are in, before any of
// the body is buffered, so a hostile size cannot make the node allocate.
//
// Small frames are cut out of the buffer (several may arrive in one read). A frame larger than a
// read chunk (a produce request or fetch response with big batches) gets a buffer of its own as
// soon as its size is known: what already arrived is moved there once, and prepare() then offers
// the rest of that buffer, so the socket reads the bulk of the frame straight into the payload
// that next() hands out, and the shared buffer never grows past two read chunks. The frame's own
// buffer grows as its bytes arrive (starting at two read chunks, doubling when full), never when
// its size is read: a hostile or stalled peer costs memory for what it sent, not what it announced.
//
// No sockets here: the reader is a pure function of the bytes fed to it, tested as such.
//
// engine/protocol/frame.h describes the same format for codecs (frame(), FrameDecoder over bytes
// handed to it). This reader is the socket's side of it: the socket reads straight into its buffer
// (no copy through a chunk), and the memory a large frame needed is given back afterwards, which
// matters with many connections. tests/net checks that both cut every stream the same way.
#pragma once

#include <cstdint>
#include <span>

#include "engine/core/bytes.h"

namespace gregor::net {

constexpr size_t kFrameSizeBytes = 4;

// The 4-byte big-endian size that precedes a payload of payload_bytes.
void encode_frame_size(uint32_t payload_bytes, uint8_t out[kFrameSizeBytes]);

class FrameReader {
 public:
  static constexpr size_t kReadChunkBytes = 64 * 1024;
  // The shared buffer's bound: a frame of up to a read chunk, its size field, and a read chunk.
  static constexpr size_t kBufferBytesMax = 2 * kReadChunkBytes + kFrameSizeBytes;

  // REQUIRES: max_frame_bytes > 0.
  explicit FrameReader(int32_t max_frame_bytes);

  // Free space to read into: at least kReadChunkBytes, or, while a large frame is being read into
  // its own buffer, the rest of that buffer (never past the frame's end). Valid until the next call
  // of any other method. arrived_bytes: what the socket holds already (the caller asks the kernel
  // while reading_large_frame()); the frame's buffer grows to take it in one read, never past the
  // frame's end, and never for bytes that have not arrived.
  std::span<uint8_t> prepare(size_t arrived_bytes = 0);
  // Whether a frame larger than a read chunk is being read into its own buffer.
  bool reading_large_frame() const { return direct_active_; }
  // n bytes were written at the start of the span prepare() returned. REQUIRES: n <= its size.
  void commit(size_t n);

  enum class Outcome {
    kFrame,         // *frame holds the next payload
    kNeedMore,      // no complete frame buffered
    kNegativeSize,  // malformed: the declared size is negative; the stream is unusable
    kOversized,     // the declared size exceeds the limit; the stream is unusable
  };
  // Takes the next complete frame out. After kNegativeSize or kOversized every later call returns
  // the same outcome: the connection must be closed.
  Outcome next(Bytes* frame);

  // The size field of the frame at the head of the buffer (meaningful after kNegativeSize,
  // kOversized, or kNeedMore with at least 4 bytes buffered); -1 when not yet known.
  int64_t declared_size() const { return declared_size_; }
  // Bytes received and not yet taken out as frames: non-zero at end of stream means a frame was cut.
  size_t buffered_bytes() const { return end_ - begin_ + (direct_active_ ? kFrameSizeBytes + direct_filled_ : 0); }
  // The shared buffer's size (at most kBufferBytesMax).
  size_t capacity_bytes() const { return buffer_.size(); }
  // All the memory the reader holds: the shared buffer and a large frame's own buffer.
  size_t held_bytes() const { return buffer_.size() + direct_.size(); }

 private:
  int32_t max_frame_bytes_;
  Bytes buffer_;
  size_t begin_ = 0;  // first unconsumed byte
  size_t end_ = 0;    // one past the last received byte
  int64_t declared_size_ = -1;
  // A large frame being read into its own buffer: direct_filled_ bytes of it arrived into direct_,
  // which grows up to the frame's size (declared_size_). It precedes whatever is in buffer_.
  bool direct_active_ = false;
  bool prepared_direct_ = false;  // the span prepare() last returned lies in direct_
  Bytes direct_;
  size_t direct_filled_ = 0;
  Outcome failed_ = Outcome::kNeedMore;  // kNegativeSize / kOversized once the stream is broken
};

}  // namespace gregor::net
