#include "engine/log/batch_scanner.h"

#include <algorithm>

namespace gregor::log {

BatchScanner::BatchScanner(Disk& disk, std::string path, uint64_t position, uint64_t end, size_t block_bytes)
    : disk_(disk), path_(std::move(path)), position_(position), end_(end), block_bytes_(std::max<size_t>(block_bytes, 4096)) {
  GREGOR_ASSERT(position <= end);
}

bool BatchScanner::ensure(uint64_t n) {
  if (position_ + n > end_) return false;
  if (position_ >= buffer_start_ && position_ + n <= buffer_start_ + buffer_.size()) return true;
  const uint64_t want = std::min<uint64_t>(std::max<uint64_t>(n, block_bytes_), end_ - position_);
  auto data = disk_.read(path_, position_, static_cast<size_t>(want));
  if (!data) {
    error_ = data.status();
    return false;
  }
  buffer_ = std::move(*data);
  buffer_start_ = position_;
  return buffer_.size() >= n;
}

BatchScanner::Step BatchScanner::next(bool verify_crc) {
  batch_ = {};
  batch_position_ = position_;
  if (position_ >= end_) return Step::kEnd;
  auto fail = [&](Step step, const std::string& why) {
    if (error_.is_ok())
      error_ = Status::error(step == Step::kIoError ? StatusCode::kIoError : StatusCode::kCorruption,
                             path_ + " at byte " + std::to_string(position_) + ": " + why);
    return step;
  };
  if (!ensure(record::kLogOverhead)) {
    if (!error_.is_ok()) return Step::kIoError;
    return fail(Step::kTorn, "file ends inside a batch's length field");
  }
  ByteReader length_reader(ByteView(buffer_).subspan(position_ - buffer_start_ + record::kBatchLengthPosition, 4));
  const int32_t batch_length = length_reader.i32();
  if (batch_length < static_cast<int32_t>(record::kBatchHeaderBytes - record::kLogOverhead) ||
      batch_length > record::kBatchBytesMax)
    return fail(Step::kInvalid, "implausible batch length " + std::to_string(batch_length));
  const uint64_t size = record::kLogOverhead + static_cast<uint64_t>(batch_length);
  if (!ensure(size)) {
    if (!error_.is_ok()) return Step::kIoError;
    return fail(Step::kTorn, "file ends inside a batch of " + std::to_string(size) + " bytes");
  }
  ByteView bytes = ByteView(buffer_).subspan(position_ - buffer_start_, size);
  auto header = record::parse_batch_header(bytes, verify_crc);
  if (!header) return fail(Step::kInvalid, header.status().message());
  header_ = *header;
  batch_ = bytes;
  position_ += size;
  return Step::kBatch;
}

}  // namespace gregor::log
