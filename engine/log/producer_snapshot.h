// Producer-state snapshots: `<20-digit offset>.snapshot` in a log's directory (Kafka's
// ProducerStateManager snapshot files, KIP-98).
//
// A snapshot at offset N holds the state of every producer as the log below N leaves it, so that
// recovery loads the latest snapshot at or below the recovery point and rescans only the log from
// N on, instead of the whole log. The broker's producer state (engine/broker/producer_state.h)
// writes one when a segment rolls (N = the new segment's base offset) and at a clean shutdown
// (N = the log end), keeps the newest kProducerSnapshotsRetained, and the log deletes those above
// its end when it is truncated.
//
// File format (Kafka's version 1, big-endian):
//   version   int16   1
//   crc       uint32  CRC-32C of everything after this field
//   producer_entries: int32 count, then per producer
//     producer_id int64, epoch int16, last_sequence int32, last_offset int64, offset_delta int32,
//     timestamp int64, coordinator_epoch int32, current_txn_first_offset int64 (-1: none open)
// A producer that has written no batch in its epoch yet (only a marker bumped it) has
// last_sequence -1, last_offset -1 and offset_delta 0. A CRC mismatch is kCorruption: the file is
// reported, ignored and deleted, and recovery rescans instead.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"

namespace gregor::log {

inline constexpr const char* kProducerSnapshotSuffix = ".snapshot";
inline constexpr int16_t kProducerSnapshotVersion = 1;
inline constexpr size_t kProducerSnapshotsRetained = 2;
// One entry per producer; the broker keeps at most this many per partition (kProducersPerPartitionMax).
inline constexpr size_t kProducerSnapshotEntriesMax = 100000;
inline constexpr size_t kProducerSnapshotEntryBytes = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;

struct ProducerSnapshotEntry {
  int64_t producer_id = 0;
  int16_t epoch = -1;
  int32_t last_sequence = -1;
  int64_t last_offset = -1;
  int32_t offset_delta = 0;
  int64_t timestamp = -1;
  int32_t coordinator_epoch = -1;
  int64_t current_txn_first_offset = -1;
  bool operator==(const ProducerSnapshotEntry&) const = default;
};

// REQUIRES: entries.size() <= kProducerSnapshotEntriesMax.
Bytes encode_producer_snapshot(const std::vector<ProducerSnapshotEntry>& entries);
// kCorruption: too short, a wrong version, a CRC mismatch, a count that does not fit the size.
Result<std::vector<ProducerSnapshotEntry>> decode_producer_snapshot(ByteView bytes);

}  // namespace gregor::log
