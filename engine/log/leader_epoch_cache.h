// The leader-epoch cache (KIP-101, KIP-279): for each leader epoch the offset of its first batch in
// this replica's log, persisted in the partition directory's `leader-epoch-checkpoint`.
//
// Rules, as Kafka's LeaderEpochFileCache applies them:
// - assign(epoch, start) adds an entry only when epoch is above the latest epoch and start is not
//   below the latest start offset; anything else (a repeat, an out-of-order batch) is ignored.
// - end_offset_for(requested, log_end) answers OffsetsForLeaderEpoch: for the latest epoch, the log
//   end offset; otherwise the largest epoch <= requested together with the start offset of the first
//   epoch above requested. UNDEFINED (-1, -1) when requested is -1, above every epoch, or below the
//   first epoch (KIP-101 and KIP-279 as written; Kafka 2.1+ instead answers (requested, start of the
//   first epoch) there, which EpochBelowFirst::kFirstStartOffset selects).
// - truncate_from_end(end) drops entries starting at or after end (the log was truncated to end).
// - truncate_from_start(start) drops entries wholly before start and moves the last of them to start
//   (the log start offset advanced to start).
// Every change is written through to the checkpoint file (when the cache has one) before the call
// returns; a failed write is returned and leaves the in-memory cache changed (the log's recovery
// rebuilds the cache from batch epochs, so the file may lag but never lies about kept data).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/disk.h"
#include "engine/core/types.h"

namespace gregor::log {

inline constexpr LeaderEpoch kUndefinedEpoch{-1};
inline constexpr Offset kUndefinedEpochOffset{-1};
// A limit on entries; a leader epoch changes on every election, so this is never reached by a
// healthy cluster, and assign() refuses to grow past it (an assertion: it would be a bug).
inline constexpr size_t kEpochEntriesMax = 1 << 16;

enum class EpochBelowFirst { kUndefined, kFirstStartOffset };

class LeaderEpochCache {
 public:
  using Entry = std::pair<LeaderEpoch, Offset>;

  // In memory only (tests and tools).
  LeaderEpochCache() = default;
  // Written through to `path` on `disk`. The caller loads the initial entries (see load()).
  LeaderEpochCache(Disk* disk, std::string path) : disk_(disk), path_(std::move(path)) {}

  // Replaces the entries with those in the checkpoint file, without writing. kNotFound when there
  // is no file, kCorruption when it does not parse or its entries are not increasing; the cache is
  // then left empty.
  Status load();

  Status assign(LeaderEpoch epoch, Offset start_offset);
  std::pair<LeaderEpoch, Offset> end_offset_for(LeaderEpoch requested, Offset log_end_offset) const;
  std::optional<LeaderEpoch> latest_epoch() const;
  std::optional<Entry> latest_entry() const;
  // The epoch whose range holds offset (the last entry starting at or before it).
  std::optional<LeaderEpoch> epoch_for_offset(Offset offset) const;
  Status truncate_from_end(Offset end_offset);
  Status truncate_from_start(Offset start_offset);
  Status clear();
  std::vector<Entry> entries() const { return entries_; }

  void set_below_first_rule(EpochBelowFirst rule) { below_first_ = rule; }

 private:
  Status persist();
  Disk* disk_ = nullptr;
  std::string path_;
  std::vector<Entry> entries_;  // epochs strictly increasing, start offsets non-decreasing
  EpochBelowFirst below_first_ = EpochBelowFirst::kUndefined;
};

}  // namespace gregor::log
