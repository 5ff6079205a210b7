// Opening a log: finding its segments and checkpoints, and recovering after a crash.
#include <set>

#include "engine/log/checkpoint_file.h"
#include "engine/log/log.h"
#include "engine/record/control_record.h"

namespace gregor::log {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool parse_log_dir_name(const std::string& dir, std::string* topic, int32_t* partition) {
  const size_t slash = dir.rfind('/');
  const std::string name = slash == std::string::npos ? dir : dir.substr(slash + 1);
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == name.size() || name.size() - dash - 1 > 9) return false;
  int32_t p = 0;
  for (size_t i = dash + 1; i < name.size(); i++) {
    if (name[i] < '0' || name[i] > '9') return false;
    p = p * 10 + (name[i] - '0');
  }
  *topic = name.substr(0, dash);
  *partition = p;
  return true;
}

Log::Log(Disk& disk, std::string dir, std::string topic, int32_t partition, LogConfig config, Time now)
    : disk_(disk),
      dir_(std::move(dir)),
      topic_(std::move(topic)),
      partition_(partition),
      config_(config),
      epoch_cache_(&disk, dir_ + "/" + kLeaderEpochCheckpointFile),
      last_flush_time_(now) {}

Result<std::unique_ptr<Log>> Log::load(Disk& disk, std::string dir, LogConfig config, Time now,
                                       RecoveryReport* report, OpenOptions options) {
  RecoveryReport local;
  RecoveryReport& r = report ? *report : local;
  r = RecoveryReport{};
  GREGOR_RETURN_IF_ERROR(config.validate());
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::string topic;
  int32_t partition = 0;
  if (!parse_log_dir_name(dir, &topic, &partition))
    return Status::error(StatusCode::kInvalidArgument, "log directory '" + dir + "' is not named <topic>-<partition>");
  std::unique_ptr<Log> log(new Log(disk, dir, topic, partition, config, now));
  GREGOR_RETURN_IF_ERROR(log->load(now, r, options));
  return Result<std::unique_ptr<Log>>(std::move(log));
}

Status Log::remove_all(Disk& disk, const std::string& dir) {
  auto names = disk.list(dir);
  if (!names) return names.status();
  for (const std::string& name : *names) {
    Status s = disk.remove(dir + "/" + name);
    if (!s.is_ok() && s.code() != StatusCode::kNotFound) return s;
  }
  Status s = disk.remove(dir);  // the directory itself on real files; the simulator has none
  if (!s.is_ok() && s.code() != StatusCode::kNotFound) return s;
  return Status::ok();
}

