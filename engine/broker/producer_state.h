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
//
// Transactions (KIP-98; Kafka's ProducerAppendInfo.append and appendEndTxnMarker): a transactional
// batch (attributes bit 4) opens the producer's transaction at its first offset unless one is open;
// a control batch (a COMMIT or ABORT marker, engine/record/control_record.h) closes it. While it is
// open, a non-transactional batch of that producer is INVALID_TXN_STATE. A marker with an epoch
// older than the producer's is INVALID_PRODUCER_EPOCH (Kafka 2.7+ answers so, not PRODUCER_FENCED),
// one with a coordinator epoch older than the last marker's is TRANSACTION_COORDINATOR_FENCED; a
// marker's newer epoch becomes the producer's (the coordinator bumped it), and the producer starts
// again at sequence 0. The open transactions give the last stable offset (LSO): the first offset of
// the earliest open transaction, or the high watermark when it is lower. Every aborted transaction
// goes to the aborted-transaction index of the marker's segment (producer id, first offset, marker
// offset, the LSO right after it: Kafka's AbortedTxn in a `.txnindex`, engine/log/transaction_index.h),
// which read_committed fetches read. Like the rest, all of it is rebuilt from the log, so a
// follower that becomes leader, or a broker that restarts, knows the open and aborted transactions.
//
// Snapshots (Kafka's ProducerStateManager.takeSnapshot, engine/log/producer_snapshot.h): the
// state is written to `<offset>.snapshot` when a segment rolls (the log calls take_snapshot through
// its roll hook) and at a clean shutdown. When the state starts over (the first look at a log
// after a restart, or after a truncation) it loads the latest snapshot at or below the log's
// recovery point and at or above its log start, and scans only the log after it. A snapshot that
// fails its CRC is reported (the problem callback), deleted and skipped: the next older one, or a
// scan of the whole log, takes its place. A snapshot keeps each producer's last batch only (as
// Kafka's does): after a restart a retry of that batch is still a duplicate, older ones are not.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <map>
#include <optional>
#include <vector>

#include "engine/log/log.h"
#include "engine/log/producer_snapshot.h"
#include "engine/protocol/errors.h"
#include "engine/record/control_record.h"
#include "engine/record/record_batch.h"

namespace gregor::broker {

inline constexpr size_t kProducerBatchesRetained = 5;  // ProducerStateEntry.NUM_BATCHES_TO_RETAIN
inline constexpr size_t kProducersPerPartitionMax = log::kProducerSnapshotEntriesMax;

struct ProducerBatch {
  int32_t first_sequence = 0;
  int32_t last_sequence = 0;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
};

struct ProducerEntry {
  int16_t epoch = -1;
  std::deque<ProducerBatch> batches;  // oldest first, at most kProducerBatchesRetained
  int32_t coordinator_epoch = -1;      // of the last marker (-1: none yet)
  int64_t last_timestamp = -1;         // the max timestamp of its last batch or marker
  std::optional<int64_t> current_txn_first_offset;  // its open transaction
};

// An aborted transaction (Kafka's AbortedTxn, what a .txnindex entry holds).
using AbortedTxn = log::AbortedTxn;

// A transaction a marker closed.
struct CompletedTxn {
  int64_t producer_id = 0;
  int64_t first_offset = 0;  // -1: the producer had no open transaction here
  int64_t marker_offset = 0;
  bool committed = false;
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
  // Checks a transaction marker about to be appended by the leader (WriteTxnMarkers).
  protocol::ErrorCode check_marker(log::Log& log, int64_t producer_id, int16_t producer_epoch,
                                   int32_t coordinator_epoch);
  // Records a batch the leader just appended at `first_offset` (`marker`: what a control batch
  // holds). An ABORT marker goes to the log's aborted-transaction index.
  void on_leader_append(log::Log& log, const record::BatchHeader& header, int64_t first_offset,
                        const std::optional<record::EndTxnMarker>& marker = std::nullopt);
  // Brings the state up to the log's end (a read-committed fetch, ListOffsets, DescribeProducers).
  Status catch_up_for_read(log::Log& log);
  // The first offset of the earliest open transaction (after catch_up_for_read).
  std::optional<int64_t> first_unstable_offset() const;
  // The log was truncated (or emptied): forget everything; the next check rebuilds from the log
  // (from its latest snapshot on).
  void on_truncate() { reset(); }

  // Brings the state up to the log's end and writes it to `<log end>.snapshot`.
  Status take_snapshot(log::Log& log);
  // The state as a snapshot holds it: one entry per producer, by producer id.
  std::vector<log::ProducerSnapshotEntry> snapshot_entries() const;
  // Told about a snapshot that was ignored (a CRC mismatch, a read error).
  void set_problem_listener(std::function<void(const std::string&)> listener) { problem_listener_ = std::move(listener); }
  // Where the state was last rebuilt from: the offset of the snapshot loaded (-1: none, the log
  // was scanned from its start), and how many batches catching up has scanned since.
  int64_t loaded_snapshot_offset() const { return loaded_snapshot_offset_; }
  int64_t batches_scanned() const { return batches_scanned_; }

  const std::map<int64_t, ProducerEntry>& producers() const { return producers_; }
  // The transaction the last marker recorded by on_leader_append closed, if it was a marker.
  const std::optional<CompletedTxn>& last_completed() const { return last_completed_; }
  int64_t scanned_to() const { return scanned_to_; }

 private:
  Status catch_up(log::Log& log);
  // An empty state: take the latest usable snapshot of `log`, if there is one.
  void load_snapshot(log::Log& log);
  void restore(const std::vector<log::ProducerSnapshotEntry>& entries);
  std::optional<CompletedTxn> apply(log::Log& log, const record::BatchHeader& header, int64_t first_offset,
                                    const std::optional<record::EndTxnMarker>& marker);
  void reset() {
    producers_.clear();
    ongoing_.clear();
    scanned_to_ = -1;
    last_scanned_.reset();
    loaded_snapshot_offset_ = -1;
  }
  void problem(const std::string& what) {
    if (problem_listener_) problem_listener_(what);
  }

  std::map<int64_t, ProducerEntry> producers_;
  std::map<int64_t, int64_t> ongoing_;  // first offset of each open transaction -> producer id
  int64_t scanned_to_ = -1;  // the log below this offset is reflected; -1: nothing yet
  // The last batch reflected (base offset, CRC): if the log no longer holds it, it was truncated.
  std::optional<std::pair<int64_t, uint32_t>> last_scanned_;
  std::optional<CompletedTxn> last_completed_;
  int64_t loaded_snapshot_offset_ = -1;
  int64_t batches_scanned_ = 0;
  std::function<void(const std::string&)> problem_listener_;
};


}  // namespace gregor::broker
