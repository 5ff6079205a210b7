#include "engine/log/corruption_evidence.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "engine/record/crc32c.h"
#include "engine/record/record_batch.h"

namespace gregor::log {
namespace {

using namespace record;

struct RawHeader {
  int64_t base_offset;
  int32_t batch_length;
  int8_t magic;
  uint32_t crc;
};

// The fields outside the CRC, read as they are (peek_batch_header rejects what is implausible).
RawHeader raw_header(ByteView at) {
  ByteReader r(at.first(kAttributesPosition));
  RawHeader h;
  h.base_offset = r.i64();
  h.batch_length = r.i32();
  (void)r.i32();  // partitionLeaderEpoch
  h.magic = r.i8();
  h.crc = r.u32();
  return h;
}

bool plausible_length(int64_t length) {
  return length >= static_cast<int64_t>(kBatchHeaderBytes - kLogOverhead) && length <= kBatchBytesMax;
}

// The CRC of the batch at `at` were its length `length`. REQUIRES: the batch fits in `at`.
uint32_t crc_with_length(ByteView at, int32_t length) {
  return crc32c(at.subspan(kAttributesPosition, kLogOverhead + static_cast<size_t>(length) - kAttributesPosition));
}

// A whole batch at the bad spot that one changed field outside the CRC (length, magic, base offset)
// explains: the CRC matches with the stored length or with a length one bit away from it.
std::string explained_header(ByteView tail, const RawHeader& h, int64_t expected_offset) {
  std::vector<int32_t> lengths{h.batch_length};
  for (int bit = 0; bit < 32; bit++) lengths.push_back(static_cast<int32_t>(static_cast<uint32_t>(h.batch_length) ^ (1u << bit)));
  for (int32_t length : lengths) {
    if (!plausible_length(length) || kLogOverhead + static_cast<uint64_t>(length) > tail.size()) continue;
    if (crc_with_length(tail, length) != h.crc) continue;
    if (length != h.batch_length)
      return "its length field reads " + std::to_string(h.batch_length) + " but one flipped bit (" +
             std::to_string(length) + ") makes it a whole batch with a matching CRC";
    if (h.magic != kMagicV2)
      return "a whole batch with a matching CRC but magic " + std::to_string(h.magic) + " (a flipped bit outside the CRC)";
    if (h.base_offset != expected_offset)
      return "a whole batch with a matching CRC but base offset " + std::to_string(h.base_offset) + " where " +
             std::to_string(expected_offset) + " was expected (a changed field outside the CRC)";
    return "a whole batch with a matching CRC";
  }
  return "";
}

// A whole batch at the bad spot whose CRC mismatch one flipped bit explains, that bit lying before
// what a torn write can garble.
std::string explained_bit_flip(ByteView tail, uint64_t bytes_to_file_end, const RawHeader& h) {
  if (!plausible_length(h.batch_length) || kLogOverhead + static_cast<uint64_t>(h.batch_length) > tail.size()) return "";
  const uint32_t computed = crc_with_length(tail, h.batch_length);
  if (computed == h.crc) return "";
  if (std::popcount(computed ^ h.crc) == 1) return "one flipped bit in its stored CRC explains the mismatch";
  const uint64_t covered = kLogOverhead + static_cast<uint64_t>(h.batch_length) - kAttributesPosition;
  const auto bit = crc32c_single_bit_error(h.crc, computed, covered);
  if (!bit) return "";
  const uint64_t byte = kAttributesPosition + *bit / 8;
  if (bytes_to_file_end - byte <= kTornWriteBytesMax) return "";
  return "one flipped bit, at byte " + std::to_string(byte) + " of the batch (" + std::to_string(bytes_to_file_end - byte) +
         " bytes before the end of the file), explains its CRC mismatch";
}

// A whole batch with a matching CRC anywhere after the bad spot, its base offset not below the
// expected one.
std::string batch_after(ByteView tail, int64_t expected_offset) {
  for (uint64_t at = 1; at + kBatchHeaderBytes <= tail.size(); at++) {
    if (static_cast<int8_t>(tail[at + kMagicPosition]) != kMagicV2) continue;
    const ByteView here = tail.subspan(at);
    const RawHeader h = raw_header(here);
    if (!plausible_length(h.batch_length) || kLogOverhead + static_cast<uint64_t>(h.batch_length) > here.size()) continue;
    if (h.base_offset < expected_offset || h.base_offset - expected_offset > INT32_MAX) continue;
    if (crc_with_length(here, h.batch_length) != h.crc) continue;
    return "a whole batch with a matching CRC (offset " + std::to_string(h.base_offset) + ") follows it " +
           std::to_string(at) + " bytes later";
  }
  return "";
}

}  // namespace

std::string corruption_evidence(ByteView from_bad_batch, uint64_t bytes_to_file_end, int64_t expected_offset) {
  GREGOR_ASSERT(from_bad_batch.size() <= bytes_to_file_end);
  if (from_bad_batch.size() < kBatchHeaderBytes) return "";  // not even a header: the end of the file is torn
  const RawHeader h = raw_header(from_bad_batch);
  std::string why = explained_header(from_bad_batch, h, expected_offset);
  if (why.empty()) why = explained_bit_flip(from_bad_batch, bytes_to_file_end, h);
  if (why.empty()) why = batch_after(from_bad_batch, expected_offset);
  return why;
}

}  // namespace gregor::log
