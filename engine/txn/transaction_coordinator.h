// TransactionCoordinator: the broker-side coordinator of transactions (KIP-98), as Kafka 3.9's
// TransactionCoordinator, TransactionStateManager, TransactionMetadata and
// TransactionMarkerChannelManager do it.
//
// Where transactions live. Every transactional id belongs to one partition of the internal topic
// __transaction_state (engine/txn/transaction_log.h); the broker leading that partition is its
// coordinator. The topic is created on the first FindCoordinator for a transactional id, with
// transaction.state.log.num.partitions partitions and transaction.state.log.replication.factor
// replicas (as Kafka, and as Gregor's __consumer_offsets: refused, the client retrying, while fewer
// brokers are alive), min.insync.replicas = transaction.state.log.min.isr and segment.bytes =
// transaction.state.log.segment.bytes (Kafka also compacts it; Gregor's logs do not model
// compaction, as for __consumer_offsets). Every state change is a record appended
// there and acknowledged once the high watermark covers it (acks=all). A new leader of a partition
// loads its transactional ids (COORDINATOR_LOAD_IN_PROGRESS meanwhile) and finishes the
// transactions it finds in PrepareCommit or PrepareAbort; a broker that loses the leadership
// unloads them (NOT_COORDINATOR).
//
// The states (Kafka's TransactionState) and what moves a transaction between them:
//   Empty          -> Ongoing (AddPartitionsToTxn / AddOffsetsToTxn)
//   Ongoing        -> PrepareCommit, PrepareAbort (EndTxn; an abort also from a timeout or fencing)
//   PrepareCommit  -> CompleteCommit once every partition leader wrote the marker (WriteTxnMarkers)
//   PrepareAbort   -> CompleteAbort  likewise
//   Complete*      -> Ongoing (the next transaction), Empty (InitProducerId)
//   PrepareEpochFence: in memory only, InitProducerId (or the timeout) bumped the epoch of an
//   Ongoing transaction and aborts it.
// A transaction in Prepare* answers CONCURRENT_TRANSACTIONS to everything but a retried EndTxn.
//
// transaction.version (Gregor's teaching switch, named as Kafka's feature, KIP-890):
//   1 (default, Kafka 3.9): a producer's epoch changes only at InitProducerId (or fencing): a
//     stale EndTxn of the previous transaction, arriving once the next one is Ongoing, ends the
//     next one.
//   2 (KIP-890 part 2): every EndTxn bumps the epoch (the Prepare record carries epoch + 1; the
//     markers are written with it): a stale EndTxn has the old epoch and is fenced; a retry of the
//     same EndTxn (the epoch just before) is answered as a retry. Kafka 4.0 returns the new epoch in
//     EndTxn v5, which Kafka 3.9's range (0-4) does not have; end_txn's result carries it here, and a
//     wire client learns it only through InitProducerId.
//
// Trace events (node = this broker): txn_topic_create, txn_load, txn_unload, txn_state_change,
// txn_marker_send, txn_marker_error (docs/trace-events.md).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/runtime.h"
#include "engine/txn/transaction_log.h"
#include "engine/txn/txn_config.h"
#include "engine/txn/txn_host.h"
#include "generated/protocol/describe_transactions.h"
#include "generated/protocol/list_transactions.h"

