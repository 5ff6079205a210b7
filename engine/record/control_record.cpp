#include "engine/record/control_record.h"

#include <vector>

#include "engine/record/batch_builder.h"
#include "engine/record/record.h"

namespace gregor::record {

Bytes build_end_txn_marker_batch(int64_t producer_id, int16_t producer_epoch, const EndTxnMarker& marker,
                                 int64_t timestamp_ms) {
  ByteWriter key;
  key.i16(kControlKeyVersion);
  key.i16(static_cast<int16_t>(marker.type));
  ByteWriter value;
  value.i16(kEndTxnMarkerValueVersion);
  value.i32(marker.coordinator_epoch);
  Record r;
  r.timestamp = timestamp_ms;
  r.key = key.take();
  r.value = value.take();
  BatchBuildOptions o;
  o.attributes = static_cast<int16_t>(kControlFlagMask | kTransactionalFlagMask);
  o.producer_id = producer_id;
  o.producer_epoch = producer_epoch;
  o.base_sequence = kNoSequence;
  return build_batch(o, std::vector<Record>{std::move(r)});
}

Result<EndTxnMarker> parse_end_txn_marker(ByteView batch) {
  auto header = parse_batch_header(batch, false);
  if (!header) return header.status();
  if (!header->is_control()) return Status::error(StatusCode::kCorruption, "not a control batch");
  auto records = decode_records(batch);
  if (!records) return records.status();
  if (records->size() != 1) return Status::error(StatusCode::kCorruption, "a control batch holds " + std::to_string(records->size()) + " records");
  const Record& r = records->front();
  if (!r.key || !r.value) return Status::error(StatusCode::kCorruption, "a control record without key or value");
  ByteReader k(as_view(*r.key));
  const int16_t key_version = k.i16();
  const int16_t type = k.i16();
  if (!k.ok() || key_version < 0) return Status::error(StatusCode::kCorruption, "malformed control record key");
  ByteReader v(as_view(*r.value));
  const int16_t value_version = v.i16();
  const int32_t coordinator_epoch = v.i32();
  if (!v.ok() || value_version < 0) return Status::error(StatusCode::kCorruption, "malformed end transaction marker value");
  if (type != static_cast<int16_t>(ControlType::kAbort) && type != static_cast<int16_t>(ControlType::kCommit))
    return Status::error(StatusCode::kInvalidArgument, "control record type " + std::to_string(type));
  return EndTxnMarker{static_cast<ControlType>(type), coordinator_epoch};
}

}  // namespace gregor::record
