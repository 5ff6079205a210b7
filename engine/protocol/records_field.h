// The RECORDS field type of Produce requests and Fetch responses, in one place: what a decoded
// message holds for a partition's record batches, and its codec. Everything else (the generated
// messages, the broker, the clients) names it only as protocol::Records.
//
// On the wire RECORDS is BYTES: int32 length (-1 = null), or uvarint(length + 1) (0 = null) in
// flexible versions. The bytes are concatenated record batches, opaque here: the protocol layer
// never looks at a record (engine/record/ does).
//
// Records hold a SharedBytes (engine/core/shared_bytes.h): an immutable view that keeps its buffer
// alive. Decoding a message inside a RecordsSource scope (the broker's request dispatch wraps the
// received frame in one) makes each RECORDS a slice of that frame, so a produced batch travels from
// the socket read to the segment write without a copy in user space (Kafka's MemoryRecords wraps
// the request's ByteBuffer the same way). Decoded anywhere else, RECORDS is copied out of the
// input once, as before.
#pragma once

#include <optional>

#include "engine/core/bytes.h"
#include "engine/core/shared_bytes.h"
#include "engine/protocol/codec.h"

namespace gregor::protocol {

using Records = std::optional<SharedBytes>;

// While one lives, get_records returns slices of `frame` for records that lie inside it (instead
// of copies). Scopes nest; the innermost wins. The frame must outlive the scope.
class RecordsSource {
 public:
  explicit RecordsSource(const SharedBytes& frame) : previous_(current_), frame_(&frame) { current_ = this; }
  ~RecordsSource() { current_ = previous_; }
  RecordsSource(const RecordsSource&) = delete;
  RecordsSource& operator=(const RecordsSource&) = delete;

  static const SharedBytes* frame() { return current_ ? current_->frame_ : nullptr; }

 private:
  static inline thread_local RecordsSource* current_ = nullptr;
  RecordsSource* previous_;
  const SharedBytes* frame_;
};

namespace codec {

GREGOR_CODEC_INLINE void put_records(ByteWriter& w, const Records& records, bool flexible, bool nullable, const char* what) {
  if (records) return put_bytes(w, records->view(), flexible);
  put_null_length(w, flexible, nullable, what);
}
GREGOR_CODEC_INLINE Records get_records(ByteReader& r, bool flexible, bool nullable) {
  std::optional<ByteView> v = get_nullable_bytes_view(r, flexible, nullable);
  if (!v) return std::nullopt;
  const SharedBytes* frame = RecordsSource::frame();
  return frame ? frame->share(*v) : SharedBytes::copy_of(*v);
}
GREGOR_CODEC_INLINE size_t records_size(const Records& records, bool flexible) {
  return records ? bytes_size(records->size(), flexible) : (flexible ? 1 : 4);
}
// The bytes a Records holds (0 for null), for size estimates.
GREGOR_CODEC_INLINE size_t records_bytes(const Records& records) { return records ? records->size() : 0; }

}  // namespace codec

}  // namespace gregor::protocol