namespace gregor::txn {

inline constexpr int64_t kTxnAppendTimeoutMs = 30000;   // request.timeout.ms of the state log appends
inline constexpr int64_t kMarkerRetryBackoffMs = 100;   // retry.backoff.ms of the marker channel
inline constexpr int16_t kWriteTxnMarkersVersion = 1;   // Kafka 3.9's brokers send v1 (flexible)
inline constexpr int64_t kMarkerRequestTimeoutMs = 30000;  // request.timeout.ms of the marker channel
inline constexpr size_t kTransactionsPerCoordinatorMax = 100000;  // a bound on memory

// Kafka's RecordBatch.NO_PRODUCER_EPOCH and its epoch exhaustion (Short.MaxValue - 1).
inline constexpr int16_t kNoProducerEpoch = -1;
inline bool epoch_exhausted(int16_t epoch) { return epoch >= INT16_MAX - 1; }

struct TransactionMetadata {
  std::string transactional_id;
  int32_t log_partition = 0;
  int64_t producer_id = -1;
  int64_t last_producer_id = -1;
  int16_t producer_epoch = kNoProducerEpoch;
  int16_t last_producer_epoch = kNoProducerEpoch;
  int32_t txn_timeout_ms = 0;
  TxnState state = TxnState::kEmpty;
  std::set<TopicPartition> partitions;
  int64_t txn_start_timestamp_ms = -1;
  int64_t txn_last_update_timestamp_ms = -1;
  // A state log write in flight (Kafka's pendingState): other requests get CONCURRENT_TRANSACTIONS.
  std::optional<TxnState> pending_state;
  // Partitions whose marker is not written yet (while in PrepareCommit/PrepareAbort).
  std::set<TopicPartition> markers_remaining;
  uint64_t markers_epoch = 0;  // a marker answer from an earlier round is ignored
};

class TransactionCoordinator {
 public:
  TransactionCoordinator(Runtime& rt, const TxnConfig& config, TxnHost& host);
  ~TransactionCoordinator();
  TransactionCoordinator(const TransactionCoordinator&) = delete;
  TransactionCoordinator& operator=(const TransactionCoordinator&) = delete;

  // Starts the periodic checks (timed-out transactions, expired transactional ids).
  void start();

  // FindCoordinator for a transactional id: its coordinator, or COORDINATOR_NOT_AVAILABLE (the
  // first lookup creates __transaction_state).
  struct Lookup {
    protocol::ErrorCode error = protocol::ErrorCode::NONE;
    BrokerAddress leader;
  };
  Lookup find_coordinator(const std::string& transactional_id);

  struct ProducerIdAndEpoch {
    protocol::ErrorCode error = protocol::ErrorCode::NONE;
    int64_t producer_id = -1;
    int16_t producer_epoch = kNoProducerEpoch;
  };
  using ResultCallback = std::function<void(const ProducerIdAndEpoch&)>;
  using ErrorCallback = std::function<void(protocol::ErrorCode)>;

  // InitProducerId with a transactional id (expected: v3+ producer id and epoch, KIP-360). Errors
  // as Kafka's coordinator gives them (PRODUCER_FENCED; the handler maps it for old versions).
  void init_producer_id(const std::string& transactional_id, int32_t txn_timeout_ms,
                        std::optional<std::pair<int64_t, int16_t>> expected, ResultCallback done);
  // AddPartitionsToTxn (and AddOffsetsToTxn with the group's __consumer_offsets partition).
  void add_partitions(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                      const std::set<TopicPartition>& partitions, ErrorCallback done);
  // AddPartitionsToTxn v4+ verify_only: each partition NONE when it is in the transaction,
  // INVALID_TXN_STATE when not; or one error for all.
  std::map<TopicPartition, protocol::ErrorCode> verify_partitions(const std::string& transactional_id, int64_t producer_id,
                                                                  int16_t producer_epoch,
                                                                  const std::set<TopicPartition>& partitions);
  // EndTxn: answered once the Prepare record is replicated; the markers follow. The result carries
  // the producer id and epoch after it (transaction.version 2 bumps the epoch).
  void end_txn(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch, bool commit,
               ResultCallback done);

  protocol::DescribeTransactionsResponse::TransactionState describe(const std::string& transactional_id) const;
  protocol::ListTransactionsResponse list(const protocol::ListTransactionsRequest& req) const;

  // From the broker: leadership changed (LeaderAndIsr, StopReplica); a partition made progress.
  void on_partitions_changed();
  void on_partition_progress(const TopicPartition& tp);

