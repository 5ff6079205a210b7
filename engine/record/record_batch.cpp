#include "engine/record/record_batch.h"

#include <bit>
#include <cstring>
#include <string>
#include <type_traits>

#include "engine/record/checked_batches.h"
#include "engine/record/crc32c.h"

namespace gregor::record {
namespace {

// The big-endian integer of sizeof(T) bytes at p (the caller has checked they are there).
template <typename T>
T load_be(const uint8_t* p) {
  using U = std::make_unsigned_t<T>;
  U v;
  std::memcpy(&v, p, sizeof(U));  // one load; the byte loop is not folded into one by the compiler
  if constexpr (std::endian::native == std::endian::little) {
    if constexpr (sizeof(U) == 8)
      v = __builtin_bswap64(v);
    else if constexpr (sizeof(U) == 4)
      v = __builtin_bswap32(v);
    else
      v = __builtin_bswap16(v);
  }
  return static_cast<T>(v);
}

}  // namespace

uint32_t compute_batch_crc(ByteView batch) {
  GREGOR_ASSERT(batch.size() >= kBatchHeaderBytes);
  ByteReader r(batch.subspan(kBatchLengthPosition, 4));
  const int32_t batch_length = r.i32();
  GREGOR_ASSERT(batch_length >= 0 && kLogOverhead + static_cast<size_t>(batch_length) <= batch.size());
  return crc32c(batch.subspan(kAttributesPosition, kLogOverhead + static_cast<size_t>(batch_length) -
                                                       kAttributesPosition));
}

Result<BatchHeader> peek_batch_header(ByteView header_bytes) {
  if (header_bytes.size() < kBatchHeaderBytes)
    return Status::error(StatusCode::kOutOfRange, "batch header truncated to " + std::to_string(header_bytes.size()) + " bytes");
  // Fixed positions, read straight from the bytes (the scans of the log and of fetched data read
  // every batch's header; a ByteReader checks the bounds of each field).
  const uint8_t* b = header_bytes.data();
  BatchHeader h;
  h.base_offset = load_be<int64_t>(b);
  h.batch_length = load_be<int32_t>(b + 8);
  h.partition_leader_epoch = load_be<int32_t>(b + 12);
  h.magic = static_cast<int8_t>(b[16]);
  h.crc = load_be<uint32_t>(b + 17);
  h.attributes = load_be<int16_t>(b + 21);
  h.last_offset_delta = load_be<int32_t>(b + 23);
  h.base_timestamp = load_be<int64_t>(b + 27);
  h.max_timestamp = load_be<int64_t>(b + 35);
  h.producer_id = load_be<int64_t>(b + 43);
  h.producer_epoch = load_be<int16_t>(b + 51);
  h.base_sequence = load_be<int32_t>(b + 53);
  h.record_count = load_be<int32_t>(b + 57);
  static_assert(kBatchHeaderBytes == 61);
  if (h.batch_length < static_cast<int32_t>(kBatchHeaderBytes - kLogOverhead) || h.batch_length > kBatchBytesMax)
    return Status::error(StatusCode::kCorruption, "batch length " + std::to_string(h.batch_length) +
                                                      " outside [49, " + std::to_string(kBatchBytesMax) + "]");
  if (h.magic != kMagicV2)
    return Status::error(StatusCode::kCorruption, "unsupported magic " + std::to_string(h.magic));
  if (h.record_count < 0 || h.last_offset_delta < 0)
    return Status::error(StatusCode::kCorruption, "negative record count or last offset delta");
  return h;
}

Result<BatchHeader> parse_batch_header(ByteView batch, bool verify_crc) {
  if (batch.size() < kLogOverhead)
    return Status::error(StatusCode::kOutOfRange, "batch shorter than its length field");
  // The length first: a batch cut short is kOutOfRange even when its header is cut too, so that a
  // fetch response's partial last batch is told apart from a malformed one.
  ByteReader length_reader(batch.subspan(kBatchLengthPosition, 4));
  const int32_t batch_length = length_reader.i32();
  if (batch_length < static_cast<int32_t>(kBatchHeaderBytes - kLogOverhead) || batch_length > kBatchBytesMax)
    return Status::error(StatusCode::kCorruption, "batch length " + std::to_string(batch_length) +
                                                      " outside [49, " + std::to_string(kBatchBytesMax) + "]");
  const size_t size = kLogOverhead + static_cast<size_t>(batch_length);
  if (batch.size() < size)
    return Status::error(StatusCode::kOutOfRange, "batch of " + std::to_string(size) + " bytes truncated to " +
                                                      std::to_string(batch.size()));
  auto h = peek_batch_header(batch);
  if (!h) return h.status();
  if (verify_crc && !checked_before(batch.first(size))) {
    const uint32_t actual = compute_batch_crc(batch);
    if (actual != h->crc)
      return Status::error(StatusCode::kCorruption, "batch at offset " + std::to_string(h->base_offset) +
                                                        ": crc " + std::to_string(h->crc) + " stored, " +
                                                        std::to_string(actual) + " computed");
  }
  return h;
}

void set_max_timestamp(Bytes& batch, int64_t max_timestamp, bool log_append_time) {
  GREGOR_ASSERT(batch.size() >= kBatchHeaderBytes);
  ByteReader r(ByteView(batch).subspan(kAttributesPosition, 2));
  int16_t attributes = r.i16();
  attributes = static_cast<int16_t>(log_append_time ? (attributes | kTimestampTypeMask) : (attributes & ~kTimestampTypeMask));
  put_be(batch.data() + kAttributesPosition, static_cast<uint16_t>(attributes), 2);
  put_be(batch.data() + kMaxTimestampPosition, static_cast<uint64_t>(max_timestamp), 8);
  put_be(batch.data() + kCrcPosition, compute_batch_crc(as_view(batch)), 4);
}

void set_producer_state(Bytes& batch, int64_t producer_id, int16_t producer_epoch, int32_t base_sequence) {
  GREGOR_ASSERT(batch.size() >= kBatchHeaderBytes);
  put_be(batch.data() + kProducerIdPosition, static_cast<uint64_t>(producer_id), 8);
  put_be(batch.data() + kProducerEpochPosition, static_cast<uint16_t>(producer_epoch), 2);
  put_be(batch.data() + kBaseSequencePosition, static_cast<uint32_t>(base_sequence), 4);
  put_be(batch.data() + kCrcPosition, compute_batch_crc(as_view(batch)), 4);
}

void set_base_offset(uint8_t* batch, int64_t base_offset) {
  put_be(batch + kBaseOffsetPosition, static_cast<uint64_t>(base_offset), 8);
}

void set_partition_leader_epoch(uint8_t* batch, int32_t epoch) {
  put_be(batch + kPartitionLeaderEpochPosition, static_cast<uint32_t>(epoch), 4);
}

void set_base_offset(Bytes& batch, int64_t base_offset) {
  GREGOR_ASSERT(batch.size() >= kBatchHeaderBytes);
  set_base_offset(batch.data(), base_offset);
}

void set_partition_leader_epoch(Bytes& batch, int32_t epoch) {
  GREGOR_ASSERT(batch.size() >= kBatchHeaderBytes);
  set_partition_leader_epoch(batch.data(), epoch);
}

}  // namespace gregor::record
