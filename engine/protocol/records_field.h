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
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/file_slice.h"
#include "engine/core/shared_bytes.h"
#include "engine/protocol/codec.h"

namespace gregor::protocol {

// What a RECORDS field holds: null, bytes, or (a Fetch response the broker reads from its segment
// files on real sockets) file slices. Reads as an optional<SharedBytes>: *records and records->
// give the bytes, read from the slices the first time they are asked for (so every reader works
// with any Records). byte_size() tells the length without reading. Encoded inside a RecordsSink
// scope, a Records of slices writes only its length and leaves a hole the slices fill when the
// frame is sent (Runtime::send_with_files); encoded elsewhere, its bytes.
class Records {
 public:
  Records() = default;
  Records(std::nullopt_t) {}  // NOLINT: as optional
  Records(SharedBytes bytes) : bytes_(std::move(bytes)) {}  // NOLINT: as optional
  Records(std::optional<SharedBytes> bytes) : bytes_(std::move(bytes)) {}  // NOLINT: as optional
  // Records that are these ranges of files, one after the other. REQUIRES: every slice has a file.
  static Records of_files(std::vector<FileSlice> slices);

  bool has_value() const { return bytes_.has_value() || !slices_.empty(); }
  explicit operator bool() const { return has_value(); }
  // The bytes (read from the slices on first use). REQUIRES: has_value().
  const SharedBytes& operator*() const { return bytes(); }
  const SharedBytes* operator->() const { return &bytes(); }
  const SharedBytes& value() const { return bytes(); }
  void reset() {
    bytes_.reset();
    slices_.clear();
  }
  // The length in bytes (0 for null), without reading slices.
  size_t byte_size() const;
  // The file slices, when the records are (still) slices; empty otherwise.
  const std::vector<FileSlice>& file_slices() const { return slices_; }

  friend bool operator==(const Records& a, const Records& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || a.bytes() == b.bytes();
  }

 private:
  const SharedBytes& bytes() const;

  mutable std::optional<SharedBytes> bytes_;  // read from slices_ on first use when they are set
  std::vector<FileSlice> slices_;
};

// The views a frame being delivered came with (Runtime::send_gather_views), while the receiver
// handles it: the simulator delivers a frame inside one. The first RecordsSource opened on that
// very frame claims them (so they can only ever apply to the buffer they came with, while it is
// alive). Scopes nest; the innermost wins.
class FrameViews {
 public:
  FrameViews(ByteView frame, const std::vector<FrameView>& views) : previous_(current_), frame_(frame), views_(&views) {
    current_ = this;
  }
  ~FrameViews() { current_ = previous_; }
  FrameViews(const FrameViews&) = delete;
  FrameViews& operator=(const FrameViews&) = delete;

  // The views of the frame being delivered if `frame` is that frame and they are still unclaimed.
  static const std::vector<FrameView>* claim(const SharedBytes& frame) {
    FrameViews* s = current_;
    if (!s || s->views_ == nullptr || s->views_->empty() || frame.data() != s->frame_.data() || frame.size() != s->frame_.size())
      return nullptr;
    const std::vector<FrameView>* views = s->views_;
    s->views_ = nullptr;
    return views;
  }

 private:
  static inline thread_local FrameViews* current_ = nullptr;
  FrameViews* previous_;
  ByteView frame_;
  const std::vector<FrameView>* views_;
};

// While one lives, get_records returns slices of `frame` for records that lie inside it (instead
// of copies), or the buffer of a view the frame came with (FrameViews) for records that are exactly
// that view's range. Scopes nest; the innermost wins. The frame must outlive the scope.
class RecordsSource {
 public:
  explicit RecordsSource(const SharedBytes& frame)
      : previous_(current_), frame_(&frame), views_(FrameViews::claim(frame)) {
    current_ = this;
  }
  ~RecordsSource() { current_ = previous_; }
  RecordsSource(const RecordsSource&) = delete;
  RecordsSource& operator=(const RecordsSource&) = delete;

  // v as records: the buffer of the view of exactly v's range of the frame, if the frame came with
  // one; else a slice of the frame when v lies inside it; else a copy.
  static SharedBytes records(ByteView v) {
    const RecordsSource* s = current_;
    if (!s) return SharedBytes::copy_of(v);
    if (s->views_ && s->frame_->contains(v)) {
      const size_t position = static_cast<size_t>(v.data() - s->frame_->data());
      for (const FrameView& fv : *s->views_)
        if (fv.position == position && fv.bytes.size() == v.size()) return fv.bytes;
    }
    return s->frame_->share(v);
  }

 private:
  static inline thread_local RecordsSource* current_ = nullptr;
  RecordsSource* previous_;
  const SharedBytes* frame_;
  const std::vector<FrameView>* views_;  // claimed from FrameViews, or null
};

// While one lives, put_records of Records that are file slices writes their length and records a
// hole (the slices, at the writer's position) instead of reading the files: the broker's response
// path (RequestChannel::respond) encodes inside one and sends the holes with the frame. Scopes
// nest; the innermost wins. Positions are those of the one writer encoded in the scope.
class RecordsSink {
 public:
  RecordsSink() : previous_(current_) { current_ = this; }
  ~RecordsSink() { current_ = previous_; }
  RecordsSink(const RecordsSink&) = delete;
  RecordsSink& operator=(const RecordsSink&) = delete;

  static RecordsSink* current() { return current_; }
  void add(size_t position, const std::vector<FileSlice>& slices) {
    for (const FileSlice& s : slices) holes_.push_back(FrameHole{position, s});
  }
  std::vector<FrameHole> take() { return std::move(holes_); }
  // Records written as bytes (at the writer's position) that a shared buffer holds: views a
  // runtime may hand along with the frame (Runtime::send_gather_views).
  void add_view(size_t position, const SharedBytes& bytes) { views_.push_back(FrameView{position, bytes}); }
  std::vector<FrameView> take_views() { return std::move(views_); }

 private:
  static inline thread_local RecordsSink* current_ = nullptr;
  RecordsSink* previous_;
  std::vector<FrameHole> holes_;
  std::vector<FrameView> views_;
};

namespace codec {

GREGOR_CODEC_INLINE void put_records(ByteWriter& w, const Records& records, bool flexible, bool nullable, const char* what) {
  if (!records) return put_null_length(w, flexible, nullable, what);
  RecordsSink* sink = RecordsSink::current();
  if (sink && !records.file_slices().empty()) {
    put_length(w, records.byte_size(), flexible);
    return sink->add(w.size(), records.file_slices());
  }
  put_bytes(w, records->view(), flexible);
  if (sink && !records->empty()) sink->add_view(w.size() - records->size(), *records);
}
GREGOR_CODEC_INLINE Records get_records(ByteReader& r, bool flexible, bool nullable) {
  std::optional<ByteView> v = get_nullable_bytes_view(r, flexible, nullable);
  if (!v) return std::nullopt;
  return RecordsSource::records(*v);
}
GREGOR_CODEC_INLINE size_t records_size(const Records& records, bool flexible) {
  return records ? bytes_size(records.byte_size(), flexible) : (flexible ? 1 : 4);
}
// The bytes a Records holds (0 for null), for size estimates.
GREGOR_CODEC_INLINE size_t records_bytes(const Records& records) { return records.byte_size(); }

}  // namespace codec

}  // namespace gregor::protocol
