// ProducerStateManager: the idempotent-producer state of one partition (KIP-98; Kafka's
// ProducerStateManager and ProducerAppendInfo), kept by the partition's leader.
//
// For every producer id it remembers the producer epoch and the last 5 batches appended
// (first/last sequence, first/last offset). A produce batch with a producer id is checked before
// it is appended:
//   - a duplicate of one of those 5 batches (same epoch, same first and last sequence) is not
//     appended again; it is acknowledged with the offsets the original got;
//   - an older epoch is INVALID_PRODUCER_EPOCH;
//   - a new epoch must start at sequence 0, and within an epoch a batch must continue the last
//     sequence (last + 1, wrapping at INT32_MAX), or it is OUT_OF_ORDER_SEQUENCE_NUMBER;
//   - a producer the partition has never seen may start at any sequence (Kafka accepts it: its
//     state may have been removed by retention).
//
// The state is rebuilt from the log, not replicated separately: before checking, the manager
// scans whatever the log gained since it last looked (a follower's appends, or everything after a
// restart), so a new leader after failover knows every producer's last batches and still
// recognises a retried batch as a duplicate. A truncation of the log must be reported
// (on_truncate, as Kafka's truncateAndReload): the state starts over from the log start. Without
// it a truncated batch stays "appended": a replica that loses its tail and leads again would
// acknowledge a retry of a batch it no longer has as a duplicate (a lost acks=all write, found by
// the swarm). catch_up also starts over when the last batch it scanned is gone, as a second line.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>

#include "engine/log/log.h"
#include "engine/protocol/errors.h"
#include "engine/record/record_batch.h"

namespace gregor::broker {

inline constexpr size_t kProducerBatchesRetained = 5;  // ProducerStateEntry.NUM_BATCHES_TO_RETAIN
inline constexpr size_t kProducersPerPartitionMax = 100000;

struct ProducerBatch {
  int32_t first_sequence = 0;
  int32_t last_sequence = 0;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
};

struct ProducerEntry {
  int16_t epoch = -1;
  std::deque<ProducerBatch> batches;  // oldest first, at most kProducerBatchesRetained
};

struct ProducerCheck {
  protocol::ErrorCode error = protocol::ErrorCode::NONE;
  std::optional<ProducerBatch> duplicate;  // set: acknowledge with these offsets, do not append
};

class ProducerStateManager {
 public:
  // Brings the state up to the log's end, then checks `header` (a batch about to be appended by the
  // leader). A scan failure (a read error) is KAFKA_STORAGE_ERROR.
  ProducerCheck check_leader_append(log::Log& log, const record::BatchHeader& header);
  // Records a batch the leader just appended at `first_offset`.
  void on_leader_append(const record::BatchHeader& header, int64_t first_offset);
  // The log was truncated (or emptied): forget everything; the next check rebuilds from the log.
  void on_truncate() { reset(); }

  const std::map<int64_t, ProducerEntry>& producers() const { return producers_; }
  int64_t scanned_to() const { return scanned_to_; }

 private:
  Status catch_up(log::Log& log);
  void apply(const record::BatchHeader& header, int64_t first_offset);
  void reset() {
    producers_.clear();
    scanned_to_ = -1;
    last_scanned_.reset();
  }

  std::map<int64_t, ProducerEntry> producers_;
  int64_t scanned_to_ = -1;  // the log below this offset is reflected; -1: nothing yet
  // The last batch reflected (base offset, CRC): if the log no longer holds it, it was truncated.
  std::optional<std::pair<int64_t, uint32_t>> last_scanned_;
};

}  // namespace gregor::broker
