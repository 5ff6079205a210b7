// LogSegment: one `<20-digit base offset>.log` file of batches and its `.index` and `.timeindex`,
// and the `.txnindex` of the transactions aborted in it (transaction_index.h) once there is one.
//
// Invariants (checked on every scan, since baseOffset is outside the CRC): the first batch starts at
// the segment's base offset and each batch starts where the previous one ended, so a segment holds
// the offsets [base_offset, next_offset) without gaps. Index entries point at batch starts.
//
// The segment knows nothing of recovery points or epochs; the Log decides what to scan and what a
// bad byte means (a torn tail to cut, or corruption to report).
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "engine/core/disk.h"
#include "engine/core/types.h"
#include "engine/log/log_config.h"
#include "engine/log/log_types.h"
#include "engine/log/offset_index.h"
#include "engine/log/time_index.h"
#include "engine/log/transaction_index.h"
#include "engine/record/record_batch.h"

namespace gregor::log {

// "00000000000000000042" + suffix.
std::string segment_file_name(Offset base_offset, const char* suffix);
// The base offset a segment file name carries, when it is exactly 20 digits + suffix.
std::optional<Offset> parse_segment_file_name(const std::string& name, const char* suffix);

inline constexpr const char* kLogSuffix = ".log";
inline constexpr const char* kIndexSuffix = ".index";
inline constexpr const char* kTimeIndexSuffix = ".timeindex";

struct ScanOptions {
  bool verify_crc = true;
  bool rebuild_indexes = false;
  // A bad byte at an offset below this is corruption (that data was fsynced); at or above it, a torn
  // tail, cut off when truncate_torn_tail. Offset{INT64_MAX}: every bad byte is corruption.
  Offset durable_below{INT64_MAX};
  bool truncate_torn_tail = false;
  // Called with each valid batch, in order.
  std::function<Status(const record::BatchHeader&)> on_batch;
};

struct ScanResult {
  int64_t batches = 0;
  uint64_t valid_bytes = 0;
  uint64_t truncated_bytes = 0;
  // Why the bad batch cannot be a torn tail, or "" when it can be one: a whole batch follows it (a
  // torn write leaves garbage only at the end of the file; a flipped bit in the middle of a log
  // leaves good batches after it), or one flipped bit explains it (corruption_evidence.h).
  std::string not_torn_because;
  bool corruption = false;
  uint64_t corruption_position = 0;
  std::string corruption_detail;
};

class LogSegment {
 public:
  // New, empty files (existing ones are emptied).
  static Result<std::unique_ptr<LogSegment>> create(Disk& disk, const std::string& dir, Offset base_offset,
                                                    const LogConfig& config, Time now);
  // Existing files, not yet scanned or loaded: call scan() or load_indexes() next.
  static Result<std::unique_ptr<LogSegment>> open_existing(Disk& disk, const std::string& dir, Offset base_offset,
                                                           const LogConfig& config, Time now);

  Offset base_offset() const { return base_offset_; }
  Offset next_offset() const { return next_offset_; }
  uint64_t size_bytes() const { return size_; }
  // An upper bound of the bytes a read from `from` can return: from the offset index's entry at or
  // below `from` to the end of the segment.
  uint64_t size_bytes_from(Offset from) const;
  int64_t max_timestamp() const { return max_timestamp_; }
  // The timestamp retention.ms compares against: the largest batch timestamp, or when no batch
  // carries one, the last time the segment changed (Kafka uses the file's modification time).
  int64_t largest_timestamp_ms() const { return max_timestamp_ >= 0 ? max_timestamp_ : last_modified_.ms(); }
  SegmentInfo info(bool active) const;

  // Kafka's LogSegment.shouldRoll for an incoming batch.
  bool should_roll(const record::BatchHeader& incoming, const LogConfig& config, Time now) const;
  // REQUIRES: header.base_offset == next_offset(), batch is the whole batch.
  Status append(ByteView batch, const record::BatchHeader& header, Time now) {
    return append(std::span<const ByteView>(&batch, 1), header, now);
  }
  // The same for a batch given as consecutive parts (written as they are, not joined first).
  Status append(std::span<const ByteView> parts, const record::BatchHeader& header, Time now);