Status Log::load(Time now, RecoveryReport& r, const OpenOptions& options) {
  auto listed = disk_.list(dir_);
  if (!listed) return listed.status();
  const std::set<std::string> names(listed->begin(), listed->end());

  // Leftovers: temp files of interrupted checkpoint writes, indexes whose log was deleted.
  std::vector<Offset> bases;
  for (const std::string& name : names) {
    auto stray = [&](const char* suffix) {
      auto base = parse_segment_file_name(name, suffix);
      return base && !names.count(segment_file_name(*base, kLogSuffix));
    };
    const bool stray_index = stray(kIndexSuffix) || stray(kTimeIndexSuffix) || stray(kTxnIndexSuffix);
    if (ends_with(name, ".tmp") || stray_index) {
      GREGOR_RETURN_IF_ERROR(disk_.remove(path(name)));
      r.stray_files_removed++;
    } else if (auto base = parse_segment_file_name(name, kLogSuffix)) {
      bases.push_back(*base);
    }
  }
  r.segments_found = static_cast<int>(bases.size());

  // Checkpoints. One that does not parse is treated as missing: the log then rescans more.
  auto read_checkpoint = [&](const char* file) -> std::optional<Offset> {
    if (!disk_.exists(path(file))) return std::nullopt;
    auto bytes = disk_.read_all(path(file));
    if (!bytes) return std::nullopt;
    auto value = parse_offset_checkpoint(as_view(*bytes), topic_, partition_);
    if (!value) return std::nullopt;
    return Offset{*value};
  };
  const std::optional<Offset> recovery_checkpoint = read_checkpoint(kRecoveryPointCheckpointFile);
  const std::optional<Offset> log_start_checkpoint = read_checkpoint(kLogStartOffsetCheckpointFile);
  if (recovery_checkpoint) checkpointed_recovery_point_ = *recovery_checkpoint;
  if (log_start_checkpoint) checkpointed_log_start_offset_ = *log_start_checkpoint;

  Status epochs_loaded = epoch_cache_.load();
  if (!epochs_loaded.is_ok() && epochs_loaded.code() != StatusCode::kNotFound &&
      epochs_loaded.code() != StatusCode::kCorruption)
    return epochs_loaded;

  if (bases.empty()) {
    const Offset start = log_start_checkpoint.value_or(Offset{0});
    auto segment = LogSegment::create(disk_, dir_, start, config_, now);
    if (!segment) return segment.status();
    segments_.push_back(std::move(*segment));
    log_start_offset_ = start;
    recovery_point_ = start;
    GREGOR_RETURN_IF_ERROR(epoch_cache_.clear());
    GREGOR_RETURN_IF_ERROR(delete_producer_snapshots_above(start));
    r.recovery_point = start;
    r.log_start_offset = r.log_end_offset = start;
    return Status::ok();
  }

  for (Offset base : bases) {
    auto segment = LogSegment::open_existing(disk_, dir_, base, config_, now);
    if (!segment) return segment.status();
    segments_.push_back(std::move(*segment));
  }
  const Offset recovery_point = std::max(recovery_checkpoint.value_or(bases.front()), bases.front());
  r.recovery_point = recovery_point;
  r.recovery_point_checkpoint_found = recovery_checkpoint.has_value();
  bool any_data = false;
  for (const auto& s : segments_) any_data = any_data || s->size_bytes() > 0;
  const bool rebuild_epochs = !epochs_loaded.is_ok() && any_data;
  r.epoch_cache_rebuilt = rebuild_epochs;

  // Leader epochs never decrease along a log. The epoch field lies outside the batch's CRC, so a
  // bit flipped there passes every check; a batch whose epoch is below the one before it shows it.
  // Where that earlier epoch started, the log is cut (as for any damage), so the epoch cache never
  // takes a false epoch from it.
  std::optional<Offset> epoch_anomaly;
  std::string epoch_anomaly_detail;
  std::optional<std::pair<int32_t, int64_t>> run;  // the last epoch scanned, and where its batches began
  auto assign_epoch = [this, &epoch_anomaly, &epoch_anomaly_detail, &run](const record::BatchHeader& h) -> Status {
    if (h.partition_leader_epoch < 0) return Status::ok();
    if (run && h.partition_leader_epoch < run->first && !epoch_anomaly) {
      epoch_anomaly = Offset{run->second};
      epoch_anomaly_detail = "the batch at offset " + std::to_string(h.base_offset) + " has leader epoch " +
                             std::to_string(h.partition_leader_epoch) + " below epoch " + std::to_string(run->first) +
                             " of the batches from offset " + std::to_string(run->second) +
                             ": a leader epoch (outside the CRC) is corrupt";
    }
    if (!run || run->first != h.partition_leader_epoch) run = {h.partition_leader_epoch, h.base_offset};
    return epoch_cache_.assign(LeaderEpoch{h.partition_leader_epoch}, Offset{h.base_offset});
  };
  auto note_corruption = [&](const LogSegment& s, const ScanResult& result) {
    r.corruption_found = true;
    r.corruption_path = path(segment_file_name(s.base_offset(), kLogSuffix));
    r.corruption_position = result.corruption_position;
    r.corruption_detail = result.corruption_detail;
  };
  auto report_corruption = [&](const LogSegment& s, const ScanResult& result) {
    note_corruption(s, result);
    return Status::error(StatusCode::kCorruption, "corrupt data below the recovery point " +
                                                      std::to_string(recovery_point.value) + ": " +
                                                      result.corruption_detail);
  };
  // OpenOptions::repair_corruption: the log keeps what lies before the bad batch of segment i and
  // ends there (the segment is rescanned and cut, later segments go); the report says it is damaged.
  auto repair = [&](size_t i, const ScanResult& found) -> Status {
    note_corruption(*segments_[i], found);
    r.damaged = true;
    ScanOptions scan;
    scan.rebuild_indexes = true;
    scan.durable_below = Offset{0};  // every bad byte is cut off now
    scan.truncate_torn_tail = true;
    scan.on_batch = assign_epoch;
    run.reset();  // this segment is scanned again from its start
    auto again = segments_[i]->scan(scan);
    if (!again) return again.status();
    r.bytes_truncated += again->truncated_bytes;
    while (segments_.size() > i + 1) {
      r.bytes_truncated += segments_.back()->size_bytes();
      GREGOR_RETURN_IF_ERROR(segments_.back()->remove_files());
      segments_.pop_back();
      r.segments_deleted++;
    }
    return Status::ok();
  };
  auto count = [&](const ScanResult& result) {
    r.batches_validated += result.batches;
    r.bytes_validated += result.valid_bytes;
  };

  // Segments wholly below the recovery point were fsynced with their indexes: load and check the
  // indexes, and rescan only when they fail (or when asked to verify, or the epochs are lost).
  const size_t first_recovered = floor_segment(recovery_point);
  for (size_t i = 0; i < first_recovered; i++) {
    LogSegment& s = *segments_[i];
    const Offset next_base = segments_[i + 1]->base_offset();
    Status indexes = s.load_indexes(next_base);
    const bool rebuild = !indexes.is_ok();
    if (rebuild && indexes.code() != StatusCode::kCorruption && indexes.code() != StatusCode::kNotFound) return indexes;
    if (!rebuild && !rebuild_epochs && !options.verify_all_segments) continue;
    ScanOptions scan;
    scan.verify_crc = rebuild || options.verify_all_segments;
    scan.rebuild_indexes = rebuild;
    if (rebuild_epochs) scan.on_batch = assign_epoch;
    auto result = s.scan(scan);
    if (!result) return result.status();
    if (rebuild) r.indexes_rebuilt++;
    if (scan.verify_crc) count(*result);
    if (result->corruption) {
      if (!options.repair_corruption) return report_corruption(s, *result);
      GREGOR_RETURN_IF_ERROR(repair(i, *result));
      break;
    }
    if (rebuild && s.next_offset() != next_base) {
      ScanResult gap;
      gap.corruption_position = s.size_bytes();
      gap.corruption_detail = "segment ends at offset " + std::to_string(s.next_offset().value) +
                              " but the next one starts at " + std::to_string(next_base.value);
      if (!options.repair_corruption) return report_corruption(s, gap);
      GREGOR_RETURN_IF_ERROR(repair(i, gap));
      break;
    }
  }

  // From the segment holding the recovery point on: rescan, rebuild indexes, cut a torn tail.
  for (size_t i = first_recovered; !r.damaged && i < segments_.size(); i++) {
    LogSegment& s = *segments_[i];
    ScanOptions scan;
    scan.rebuild_indexes = true;
    scan.durable_below = recovery_point;
    scan.truncate_torn_tail = true;
    scan.on_batch = assign_epoch;
    auto result = s.scan(scan);
    if (!result) return result.status();
    r.segments_recovered++;
    count(*result);
    if (result->corruption) {
      if (!options.repair_corruption) return report_corruption(s, *result);
      GREGOR_RETURN_IF_ERROR(repair(i, *result));
      break;
    }
    r.bytes_truncated += result->truncated_bytes;
    if (result->truncated_bytes > 0 && !result->not_torn_because.empty()) {
      // Not a torn tail: good batches followed the bad one, or one flipped bit explains it, so a
      // bit went bad in the log. What was cut may have been acknowledged; the report says so.
      ScanResult found;
      found.corruption_position = s.size_bytes();
      found.corruption_detail = "a bad batch at byte " + std::to_string(s.size_bytes()) + " is not a torn tail: " +
                                result->not_torn_because;
      note_corruption(s, found);
      r.damaged = true;
    }
    const bool last = i + 1 == segments_.size();
    const bool ends_early = !last && s.next_offset() != segments_[i + 1]->base_offset();
    if (ends_early && s.next_offset() < recovery_point) {
      ScanResult gap;
      gap.corruption_position = s.size_bytes();
      gap.corruption_detail = "segment ends at offset " + std::to_string(s.next_offset().value) +
                              " but the next one starts at " + std::to_string(segments_[i + 1]->base_offset().value);
      if (!options.repair_corruption) return report_corruption(s, gap);
      note_corruption(s, gap);
      r.damaged = true;  // the later segments go below
    }
    if (result->truncated_bytes > 0 || ends_early) {
      // The log ends here: what follows was written after the torn part and cannot be trusted
      // to continue it (a power loss during a roll leaves exactly this).
      while (segments_.size() > i + 1) {
        r.bytes_truncated += segments_.back()->size_bytes();
        GREGOR_RETURN_IF_ERROR(segments_.back()->remove_files());
        segments_.pop_back();
        r.segments_deleted++;
      }
      break;
    }
  }

  const Offset log_end = log_end_offset();
  log_start_offset_ = std::max(log_start_checkpoint.value_or(segments_.front()->base_offset()), segments_.front()->base_offset());
  recovery_point_ = std::min(recovery_point, log_end);
  GREGOR_RETURN_IF_ERROR(epoch_cache_.truncate_from_end(log_end));
  if (log_start_offset_ > log_end) {
    // A crash in the middle of truncate_fully_and_start_at: finish it.
    GREGOR_RETURN_IF_ERROR(truncate_fully_and_start_at(log_start_offset_));
  } else {
    GREGOR_RETURN_IF_ERROR(epoch_cache_.truncate_from_start(log_start_offset_));
  }
  if (epoch_anomaly && *epoch_anomaly < log_end_offset()) {
    ScanResult found;
    found.corruption_detail = epoch_anomaly_detail;
    LogSegment& s = *segments_[floor_segment(*epoch_anomaly)];
    if (!options.repair_corruption) return report_corruption(s, found);
    note_corruption(s, found);
    r.damaged = true;
    auto bytes = [this] {
      uint64_t n = 0;
      for (const auto& seg : segments_) n += seg->size_bytes();
      return n;
    };
    const uint64_t before = bytes();
    GREGOR_RETURN_IF_ERROR(truncate_to(*epoch_anomaly));
    r.bytes_truncated += before - bytes();
  }
  // The aborted-transaction indexes: what lies past the (possibly cut) end of a segment goes, as
  // does a torn entry; the producer state's rescan above its snapshot appends what is missing.
  // Each entry is checked against the log (the index has no CRC): its marker must be an ABORT
  // marker of its producer and its first offset a transactional batch of the same producer, or a
  // flipped bit would hide committed records from read_committed consumers or show aborted ones.
  for (auto& s : segments_) {
    auto dropped = s->txn_index().load(s->base_offset(), s->next_offset());
    if (!dropped) return dropped.status();
    r.txn_index_entries_dropped += static_cast<int64_t>((*dropped + kTxnIndexEntryBytes - 1) / kTxnIndexEntryBytes);
    const std::vector<AbortedTxn> entries = s->txn_index().entries();
    for (const AbortedTxn& t : entries) {
      if (aborted_txn_matches_log(t)) continue;
      r.txn_index_entries_dropped += static_cast<int64_t>(s->txn_index().entries().size());
      GREGOR_RETURN_IF_ERROR(s->txn_index().truncate_to(Offset{t.last_offset}));
      r.txn_index_entries_dropped -= static_cast<int64_t>(s->txn_index().entries().size());
      break;
    }
  }
  // Snapshots above the end describe data the log no longer has; all of them go when an index
  // lost entries, so that the rescan from the log start restores those.
  GREGOR_RETURN_IF_ERROR(delete_producer_snapshots_above(r.txn_index_entries_dropped > 0 ? Offset{-1} : log_end_offset()));
  r.log_start_offset = log_start_offset_;
  r.log_end_offset = log_end_offset();
  return Status::ok();
}

