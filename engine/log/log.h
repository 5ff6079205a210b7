// Log: one partition's replica log, in a directory named `<topic>-<partition>` as Kafka names it.
//
// The directory holds segments (`<20-digit base offset>.log`, `.index`, `.timeindex`, and a
// `.txnindex` once a transaction was aborted in the segment; see log_segment.h and
// transaction_index.h), producer-state snapshots (`<20-digit offset>.snapshot`, producer_snapshot.h),
// the `leader-epoch-checkpoint`, and two offset checkpoints of Gregor's (Kafka keeps
// them per log root): `recovery-point-checkpoint` (all data below this offset was fsynced) and
// `log-start-offset-checkpoint`.
//
// Offsets: the log holds [log_start_offset, log_end_offset) without gaps. A leader append assigns
// base offset = log end offset (LEO) and stamps the partition leader epoch; a follower append
// keeps the leader's offsets and epochs, which must continue at LEO.
//
// Durability (Kafka's model): nothing is fsynced per append by default (flush.messages and flush.ms
// are Long.MAX); a segment is fsynced when it rolls, and flush() fsyncs everything. The recovery
// point is the offset below which everything is fsynced; it is checkpointed after each flush.
// Truncation is fsynced at once, so removed batches cannot come back after a power loss.
//
// Recovery (open after a crash or power loss): segments from the one holding the recovery point on
// are rescanned, each batch validated (length, magic, CRC, offset continuity); the first bad byte at
// or above the recovery point ends the log (a torn tail, cut off; later segments are deleted). A bad
// byte below the recovery point is fsynced data gone bad: open fails with kCorruption and the report
// says where, rather than silently dropping data that may be committed (or, with
// OpenOptions::repair_corruption, the log ends before it and the report says it is damaged). A bad
// batch above the recovery point that good batches follow is no torn tail either: it is cut off
// like one, and the report says the log is damaged. Reads check every returned
// batch's CRC, so corruption anywhere is reported, never served.
//
// The log never reads a clock (time comes in as `now`) and emits nothing itself; an optional
// listener hears about rolls, deletions, truncations, flushes and corruption.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/disk.h"
#include "engine/core/types.h"
#include "engine/log/leader_epoch_cache.h"
#include "engine/log/log_config.h"
#include "engine/log/log_segment.h"
#include "engine/log/log_types.h"
#include "engine/log/log_validator.h"
#include "engine/log/producer_snapshot.h"
#include "engine/log/transaction_index.h"

namespace gregor::log {

inline constexpr const char* kLeaderEpochCheckpointFile = "leader-epoch-checkpoint";
inline constexpr const char* kRecoveryPointCheckpointFile = "recovery-point-checkpoint";
inline constexpr const char* kLogStartOffsetCheckpointFile = "log-start-offset-checkpoint";

struct OpenOptions {
  // Also check every batch's CRC in the segments below the recovery point (Kafka does not; reads
  // check anyway). Finding corruption there fails open with kCorruption.
  bool verify_all_segments = false;
  // Corruption below the recovery point does not fail open: the log keeps the valid batches before
  // the bad one and ends there, and the report says it is damaged (RecoveryReport::damaged). The
  // broker opens its logs so at startup and keeps such a replica from leadership until it has
  // fetched back what it lost (engine/broker/replica_manager.h).
  bool repair_corruption = false;
};

class Log {
 public:
  // Opens (or creates) the log in `dir` ("orders-0"), recovering as described above.
  // Errors: kInvalidArgument (bad config or directory name), kCorruption (fsynced data failed its
  // checks; see the report), or the disk's own errors.
  static Result<std::unique_ptr<Log>> load(Disk& disk, std::string dir, LogConfig config, Time now,
                                           RecoveryReport* report = nullptr, OpenOptions options = {});
  // Deletes every file of the log in `dir` (a replica being deleted).
  static Status remove_all(Disk& disk, const std::string& dir);

  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;

