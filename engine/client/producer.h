// Producer: Kafka's producer client, as a library any Node can own (workload producers in the
// simulator, `gregor produce` on real sockets).
//
// send() puts a record in the accumulator: one queue of batches per partition (Kafka's
// RecordAccumulator). A batch is sent when it reaches batch.size or is linger.ms old, to the
// partition's leader, in a Produce request grouped by broker, with at most
// max.in.flight.requests.per.connection requests in flight per broker. Retriable errors
// (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, timeouts, lost connections, ...) put the batch
// back at the head of its queue after retry.backoff.ms and refresh metadata; a batch fails when
// delivery.timeout.ms has passed since it was created or retries are exhausted.
//
// Idempotence (enable.idempotence=true, KIP-98): the producer first obtains a producer id
// (InitProducerId, from any broker), stamps every batch with it, its epoch and a per-partition
// sequence number, and forces acks=all. A retried batch keeps its sequence, so a leader that
// already has it (even a new leader after failover: it rebuilds producer state from its log)
// acknowledges it with the original offset instead of appending it twice. Retried batches go back
// in sequence order, and a retried batch is sent only when it is the oldest unacknowledged one of
// its partition and nothing else of that partition is in flight; OUT_OF_ORDER_SEQUENCE_NUMBER for
// a batch behind an unacknowledged one is retried. A batch that fails for good leaves a gap, so the
// producer then takes a new producer id and starts its sequences again at 0 (the pre-KIP-360
// "reset producer id" recovery).
//
// Trace events: produce_ack {topic, partition, base_offset, count, crc, acks} when a batch is
// acknowledged (checkers match it against replica logs), produce_error {topic, partition, error},
// producer_init {producer_id, producer_epoch}.
//
// Transactions (transactional.id, KIP-98, as Kafka's TransactionManager): init_transactions()
// finds the transaction coordinator (FindCoordinator, key type 1) and takes the id's producer id
// and epoch from it (InitProducerId), fencing any older instance. Then, one at a time:
// begin_transaction(); send() adds each new partition to the transaction (AddPartitionsToTxn)
// before its first batch goes out, and every batch carries the transactional bit;
// send_offsets_to_transaction() adds a group's offsets (AddOffsetsToTxn, then TxnOffsetCommit to
// the group coordinator); commit_transaction() flushes what is queued and sends EndTxn(commit);
// abort_transaction() drops batches not yet sent, waits for those in flight and sends
// EndTxn(abort). Coordinator errors (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS, CONCURRENT_TRANSACTIONS) and lost connections are retried after
// retry.backoff.ms, looking the coordinator up again, until delivery.timeout.ms. Fencing
// (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH, TRANSACTIONAL_ID_AUTHORIZATION_FAILED) is fatal: every
// pending and later call fails with it. A batch that fails for good inside a transaction makes it
// abortable only: commit fails with that error, abort works. Trace events: txn_begin, txn_commit,
// txn_abort (docs/trace-events.md).
//
// transaction.version (KIP-890 part 2): init_transactions() first asks the coordinator's features
// (ApiVersions v3). At 2 every EndTxn bumps the producer's epoch; Kafka 4.0's client takes the new
// one from EndTxn v5, which Kafka 3.9 (whose range Gregor keeps) does not have, so Gregor's
// producer re-initialises after each EndTxn (InitProducerId with its id and epoch, KIP-360) and
// begins the next transaction at the epoch that answers.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "engine/client/metadata_manager.h"
#include "engine/client/producer_config.h"
#include "engine/protocol/network_client.h"
#include "engine/record/record.h"

namespace gregor::client {

struct ProducerRecord {
  std::string topic;
  std::optional<int32_t> partition;
  std::optional<Bytes> key;
  std::optional<Bytes> value;
  std::vector<record::RecordHeader> headers;
  int64_t timestamp = -1;  // -1: now
};

// The group a transaction's offsets belong to, as Kafka's ConsumerGroupMetadata: with a member id
// and generation (TxnOffsetCommit v3+, KIP-447) the group coordinator refuses the offsets of a
// member that a rebalance has replaced (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID), so a zombie's
// transaction can only abort.
struct ConsumerGroupMetadata {
  std::string group_id;
  int32_t generation_id = -1;  // -1 and an empty member id: not checked
  std::string member_id;
};

// An offset for send_offsets_to_transaction: the next record the group will read.
struct TopicPartitionOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
};

