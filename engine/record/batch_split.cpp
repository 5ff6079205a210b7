#include "engine/record/batch_split.h"

#include <string>

namespace gregor::record {
namespace {
// Batches a Fetch response's records usually hold at most: room for them from the start.
constexpr size_t kBatchesReserved = 8;
}  // namespace

Result<SplitBatches> split_batches(ByteView records, bool verify_crc) {
  SplitBatches out;
  out.batches.reserve(kBatchesReserved);
  size_t position = 0;
  while (position < records.size()) {
    if (out.batches.size() >= kBatchesPerBlobMax)
      return Status::error(StatusCode::kCorruption, "more than " + std::to_string(kBatchesPerBlobMax) + " batches");
    ByteView rest = records.subspan(position);
    auto header = parse_batch_header(rest, verify_crc);
    if (!header) {
      if (header.status().code() == StatusCode::kOutOfRange) {
        out.truncated_tail_bytes = rest.size();
        break;
      }
      return Status::error(header.status().code(),
                           "at byte " + std::to_string(position) + ": " + header.status().message());
    }
    out.batches.push_back(BatchView{*header, rest.subspan(0, header->size_bytes())});
    position += header->size_bytes();
  }
  return out;
}

}  // namespace gregor::record
