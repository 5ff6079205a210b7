#include "engine/log/log_segment.h"

#include <algorithm>
#include <cstdio>

#include "engine/log/batch_scanner.h"
#include "engine/log/corruption_evidence.h"

namespace gregor::log {
namespace {

// How much a recovery scan reads at a time.
constexpr size_t kScanBlockBytes = 1 << 20;
// A read never asks the disk for more than this in one go beyond what it must return.
constexpr size_t kReadBlockBytesMax = 64 << 20;

std::string join(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

// The continuity rule of a segment, checked while walking it: the first batch seen either starts at
// the segment's base offset (scan from position 0) or ends at the offset its index entry says
// (scan from an index entry), and every later batch starts where the previous one ended.
class Continuity {
 public:
  Continuity(Offset base_offset, const OffsetIndex::Entry& start)
      : from_index_entry_(start.position != 0), expected_(from_index_entry_ ? start.offset : base_offset) {}
  Status check(const record::BatchHeader& h) {
    const bool ok = (first_ && from_index_entry_) ? h.last_offset() == expected_.value : h.base_offset == expected_.value;
    if (!ok)
      return Status::error(StatusCode::kCorruption,
                           "batch offsets " + std::to_string(h.base_offset) + ".." + std::to_string(h.last_offset()) +
                               ((first_ && from_index_entry_) ? " where the index says last offset " : " where base offset ") +
                               std::to_string(expected_.value) + " was expected");
    first_ = false;
    expected_ = Offset{h.next_offset()};
    return Status::ok();
  }

 private:
  bool first_ = true;
  bool from_index_entry_;
  Offset expected_;
};

// The walk both fetch reads share (LogSegment::read, as bytes, and read_file_slice, as a range of
// the file): every batch's header is checked (shape, continuity), batches below `from` are passed
// over, and batches are taken with take(scanner) (which returns the scanner's step) until one
// starts at or after max_offset or would take the read past max_bytes (at least one batch is
// taken). `taken` counts the bytes the read holds, earlier segments' included. Returns true at the
// segment's end and false at a limit; a malformed batch ends the read there, and is kCorruption
// when nothing was taken yet (the next read starts at the bad batch).
template <typename Take>
Result<bool> walk_fetch_batches(BatchScanner& scanner, Continuity continuity, const std::string& path, Offset from,
                                size_t max_bytes, Offset max_offset, size_t& taken, Take&& take) {
  auto corrupt = [&](const Status& why) -> Result<bool> {
    if (taken > 0) return false;  // serve what checked out
    return why;
  };
  while (true) {
    BatchScanner::Step step = scanner.peek();
    if (step == BatchScanner::Step::kEnd) return true;
    if (step == BatchScanner::Step::kIoError) return scanner.error();
    if (step != BatchScanner::Step::kBatch) return corrupt(scanner.error());
    const record::BatchHeader h = scanner.header();
    Status continuous = continuity.check(h);
    if (!continuous.is_ok()) return corrupt(Status::error(StatusCode::kCorruption, path + ": " + continuous.message()));
    if (h.last_offset() < from.value) {
      step = scanner.skip();
    } else {
      if (h.base_offset >= max_offset.value) return false;
      if (taken > 0 && taken + h.size_bytes() > max_bytes) return false;
      step = take(scanner);
      if (step == BatchScanner::Step::kBatch) taken += h.size_bytes();
    }
    if (step == BatchScanner::Step::kIoError) return scanner.error();
    if (step != BatchScanner::Step::kBatch) return corrupt(scanner.error());
  }
}

}  // namespace

std::string segment_file_name(Offset base_offset, const char* suffix) {
  GREGOR_ASSERT(base_offset.value >= 0);
  char digits[32];
  std::snprintf(digits, sizeof digits, "%020lld", static_cast<long long>(base_offset.value));
  return std::string(digits) + suffix;
}

std::optional<Offset> parse_segment_file_name(const std::string& name, const char* suffix) {
  const std::string s = suffix;
  if (name.size() != 20 + s.size() || name.compare(20, s.size(), s) != 0) return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < 20; i++) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    const int digit = name[i] - '0';
    if (v > (INT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return Offset{v};
}

LogSegment::LogSegment(Disk& disk, const std::string& dir, Offset base_offset, const LogConfig& config, Time now)
    : disk_(disk),
      log_path_(join(dir, segment_file_name(base_offset, kLogSuffix))),
      base_offset_(base_offset),
      index_interval_bytes_(config.index_interval_bytes),
      offset_index_(disk, join(dir, segment_file_name(base_offset, kIndexSuffix)), base_offset,
                    static_cast<size_t>(config.segment_index_bytes) / kOffsetIndexEntryBytes),
      time_index_(disk, join(dir, segment_file_name(base_offset, kTimeIndexSuffix)), base_offset,
                  static_cast<size_t>(config.segment_index_bytes) / kTimeIndexEntryBytes),
      txn_index_(disk, join(dir, segment_file_name(base_offset, kTxnIndexSuffix))),
      next_offset_(base_offset),
      offset_of_max_timestamp_(base_offset),
      created_(now),
      last_modified_(now) {}

Result<std::unique_ptr<LogSegment>> LogSegment::create(Disk& disk, const std::string& dir, Offset base_offset,
                                                       const LogConfig& config, Time now) {
  std::unique_ptr<LogSegment> s(new LogSegment(disk, dir, base_offset, config, now));
  for (const std::string& path : {s->log_path_, s->offset_index_.path(), s->time_index_.path()}) {
    GREGOR_RETURN_IF_ERROR(disk.create(path));
    // A leftover file of the same name (a crash in the middle of a truncation) must not come back
    // after a power loss: empty it durably.
    auto size = disk.size(path);
    if (!size) return size.status();
    if (*size > 0) {
      GREGOR_RETURN_IF_ERROR(disk.truncate(path, 0));
      GREGOR_RETURN_IF_ERROR(disk.fsync(path));
    }
  }
  // A leftover aborted-transaction index would describe transactions of another history.
  GREGOR_RETURN_IF_ERROR(s->txn_index_.remove());
  return s;
}

Result<std::unique_ptr<LogSegment>> LogSegment::open_existing(Disk& disk, const std::string& dir, Offset base_offset,
                                                              const LogConfig& config, Time now) {
  std::unique_ptr<LogSegment> s(new LogSegment(disk, dir, base_offset, config, now));
  auto size = disk.size(s->log_path_);
  if (!size) return size.status();
  s->size_ = *size;
  for (const std::string& path : {s->offset_index_.path(), s->time_index_.path()}) {
    if (!disk.exists(path)) {
      s->indexes_missing_ = true;
      GREGOR_RETURN_IF_ERROR(disk.create(path));
    }
  }
  return s;
}

Offset LogSegment::time_index_floor(int64_t timestamp) const {
  const auto& entries = time_index_.entries();
  auto after = std::upper_bound(entries.begin(), entries.end(), timestamp,
                                [](int64_t t, const TimeIndexEntry& e) { return t < e.timestamp; });
  return after == entries.begin() ? base_offset_ : std::prev(after)->offset;
}

SegmentInfo LogSegment::info(bool active) const {
  SegmentInfo i;
  i.base_offset = base_offset_;
  i.next_offset = next_offset_;
  i.size_bytes = size_;
  i.index_entries = offset_index_.entry_count();
  i.time_index_entries = time_index_.entry_count();
  i.max_timestamp = max_timestamp_;
  i.active = active;
  return i;
}

bool LogSegment::should_roll(const record::BatchHeader& incoming, const LogConfig& config, Time now) const {
  const int64_t incoming_bytes = static_cast<int64_t>(incoming.size_bytes());
  const int64_t size = static_cast<int64_t>(size_);
  // Age is measured from the first batch's timestamp when there is one, else from creation.
  const int64_t waited_ms = first_batch_timestamp_ && *first_batch_timestamp_ >= 0
                                ? incoming.max_timestamp - *first_batch_timestamp_
                                : now.ms() - created_.ms();
  // Unlike Kafka, an empty segment takes a batch larger than segment.bytes instead of rolling
  // again (Kafka would replace the empty segment with another empty one).
  return (size > 0 && size > config.segment_bytes - incoming_bytes) || (size > 0 && waited_ms > config.segment_ms) ||
         offset_index_.is_full() || time_index_.is_full() || incoming.last_offset() - base_offset_.value > INT32_MAX;
}

void LogSegment::note_appended(const record::BatchHeader& header, uint64_t position, uint64_t size) {
  if (position == 0) first_batch_timestamp_ = header.max_timestamp;
  if (header.max_timestamp > max_timestamp_) {
    max_timestamp_ = header.max_timestamp;
    offset_of_max_timestamp_ = Offset{header.last_offset()};
  }
  size_ = position + size;
  next_offset_ = Offset{header.next_offset()};
}

Status LogSegment::maybe_index(const record::BatchHeader& header, uint64_t position) {
  const uint64_t size = header.size_bytes();
  Status status;
  if (bytes_since_last_index_entry_ > static_cast<uint64_t>(index_interval_bytes_) && !offset_index_.is_full()) {
    status = offset_index_.append(Offset{header.last_offset()}, static_cast<uint32_t>(position));
    if (status.is_ok()) {
      status = time_index_.maybe_append(max_timestamp_, offset_of_max_timestamp_);
      bytes_since_last_index_entry_ = 0;
    }
  }
  bytes_since_last_index_entry_ += size;
  return status;
}

Status LogSegment::append(std::span<const ByteView> parts, const record::BatchHeader& header, Time now) {
  size_t batch_size = 0;
  for (ByteView p : parts) batch_size += p.size();
  GREGOR_ASSERT(header.base_offset == next_offset_.value);
  GREGOR_ASSERT(batch_size == header.size_bytes());
  GREGOR_ASSERT(size_ + batch_size <= UINT32_MAX);
  const uint64_t position = size_;
  auto at = parts.size() == 1 ? disk_.append(log_path_, parts[0]) : disk_.append_parts(log_path_, parts);
  if (!at) return at.status();
  GREGOR_ASSERT_MSG(*at == position, log_path_ + " changed size under the log");
  note_appended(header, position, batch_size);
  recent_[recent_next_] = RecentBatch{header.base_offset, header.last_offset(), position};
  recent_next_ = (recent_next_ + 1) % kRecentBatches;
  recent_count_ = std::min(recent_count_ + 1, kRecentBatches);
  last_modified_ = now;
  // The indexes are sparse and rebuilt by recovery, so an entry that could not be written (a full
  // disk) only makes later lookups scan a little further; the batch itself is in.
  static_cast<void>(maybe_index(header, position));
  return Status::ok();
}

Result<LogSegment::Location> LogSegment::locate(Offset target) const {
  const OffsetIndex::Entry start = offset_index_.lookup(target);
  BatchScanner scanner(disk_, log_path_, start.position, size_,
                       static_cast<size_t>(index_interval_bytes_) + 2 * record::kBatchHeaderBytes);
  Continuity continuity(base_offset_, start);
  while (true) {
    const BatchScanner::Step step = scanner.peek();
    if (step == BatchScanner::Step::kEnd) return Location{size_, next_offset_};
    if (step != BatchScanner::Step::kBatch) return scanner.error();
    GREGOR_RETURN_IF_ERROR(continuity.check(scanner.header()));
    if (scanner.header().last_offset() >= target.value)
      return Location{scanner.batch_position(), Offset{scanner.header().base_offset}};
    if (scanner.skip() != BatchScanner::Step::kBatch) return scanner.error();
  }
}

OffsetIndex::Entry LogSegment::read_start(Offset from) const {
  for (size_t i = 0; i < recent_count_; i++) {
    const RecentBatch& b = recent_[i];
    if (b.base_offset <= from.value && from.value <= b.last_offset)
      return OffsetIndex::Entry{Offset{b.last_offset}, static_cast<uint32_t>(b.position)};
  }
  return offset_index_.lookup(from);
}

uint64_t LogSegment::size_bytes_from(Offset from) const {
  const uint64_t position = read_start(from).position;
  return position < size_ ? size_ - position : 0;
}

Result<bool> LogSegment::read(Offset from, size_t max_bytes, Offset max_offset, RecordsGather& out) const {
  const OffsetIndex::Entry start = read_start(from);
  // The first read covers the way from the index entry to `from` and max_bytes after it, usually;
  // later ones only what the byte budget can still take.
  const size_t block = std::min(kReadBlockBytesMax, max_bytes + static_cast<size_t>(index_interval_bytes_) +
                                                        2 * record::kBatchHeaderBytes);
  BatchScanner scanner(disk_, log_path_, start.position, size_, block);
  if (!out.empty()) scanner.set_block_bytes(std::max(record::kBatchHeaderBytes, max_bytes > out.size() ? max_bytes - out.size() : 0));
  size_t taken = out.size();
  return walk_fetch_batches(scanner, Continuity(base_offset_, start), log_path_, from, max_bytes, max_offset, taken,
                            [&](BatchScanner& s) {
                              const BatchScanner::Step step = s.take(true);
                              if (step != BatchScanner::Step::kBatch) return step;
                              out.add(s.batch_shared());
                              s.set_block_bytes(std::max(record::kBatchHeaderBytes, max_bytes > out.size() ? max_bytes - out.size() : 0));
                              return step;
                            });
}

Result<bool> LogSegment::read_file_slice(Offset from, size_t max_bytes, Offset max_offset, std::vector<FileSlice>& out,
                                         size_t& out_bytes) const {
  auto file = open_file();
  if (!file) return file.status();
  GREGOR_ASSERT(*file != nullptr);
  const OffsetIndex::Entry start = read_start(from);
  // Headers only (take() is never called): a refill reads 4 KiB, a few headers of small batches,
  // or one header and a little of its records for a large one.
  constexpr size_t kHeaderBlockBytes = 4096;
  BatchScanner scanner(disk_, log_path_, start.position, size_, kHeaderBlockBytes);
  std::optional<uint64_t> slice_start;
  uint64_t slice_end = 0;
  size_t taken = out_bytes;
  auto more = walk_fetch_batches(scanner, Continuity(base_offset_, start), log_path_, from, max_bytes, max_offset, taken,
                                 [&](BatchScanner& s) {
                                   const uint64_t position = s.batch_position();
                                   const BatchScanner::Step step = s.skip();
                                   if (step != BatchScanner::Step::kBatch) return step;
                                   if (!slice_start) slice_start = position;
                                   slice_end = s.position();
                                   return step;
                                 });
  if (more.is_ok() && slice_start) {
    out.push_back(FileSlice{*file, *slice_start, static_cast<size_t>(slice_end - *slice_start)});
    out_bytes = taken;
  }
  return more;
}

Result<Offset> LogSegment::next_offset_after_truncation(Offset offset) const {
  auto location = locate(offset);
  if (!location) return location.status();
  return location->base_offset;
}

Result<uint64_t> LogSegment::truncate_to(Offset offset) {
  auto location = locate(offset);
  if (!location) return location.status();
  const uint64_t cut = location->position;
  if (cut == size_) return uint64_t{0};
  const uint64_t removed = size_ - cut;
  forget_recent();
  GREGOR_RETURN_IF_ERROR(disk_.truncate(log_path_, cut));
  GREGOR_RETURN_IF_ERROR(offset_index_.truncate_to_position(static_cast<uint32_t>(cut)));
  GREGOR_RETURN_IF_ERROR(time_index_.truncate_to(location->base_offset));
  GREGOR_RETURN_IF_ERROR(txn_index_.truncate_to(location->base_offset));
  size_ = cut;
  next_offset_ = location->base_offset;
  // Recompute what depended on the removed batches. The largest timestamp of the batches up to the
  // last remaining index entry is in the time index; the few batches after it are scanned.
  const uint64_t last_indexed = offset_index_.entries().empty() ? 0 : offset_index_.entries().back().position;
  bytes_since_last_index_entry_ = cut - last_indexed;
  max_timestamp_ = record::kNoTimestamp;
  offset_of_max_timestamp_ = base_offset_;
  if (!time_index_.entries().empty()) {
    max_timestamp_ = time_index_.entries().back().timestamp;
    offset_of_max_timestamp_ = time_index_.entries().back().offset;
  }
  BatchScanner scanner(disk_, log_path_, last_indexed, cut, static_cast<size_t>(index_interval_bytes_) + 2 * record::kBatchHeaderBytes);
  while (scanner.peek() == BatchScanner::Step::kBatch) {
    if (scanner.header().max_timestamp > max_timestamp_) {
      max_timestamp_ = scanner.header().max_timestamp;
      offset_of_max_timestamp_ = Offset{scanner.header().last_offset()};
    }
    if (scanner.skip() != BatchScanner::Step::kBatch) break;
  }
  if (cut == 0) first_batch_timestamp_.reset();
  // Truncation must be durable before anything is appended after it: otherwise a power loss could
  // bring back the removed batches (a file that was cut and then grew is not a pure append).
  GREGOR_RETURN_IF_ERROR(flush());
  return removed;
}

Status LogSegment::load_indexes(Offset next_offset) {
  forget_recent();
  if (indexes_missing_) return Status::error(StatusCode::kNotFound, log_path_ + ": index files missing");
  next_offset_ = next_offset;
  GREGOR_RETURN_IF_ERROR(offset_index_.load(size_));
  if (!offset_index_.entries().empty() && offset_index_.entries().back().offset >= next_offset)
    return Status::error(StatusCode::kCorruption, offset_index_.path() + ": entry past the end of the segment");
  GREGOR_RETURN_IF_ERROR(time_index_.load(next_offset));
  if (!time_index_.entries().empty()) {
    max_timestamp_ = time_index_.entries().back().timestamp;
    offset_of_max_timestamp_ = time_index_.entries().back().offset;
  }
  bytes_since_last_index_entry_ = size_ - (offset_index_.entries().empty() ? 0 : offset_index_.entries().back().position);
  // The first batch's timestamp, in case this segment becomes the active one again (truncation).
  if (size_ >= record::kBatchHeaderBytes) {
    auto head = disk_.read(log_path_, 0, record::kBatchHeaderBytes);
    if (head && head->size() == record::kBatchHeaderBytes) {
      ByteReader r(as_view(*head));
      r.skip(35);
      first_batch_timestamp_ = r.i64();
    }
  }
  return Status::ok();
}

Result<ScanResult> LogSegment::scan(const ScanOptions& options) {
  forget_recent();
  auto file_size = disk_.size(log_path_);
  if (!file_size) return file_size.status();
  if (options.rebuild_indexes) {
    GREGOR_RETURN_IF_ERROR(offset_index_.reset());
    GREGOR_RETURN_IF_ERROR(time_index_.reset());
    indexes_missing_ = false;
    bytes_since_last_index_entry_ = 0;
    max_timestamp_ = record::kNoTimestamp;
    offset_of_max_timestamp_ = base_offset_;
    first_batch_timestamp_.reset();
    size_ = 0;
    next_offset_ = base_offset_;
  }
  ScanResult result;
  BatchScanner scanner(disk_, log_path_, 0, *file_size, kScanBlockBytes);
  Continuity continuity(base_offset_, OffsetIndex::Entry{base_offset_, 0});
  Offset expected = base_offset_;
  Status bad;
  while (true) {
    // Without a CRC check (rebuilding epochs only), the bodies need not be read at all.
    BatchScanner::Step step = scanner.peek();
    if (step == BatchScanner::Step::kBatch) step = options.verify_crc ? scanner.take(true) : scanner.skip();
    if (step == BatchScanner::Step::kEnd) break;
    if (step == BatchScanner::Step::kIoError) return scanner.error();
    if (step != BatchScanner::Step::kBatch) {
      bad = scanner.error();
      break;
    }
    const record::BatchHeader& h = scanner.header();
    bad = continuity.check(h);
    if (!bad.is_ok()) {
      bad = Status::error(StatusCode::kCorruption, log_path_ + " at byte " + std::to_string(scanner.batch_position()) + ": " + bad.message());
      break;
    }
    if (options.on_batch) GREGOR_RETURN_IF_ERROR(options.on_batch(h));
    if (options.rebuild_indexes) {
      note_appended(h, scanner.batch_position(), h.size_bytes());
      GREGOR_RETURN_IF_ERROR(maybe_index(h, scanner.batch_position()));
    }
    expected = Offset{h.next_offset()};
    result.batches++;
    result.valid_bytes = scanner.position();
  }
  if (!bad.is_ok()) {
    auto why = not_torn_because(result.valid_bytes, *file_size, expected);
    if (!why) return why.status();
    result.not_torn_because = std::move(*why);
    if (expected < options.durable_below) {
      result.corruption = true;
      result.corruption_position = result.valid_bytes;
      result.corruption_detail = bad.message();
    } else if (options.truncate_torn_tail) {
      result.truncated_bytes = *file_size - result.valid_bytes;
      GREGOR_RETURN_IF_ERROR(disk_.truncate(log_path_, result.valid_bytes));
      GREGOR_RETURN_IF_ERROR(disk_.fsync(log_path_));
    }
  }
  if (options.rebuild_indexes) {
    // Durable indexes: after this open, every index file on disk matches its log.
    GREGOR_RETURN_IF_ERROR(offset_index_.write_pending());
    GREGOR_RETURN_IF_ERROR(time_index_.write_pending());
    GREGOR_RETURN_IF_ERROR(disk_.fsync(offset_index_.path()));
    GREGOR_RETURN_IF_ERROR(disk_.fsync(time_index_.path()));
  }
  return result;
}

Result<std::string> LogSegment::not_torn_because(uint64_t bad_position, uint64_t file_size, Offset expected) {
  if (batches_follow(bad_position, file_size)) return std::string("a whole batch header follows it");
  const uint64_t to_end = file_size - bad_position;
  auto bytes = disk_.read(log_path_, bad_position, static_cast<size_t>(std::min(to_end, kCorruptionEvidenceWindowBytes)));
  if (!bytes) return bytes.status();
  return corruption_evidence(as_view(*bytes), to_end, expected.value);
}

bool LogSegment::batches_follow(uint64_t bad_position, uint64_t file_size) {
  // The bad batch's own length, if it is plausible, says where the next batch would start; that
  // one must look like a whole batch (a plausible length, magic 2, its end within the file).
  auto header_at = [&](uint64_t position) -> std::optional<uint64_t> {
    if (position + record::kMagicPosition + 1 > file_size) return std::nullopt;
    auto bytes = disk_.read(log_path_, position, record::kMagicPosition + 1);
    if (!bytes || bytes->size() < record::kMagicPosition + 1) return std::nullopt;
    ByteReader r(as_view(*bytes));
    (void)r.i64();
    const int32_t length = r.i32();
    if (length < static_cast<int32_t>(record::kBatchHeaderBytes - record::kLogOverhead) || length > record::kBatchBytesMax)
      return std::nullopt;
    const uint64_t end = position + record::kLogOverhead + static_cast<uint64_t>(length);
    if (end > file_size) return std::nullopt;
    return end;
  };
  auto bad_end = header_at(bad_position);
  if (!bad_end) return false;
  auto next_end = header_at(*bad_end);
  if (!next_end) return false;
  auto magic = disk_.read(log_path_, *bad_end + record::kMagicPosition, 1);
  return magic && magic->size() == 1 && static_cast<int8_t>((*magic)[0]) == record::kMagicV2;
}

Status LogSegment::on_become_inactive() {
  return time_index_.maybe_append(max_timestamp_, offset_of_max_timestamp_, true);
}

Status LogSegment::flush() {
  GREGOR_RETURN_IF_ERROR(offset_index_.write_pending());
  GREGOR_RETURN_IF_ERROR(time_index_.write_pending());
  GREGOR_RETURN_IF_ERROR(disk_.fsync(log_path_));
  GREGOR_RETURN_IF_ERROR(disk_.fsync(offset_index_.path()));
  GREGOR_RETURN_IF_ERROR(txn_index_.flush());
  return disk_.fsync(time_index_.path());
}

Status LogSegment::remove_files() {
  // The log file first: a crash after it leaves only index files without a log, which opening
  // the log removes.
  GREGOR_RETURN_IF_ERROR(disk_.remove(log_path_));
  for (const std::string& path : {offset_index_.path(), time_index_.path()}) {
    Status s = disk_.remove(path);
    if (!s.is_ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return txn_index_.remove();
}

}  // namespace gregor::log
