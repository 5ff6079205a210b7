// Partition: one replica of one partition on one broker, and the replication rules that apply to
// it (../shared/reference/kafka-replication.md §1, Kafka's Partition.scala).
//
// As leader it appends produce batches (assigning offsets and stamping its leader epoch), tracks
// each follower's log end offset (LEO) and last-caught-up time, advances the high watermark (HW)
// by Kafka's rule, and proposes ISR shrinks and expansions. As follower it appends what it fetched,
// takes the leader's HW (bounded by its own LEO) and truncates when told.
//
// The HW rule: HW = min(leader LEO, LEO of every replica in the maximal ISR, LEO of every caught-up
// replica), never moving backwards. The maximal ISR is the committed ISR plus a proposed expansion
// still being written (KIP-497): a shrink counts only once committed.
//
// ISR changes are not applied here: the partition asks its owner (PartitionOwner) to write the new
// state to the coordination service with a conditional write on the version it last saw, and the
// owner reports back. A zombie leader's write fails on the version and changes nothing.
//
// Trace events (node = this broker): become_leader, become_follower, log_append (one per batch,
// with its CRC, so checkers can compare replicas), log_truncate, hw_advance, isr_change,
// isr_change_failed, log_open.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "engine/broker/broker_config.h"
#include "engine/broker/producer_state.h"
#include "engine/core/shared_bytes.h"
#include "engine/core/topic_partition.h"
#include "engine/broker/zk_data.h"
#include "engine/core/runtime.h"
#include "engine/log/log.h"
#include "engine/protocol/errors.h"

namespace gregor::broker {

using protocol::ErrorCode;

class Partition;

// What a partition needs from its broker.
class PartitionOwner {
 public:
  virtual ~PartitionOwner() = default;
  // Write new_state to the partition's state znode if its version is still expected_zk_version;
  // report with Partition::on_isr_write_result.
  virtual void write_isr(Partition& p, const LeaderIsrState& new_state, int32_t expected_zk_version) = 0;
  // The HW or LEO moved: delayed produce and fetch requests may complete.
  virtual void on_partition_progress(Partition& p) = 0;
};

enum class Role { kNone, kLeader, kFollower };

// Broker ids as the partition keeps them; the wire and zk carry int32s (to_replicas, to_ids).
using Replicas = std::vector<NodeId>;
Replicas to_replicas(const std::vector<int32_t>& ids);
std::vector<int32_t> to_ids(const Replicas& replicas);
std::string int_list(const Replicas& replicas);  // "1,2,3"

// The partition state a controller sends in LeaderAndIsr.
struct PartitionAssignmentState {
  int32_t controller_epoch = 0;
  NodeId leader{-1};
  LeaderEpoch leader_epoch{0};
  Replicas isr;
  int32_t zk_version = 0;
  Replicas replicas;
  bool is_new = false;
};

// The leader's view of one follower.
struct FollowerState {
  NodeId broker{-1};
  Offset leo{-1};  // -1: unknown until the follower fetches
  Offset log_start{-1};  // the follower's log start offset, from its fetches (-1: not known yet)
  Time last_caught_up{0};
  Time last_fetch{0};
  Offset leader_leo_at_last_fetch{-1};
};

// The end of a leader epoch in a log (OffsetForLeaderEpoch): the largest epoch at or below the one
// asked, and the offset where it ends; (-1, -1) when the log has no such epoch.
struct EpochEndOffset {
  LeaderEpoch epoch{-1};
  Offset end_offset{-1};
};

struct LeaderAppend {
  ErrorCode error = ErrorCode::NONE;
  Offset base_offset{-1};
  Offset last_offset{-1};
  Offset log_start{-1};
  int64_t log_append_time_ms = -1;  // the batch's timestamp under LogAppendTime; -1 under CreateTime
  std::string message;  // why, for errors
};

struct LeaderRead {
  ErrorCode error = ErrorCode::NONE;
  SharedBytes records;  // a view of the log's buffers where it can be (Log::read)
  // ReadLog::kFiles on real files: the batches as slices of the segment files instead of records.
  std::vector<FileSlice> files;
  size_t files_bytes = 0;
  // Without records (read_records false): whether the read would have returned at least one batch.
  bool records_available = false;
  Offset high_watermark{-1};
  Offset log_start{-1};
  Offset leo{-1};
  // Set when the follower's log diverged (its last fetched epoch ends earlier on the leader).
  std::optional<EpochEndOffset> diverging_epoch;
  // A consumer's fetch: the last stable offset, and (read_committed) the aborted transactions of
  // the range read.
  Offset last_stable_offset{-1};
  std::vector<AbortedTxn> aborted_transactions;
};

// What a fetch_for_* reads: nothing (only whether there is something), the batches' bytes, or the
// batches as file slices where the disk has files (bytes where it has not: the simulator).
enum class ReadLog : int8_t { kNo, kBytes, kFiles };

// A consumer fetch's isolation.level (Fetch and ListOffsets isolation_level: 0 and 1).
enum class IsolationLevel : int8_t { kReadUncommitted = 0, kReadCommitted = 1 };

// A transaction marker's append (WriteTxnMarkers).
struct MarkerAppend {
  ErrorCode error = ErrorCode::NONE;
  Offset offset{-1};  // the marker's
};

class Partition {
 public:
  Partition(Runtime& rt, PartitionOwner& owner, TopicPartition tp, NodeId local_broker, std::unique_ptr<log::Log> log,
            TopicConfig config, const BrokerConfig& broker_config);
  ~Partition();
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;

