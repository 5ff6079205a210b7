#include "engine/log/batch_scanner.h"

#include <algorithm>

#include "engine/record/checked_batches.h"

namespace gregor::log {

BatchScanner::BatchScanner(Disk& disk, std::string path, uint64_t position, uint64_t end, size_t block_bytes)
    : disk_(disk), path_(std::move(path)), position_(position), end_(end), block_bytes_(block_bytes) {
  GREGOR_ASSERT(position <= end);
}

bool BatchScanner::ensure(uint64_t n) {
  if (position_ + n > end_) return false;
  if (position_ >= buffer_start_ && position_ + n <= buffer_start_ + buffer_.size()) return true;
  const uint64_t want = std::min<uint64_t>(std::max<uint64_t>(n, block_bytes_), end_ - position_);
  auto data = disk_.read_shared(path_, position_, static_cast<size_t>(want));
  if (!data) {
    error_ = data.status();
    return false;
  }
  buffer_ = std::move(*data);
  buffer_start_ = position_;
  return buffer_.size() >= n;
}

BatchScanner::Step BatchScanner::fail(Step step, const std::string& why) {
  if (error_.is_ok())
    error_ = Status::error(step == Step::kIoError ? StatusCode::kIoError : StatusCode::kCorruption,
                           path_ + " at byte " + std::to_string(position_) + ": " + why);
  return step;
}

BatchScanner::Step BatchScanner::peek() {
  batch_ = {};
  peeked_ = false;
  batch_position_ = position_;
  if (position_ >= end_) return Step::kEnd;
  if (!ensure(record::kBatchHeaderBytes)) {
    if (!error_.is_ok()) return Step::kIoError;
    return fail(Step::kTorn, "file ends inside a batch header");
  }
  auto header = record::peek_batch_header(buffer_.view().subspan(position_ - buffer_start_));
  if (!header) return fail(Step::kInvalid, header.status().message());
  header_ = *header;
  peeked_ = true;
  return Step::kBatch;
}

BatchScanner::Step BatchScanner::skip() {
  GREGOR_ASSERT(peeked_);
  peeked_ = false;
  if (position_ + header_.size_bytes() > end_)
    return fail(Step::kTorn, "file ends inside a batch of " + std::to_string(header_.size_bytes()) + " bytes");
  position_ += header_.size_bytes();
  return Step::kBatch;
}

BatchScanner::Step BatchScanner::take(bool verify_crc) {
  GREGOR_ASSERT(peeked_);
  peeked_ = false;
  const uint64_t size = header_.size_bytes();
  if (!ensure(size)) {
    if (!error_.is_ok()) return Step::kIoError;
    return fail(Step::kTorn, "file ends inside a batch of " + std::to_string(size) + " bytes");
  }
  ByteView bytes = buffer_.view().subspan(position_ - buffer_start_, size);
  if (verify_crc && !record::checked_before(bytes)) {
    if (record::compute_batch_crc(bytes) != header_.crc)
      return fail(Step::kInvalid, "batch at offset " + std::to_string(header_.base_offset) + " fails its CRC");
    record::remember_checked(buffer_.share(bytes), buffer_.size());
  }
  batch_ = bytes;
  position_ += size;
  return Step::kBatch;
}

BatchScanner::Step BatchScanner::next(bool verify_crc) {
  const Step step = peek();
  if (step != Step::kBatch) return step;
  return take(verify_crc);
}

}  // namespace gregor::log
