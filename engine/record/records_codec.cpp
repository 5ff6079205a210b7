#include <algorithm>

#include "engine/record/record.h"

#include "engine/record/compression.h"
#include "engine/record/record_scan.h"

namespace gregor::record {
namespace {

// The smallest record: length, attributes, timestampDelta, offsetDelta, keyLength, valueLength and
// headersCount, one byte each.
constexpr size_t kRecordBytesMin = 7;

Status malformed(const BatchHeader& h, int index, const char* what) {
  return Status::error(StatusCode::kCorruption, "batch at offset " + std::to_string(h.base_offset) +
                                                    ", record " + std::to_string(index) + ": " + what);
}

// Reads a length-prefixed field: -1 means null, anything below is malformed.
bool read_nullable(ByteReader& r, std::optional<Bytes>* out, bool want) {
  const int32_t n = r.varint();
  if (!r.ok() || n < -1) return false;
  if (n == -1) {
    if (want) out->reset();
    return true;
  }
  ByteView v = r.raw(static_cast<size_t>(n));
  if (!r.ok()) return false;
  if (want) *out = Bytes(v.begin(), v.end());
  return true;
}

// Walks the records (`region`: the batch's records, uncompressed); fills `out` when it is not null,
// and `scan` when it is not null.
Status walk_records(ByteView region, const BatchHeader& h, std::vector<Record>* out, RecordsScan* scan = nullptr) {
  ByteReader r(region);
  if (out) out->reserve(std::min<size_t>(static_cast<size_t>(h.record_count), r.remaining() / kRecordBytesMin));
  int64_t previous_delta = -1;
  for (int i = 0; i < h.record_count; i++) {
    const int32_t length = r.varint();
    if (!r.ok() || length < 0 || static_cast<size_t>(length) > r.remaining())
      return malformed(h, i, "bad record length");
    ByteReader body(r.raw(static_cast<size_t>(length)));
    Record record;
    body.i8();  // attributes: unused in v2
    const int64_t timestamp_delta = body.varlong();
    const int32_t offset_delta = body.varint();
    if (!body.ok()) return malformed(h, i, "truncated record");
    if (offset_delta <= previous_delta || offset_delta > h.last_offset_delta)
      return malformed(h, i, "offset delta out of order or past lastOffsetDelta");
    previous_delta = offset_delta;
    if (!read_nullable(body, &record.key, out != nullptr)) return malformed(h, i, "bad key");
    if (!read_nullable(body, &record.value, out != nullptr)) return malformed(h, i, "bad value");
    const int32_t header_count = body.varint();
    if (!body.ok() || header_count < 0 || static_cast<size_t>(header_count) * 2 > body.remaining())
      return malformed(h, i, "bad header count");
    for (int j = 0; j < header_count; j++) {
      const int32_t key_length = body.varint();
      if (!body.ok() || key_length < 0) return malformed(h, i, "bad header key");
      ByteView key = body.raw(static_cast<size_t>(key_length));
      RecordHeader header;
      if (!read_nullable(body, &header.value, out != nullptr)) return malformed(h, i, "bad header value");
      if (out) {
        header.key = to_string(key);
        record.headers.push_back(std::move(header));
      }
    }
    if (!body.ok() || !body.at_end()) return malformed(h, i, "record length does not match its fields");
    if (scan) {
      if (scan->first_gap < 0 && offset_delta != i) {
        scan->first_gap = i;
        scan->gap_delta = offset_delta;
      }
      scan->max_timestamp =
          std::max(scan->max_timestamp, h.is_log_append_time() ? h.max_timestamp : h.base_timestamp + timestamp_delta);
    }
    if (out) {
      record.offset = h.base_offset + offset_delta;
      record.timestamp = h.is_log_append_time() ? h.max_timestamp : h.base_timestamp + timestamp_delta;
      out->push_back(std::move(record));
    }
  }
  if (!r.ok() || !r.at_end())
    return Status::error(StatusCode::kCorruption, "batch at offset " + std::to_string(h.base_offset) +
                                                      ": bytes left after recordCount records");
  return Status::ok();
}

// The records of a batch, decompressed when the codec bits say so: a view of the batch itself, or of
// `storage`.
Result<ByteView> records_region(ByteView batch, const BatchHeader& h, Bytes& storage) {
  ByteView region = batch.subspan(kRecordsPosition, h.size_bytes() - kRecordsPosition);
  if (h.compression() == 0) return region;
  if (!is_known_compression(h.compression()))
    return Status::error(StatusCode::kCorruption, "batch at offset " + std::to_string(h.base_offset) + ": unknown codec " +
                                                      std::to_string(h.compression()));
  auto inflated = decompress(static_cast<CompressionType>(h.compression()), region);
  if (!inflated)
    return Status::error(StatusCode::kCorruption,
                         "batch at offset " + std::to_string(h.base_offset) + ": " + inflated.status().message());
  storage = std::move(*inflated);
  return as_view(storage);
}

}  // namespace

Result<std::vector<Record>> decode_records(ByteView batch) {
  auto header = parse_batch_header(batch, true);
  if (!header) return header.status();
  Bytes storage;
  auto region = records_region(batch, *header, storage);
  if (!region) return region.status();
  std::vector<Record> records;
  GREGOR_RETURN_IF_ERROR(walk_records(*region, *header, &records));
  return records;
}

Status validate_records(ByteView batch, const BatchHeader& header) {
  GREGOR_ASSERT(batch.size() >= header.size_bytes());
  Bytes storage;
  auto region = records_region(batch, header, storage);
  if (!region) return region.status();
  return walk_records(*region, header, nullptr);
}

Result<RecordsScan> scan_records(ByteView batch, const BatchHeader& header) {
  GREGOR_ASSERT(batch.size() >= header.size_bytes());
  Bytes storage;
  auto region = records_region(batch, header, storage);
  if (!region) return region.status();
  RecordsScan scan;
  GREGOR_RETURN_IF_ERROR(walk_records(*region, header, nullptr, &scan));
  return scan;
}

}  // namespace gregor::record