  // Leader, in two steps so that a caller can look at the batch in between (the broker checks the
  // producer's sequence numbers there). validate_leader_batch checks a produced batch once: exactly
  // one RecordBatch v2 (INVALID_RECORD), whole and with a valid CRC and parseable records
  // (CORRUPT_MESSAGE), lastOffsetDelta + 1 == recordCount > 0 (INVALID_RECORD), at most
  // max.message.bytes (MESSAGE_TOO_LARGE). append_validated appends it: its base offset becomes LEO
  // and its partition leader epoch `epoch`; a new epoch is assigned in the epoch cache at that offset
  // first. Its errors are the disk's (kDiskFull: nothing appended).
  // The checks and conversions are Kafka's LogValidator's (engine/log/log_validator.h): Produce v0-v2
  // message sets become one RecordBatch v2, the topic's compression.type and message.timestamp.type
  // apply, and the max timestamp is recomputed.
  BatchValidation validate_leader_batch(SharedBytes records, int16_t produce_version, int64_t append_time_ms) const;
  BatchValidation validate_leader_batch(Bytes records, int16_t produce_version, int64_t append_time_ms) const {
    return validate_leader_batch(SharedBytes(std::move(records)), produce_version, append_time_ms);
  }
  Result<AppendInfo> append_validated(ValidatedBatch batch, LeaderEpoch epoch, Time now);
  // Both at once, a refused batch as a Status: kCorruption for CORRUPT_MESSAGE, kInvalidArgument
  // for the others.
  Result<AppendInfo> append_as_leader(Bytes batch, LeaderEpoch epoch, Time now);
  // Follower: whole batches (a truncated final batch is ignored) that carry the leader's offsets,
  // the first starting at LEO and each continuing the previous; every CRC is checked before
  // anything is appended. New batch epochs are assigned in the epoch cache.
  // Errors: kCorruption, kInvalidArgument (offsets do not continue LEO), kDiskFull (the batches
  // before the failing one are in; LEO says how far).
  Result<AppendInfo> append_as_follower(ByteView batches, Time now);

  // Whole batches starting with the one holding `from`, at most max_bytes of them but always at
  // least one (KIP-74), none whose base offset >= max_offset (exclusive, e.g. the high watermark).
  // kOutOfRange when from < log start offset or from > LEO (OFFSET_OUT_OF_RANGE); empty records at
  // LEO or at/after max_offset; kCorruption when the first batch to return fails its checks.
  // With as_files, on a disk that has open files (real files), the batches come as slices of the
  // segment files (ReadResult::files), found by reading their headers only and not CRC-checked
  // (LogSegment::read_file_slice); elsewhere, and without as_files, as bytes.
  Result<ReadResult> read(Offset from, size_t max_bytes, Offset max_offset, bool as_files = false);

  // ListOffsets by time (Kafka's fetchOffsetByTimestamp): the first record whose timestamp is at or
  // after `timestamp`, below max_offset (the high watermark for a consumer): the first segment whose
  // largest timestamp reaches it, its time index for where to start, then the batches and their
  // records. nullopt when there is none. Errors: a read's (kCorruption, the disk's).
  Result<std::optional<TimestampAndOffset>> offset_for_timestamp(int64_t timestamp, Offset max_offset);
  // ListOffsets MAX_TIMESTAMP (-3, KIP-734): the first record carrying the log's largest timestamp,
  // below max_offset; nullopt when the log has no timestamped record there.
  Result<std::optional<TimestampAndOffset>> offset_of_max_timestamp(Offset max_offset);

  Offset log_start_offset() const { return log_start_offset_; }
  Offset log_end_offset() const { return segments_.back()->next_offset(); }
  Offset recovery_point() const { return recovery_point_; }

  // Removes every offset >= offset. The batch holding `offset` goes whole, so the new LEO may be
  // below `offset` when it falls inside a batch (Kafka moves LEO to `offset` regardless; Gregor's
  // LEO always matches the data). A no-op when offset >= LEO; below the first segment it becomes
  // truncate_fully_and_start_at(offset).
  Status truncate_to(Offset offset);
  // Deletes everything; the log restarts empty at `offset` (= log start = LEO). The epoch cache
  // is cleared.
  Status truncate_fully_and_start_at(Offset offset);
  // Raises the log start offset (a follower following its leader's, or DeleteRecords).
  // kOutOfRange when offset > LEO. Segments wholly below it go at the next apply_retention.
  Status maybe_increment_log_start_offset(Offset offset);

  LeaderEpochCache& epoch_cache() { return epoch_cache_; }
  const LeaderEpochCache& epoch_cache() const { return epoch_cache_; }

  // fsyncs every segment up to LEO, then checkpoints the recovery point = LEO.
  Status flush();
  // flush.messages / flush.ms: flushes when LEO - recovery point >= flush.messages or the last
  // flush is flush.ms old. append_* call it.
  Status maybe_flush(Time now);