  const TopicPartition& tp() const { return tp_; }
  Role role() const { return role_; }
  bool is_leader() const { return role_ == Role::kLeader; }
  NodeId leader() const { return leader_; }
  LeaderEpoch leader_epoch() const { return leader_epoch_; }
  const Replicas& isr() const { return isr_; }
  const Replicas& replicas() const { return replicas_; }
  int32_t zk_version() const { return zk_version_; }
  Offset high_watermark() const { return hw_; }
  Offset log_end_offset() const { return log_->log_end_offset(); }
  Offset log_start_offset() const { return log_->log_start_offset(); }
  log::Log& log() { return *log_; }
  const TopicConfig& config() const { return config_; }
  // A dynamic topic config change (kafka-configs --alter): min.insync.replicas applies to the next
  // produce, the log settings to later appends and rolls.
  Status update_config(const TopicConfig& config);
  bool isr_change_in_flight() const { return pending_isr_.has_value(); }
  const ProducerStateManager& producer_state() const { return producer_state_; }

  // Role changes from LeaderAndIsr. Each returns false (and changes nothing) when the state is not
  // newer than what the partition has (a stale or duplicate request).
  bool make_leader(const PartitionAssignmentState& st, Time now);
  bool make_follower(const PartitionAssignmentState& st, Time now);
  // The replica is no longer assigned here or the topic is deleted.
  void make_offline();

  // Sets the HW read from the checkpoint at startup (bounded by the log).
  void restore_high_watermark(Offset hw);

