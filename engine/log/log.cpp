#include "engine/log/log.h"

#include <algorithm>
#include <cstring>

#include "engine/log/checkpoint_file.h"
#include "engine/log/log_validator.h"
#include "engine/record/batch_split.h"
#include "engine/record/record.h"

namespace gregor::log {

const char* log_event_kind_name(LogEvent::Kind kind) {
  switch (kind) {
    case LogEvent::Kind::kSegmentRolled: return "segment_rolled";
    case LogEvent::Kind::kSegmentDeleted: return "segment_deleted";
    case LogEvent::Kind::kTruncated: return "truncated";
    case LogEvent::Kind::kFlushed: return "flushed";
    case LogEvent::Kind::kLogStartOffsetChanged: return "log_start_offset_changed";
    case LogEvent::Kind::kCorruptionDetected: return "corruption_detected";
  }
  return "?";
}

void Log::emit(LogEvent::Kind kind, Offset offset, std::string detail) {
  if (listener_) listener_(LogEvent{kind, offset, std::move(detail)});
}

size_t Log::floor_segment(Offset offset) const {
  auto after = std::upper_bound(segments_.begin(), segments_.end(), offset,
                                [](Offset o, const std::unique_ptr<LogSegment>& s) { return o < s->base_offset(); });
  return after == segments_.begin() ? 0 : static_cast<size_t>(after - segments_.begin()) - 1;
}

Status Log::update_config(const LogConfig& config) {
  GREGOR_RETURN_IF_ERROR(config.validate());
  config_ = config;
  return Status::ok();
}

Status Log::write_recovery_point(Offset offset) {
  if (checkpointed_recovery_point_ == offset) return Status::ok();
  GREGOR_RETURN_IF_ERROR(disk_.write_file_atomic(path(kRecoveryPointCheckpointFile),
                                                 as_view(format_offset_checkpoint(topic_, partition_, offset.value))));
  checkpointed_recovery_point_ = offset;
  return Status::ok();
}

Status Log::write_log_start_offset(Offset offset) {
  if (checkpointed_log_start_offset_ == offset) return Status::ok();
  GREGOR_RETURN_IF_ERROR(disk_.write_file_atomic(path(kLogStartOffsetCheckpointFile),
                                                 as_view(format_offset_checkpoint(topic_, partition_, offset.value))));
  checkpointed_log_start_offset_ = offset;
  return Status::ok();
}

Status Log::set_log_start_offset(Offset offset) {
  GREGOR_ASSERT(offset <= log_end_offset());
  if (offset == log_start_offset_) return Status::ok();
  log_start_offset_ = offset;
  GREGOR_RETURN_IF_ERROR(write_log_start_offset(offset));
  GREGOR_RETURN_IF_ERROR(epoch_cache_.truncate_from_start(offset));
  emit(LogEvent::Kind::kLogStartOffsetChanged, offset);
  return Status::ok();
}

// ---- appends ----------------------------------------------------------------------------------

const char* batch_error_name(BatchError e) {
  switch (e) {
    case BatchError::kNone: return "NONE";
    case BatchError::kCorruptMessage: return "CORRUPT_MESSAGE";
    case BatchError::kMessageTooLarge: return "MESSAGE_TOO_LARGE";
    case BatchError::kInvalidRecord: return "INVALID_RECORD";
    case BatchError::kUnsupportedCompressionType: return "UNSUPPORTED_COMPRESSION_TYPE";
  }
  return "?";
}

BatchValidation Log::validate_leader_batch(SharedBytes records, int16_t produce_version, int64_t append_time_ms) const {
  return validate_produced_records(std::move(records), produce_version, config_, append_time_ms);
}

Result<AppendInfo> Log::append_validated(ValidatedBatch batch, LeaderEpoch epoch, Time now) {
  GREGOR_ASSERT(epoch.value >= 0);
  GREGOR_ASSERT(batch.bytes.size() == batch.header.size_bytes());
  record::BatchHeader& header = batch.header;
  const Offset base = log_end_offset();
  // The batch's bytes are shared (the request frame), so the two fields the leader assigns are
  // patched in a copy of the first 16 bytes, and the segment gets that head and the untouched rest
  // (neither field is under the CRC, which starts at the attributes).
  constexpr size_t kPatchedHeadBytes = record::kPartitionLeaderEpochPosition + 4;
  static_assert(kPatchedHeadBytes <= record::kCrcPosition);
  uint8_t head[kPatchedHeadBytes];
  std::memcpy(head, batch.bytes.data(), kPatchedHeadBytes);
  record::set_base_offset(head, base.value);
  record::set_partition_leader_epoch(head, epoch.value);
  header.base_offset = base.value;
  header.partition_leader_epoch = epoch.value;
  // The epoch cache learns of a new epoch before its first batch is appended, as in Kafka.
  GREGOR_RETURN_IF_ERROR(epoch_cache_.assign(epoch, base));
  const ByteView parts[] = {ByteView(head, kPatchedHeadBytes), batch.bytes.view().subspan(kPatchedHeadBytes)};
  GREGOR_RETURN_IF_ERROR(append_batch(std::span<const ByteView>(parts), header, now));
  GREGOR_RETURN_IF_ERROR(maybe_flush(now));
  return AppendInfo{base, Offset{header.last_offset()}, header.record_count, header.max_timestamp};
}

Result<AppendInfo> Log::append_as_leader(Bytes batch, LeaderEpoch epoch, Time now) {
  BatchValidation v = validate_leader_batch(std::move(batch), kProduceVersionLatest, now.ms());
  if (v.error != BatchError::kNone)
    return Status::error(v.error == BatchError::kCorruptMessage ? StatusCode::kCorruption : StatusCode::kInvalidArgument,
                         v.detail);
  return append_validated(std::move(v.batch), epoch, now);
}

Result<AppendInfo> Log::append_as_follower(ByteView batches, Time now) {
  auto split = record::split_batches(batches, true);
  if (!split) return split.status();
  AppendInfo info{log_end_offset(), log_end_offset() - 1, 0, record::kNoTimestamp};
  if (split->batches.empty()) return info;
  // Everything is checked before anything is appended.
  Offset expected = log_end_offset();
  for (const record::BatchView& b : split->batches) {
    if (b.header.base_offset != expected.value)
      return Status::error(StatusCode::kInvalidArgument, "follower batch at offset " + std::to_string(b.header.base_offset) +
                                                             " where " + std::to_string(expected.value) + " was expected");
    if (b.header.last_offset() - b.header.base_offset > INT32_MAX)
      return Status::error(StatusCode::kInvalidArgument, "batch offset range too large");
    expected = Offset{b.header.next_offset()};
  }
  for (const record::BatchView& b : split->batches) {
    if (b.header.partition_leader_epoch >= 0)
      GREGOR_RETURN_IF_ERROR(epoch_cache_.assign(LeaderEpoch{b.header.partition_leader_epoch}, Offset{b.header.base_offset}));
    GREGOR_RETURN_IF_ERROR(append_batch(b.bytes, b.header, now));
    info.last_offset = Offset{b.header.last_offset()};
    info.record_count += b.header.record_count;
    info.max_timestamp = std::max(info.max_timestamp, b.header.max_timestamp);
  }
  GREGOR_RETURN_IF_ERROR(maybe_flush(now));
  return info;
}

Status Log::append_batch(std::span<const ByteView> parts, const record::BatchHeader& header, Time now) {
  if (active().should_roll(header, config_, now)) GREGOR_RETURN_IF_ERROR(roll(now));
  return active().append(parts, header, now);
}

Status Log::roll(Time now) {
  GREGOR_ASSERT(active().size_bytes() > 0);
  const Offset base = log_end_offset();
  GREGOR_RETURN_IF_ERROR(active().on_become_inactive());
  auto segment = LogSegment::create(disk_, dir_, base, config_, now);
  if (!segment) return segment.status();
  // Kafka flushes a segment once it is rolled, so recovery only ever rescans the active segment.
  for (size_t i = floor_segment(recovery_point_); i < segments_.size(); i++) GREGOR_RETURN_IF_ERROR(segments_[i]->flush());
  segments_.push_back(std::move(*segment));
  recovery_point_ = base;
  GREGOR_RETURN_IF_ERROR(write_recovery_point(base));
  emit(LogEvent::Kind::kSegmentRolled, base);
  if (roll_hook_) roll_hook_(base);
  return Status::ok();
}

// ---- reads ------------------------------------------------------------------------------------

Result<ReadResult> Log::read(Offset from, size_t max_bytes, Offset max_offset, bool as_files) {
  const Offset log_end = log_end_offset();
  if (from < log_start_offset_ || from > log_end)
    return Status::error(StatusCode::kOutOfRange, "offset " + std::to_string(from.value) + " is outside [" +
                                                      std::to_string(log_start_offset_.value) + ", " +
                                                      std::to_string(log_end.value) + "]");
  ReadResult result{{}, log_start_offset_, log_end, {}, 0};
  if (from == log_end || from >= max_offset) return result;
  const size_t first = floor_segment(from);
  // Segment by segment from the one holding `from`, until one stops at a limit.
  auto each_segment = [&](auto&& read_segment) -> Result<ReadResult> {
    for (size_t i = first; i < segments_.size(); i++) {
      auto more = read_segment(*segments_[i]);
      if (!more) {
        if (more.status().code() == StatusCode::kCorruption)
          emit(LogEvent::Kind::kCorruptionDetected, from, more.status().message());
        return more.status();
      }
      if (!*more) break;
    }
    return std::move(result);
  };
  if (as_files) {
    auto file = segments_[first]->open_file();
    if (!file) return file.status();
    if (*file)
      return each_segment([&](const LogSegment& s) {
        return s.read_file_slice(from, max_bytes, max_offset, result.files, result.files_bytes);
      });
  }
  // Views of the disk's buffers: a read within one of them (a follower's fetch of the latest
  // batches, in the simulator a view of the page cache) copies nothing.
  RecordsGather gather;
  auto done = each_segment([&](const LogSegment& s) { return s.read(from, max_bytes, max_offset, gather); });
  if (done) done->records = gather.take();
  return done;
}

// ---- flushing ---------------------------------------------------------------------------------

Status Log::flush() {
  const Offset log_end = log_end_offset();
  if (recovery_point_ == log_end) return Status::ok();
  for (size_t i = floor_segment(recovery_point_); i < segments_.size(); i++) GREGOR_RETURN_IF_ERROR(segments_[i]->flush());
  recovery_point_ = log_end;
  GREGOR_RETURN_IF_ERROR(write_recovery_point(log_end));
  emit(LogEvent::Kind::kFlushed, log_end);
  return Status::ok();
}

Status Log::maybe_flush(Time now) {
  const int64_t unflushed = log_end_offset() - recovery_point_;
  if (unflushed <= 0) return Status::ok();
  if (unflushed >= config_.flush_messages || now.ms() - last_flush_time_.ms() >= config_.flush_ms) {
    GREGOR_RETURN_IF_ERROR(flush());
    last_flush_time_ = now;
  }
  return Status::ok();
}

// ---- truncation -------------------------------------------------------------------------------

Status Log::truncate_to(Offset offset) {
  if (offset.value < 0) return Status::error(StatusCode::kInvalidArgument, "truncate_to a negative offset");
  if (offset >= log_end_offset()) return Status::ok();
  if (offset < segments_.front()->base_offset()) return truncate_fully_and_start_at(offset);
  const size_t keep = floor_segment(offset);
  auto new_end = segments_[keep]->next_offset_after_truncation(offset);
  if (!new_end) return new_end.status();
  // The recovery point comes down first, durably: a checkpoint must never claim data that a
  // later power loss could take.
  if (recovery_point_ > *new_end) {
    recovery_point_ = *new_end;
    GREGOR_RETURN_IF_ERROR(write_recovery_point(*new_end));
  }
  while (segments_.size() > keep + 1) {
    const Offset base = segments_.back()->base_offset();
    GREGOR_RETURN_IF_ERROR(segments_.back()->remove_files());
    segments_.pop_back();
    emit(LogEvent::Kind::kSegmentDeleted, base, "truncation");
  }
  auto removed = segments_[keep]->truncate_to(offset);
  if (!removed) return removed.status();
  const Offset log_end = log_end_offset();
  GREGOR_ASSERT(log_end == *new_end);
  GREGOR_RETURN_IF_ERROR(epoch_cache_.truncate_from_end(log_end));
  GREGOR_RETURN_IF_ERROR(delete_producer_snapshots_above(log_end));
  if (log_start_offset_ > log_end) GREGOR_RETURN_IF_ERROR(set_log_start_offset(log_end));
  emit(LogEvent::Kind::kTruncated, log_end);
  return Status::ok();
}

Status Log::truncate_fully_and_start_at(Offset offset) {
  if (offset.value < 0) return Status::error(StatusCode::kInvalidArgument, "truncate_fully_and_start_at a negative offset");
  GREGOR_RETURN_IF_ERROR(write_recovery_point(offset));
  GREGOR_RETURN_IF_ERROR(write_log_start_offset(offset));
  recovery_point_ = offset;
  // Every snapshot describes data that is gone (Kafka deletes them all here too).
  GREGOR_RETURN_IF_ERROR(delete_producer_snapshots_above(Offset{-1}));
  // From the newest segment down, so that a crash half way leaves a log that ends early (which
  // opening finishes truncating) rather than one with a hole.
  while (!segments_.empty()) {
    const Offset base = segments_.back()->base_offset();
    GREGOR_RETURN_IF_ERROR(segments_.back()->remove_files());
    segments_.pop_back();
    emit(LogEvent::Kind::kSegmentDeleted, base, "truncation");
  }
  auto segment = LogSegment::create(disk_, dir_, offset, config_, last_flush_time_);
  if (!segment) return segment.status();
  segments_.push_back(std::move(*segment));
  log_start_offset_ = offset;
  GREGOR_RETURN_IF_ERROR(epoch_cache_.clear());
  emit(LogEvent::Kind::kTruncated, offset);
  emit(LogEvent::Kind::kLogStartOffsetChanged, offset);
  return Status::ok();
}

Status Log::maybe_increment_log_start_offset(Offset offset) {
  if (offset <= log_start_offset_) return Status::ok();
  if (offset > log_end_offset())
    return Status::error(StatusCode::kOutOfRange, "log start offset " + std::to_string(offset.value) +
                                                      " beyond the log end offset " +
                                                      std::to_string(log_end_offset().value));
  return set_log_start_offset(offset);
}

// ---- retention --------------------------------------------------------------------------------

Status Log::delete_segment_front(const char* reason) {
  GREGOR_ASSERT(segments_.size() > 1);
  const Offset base = segments_.front()->base_offset();
  GREGOR_RETURN_IF_ERROR(segments_.front()->remove_files());
  segments_.erase(segments_.begin());
  emit(LogEvent::Kind::kSegmentDeleted, base, reason);
  return Status::ok();
}

Result<int> Log::apply_retention(Time now, Offset high_watermark) {
  int deleted = 0;
  // Deletes from the oldest segment while `breached` holds; never the active segment, never one
  // holding offsets at or above the high watermark.
  auto delete_while = [&](const char* reason, auto breached) -> Status {
    while (segments_.size() > 1 && segments_[1]->base_offset() <= high_watermark && breached(*segments_[0])) {
      GREGOR_RETURN_IF_ERROR(delete_segment_front(reason));
      deleted++;
    }
    return Status::ok();
  };
  // Kafka's order: log start offset, retention.bytes, retention.ms.
  GREGOR_RETURN_IF_ERROR(delete_while("log-start-offset", [&](const LogSegment&) {
    return segments_[1]->base_offset() <= log_start_offset_;
  }));
  if (config_.retention_bytes >= 0) {
    int64_t total = 0;
    for (const auto& s : segments_) total += static_cast<int64_t>(s->size_bytes());
    int64_t excess = total - config_.retention_bytes;
    GREGOR_RETURN_IF_ERROR(delete_while("retention.bytes", [&](const LogSegment& s) {
      if (excess - static_cast<int64_t>(s.size_bytes()) < 0) return false;
      excess -= static_cast<int64_t>(s.size_bytes());
      return true;
    }));
  }
  if (config_.retention_ms >= 0) {
    GREGOR_RETURN_IF_ERROR(delete_while("retention.ms", [&](const LogSegment& s) {
      return now.ms() - s.largest_timestamp_ms() > config_.retention_ms;
    }));
  }
  if (log_start_offset_ < segments_.front()->base_offset())
    GREGOR_RETURN_IF_ERROR(set_log_start_offset(segments_.front()->base_offset()));
  return deleted;
}

// ---- transactions -----------------------------------------------------------------------------

Status Log::append_aborted_txn(const AbortedTxn& txn) {
  GREGOR_ASSERT(txn.last_offset < log_end_offset().value);
  if (txn.last_offset < segments_.front()->base_offset().value) return Status::ok();
  LogSegment& s = *segments_[floor_segment(Offset{txn.last_offset})];
  const auto& entries = s.txn_index().entries();
  if (!entries.empty() && entries.back().last_offset >= txn.last_offset) return Status::ok();
  GREGOR_RETURN_IF_ERROR(s.txn_index().append(txn));
  if (Offset{txn.last_offset} < recovery_point_) GREGOR_RETURN_IF_ERROR(s.txn_index().flush());
  return Status::ok();
}

std::vector<AbortedTxn> Log::collect_aborted_transactions(Offset from, Offset upto) const {
  std::vector<AbortedTxn> out;
  // A transaction aborted at or after `from` has its marker in the segment holding `from` or later.
  for (size_t i = floor_segment(from); i < segments_.size(); i++) {
    if (segments_[i]->txn_index().collect(from.value, upto.value, out)) break;
  }
  return out;
}

Result<std::vector<Offset>> Log::producer_snapshot_offsets() {
  auto names = disk_.list(dir_);
  if (!names) return names.status();
  std::vector<Offset> out;
  for (const std::string& name : *names)
    if (auto offset = parse_segment_file_name(name, kProducerSnapshotSuffix)) out.push_back(*offset);
  std::sort(out.begin(), out.end());
  return out;
}

Result<Bytes> Log::read_producer_snapshot(Offset offset) {
  return disk_.read_all(path(segment_file_name(offset, kProducerSnapshotSuffix)));
}

Status Log::write_producer_snapshot(Offset offset, ByteView bytes) {
  GREGOR_RETURN_IF_ERROR(disk_.write_file_atomic(path(segment_file_name(offset, kProducerSnapshotSuffix)), bytes));
  auto offsets = producer_snapshot_offsets();
  if (!offsets) return offsets.status();
  for (size_t i = 0; i + kProducerSnapshotsRetained < offsets->size(); i++)
    GREGOR_RETURN_IF_ERROR(delete_producer_snapshot((*offsets)[i]));
  return Status::ok();
}

Status Log::delete_producer_snapshot(Offset offset) {
  Status s = disk_.remove(path(segment_file_name(offset, kProducerSnapshotSuffix)));
  if (!s.is_ok() && s.code() != StatusCode::kNotFound) return s;
  return Status::ok();
}

Status Log::delete_producer_snapshots_above(Offset offset) {
  auto offsets = producer_snapshot_offsets();
  if (!offsets) return offsets.status();
  for (Offset o : *offsets)
    if (o > offset) GREGOR_RETURN_IF_ERROR(delete_producer_snapshot(o));
  return Status::ok();
}

std::vector<SegmentInfo> Log::segments() const {
  std::vector<SegmentInfo> out;
  out.reserve(segments_.size());
  for (size_t i = 0; i < segments_.size(); i++) out.push_back(segments_[i]->info(i + 1 == segments_.size()));
  return out;
}

}  // namespace gregor::log
