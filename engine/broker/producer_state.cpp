#include "engine/broker/producer_state.h"

#include <algorithm>

#include "engine/record/batch_split.h"

namespace gregor::broker {

using protocol::ErrorCode;

namespace {
constexpr size_t kScanReadBytes = 1 << 20;

int32_t last_sequence_of(const record::BatchHeader& h) {
  // Sequences wrap at INT32_MAX (DefaultRecordBatch.incrementSequence).
  const int64_t last = static_cast<int64_t>(h.base_sequence) + h.last_offset_delta;
  return static_cast<int32_t>(last > INT32_MAX ? last - INT32_MAX - 1 : last);
}

bool in_sequence(int32_t last, int32_t next) {
  return next == (last == INT32_MAX ? 0 : last + 1);
}
}  // namespace

Status ProducerStateManager::catch_up(log::Log& log) {
  const int64_t start = log.log_start_offset().value;
  const int64_t end = log.log_end_offset().value;
  if (last_scanned_) {
    // Still the same history? The last batch scanned must still be where it was.
    bool same = false;
    if (last_scanned_->first >= start && last_scanned_->first < end) {
      auto read = log.read(Offset{last_scanned_->first}, 1, Offset{end});
      if (read && !read->records.empty()) {
        auto h = record::parse_batch_header(as_view(read->records), false);
        same = h && h->base_offset == last_scanned_->first && h->crc == last_scanned_->second;
      }
    }
    if (!same || scanned_to_ > end) reset();
  } else if (scanned_to_ > end) {
    reset();
  }
  // Starting over: from the latest usable snapshot rather than the log start, when there is one.
  if (scanned_to_ < 0 && !last_scanned_) load_snapshot(log);
  int64_t from = std::max(scanned_to_, start);
  while (from < end) {
    auto read = log.read(Offset{from}, kScanReadBytes, Offset{end});
    if (!read) return read.status();
    if (read->records.empty()) break;
    auto split = record::split_batches(as_view(read->records), false);
    if (!split) return split.status();
    if (split->batches.empty()) break;
    for (const auto& b : split->batches) {
      if (b.header.next_offset() <= from) continue;
      batches_scanned_++;
      if (b.header.producer_id >= 0) {
        if (!b.header.is_control()) {
          apply(log, b.header, b.header.base_offset, std::nullopt);
        } else if (auto marker = record::parse_end_txn_marker(b.bytes); marker.is_ok()) {
          apply(log, b.header, b.header.base_offset, *marker);
        }
        // A control batch of an unknown type changes nothing (Kafka skips it too).
      }
      from = b.header.next_offset();
      last_scanned_ = std::make_pair(b.header.base_offset, b.header.crc);
    }
  }
  scanned_to_ = std::max(from, end);
  return Status::ok();
}

void ProducerStateManager::load_snapshot(log::Log& log) {
  auto offsets = log.producer_snapshot_offsets();
  if (!offsets) {
    problem("cannot list producer snapshots: " + offsets.status().to_string());
    return;
  }
  const Offset usable_max = std::min(log.recovery_point(), log.log_end_offset());
  for (auto it = offsets->rbegin(); it != offsets->rend(); ++it) {
    const Offset offset = *it;
    if (offset > usable_max) continue;
    // Below the log start the log cannot continue it: transactions it holds open may have ended in
    // what retention deleted.
    if (offset < log.log_start_offset()) break;
    auto bytes = log.read_producer_snapshot(offset);
    Result<std::vector<log::ProducerSnapshotEntry>> entries =
        bytes ? log::decode_producer_snapshot(as_view(*bytes)) : Result<std::vector<log::ProducerSnapshotEntry>>(bytes.status());
    if (!entries) {
      problem(log.dir() + "/" + log::segment_file_name(offset, log::kProducerSnapshotSuffix) +
              " ignored: " + entries.status().to_string());
      if (entries.status().code() == StatusCode::kCorruption) (void)log.delete_producer_snapshot(offset);
      continue;
    }
    restore(*entries);
    scanned_to_ = offset.value;
    loaded_snapshot_offset_ = offset.value;
    return;
  }
}

void ProducerStateManager::restore(const std::vector<log::ProducerSnapshotEntry>& entries) {
  producers_.clear();
  ongoing_.clear();
  last_scanned_.reset();
  for (const log::ProducerSnapshotEntry& s : entries) {
    ProducerEntry& e = producers_[s.producer_id];
    e.epoch = s.epoch;
    e.coordinator_epoch = s.coordinator_epoch;
    e.last_timestamp = s.timestamp;
    if (s.last_offset >= 0) {
      ProducerBatch b;
      const int64_t first = static_cast<int64_t>(s.last_sequence) - s.offset_delta;
      b.first_sequence = static_cast<int32_t>(first < 0 ? first + INT32_MAX + 1 : first);
      b.last_sequence = s.last_sequence;
      b.first_offset = s.last_offset - s.offset_delta;
      b.last_offset = s.last_offset;
      e.batches.push_back(b);
    }
    if (s.current_txn_first_offset >= 0) {
      e.current_txn_first_offset = s.current_txn_first_offset;
      ongoing_[s.current_txn_first_offset] = s.producer_id;
    }
  }
}

std::vector<log::ProducerSnapshotEntry> ProducerStateManager::snapshot_entries() const {
  std::vector<log::ProducerSnapshotEntry> out;
  out.reserve(producers_.size());
  for (const auto& [id, e] : producers_) {
    log::ProducerSnapshotEntry s;
    s.producer_id = id;
    s.epoch = e.epoch;
    if (!e.batches.empty()) {
      const ProducerBatch& b = e.batches.back();
      s.last_sequence = b.last_sequence;
      s.last_offset = b.last_offset;
      s.offset_delta = static_cast<int32_t>(b.last_offset - b.first_offset);
    }
    s.timestamp = e.last_timestamp;
    s.coordinator_epoch = e.coordinator_epoch;
    s.current_txn_first_offset = e.current_txn_first_offset.value_or(-1);
    out.push_back(s);
  }
  return out;
}

Status ProducerStateManager::take_snapshot(log::Log& log) {
  GREGOR_RETURN_IF_ERROR(catch_up(log));
  GREGOR_ASSERT(scanned_to_ == log.log_end_offset().value);
  return log.write_producer_snapshot(Offset{scanned_to_}, as_view(log::encode_producer_snapshot(snapshot_entries())));
}

Status ProducerStateManager::catch_up_for_read(log::Log& log) {
  // The leader keeps the state current as it appends (on_leader_append); when nothing was appended
  // since, there is nothing to read. A truncation resets the state (on_truncate).
  if (last_scanned_ && scanned_to_ == log.log_end_offset().value) return Status::ok();
  return catch_up(log);
}

std::optional<int64_t> ProducerStateManager::first_unstable_offset() const {
  if (ongoing_.empty()) return std::nullopt;
  return ongoing_.begin()->first;
}

ErrorCode ProducerStateManager::check_marker(log::Log& log, int64_t producer_id, int16_t producer_epoch,
                                             int32_t coordinator_epoch) {
  if (!catch_up(log).is_ok()) return ErrorCode::KAFKA_STORAGE_ERROR;
  auto it = producers_.find(producer_id);
  if (it == producers_.end()) return ErrorCode::NONE;
  if (producer_epoch < it->second.epoch) return ErrorCode::INVALID_PRODUCER_EPOCH;
  if (coordinator_epoch < it->second.coordinator_epoch) return ErrorCode::TRANSACTION_COORDINATOR_FENCED;
  return ErrorCode::NONE;
}

std::optional<CompletedTxn> ProducerStateManager::apply(log::Log& log, const record::BatchHeader& h, int64_t first_offset,
                                                        const std::optional<record::EndTxnMarker>& marker) {
  if (producers_.size() >= kProducersPerPartitionMax && !producers_.count(h.producer_id)) {
    // Forget the smallest producer id to make room (Kafka expires idle producers instead).
    producers_.erase(producers_.begin());
  }
  ProducerEntry& e = producers_[h.producer_id];
  if (h.producer_epoch != e.epoch) {
    e.epoch = h.producer_epoch;
    e.batches.clear();
  }
  e.last_timestamp = h.max_timestamp;
  if (h.is_control()) {
    GREGOR_ASSERT(marker.has_value());
    CompletedTxn done{h.producer_id, -1, first_offset, marker->type == record::ControlType::kCommit};
    e.coordinator_epoch = marker->coordinator_epoch;
    if (e.current_txn_first_offset) {
      done.first_offset = *e.current_txn_first_offset;
      ongoing_.erase(*e.current_txn_first_offset);
      e.current_txn_first_offset.reset();
      if (!done.committed) {
        // Kafka's lastStableOffset(completedTxn): the first offset of the earliest transaction still
        // open, else just after the marker.
        const int64_t lso = ongoing_.empty() ? first_offset + 1 : ongoing_.begin()->first;
        // An index that cannot be written (a full disk) leaves this transaction out of
        // read_committed fetches' lists: reported, as Kafka would fail the append instead.
        Status s = log.append_aborted_txn(AbortedTxn{h.producer_id, done.first_offset, first_offset, lso});
        if (!s.is_ok()) problem("aborted-transaction index of " + log.dir() + ": " + s.to_string());
      }
    }
    return done;
  }
  if (h.is_transactional() && !e.current_txn_first_offset) {
    e.current_txn_first_offset = first_offset;
    ongoing_[first_offset] = h.producer_id;
  }
  ProducerBatch b;
  b.first_sequence = h.base_sequence;
  b.last_sequence = last_sequence_of(h);
  b.first_offset = first_offset;
  b.last_offset = first_offset + h.last_offset_delta;
  e.batches.push_back(b);
  while (e.batches.size() > kProducerBatchesRetained) e.batches.pop_front();
  return std::nullopt;
}

ProducerCheck ProducerStateManager::check_leader_append(log::Log& log, const record::BatchHeader& h) {
  ProducerCheck out;
  if (h.producer_id < 0) return out;
  if (!catch_up(log).is_ok()) {
    out.error = ErrorCode::KAFKA_STORAGE_ERROR;
    return out;
  }
  auto it = producers_.find(h.producer_id);
  if (it == producers_.end()) return out;  // unknown producer: any sequence starts it
  const ProducerEntry& e = it->second;
  const int32_t last_seq = last_sequence_of(h);
  if (h.producer_epoch == e.epoch)
    for (const auto& b : e.batches)
      if (b.first_sequence == h.base_sequence && b.last_sequence == last_seq) {
        out.duplicate = b;
        return out;
      }
  if (h.producer_epoch < e.epoch) {
    out.error = ErrorCode::INVALID_PRODUCER_EPOCH;
  } else if (h.producer_epoch > e.epoch) {
    if (h.base_sequence != 0) out.error = ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER;
  } else if (e.batches.empty()) {
    // Only a marker leaves an epoch without batches: it bumped the epoch, so sequences restart at 0.
    if (h.base_sequence != 0) out.error = ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER;
  } else if (!in_sequence(e.batches.back().last_sequence, h.base_sequence)) {
    out.error = ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER;
  }
  // A plain batch from a producer whose transaction is open (ProducerAppendInfo: "Expected
  // transactional write from producer").
  if (out.error == ErrorCode::NONE && !h.is_transactional() && e.current_txn_first_offset)
    out.error = ErrorCode::INVALID_TXN_STATE;
  return out;
}

void ProducerStateManager::on_leader_append(log::Log& log, const record::BatchHeader& h, int64_t first_offset,
                                            const std::optional<record::EndTxnMarker>& marker) {
  last_completed_.reset();
  // Only when the state is current up to this append; otherwise the next check scans it.
  if (scanned_to_ != first_offset) return;
  if (h.producer_id >= 0 && (!h.is_control() || marker)) last_completed_ = apply(log, h, first_offset, marker);
  scanned_to_ = first_offset + h.last_offset_delta + 1;
  last_scanned_ = std::make_pair(first_offset, h.crc);
}

}  // namespace gregor::broker