  // Appends to `out` the whole batches starting with the first whose last offset >= from, stopping
  // before a batch whose base offset >= max_offset or that would take `out` past max_bytes (unless
  // `out` is still empty: at least one batch). Returns true when it reached the end of the segment
  // without hitting a limit (the caller may continue in the next segment). Every returned batch's
  // CRC is checked; a bad one ends the read there, and is kCorruption when nothing was read yet.
  // The batches are views of what the disk returned (Disk::read_shared), not copies.
  Result<bool> read(Offset from, size_t max_bytes, Offset max_offset, RecordsGather& out) const;
  // The same choice of batches, as one slice of the open segment file appended to `out`
  // (out_bytes: the bytes `out` holds), reading only the batches' headers. No CRC is checked:
  // as Kafka's fetch path (FileRecords sent with sendfile), the leader leaves that to the follower,
  // which checks every batch before it appends, and to the consumer. A malformed header or broken
  // offset continuity is still detected, as in read.
  // REQUIRES: the disk has open files (Disk::open_shared gives one).
  Result<bool> read_file_slice(Offset from, size_t max_bytes, Offset max_offset, std::vector<FileSlice>& out,
                               size_t& out_bytes) const;
  // The segment file held open for slices; null where the disk has none (the simulator).
  Result<std::shared_ptr<const OpenFile>> open_file() const { return disk_.open_shared(log_path_); }

  // Removes the batches holding offsets >= offset (the whole batch holding `offset`), fsyncs, and
  // returns the bytes removed.
  Result<uint64_t> truncate_to(Offset offset);
  // Where truncate_to(offset) would cut: the new next offset.
  Result<Offset> next_offset_after_truncation(Offset offset) const;

  // Reads and sanity-checks the index files of a segment that is not scanned (below the recovery
  // point); next_offset is the next segment's base (or the log's end). kCorruption or kNotFound
  // when the indexes need a rebuild.
  Status load_indexes(Offset next_offset);
  Result<ScanResult> scan(const ScanOptions& options);

  // Where a search for the first record at or after `timestamp` starts in this segment: the offset of
  // the time index's last entry whose timestamp is <= timestamp (Kafka's TimeIndex.lookup), or the
  // segment's base offset when there is none.
  Offset time_index_floor(int64_t timestamp) const;
  // The last offset of the first batch that carries the segment's largest timestamp.
  Offset offset_of_max_timestamp() const { return offset_of_max_timestamp_; }

  // The aborted transactions whose ABORT marker lies in this segment.
  TransactionIndex& txn_index() { return txn_index_; }
  const TransactionIndex& txn_index() const { return txn_index_; }

  // Called when the segment stops being the active one: the time index gets its final entry.
  Status on_become_inactive();
  Status flush();
  Status remove_files();

 private:
  // Whether a whole batch header follows the bad one at bad_position, where the bad one's length
  // says (one piece of ScanResult::not_torn_because).
  bool batches_follow(uint64_t bad_position, uint64_t file_size);
  // ScanResult::not_torn_because for a bad batch at bad_position that should start at `expected`.
  Result<std::string> not_torn_because(uint64_t bad_position, uint64_t file_size, Offset expected);
  LogSegment(Disk& disk, const std::string& dir, Offset base_offset, const LogConfig& config, Time now);
  // The position of the first batch whose last offset >= target, and its base offset; (size,
  // next_offset) when there is none.
  struct Location {
    uint64_t position;
    Offset base_offset;
  };
  Result<Location> locate(Offset target) const;
  // Where a read of `from` starts walking: the batch holding it when it is one of the last few
  // appended (a follower's or a tailing consumer's fetch, nearly always), as an entry of the
  // index's kind (that batch's last offset and position); otherwise the offset index's entry,
  // from which the walk passes over the batches before `from`.
  OffsetIndex::Entry read_start(Offset from) const;
  void forget_recent() {
    recent_count_ = 0;
    recent_next_ = 0;
  }
  void note_appended(const record::BatchHeader& header, uint64_t position, uint64_t size);
  Status maybe_index(const record::BatchHeader& header, uint64_t position);

  Disk& disk_;
  std::string log_path_;
  Offset base_offset_;
  int32_t index_interval_bytes_;
  OffsetIndex offset_index_;
  TimeIndex time_index_;
  TransactionIndex txn_index_;
  uint64_t size_ = 0;
  Offset next_offset_;
  int64_t max_timestamp_ = record::kNoTimestamp;
  Offset offset_of_max_timestamp_;
  // The first batch's max timestamp: what segment.ms measures age from (Kafka's rollingBasedTimestamp).
  std::optional<int64_t> first_batch_timestamp_;
  uint64_t bytes_since_last_index_entry_ = 0;
  bool indexes_missing_ = false;
  // The last batches appended (not recovered), for read_start; forgotten when the file is cut or
  // scanned.
  struct RecentBatch {
    int64_t base_offset;
    int64_t last_offset;
    uint64_t position;
  };
  static constexpr size_t kRecentBatches = 4;
  std::array<RecentBatch, kRecentBatches> recent_{};
  size_t recent_count_ = 0;
  size_t recent_next_ = 0;
  Time created_;
  Time last_modified_;
};

}  // namespace gregor::log
