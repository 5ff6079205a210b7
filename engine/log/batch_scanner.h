// BatchScanner: walks the batches of a segment file from a position, reading in blocks.
//
// Every read path of the log goes through it (fetch, truncation, recovery), so the checks live in
// one place: a batch must fit inside the file, have a plausible length, magic 2 and (when taken
// with verify_crc) a matching CRC. The scanner does not know about offsets; callers check
// continuity.
//
// Two steps per batch: peek() reads and checks the header only; then either skip() moves past the
// batch without reading its body (finding a fetch's first batch, truncation) or take() reads the
// whole batch (what a fetch returns, recovery). So a reader never reads more than it needs.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/disk.h"
#include "engine/record/record_batch.h"

namespace gregor::log {

class BatchScanner {
 public:
  enum class Step {
    kBatch,    // peek(): header() describes the next batch; take(): batch() holds it
    kEnd,      // clean end: the position reached `end`
    kTorn,     // the file ends inside a batch (or inside its header)
    kInvalid,  // a batch is malformed: bad length, magic or CRC
    kIoError,  // the disk failed; error() says how
  };

  // Scans [position, end) of the file at path, reading block_bytes at a time (at least what a
  // batch needs).
  BatchScanner(Disk& disk, std::string path, uint64_t position, uint64_t end, size_t block_bytes);

  Step peek();
  // After a kBatch peek: past the batch, unread. A batch that would end beyond `end` is kTorn.
  Step skip();
  // After a kBatch peek: the whole batch, its CRC checked when asked, unless these very bytes were
  // checked before (engine/record/checked_batches.h). A batch found good is remembered there when
  // its buffer is small enough to hold (a page of the simulator's disk, a small read): another
  // read of the same page, and in the simulator a follower's append of it, need not check it again.
  Step take(bool verify_crc);
  // peek() then take().
  Step next(bool verify_crc);

  const record::BatchHeader& header() const { return header_; }
  // The current batch's bytes after take(); valid until the scanner reads again.
  ByteView batch() const { return batch_; }
  // The same as a view of the buffer the disk returned, which stays valid.
  SharedBytes batch_shared() const { return buffer_.share(batch_); }
  uint64_t batch_position() const { return batch_position_; }
  // Where the next batch starts (after skip/take), or where the scan stopped.
  uint64_t position() const { return position_; }
  const Status& error() const { return error_; }
  // How much later refills read ahead (a fetch lowers it to what its byte budget can still take).
  void set_block_bytes(size_t block_bytes) { block_bytes_ = block_bytes; }

 private:
  // Makes [position_, position_ + n) available in buffer_; false when the file holds fewer bytes.
  bool ensure(uint64_t n);
  Step fail(Step step, const std::string& why);

  Disk& disk_;
  std::string path_;
  uint64_t position_;
  uint64_t end_;
  size_t block_bytes_;
  // What the last read returned: a view of the disk's page cache where it can share one
  // (Disk::read_shared), so a scan copies no bytes.
  SharedBytes buffer_;
  uint64_t buffer_start_ = 0;
  record::BatchHeader header_;
  bool peeked_ = false;
  ByteView batch_;
  uint64_t batch_position_ = 0;
  Status error_;
};

}  // namespace gregor::log
