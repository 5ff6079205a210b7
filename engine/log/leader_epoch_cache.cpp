#include "engine/log/leader_epoch_cache.h"

#include <algorithm>

#include "engine/log/checkpoint_file.h"

namespace gregor::log {

Status LeaderEpochCache::persist() {
  if (!disk_) return Status::ok();
  std::vector<std::pair<int32_t, int64_t>> raw;
  raw.reserve(entries_.size());
  for (const auto& [epoch, offset] : entries_) raw.emplace_back(epoch.value, offset.value);
  return disk_->write_file_atomic(path_, as_view(format_epoch_checkpoint(raw)));
}

Status LeaderEpochCache::load() {
  GREGOR_ASSERT(disk_ != nullptr);
  entries_.clear();
  if (!disk_->exists(path_)) return Status::error(StatusCode::kNotFound, "no " + path_);
  auto file = disk_->read_all(path_);
  if (!file) return file.status();
  auto parsed = parse_epoch_checkpoint(as_view(*file));
  if (!parsed) return parsed.status();
  std::vector<Entry> loaded;
  for (const auto& [epoch, offset] : *parsed) {
    if (!loaded.empty() && (epoch <= loaded.back().first.value || offset < loaded.back().second.value))
      return Status::error(StatusCode::kCorruption, path_ + ": entries are not increasing");
    loaded.emplace_back(LeaderEpoch{epoch}, Offset{offset});
  }
  entries_ = std::move(loaded);
  return Status::ok();
}

Status LeaderEpochCache::assign(LeaderEpoch epoch, Offset start_offset) {
  GREGOR_ASSERT(epoch.value >= 0 && start_offset.value >= 0);
  if (!entries_.empty() && (epoch <= entries_.back().first || start_offset < entries_.back().second))
    return Status::ok();  // not increasing: ignored, as Kafka does
  GREGOR_ASSERT(entries_.size() < kEpochEntriesMax);
  entries_.emplace_back(epoch, start_offset);
  return persist();
}

std::pair<LeaderEpoch, Offset> LeaderEpochCache::end_offset_for(LeaderEpoch requested, Offset log_end_offset) const {
  const std::pair<LeaderEpoch, Offset> undefined{kUndefinedEpoch, kUndefinedEpochOffset};
  if (requested == kUndefinedEpoch || entries_.empty()) return undefined;
  if (requested == entries_.back().first) return {requested, log_end_offset};
  // The first entry with an epoch above requested.
  auto higher = std::upper_bound(entries_.begin(), entries_.end(), requested,
                                 [](LeaderEpoch e, const Entry& entry) { return e < entry.first; });
  if (higher == entries_.end()) return undefined;  // above every epoch
  if (higher == entries_.begin()) {
    if (below_first_ == EpochBelowFirst::kUndefined) return undefined;
    return {requested, higher->second};
  }
  return {std::prev(higher)->first, higher->second};
}

std::optional<LeaderEpoch> LeaderEpochCache::latest_epoch() const {
  if (entries_.empty()) return std::nullopt;
  return entries_.back().first;
}

std::optional<LeaderEpochCache::Entry> LeaderEpochCache::latest_entry() const {
  if (entries_.empty()) return std::nullopt;
  return entries_.back();
}

std::optional<LeaderEpoch> LeaderEpochCache::epoch_for_offset(Offset offset) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), offset,
                                [](Offset o, const Entry& entry) { return o < entry.second; });
  if (after == entries_.begin()) return std::nullopt;
  return std::prev(after)->first;
}

Status LeaderEpochCache::truncate_from_end(Offset end_offset) {
  if (end_offset.value < 0 || entries_.empty() || entries_.back().second < end_offset) return Status::ok();
  while (!entries_.empty() && entries_.back().second >= end_offset) entries_.pop_back();
  return persist();
}

Status LeaderEpochCache::truncate_from_start(Offset start_offset) {
  // Entries starting at or before start_offset; the last of them survives, moved to start_offset.
  auto after = std::upper_bound(entries_.begin(), entries_.end(), start_offset,
                                [](Offset o, const Entry& entry) { return o < entry.second; });
  if (after == entries_.begin()) return Status::ok();
  const Entry kept{std::prev(after)->first, start_offset};
  if (after == std::next(entries_.begin()) && entries_.front() == kept) return Status::ok();
  entries_.erase(entries_.begin(), after);
  entries_.insert(entries_.begin(), kept);
  return persist();
}

Status LeaderEpochCache::clear() {
  entries_.clear();
  return persist();
}

}  // namespace gregor::log
