#include "engine/log/log_validator.h"

#include <algorithm>

#include "engine/record/batch_builder.h"
#include "engine/record/compression.h"
#include "engine/record/legacy_records.h"
#include "engine/record/record.h"
#include "engine/record/record_scan.h"

namespace gregor::log {
namespace {

using record::CompressionType;

BatchValidation refuse(BatchError error, std::string detail) {
  BatchValidation v;
  v.error = error;
  v.detail = std::move(detail);
  return v;
}

// The codec a batch is stored with: compression.type, or the producer's for "producer".
CompressionType target_codec(const LogConfig& config, CompressionType source) {
  if (config.compression_type == "producer") return source;
  if (config.compression_type == "uncompressed") return CompressionType::kNone;
  CompressionType t = CompressionType::kNone;
  GREGOR_ASSERT_MSG(record::parse_compression_name(config.compression_type, &t), "compression.type passed validation");
  return t;
}

// `crc_known`: the batch's CRC was checked already or computed here, so it is not checked again.
BatchValidation finish(SharedBytes batch, const LogConfig& config, bool crc_known = false) {
  if (batch.size() > static_cast<size_t>(config.max_message_bytes))
    return refuse(BatchError::kMessageTooLarge, "batch of " + std::to_string(batch.size()) + " bytes as stored, max.message.bytes is " +
                                                    std::to_string(config.max_message_bytes));
  auto header = record::parse_batch_header(as_view(batch), !crc_known);
  GREGOR_ASSERT_MSG(header.is_ok(), "a batch the validator built must parse");
  BatchValidation v;
  v.batch = ValidatedBatch{std::move(batch), *header};
  return v;
}

int64_t max_timestamp_of(const std::vector<record::Record>& records) {
  int64_t max = record::kNoTimestamp;
  for (const record::Record& r : records) max = std::max(max, r.timestamp);
  return max;
}

BatchValidation validate_v2(SharedBytes records, int16_t produce_version, const LogConfig& config, int64_t append_time_ms) {
  auto parsed = record::parse_batch_header(as_view(records), true);
  if (!parsed) return refuse(BatchError::kCorruptMessage, "produced batch: " + parsed.status().message());
  const record::BatchHeader header = *parsed;
  if (records.size() != header.size_bytes())
    return refuse(BatchError::kInvalidRecord, "a produce request must carry exactly one batch per partition");
  if (records.size() > static_cast<size_t>(config.max_message_bytes))
    return refuse(BatchError::kMessageTooLarge, "batch of " + std::to_string(records.size()) + " bytes, max.message.bytes is " +
                                                    std::to_string(config.max_message_bytes));
  if (header.record_count <= 0 || static_cast<int64_t>(header.last_offset_delta) + 1 != header.record_count)
    return refuse(BatchError::kInvalidRecord, "recordCount " + std::to_string(header.record_count) +
                                                  " does not match lastOffsetDelta " + std::to_string(header.last_offset_delta));
  if (header.is_control()) return refuse(BatchError::kInvalidRecord, "a client may not produce a control batch");
  if (!record::is_known_compression(header.compression()))
    return refuse(BatchError::kCorruptMessage, "unknown codec " + std::to_string(header.compression()));
  const auto source = static_cast<CompressionType>(header.compression());
  if (source == CompressionType::kZstd && produce_version < kProduceVersionZstdMin)
    return refuse(BatchError::kUnsupportedCompressionType,
                  "zstd needs Produce v" + std::to_string(kProduceVersionZstdMin) + ", the request is v" + std::to_string(produce_version));
  // The records are checked and measured without being built; they are built only to recompress.
  auto scanned = record::scan_records(as_view(records), header);
  if (!scanned) return refuse(BatchError::kCorruptMessage, scanned.status().message());
  // The producer writes offset deltas 0, 1, 2, ...; the leader assigns the base.
  if (scanned->first_gap >= 0)
    return refuse(BatchError::kInvalidRecord, "record " + std::to_string(scanned->first_gap) + " has offset delta " +
                                                  std::to_string(scanned->gap_delta));

  const bool log_append_time = config.log_append_time();
  const CompressionType target = target_codec(config, source);
  // LogAppendTime: the append time; CreateTime: the largest record timestamp (the header's may be -1
  // or wrong; Kafka recomputes it).
  int64_t max_timestamp = log_append_time ? append_time_ms : scanned->max_timestamp;
  if (target != source) {
    // Recompressed with the topic's codec: the records are written anew, the producer's identity kept.
    auto decoded = record::decode_records(as_view(records));
    GREGOR_ASSERT_MSG(decoded.is_ok(), "a batch that scanned must decode");
    record::BatchBuildOptions options;
    options.partition_leader_epoch = header.partition_leader_epoch;
    options.attributes = static_cast<int16_t>(header.attributes & record::kTransactionalFlagMask);
    options.compression = target;
    options.producer_id = header.producer_id;
    options.producer_epoch = header.producer_epoch;
    options.base_sequence = header.base_sequence;
    if (header.is_log_append_time())
      for (record::Record& r : *decoded) r.timestamp = header.base_timestamp;  // deltas were meaningless
    records = SharedBytes(record::build_batch(options, *decoded));
    if (!log_append_time) max_timestamp = max_timestamp_of(*decoded);
  }
  auto rebuilt = record::peek_batch_header(as_view(records));
  GREGOR_ASSERT(rebuilt.is_ok());
  if (rebuilt->max_timestamp != max_timestamp || rebuilt->is_log_append_time() != log_append_time) {
    // The one rewrite of a produced v2 batch in place (a new CRC): on a copy, since the produced
    // bytes are shared with the request frame. A batch that needs none is appended as it came.
    Bytes rewritten = records.to_bytes();
    record::set_max_timestamp(rewritten, max_timestamp, log_append_time);
    records = SharedBytes(std::move(rewritten));
  }
  return finish(std::move(records), config, true);
}

BatchValidation convert_legacy(const SharedBytes& records, const LogConfig& config, int64_t append_time_ms) {
  auto set = record::parse_legacy_message_set(as_view(records));
  if (!set)
    return refuse(set.status().code() == StatusCode::kCorruption ? BatchError::kCorruptMessage : BatchError::kInvalidRecord,
                  set.status().message());
  if (records.size() > static_cast<size_t>(config.max_message_bytes))
    return refuse(BatchError::kMessageTooLarge, "message set of " + std::to_string(records.size()) +
                                                    " bytes, max.message.bytes is " + std::to_string(config.max_message_bytes));
  if (set->records.size() > static_cast<size_t>(INT32_MAX))
    return refuse(BatchError::kInvalidRecord, "too many messages");
  const bool log_append_time = config.log_append_time();
  record::BatchBuildOptions options;
  options.compression = target_codec(config, set->compression);
  std::vector<record::Record> converted = std::move(set->records);
  for (record::Record& r : converted) {
    r.offset = 0;  // assigned on append
    r.headers.clear();
  }
  Bytes batch = record::build_batch(options, converted);
  const int64_t max_timestamp = log_append_time ? append_time_ms : max_timestamp_of(converted);
  if (log_append_time) record::set_max_timestamp(batch, max_timestamp, true);
  return finish(SharedBytes(std::move(batch)), config);
}

}  // namespace

BatchValidation validate_produced_records(SharedBytes records, int16_t produce_version, const LogConfig& config,
                                          int64_t append_time_ms) {
  auto magic = record::peek_magic(as_view(records));
  if (!magic) return refuse(BatchError::kCorruptMessage, "produced records: " + magic.status().message());
  if (*magic == record::kMagicV2) return validate_v2(std::move(records), produce_version, config, append_time_ms);
  if (produce_version >= kProduceVersionMagicV2Min)
    return refuse(BatchError::kInvalidRecord, "Produce v" + std::to_string(produce_version) +
                                                  " must carry record batches of magic 2, not magic " + std::to_string(*magic));
  if (*magic != record::kMagicV0 && *magic != record::kMagicV1)
    return refuse(BatchError::kCorruptMessage, "unknown magic " + std::to_string(*magic));
  return convert_legacy(records, config, append_time_ms);
}

}  // namespace gregor::log
