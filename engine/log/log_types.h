// Values the log hands back: append and read results, segment descriptions, the recovery report
// and the events it announces through an optional listener (the log emits nothing by itself; the
// broker turns these into trace events).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/file_slice.h"
#include "engine/core/shared_bytes.h"
#include "engine/core/types.h"
#include "engine/record/record_batch.h"

namespace gregor::log {

struct AppendInfo {
  Offset first_offset;
  Offset last_offset;
  int32_t record_count = 0;
  int64_t max_timestamp = -1;
};

// Why the log refuses a produced batch: one value per Kafka error code, with Kafka's numbers
// (protocol::ErrorCode holds the same; engine/broker/partition.cpp checks that they agree).
enum class BatchError : int16_t {
  kNone = 0,
  kCorruptMessage = 2,    // CORRUPT_MESSAGE: truncated, a bad CRC, records that do not parse
  kMessageTooLarge = 10,  // MESSAGE_TOO_LARGE: larger than max.message.bytes
  kInvalidRecord = 87,    // INVALID_RECORD: not exactly one batch, or counts that disagree
  kUnsupportedCompressionType = 76,  // UNSUPPORTED_COMPRESSION_TYPE: zstd below Produce v7
};
const char* batch_error_name(BatchError e);  // Kafka's name: "CORRUPT_MESSAGE", ...

// A produced batch the log has checked (Log::validate_leader_batch), ready to append as it is.
// `bytes` is the batch as the producer sent it (a view of the request frame) unless validation had
// to rewrite it (conversion, recompression, a new maxTimestamp): then a buffer of its own.
struct ValidatedBatch {
  SharedBytes bytes;
  record::BatchHeader header;
};
struct BatchValidation {
  BatchError error = BatchError::kNone;
  std::string detail;    // why, for a person (the error itself is `error`)
  ValidatedBatch batch;  // when error is kNone
};

struct TimestampAndOffset {
  int64_t timestamp = -1;
  Offset offset;
};

// The batches a read takes, as the views of them the disk handed out: batches side by side in one
// of its buffers stay one view, and only batches from several buffers are copied into one.
class RecordsGather {
 public:
  void add(SharedBytes batch) {
    bytes_ += batch.size();
    SharedBytes& last = more_.empty() ? first_ : more_.back();
    if (last.empty())
      last = std::move(batch);
    else if (last.continues_into(batch))
      last.extend_over(batch);
    else
      more_.push_back(std::move(batch));
  }
  size_t size() const { return bytes_; }
  bool empty() const { return bytes_ == 0; }
  // The batches as one view: the disk's own buffer when they lie in one, else a copy.
  SharedBytes take() {
    if (more_.empty()) return std::move(first_);
    Bytes joined;
    joined.reserve(bytes_);
    joined.insert(joined.end(), first_.begin(), first_.end());
    for (const SharedBytes& b : more_) joined.insert(joined.end(), b.begin(), b.end());
    return SharedBytes(std::move(joined));
  }

 private:
  SharedBytes first_;
  std::vector<SharedBytes> more_;
  size_t bytes_ = 0;
};

struct ReadResult {
  SharedBytes records;  // whole batches, concatenated (Fetch's RECORDS); a view of the disk's pages where it can be
  Offset log_start_offset;
  Offset log_end_offset;
  // The same batches as ranges of the segment files, unread, when the read asked for files and the
  // disk has them (records is then empty); one slice per segment.
  std::vector<FileSlice> files;
  size_t files_bytes = 0;
};

struct SegmentInfo {
  Offset base_offset;
  Offset next_offset;  // one past the segment's last offset
  uint64_t size_bytes = 0;
  size_t index_entries = 0;
  size_t time_index_entries = 0;
  int64_t max_timestamp = -1;
  bool active = false;
};

// What opening a log found and did. Filled in even when open fails.
struct RecoveryReport {
  int segments_found = 0;
  int segments_recovered = 0;   // rescanned from the recovery point on, indexes rebuilt
  int segments_deleted = 0;     // after the truncation point
  int indexes_rebuilt = 0;      // of segments below the recovery point, after a failed sanity check
  int stray_files_removed = 0;  // leftover temp files and indexes without a log
  int64_t batches_validated = 0;
  uint64_t bytes_validated = 0;
  uint64_t bytes_truncated = 0;  // a torn or garbage tail cut off
  Offset recovery_point;         // as checkpointed (the log start offset when there was none)
  bool recovery_point_checkpoint_found = false;
  bool epoch_cache_rebuilt = false;
  // Aborted-transaction index entries dropped: torn, past the end of their segment, or not
  // matching the log (transaction_index.h). Every producer snapshot is then deleted, so that the
  // producer state's scan of the whole log writes them again.
  int64_t txn_index_entries_dropped = 0;  // leader-epoch-checkpoint missing or unreadable: rebuilt from batches
  Offset log_start_offset;
  Offset log_end_offset;
  // Corruption below the recovery point (fsynced data that no longer checks): open fails with
  // kCorruption and says where.
  bool corruption_found = false;
  // The log lost data that was not a torn tail: corruption below the recovery point that
  // OpenOptions::repair_corruption cut off, or a bad batch with good batches after it. What was
  // lost may have been acknowledged: the replica must fetch it back before it may lead.
  bool damaged = false;
  std::string corruption_path;
  uint64_t corruption_position = 0;
  std::string corruption_detail;
};

struct LogEvent {
  enum class Kind {
    kSegmentRolled,     // offset: the new segment's base offset
    kSegmentDeleted,    // offset: the deleted segment's base; detail: "retention.ms", "retention.bytes",
                        // "log-start-offset" or "truncation"
    kTruncated,         // offset: the new log end offset
    kFlushed,           // offset: the new recovery point
    kLogStartOffsetChanged,  // offset: the new log start offset
    kCorruptionDetected,     // offset: where a read found it; detail: file and position
  };
  Kind kind;
  Offset offset;
  std::string detail;
};

using LogEventListener = std::function<void(const LogEvent&)>;

const char* log_event_kind_name(LogEvent::Kind kind);

}  // namespace gregor::log