  // Views for tests and the dashboard.
  const TransactionMetadata* transaction(const std::string& transactional_id) const;
  std::vector<std::string> transactional_ids() const;
  std::vector<int32_t> owned_partitions() const;
  bool is_loading(int32_t partition) const;
  int32_t state_partition_count() const;
  // Runs the timed-out transaction check now (it also runs every
  // transaction.abort.timed.out.transaction.cleanup.interval.ms).
  void abort_timed_out_transactions();
  void remove_expired_transactional_ids();

 private:
  struct OwnedPartition {
    int32_t leader_epoch = -1;
    bool loading = true;
  };
  struct PendingAppend {
    TopicPartition tp;
    Offset required;
    TimerId timer;
    ErrorCallback done;
  };
  // The state a write moves a transaction to (Kafka's TxnTransitMetadata).
  struct Transit {
    int64_t producer_id = -1;
    int64_t last_producer_id = -1;
    int16_t producer_epoch = kNoProducerEpoch;
    int16_t last_producer_epoch = kNoProducerEpoch;
    int32_t txn_timeout_ms = 0;
    TxnState state = TxnState::kEmpty;
    std::set<TopicPartition> partitions;
    int64_t txn_start_timestamp_ms = -1;
    int64_t txn_last_update_timestamp_ms = -1;
  };

  protocol::ErrorCode status_of(const std::string& transactional_id) const;
  TransactionMetadata* find(const std::string& transactional_id);
  Transit current(const TransactionMetadata& md) const;
  // Writes the transit to the state log; on success applies it (txn_state_change), then done.
  void write_transit(TransactionMetadata& md, const Transit& t, ErrorCallback done);
  void append(int32_t partition, Bytes key, std::optional<Bytes> value, ErrorCallback done);
  void schedule_append_check();
  void check_appends();
  void fail_appends(int32_t partition, protocol::ErrorCode error);

  void init_existing(const std::string& transactional_id, int32_t txn_timeout_ms,
                     std::optional<std::pair<int64_t, int16_t>> expected, ResultCallback done);
  void new_producer_id_then(const std::string& transactional_id, std::function<void(protocol::ErrorCode, int64_t)> next);
  // Kafka's endTransaction: from a client (EndTxn) or not (a timeout or fencing abort).
  void end_transaction(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch, bool commit,
                       bool from_client, ResultCallback done);
  // Bumps the epoch of an Ongoing transaction and aborts it (fencing its producer).
  void fence_and_abort(TransactionMetadata& md, ErrorCallback done);

  // Markers (Kafka's TransactionMarkerChannelManager).
  void start_markers(TransactionMetadata& md);
  void send_markers(const std::string& transactional_id, uint64_t round);
  void on_marker_response(const std::string& transactional_id, uint64_t round, int32_t broker,
                          const std::set<TopicPartition>& sent, protocol::ErrorCode transport,
                          const protocol::WriteTxnMarkersResponse* resp);
  void retry_markers(const std::string& transactional_id, uint64_t round);
  void complete_transaction(const std::string& transactional_id, uint64_t round);

  void load_partition(int32_t partition, int32_t leader_epoch);
  void unload_partition(int32_t partition);
  void schedule_timeout_check();
  void schedule_expiration_check();
  void emit_change(const TransactionMetadata& md, TxnState from);

  Runtime& rt_;
  const TxnConfig& config_;
  TxnHost& host_;
  std::map<int32_t, OwnedPartition> owned_;
  std::map<std::string, std::unique_ptr<TransactionMetadata>> txns_;
  std::map<uint64_t, PendingAppend> pending_appends_;
  uint64_t next_append_id_ = 1;
  uint64_t next_marker_round_ = 1;
  bool append_check_scheduled_ = false;
  bool creating_topic_ = false;
  TimerId timeout_timer_;
  TimerId expiration_timer_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// "topic-0,topic-1" for traces.
std::string partitions_text(const std::set<TopicPartition>& partitions);

}  // namespace gregor::txn
