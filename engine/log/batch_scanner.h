// BatchScanner: walks the batches of a segment file from a position, reading in blocks.
//
// Every read path of the log goes through it (fetch, truncation, recovery), so the checks live in
// one place: a batch must fit inside the file, have a plausible length, magic 2 and (when asked) a
// matching CRC. The scanner does not know about offsets; callers check continuity.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/disk.h"
#include "engine/record/record_batch.h"

namespace gregor::log {

class BatchScanner {
 public:
  enum class Step {
    kBatch,    // header() and batch() describe the next batch
    kEnd,      // clean end: the position reached `end`
    kTorn,     // the file ends inside a batch (or inside its length field)
    kInvalid,  // a batch is malformed: bad length, magic or CRC
    kIoError,  // the disk failed; error() says how
  };

  // Scans [position, end) of the file at path. block_bytes: how much to read at a time (a batch
  // larger than a block is read whole).
  BatchScanner(Disk& disk, std::string path, uint64_t position, uint64_t end, size_t block_bytes);

  Step next(bool verify_crc);

  const record::BatchHeader& header() const { return header_; }
  // The current batch's bytes; valid until the next call of next().
  ByteView batch() const { return batch_; }
  uint64_t batch_position() const { return batch_position_; }
  // Where the next batch starts (after kBatch), or where the scan stopped.
  uint64_t position() const { return position_; }
  const Status& error() const { return error_; }

 private:
  // Makes [position_, position_ + n) available in buffer_; false when the file holds fewer bytes.
  bool ensure(uint64_t n);

  Disk& disk_;
  std::string path_;
  uint64_t position_;
  uint64_t end_;
  size_t block_bytes_;
  Bytes buffer_;
  uint64_t buffer_start_ = 0;
  record::BatchHeader header_;
  ByteView batch_;
  uint64_t batch_position_ = 0;
  Status error_;
};

}  // namespace gregor::log
