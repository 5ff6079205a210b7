#include "engine/broker/producer_state.h"

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
      if (b.header.producer_id >= 0 && !b.header.is_control()) apply(b.header, b.header.base_offset);
      from = b.header.next_offset();
      last_scanned_ = std::make_pair(b.header.base_offset, b.header.crc);
    }
  }
  scanned_to_ = std::max(from, end);
  return Status::ok();
}

void ProducerStateManager::apply(const record::BatchHeader& h, int64_t first_offset) {
  if (producers_.size() >= kProducersPerPartitionMax && !producers_.count(h.producer_id)) {
    // Forget the smallest producer id to make room (Kafka expires idle producers instead).
    producers_.erase(producers_.begin());
  }
  ProducerEntry& e = producers_[h.producer_id];
  if (h.producer_epoch != e.epoch) {
    e.epoch = h.producer_epoch;
    e.batches.clear();
  }
  ProducerBatch b;
  b.first_sequence = h.base_sequence;
  b.last_sequence = last_sequence_of(h);
  b.first_offset = first_offset;
  b.last_offset = first_offset + h.last_offset_delta;
  e.batches.push_back(b);
  while (e.batches.size() > kProducerBatchesRetained) e.batches.pop_front();
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
  } else if (!e.batches.empty() && !in_sequence(e.batches.back().last_sequence, h.base_sequence)) {
    out.error = ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER;
  }
  return out;
}

void ProducerStateManager::on_leader_append(const record::BatchHeader& h, int64_t first_offset) {
  // Only when the state is current up to this append; otherwise the next check scans it.
  if (scanned_to_ != first_offset) return;
  if (h.producer_id >= 0) apply(h, first_offset);
  scanned_to_ = first_offset + h.last_offset_delta + 1;
  last_scanned_ = std::make_pair(first_offset, h.crc);
}

}  // namespace gregor::broker