bool Log::aborted_txn_matches_log(const AbortedTxn& t) {
  auto batch_at = [this](int64_t offset) -> std::optional<std::pair<record::BatchHeader, SharedBytes>> {
    if (offset < log_start_offset_.value || offset >= log_end_offset().value) return std::nullopt;
    auto got = read(Offset{offset}, 1, Offset{INT64_MAX});
    if (!got || got->records.empty()) return std::nullopt;
    auto h = record::parse_batch_header(as_view(got->records), true);
    if (!h || h->base_offset != offset) return std::nullopt;
    return std::make_pair(*h, std::move(got->records));
  };
  if (t.last_offset < log_start_offset_.value) return true;  // no fetch reaches it any more
  auto marker = batch_at(t.last_offset);
  if (!marker || !marker->first.is_control() || marker->first.producer_id != t.producer_id) return false;
  auto type = record::parse_end_txn_marker(ByteView(marker->second.data(), marker->first.size_bytes()));
  if (!type || type->type != record::ControlType::kAbort) return false;
  if (t.first_offset < log_start_offset_.value) return true;  // its start went with retention
  auto first = batch_at(t.first_offset);
  return first && !first->first.is_control() && first->first.is_transactional() &&
         first->first.producer_id == t.producer_id;
}

}  // namespace gregor::log