struct RecordMetadata {
  protocol::ErrorCode error = protocol::ErrorCode::NONE;
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;  // -1 with acks=0
};

class Producer {
 public:
  using Callback = std::function<void(const RecordMetadata&)>;

  Producer(Runtime& rt, ProducerConfig config);
  ~Producer();
  void start();
  // The owning node forwards frames and disconnects of outbound connections (positive ids).
  void on_message(NodeId from, const Bytes& frame) { net_.on_message(from, frame); }
  void on_disconnect(NodeId peer) { net_.on_disconnect(peer); }
  // Its connections (the CLI reads authentication_failure() from it).
  const NetworkClient& network() const { return net_; }

  // The record's bytes are copied into its partition's open batch (or kept until the topic's
  // partitions are known): the caller may reuse the record at once.
  void send(const ProducerRecord& record, Callback cb);
  // Records accepted and not yet completed.
  size_t pending() const { return pending_; }
  const ProducerConfig& config() const { return config_; }
  // Changes settings of the running producer (acks, linger.ms, batch.size, retry.backoff.ms,
  // request.timeout.ms, delivery.timeout.ms); they apply to requests sent from now on. Kafka's
  // producer takes its config once; Gregor lets a scenario or the dashboard flip acks mid-run to
  // show the difference. An idempotent producer keeps acks=all. Emits producer_config_change.
  Status reconfigure(const std::map<std::string, std::string>& settings);
  static const std::vector<std::string>& reconfigurable_keys();
  // `current` with `settings` applied, or why reconfigure would refuse them.
  static Result<ProducerConfig> reconfigured(const ProducerConfig& current, const std::map<std::string, std::string>& settings);
  MetadataManager& metadata() { return metadata_; }

  // Transactions. REQUIRES for each: transactional() (a transactional.id is set).
  using TxnCallback = std::function<void(protocol::ErrorCode)>;
  bool transactional() const { return !config_.transactional_id.empty(); }
  void init_transactions(TxnCallback cb);
  // NONE, the fatal error, or INVALID_TXN_STATE when not initialised or a transaction is open.
  protocol::ErrorCode begin_transaction();
  void send_offsets_to_transaction(std::vector<TopicPartitionOffset> offsets, std::string group_id, TxnCallback cb);
  void send_offsets_to_transaction(std::vector<TopicPartitionOffset> offsets, ConsumerGroupMetadata group, TxnCallback cb);
  void commit_transaction(TxnCallback cb);
  void abort_transaction(TxnCallback cb);
  bool in_transaction() const { return txn_phase_ == TxnPhase::kInTransaction; }
  // NONE, or the fencing error that ended this producer.
  protocol::ErrorCode fatal_error() const { return fatal_error_; }
  int16_t producer_epoch() const { return producer_epoch_; }

 private:
  enum class TxnPhase { kUninitialized, kInitializing, kReady, kInTransaction, kCommitting, kAborting, kFatal };
  struct Pending;
  struct Batch;
  struct TopicPartitionKey {
    std::string topic;
    int32_t partition;
    auto operator<=>(const TopicPartitionKey&) const = default;
  };
  using Queue = std::deque<std::unique_ptr<Batch>>;
  // Appends a record to its partition's open batch. `parts`: the topic's partitions (known).
  void place(const ProducerRecord& record, Callback&& cb, Time created, const std::vector<PartitionInfo>& parts);
  void place_waiting();
  int32_t choose_partition(const ProducerRecord& r, const std::vector<PartitionInfo>& parts);
  Queue& queue_for(const std::string& topic, int32_t partition);
  void schedule_drain(Duration d);
  void drain();
  void send_batches(int32_t leader, std::vector<std::pair<TopicPartitionKey, std::unique_ptr<Batch>>> batches);
  void complete(const TopicPartitionKey& tp, Batch& b, protocol::ErrorCode err, int64_t base_offset);
  void retry_or_fail(const TopicPartitionKey& tp, std::unique_ptr<Batch> b, protocol::ErrorCode err);
  bool retriable(protocol::ErrorCode err) const;
  void expire_old_batches();
  // Idempotence.
  bool idempotent() const { return config_.enable_idempotence; }
  void init_producer_id();
  void maybe_reset_producer_id();
  bool may_send_idempotent(const TopicPartitionKey& tp, const Batch& b);
  void requeue_in_sequence_order(const TopicPartitionKey& tp, std::unique_ptr<Batch> b);
  // Transactions (producer_txn.cpp).
  template <typename Req, typename Resp>
  void coordinator_call(int8_t key_type, std::string key, Req req, int16_t version,
                        std::function<protocol::ErrorCode(const Resp&)> error_of,
                        std::function<void(protocol::ErrorCode, const Resp*)> done, Time deadline);
  void txn_init_producer_id(bool bump, TxnCallback cb);
  void find_coordinator(int8_t key_type, const std::string& key, std::function<void(protocol::ErrorCode)> done);
  std::optional<int32_t>& coordinator_for(int8_t key_type, const std::string& key);
  bool may_send_transactional(const TopicPartitionKey& tp);
  void add_partitions();
  void maybe_end_transaction();
  void end_transaction(bool commit);
  void finish_end(bool commit, protocol::ErrorCode err);
  void become_fatal(protocol::ErrorCode err);
  void fail_unsent(protocol::ErrorCode err);
  std::string txn_partitions_text() const;
  static bool fencing_error(protocol::ErrorCode err);

