// TransactionalSinkNode: the external store of the exactly-once delivery mode, a small database
// whose one transaction writes a consumer's output and its input offsets together.
//
// This is the pattern Kafka's documentation gives for exactly-once delivery to a system outside
// Kafka ("store the offset in the same place as the output", design #semantics): the consumer's
// position lives with its results, not in __consumer_offsets. Each write carries, per partition,
// the records processed (their offsets and ids) and the next offset; the sink applies it
// atomically and idempotently: records below the offset it already holds for the partition are
// skipped (a retry, a zombie member after a rebalance, a consumer that crashed after writing but
// before committing to Kafka), a write that would leave a gap is refused with the offset the sink
// holds, so the writer seeks there. A consumer given a partition reads its offset from the sink
// and starts there. So every record of the input is in the output exactly once, however members
// crash, stall or get fenced by rebalances, provided the input log holds each record once (the
// idempotent producer's part).
//
// Storage: an append-only journal `sink/journal` on the node's Disk, one entry per transaction,
// `u32 length, u32 crc32c(payload), payload`, fsynced before the answer (commit = durable). On
// start the journal is replayed; a torn or corrupt tail (a crash mid-write) is cut off, which
// drops exactly the transaction that was never acknowledged.
//
// Wire format (Gregor's own; not a Kafka API): request `i32 correlation_id, i8 kind, body`,
// response `i32 correlation_id, i16 error, body`.
//   kind 1 ReadOffsets  group STRING, [topic STRING, partition i32]
//                       -> [topic STRING, partition i32, next_offset i64 (-1: nothing yet)]
//   kind 2 Write        group STRING, member STRING, generation i32,
//                       [topic STRING, partition i32, first_offset i64, next_offset i64,
//                        records [offset i64, id STRING]]
//                       -> [topic STRING, partition i32, next_offset i64 (after), applied i32,
//                           gap i8 (1: refused, first_offset was beyond next_offset)]
//
// Trace events (node = the sink): consume {group, member, generation, mode = exactly-once, topic,
// partition, offset, value} for every record applied, sink_write {group, member, generation,
// applied, skipped, refused}, sink_recover {transactions, records, truncated_bytes}.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/topic_partition.h"
#include "engine/core/runtime.h"

namespace gregor::client {

inline constexpr const char* kSinkJournalPath = "sink/journal";
inline constexpr int8_t kSinkReadOffsets = 1;
inline constexpr int8_t kSinkWrite = 2;
inline constexpr size_t kSinkEntryBytesMax = 64 * 1024 * 1024;

struct SinkPartitionWrite {
  TopicPartition tp;
  int64_t first_offset = 0;
  int64_t next_offset = 0;
  std::vector<std::pair<int64_t, std::string>> records;  // (offset, id)
};

struct SinkWriteResult {
  TopicPartition tp;
  int64_t next_offset = -1;
  int32_t applied = 0;
  bool gap = false;
};

// Codec shared by the sink and its client.
Bytes encode_sink_read_offsets(int32_t correlation_id, const std::string& group, const std::vector<TopicPartition>& tps);
Bytes encode_sink_write(int32_t correlation_id, const std::string& group, const std::string& member, int32_t generation,
                        const std::vector<SinkPartitionWrite>& writes);

class TransactionalSinkNode final : public Node {
 public:
  explicit TransactionalSinkNode(Runtime& rt) : rt_(rt) {}
  void start() override;
  void on_message(NodeId from, Bytes frame) override;

  // The stored next offset of a group's partition (-1: none) and how many records are stored.
  int64_t next_offset(const std::string& group, const TopicPartition& tp) const;
  int64_t records_stored() const { return records_stored_; }
  int64_t transactions() const { return transactions_; }

 private:
  void handle_read_offsets(NodeId from, int32_t correlation_id, ByteReader& r);
  void handle_write(NodeId from, int32_t correlation_id, ByteReader& r);
  void recover();
  Status append_entry(const Bytes& payload);
  // Applies one journal payload to the in-memory state (at recovery and after each write).
  void apply_payload(ByteView payload);

  Runtime& rt_;
  std::map<std::pair<std::string, TopicPartition>, int64_t> next_offsets_;
  int64_t records_stored_ = 0;
  int64_t transactions_ = 0;
  bool healthy_ = true;
};

}  // namespace gregor::client