  // --- Leader ---
  // Appends a produced batch: the log validates it once (engine/log/log.h), the producer state
  // checks its sequence numbers; every refusal is a Kafka error code.
  LeaderAppend append_as_leader(SharedBytes batch, int16_t required_acks, int16_t produce_version, Time now);
  // For a delayed acks=all produce: has the HW reached required_offset (exclusive end), and with
  // enough in-sync replicas? NONE when done, NOT_ENOUGH_REPLICAS_AFTER_APPEND, NOT_LEADER_OR_FOLLOWER,
  // or REQUEST_TIMED_OUT standing for "still waiting".
  ErrorCode check_enough_replicas_reach(Offset required_offset) const;
  // A follower's fetch: validates the epoch, detects divergence, records the follower's progress,
  // may expand the ISR and advance the HW, and returns records up to the LEO. An epoch below 0 is
  // "not given", as in Kafka's fetch fields. With read_log kNo it reads nothing, and says whether
  // there was something to read. As Kafka's Partition.fetchRecords(updateFetchState): only the
  // fetch's first read (update_fetch_state) records the follower's progress; a delayed fetch's
  // later tries and its final read, from the purgatory, change nothing.
  LeaderRead fetch_for_follower(NodeId replica, Offset fetch_offset, LeaderEpoch current_leader_epoch,
                                LeaderEpoch last_fetched_epoch, int32_t max_bytes, Time now, ReadLog read_log = ReadLog::kBytes,
                                bool update_fetch_state = true);
  // A follower's fetch names its log start offset: DeleteRecords waits for it (low_watermark).
  // True when it changed.
  bool on_follower_log_start(NodeId replica, Offset log_start);
  // Kafka's Partition.lowWatermarkIfLeader: the smallest log start offset of this leader and of
  // every follower on a live broker (-1 while a live follower has not reported one).
  Offset low_watermark(const std::function<bool(NodeId)>& is_live) const;
  // A consumer's fetch: up to the HW, or under read_committed up to the last stable offset with
  // the aborted transactions of the range (read_log as above).
  LeaderRead fetch_for_consumer(Offset fetch_offset, LeaderEpoch current_leader_epoch, int32_t max_bytes,
                                ReadLog read_log = ReadLog::kBytes, IsolationLevel isolation = IsolationLevel::kReadUncommitted);
  // The last stable offset (KIP-98): min(first offset of the earliest open transaction, HW).
  // Errors: a read of the log while the producer state catches up (KAFKA_STORAGE_ERROR).
  Result<Offset> last_stable_offset();
  // Appends a COMMIT or ABORT marker for a producer's transaction as leader (a control batch,
  // engine/record/control_record.h). NOT_LEADER_OR_FOLLOWER, INVALID_PRODUCER_EPOCH (an epoch older
  // than the producer's), TRANSACTION_COORDINATOR_FENCED (a coordinator epoch older than the last
  // marker's), KAFKA_STORAGE_ERROR. The caller waits for the HW to pass the marker before answering.
  MarkerAppend append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                                 Time now);
  // Writes the producer state to `<log end>.snapshot` (a clean shutdown, after the log's flush).
  void take_producer_snapshot();
  // The producer state brought up to the log's end (DescribeProducers). KAFKA_STORAGE_ERROR.
  ErrorCode refresh_producer_state();
  // OffsetForLeaderEpoch (as leader, and a follower's own answer for KIP-101/279 truncation).
  EpochEndOffset end_offset_for_epoch(LeaderEpoch epoch) const;
  // Periodic: drop followers that fell behind for longer than replica.lag.time.max.ms.
  void maybe_shrink_isr(Time now);
  void on_isr_write_result(bool ok, const LeaderIsrState& written, int32_t new_zk_version);

  // --- Follower ---
  // Appends fetched batches, then takes min(leader HW, own LEO) as HW.
  Status append_as_follower(ByteView records, Offset leader_hw, Time now);
  Status truncate_to(Offset offset, const char* reason);
  Status truncate_fully_and_start_at(Offset offset, const char* reason);
  std::optional<LeaderEpoch> latest_epoch() const;

 private:
  bool is_follower_caught_up(const FollowerState& f, Time now) const;
  FollowerState* follower(NodeId id);
  void maybe_increment_hw(Time now);
  void maybe_expand_isr(NodeId replica, Time now);
  void propose_isr(Replicas new_isr, const char* direction);
  void set_hw(Offset hw, const char* why);
  // What holds after every change: the HW within the log; a leader in its ISR, the ISR within the
  // replicas. Asserted where the state changes.
  // The state LeaderAndIsr gave, in the given role (make_leader and make_follower check it first).
  void take_state(Role role, const PartitionAssignmentState& st);
  void check_invariants() const;
  // The leader epoch fence of both fetches: FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH or NONE.
  ErrorCode check_fetch_epoch(LeaderEpoch current_leader_epoch) const;
  void emit_appends(ByteView batches, const char* role);

  Runtime& rt_;
  PartitionOwner& owner_;
  TopicPartition tp_;
  NodeId local_broker_;
  std::unique_ptr<log::Log> log_;
  TopicConfig config_;
  const BrokerConfig& broker_config_;

  Role role_ = Role::kNone;
  NodeId leader_{-1};
  LeaderEpoch leader_epoch_{-1};
  int32_t controller_epoch_ = 0;
  int32_t zk_version_ = 0;
  Replicas isr_;
  Replicas replicas_;
  Offset hw_{0};
  Offset leader_epoch_start_offset_{0};
  // The followers' states when leader, sorted by broker id: a flat array, because every follower
  // fetch looks up one state in each partition of its session.
  std::vector<FollowerState> followers_;
  std::optional<Replicas> pending_isr_;  // an ISR write in flight
  ProducerStateManager producer_state_;  // idempotent producers (KIP-98), rebuilt from the log
};

}  // namespace gregor::broker
