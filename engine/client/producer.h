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

  void send(ProducerRecord record, Callback cb);
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

 private:
  struct Pending;
  struct Batch;
  struct TopicPartitionKey {
    std::string topic;
    int32_t partition;
    auto operator<=>(const TopicPartitionKey&) const = default;
  };
  void place(std::unique_ptr<Pending> p);
  void place_waiting();
  int32_t choose_partition(const ProducerRecord& r);
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

  Runtime& rt_;
  ProducerConfig config_;
  NetworkClient net_;
  MetadataManager metadata_;
  std::map<TopicPartitionKey, std::deque<std::unique_ptr<Batch>>> queues_;
  std::deque<std::unique_ptr<Pending>> waiting_for_metadata_;
  std::map<std::string, int32_t> sticky_;  // null-key sticky partition per topic
  std::map<int32_t, int32_t> in_flight_;   // requests per broker
  size_t pending_ = 0;
  bool drain_scheduled_ = false;
  Time drain_at_{0};
  // Idempotence state.
  int64_t producer_id_ = -1;
  int16_t producer_epoch_ = -1;
  bool init_in_flight_ = false;
  bool reset_needed_ = false;
  std::map<TopicPartitionKey, int32_t> next_sequence_;
  std::map<TopicPartitionKey, std::set<int32_t>> unacked_;  // base sequences sent and not completed
  std::map<TopicPartitionKey, int32_t> in_flight_batches_;

 public:
  int64_t producer_id() const { return producer_id_; }
};

}  // namespace gregor::client