  // Deletes the oldest segments (never the active one, and only those wholly below
  // high_watermark) that are wholly below the log start offset, older than retention.ms, or beyond
  // retention.bytes; advances the log start offset. Returns how many it deleted.
  Result<int> apply_retention(Time now, Offset high_watermark = Offset{INT64_MAX});

  // ---- Transactions (KIP-98) ----
  // Adds an aborted transaction to the `.txnindex` of the segment holding its ABORT marker. A
  // no-op when that index already holds an entry at or after the marker (the producer state
  // rescanning what it indexed before a restart), or when the marker's segment is gone. fsynced at
  // once when the marker lies below the recovery point (the segment was flushed already).
  // REQUIRES: txn.last_offset < LEO.
  Status append_aborted_txn(const AbortedTxn& txn);
  // The aborted transactions a fetch of [from, upto) must list (Kafka's collectAbortedTransactions):
  // those whose marker is at or after `from` and that began before `upto`, in marker order.
  std::vector<AbortedTxn> collect_aborted_transactions(Offset from, Offset upto) const;
  // Producer-state snapshot files (producer_snapshot.h), by offset, oldest first.
  Result<std::vector<Offset>> producer_snapshot_offsets();
  Result<Bytes> read_producer_snapshot(Offset offset);
  // Writes `<offset>.snapshot` durably, then deletes the oldest beyond kProducerSnapshotsRetained.
  Status write_producer_snapshot(Offset offset, ByteView bytes);
  Status delete_producer_snapshot(Offset offset);
  // Called by roll with the new segment's base offset, once the log below it is complete and before
  // the batch that caused the roll is appended: the broker's producer state snapshots there.
  void set_roll_hook(std::function<void(Offset)> hook) { roll_hook_ = std::move(hook); }

  std::vector<SegmentInfo> segments() const;
  const std::string& dir() const { return dir_; }
  const std::string& topic() const { return topic_; }
  int32_t partition() const { return partition_; }
  const LogConfig& config() const { return config_; }
  // A dynamic topic config change; applies to later appends and rolls. kInvalidArgument if invalid.
  Status update_config(const LogConfig& config);
  void set_event_listener(LogEventListener listener) { listener_ = std::move(listener); }

 private:
  Log(Disk& disk, std::string dir, std::string topic, int32_t partition, LogConfig config, Time now);
  Status load(Time now, RecoveryReport& report, const OpenOptions& options);
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  LogSegment& active() { return *segments_.back(); }
  // Index of the segment holding offset (the last one whose base offset <= offset); 0 if none.
  size_t floor_segment(Offset offset) const;
  Status append_batch(ByteView batch, const record::BatchHeader& header, Time now) {
    return append_batch(std::span<const ByteView>(&batch, 1), header, now);
  }
  Status append_batch(std::span<const ByteView> parts, const record::BatchHeader& header, Time now);
  Status roll(Time now);
  Status write_recovery_point(Offset offset);
  Status write_log_start_offset(Offset offset);
  Status set_log_start_offset(Offset offset);
  Status delete_segment_front(const char* reason);
  void emit(LogEvent::Kind kind, Offset offset, std::string detail = {});
  // Deletes the producer snapshots above `offset` (the log was cut there: they describe data it
  // no longer has).
  Status delete_producer_snapshots_above(Offset offset);
  // Whether an aborted-transaction index entry agrees with the batches it names (log recovery).
  bool aborted_txn_matches_log(const AbortedTxn& t);

  Disk& disk_;
  std::string dir_;
  std::string topic_;
  int32_t partition_;
  LogConfig config_;
  std::vector<std::unique_ptr<LogSegment>> segments_;  // by base offset; never empty; last is active
  Offset log_start_offset_;
  Offset recovery_point_;
  Offset checkpointed_recovery_point_{-1};
  Offset checkpointed_log_start_offset_{-1};
  LeaderEpochCache epoch_cache_;
  Time last_flush_time_;
  LogEventListener listener_;
  std::function<void(Offset)> roll_hook_;
};

// Splits "orders-0" into ("orders", 0); false when the name does not end in -<partition>.
bool parse_log_dir_name(const std::string& dir, std::string* topic, int32_t* partition);

}  // namespace gregor::log