  Runtime& rt_;
  ProducerConfig config_;
  NetworkClient net_;
  MetadataManager metadata_;
  std::map<TopicPartitionKey, Queue> queues_;
  // The queues of the topic placed last, by partition (null: not looked up yet). queues_ never
  // drops a partition, so the pointers stay valid; a record of another topic replaces the cache.
  std::string cached_topic_;
  std::vector<Queue*> cached_queues_;
  // What send() found about the topic of the last record, until the metadata next changes
  // (MetadataManager::updates): a producer sends record after record to one topic, and each lookup
  // by name compares names down a tree.
  struct SentTopic {
    std::string topic;
    uint64_t updates = 0;
    bool valid = false;
    protocol::ErrorCode error = protocol::ErrorCode::NONE;
    bool added = false;                                  // given to metadata_.add_topic
    const std::vector<PartitionInfo>* parts = nullptr;  // metadata_.partitions(topic) after that
  };
  SentTopic sent_topic_;
  std::deque<std::unique_ptr<Pending>> waiting_for_metadata_;
  std::map<std::string, int32_t> sticky_;  // null-key sticky partition per topic
  std::map<int32_t, int32_t> in_flight_;   // requests per broker
  size_t pending_ = 0;
  bool drain_scheduled_ = false;
  Time drain_at_{0};
  TimerId drain_timer_{0};  // the scheduled drain, cancelled when an earlier one replaces it
  // Idempotence state.
  int64_t producer_id_ = -1;
  int16_t producer_epoch_ = -1;
  bool init_in_flight_ = false;
  bool reset_needed_ = false;
  std::map<TopicPartitionKey, int32_t> next_sequence_;
  std::map<TopicPartitionKey, std::set<int32_t>> unacked_;  // base sequences sent and not completed
  std::map<TopicPartitionKey, int32_t> in_flight_batches_;
  // Transaction state.
  TxnPhase txn_phase_ = TxnPhase::kUninitialized;
  protocol::ErrorCode fatal_error_ = protocol::ErrorCode::NONE;
  protocol::ErrorCode abortable_error_ = protocol::ErrorCode::NONE;
  std::optional<int32_t> txn_coordinator_;
  std::map<std::string, std::optional<int32_t>> group_coordinators_;
  std::set<TopicPartitionKey> txn_partitions_;     // added to the open transaction
  std::set<TopicPartitionKey> partitions_to_add_;  // waiting for AddPartitionsToTxn
  bool add_in_flight_ = false;
  bool offsets_added_ = false;
  int32_t offsets_in_flight_ = 0;
  bool end_in_flight_ = false;
  // A sequenced batch failed for good (bump the epoch after the abort), or the last EndTxn bumped
  // it at the coordinator (transaction.version 2): InitProducerId before the next transaction.
  bool epoch_bump_needed_ = false;
  int16_t transaction_version_ = 1;  // the coordinator's finalized feature (ApiVersions)
  TxnCallback init_cb_;
  TxnCallback end_cb_;

 public:
  int64_t producer_id() const { return producer_id_; }
};

}  // namespace gregor::client
