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
// Trace events: produce_ack {topic, partition, base_offset, count, crc, acks} when a batch is
// acknowledged (checkers match it against replica logs), produce_error {topic, partition, error}.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/client/metadata_manager.h"
#include "engine/client/network_client.h"
#include "engine/record/record.h"

namespace gregor::client {

struct ProducerConfig {
  std::string client_id = "producer";
  std::vector<NodeId> bootstrap_servers;
  int16_t acks = -1;  // "all"
  int32_t batch_size = 16384;
  int64_t linger_ms = 5;
  int64_t request_timeout_ms = 30000;
  int64_t delivery_timeout_ms = 120000;
  int64_t retry_backoff_ms = 100;
  int32_t retries = INT32_MAX;
  int32_t max_in_flight_requests_per_connection = 5;
  bool enable_idempotence = false;
  int64_t metadata_max_age_ms = 300000;

  // Kafka's keys: acks (0, 1, -1, all), batch.size, linger.ms, request.timeout.ms,
  // delivery.timeout.ms, retry.backoff.ms, retries, max.in.flight.requests.per.connection,
  // enable.idempotence, client.id, metadata.max.age.ms.
  Status apply(const std::map<std::string, std::string>& settings);
};

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

  void send(ProducerRecord record, Callback cb);
  // Records accepted and not yet completed.
  size_t pending() const { return pending_; }
  const ProducerConfig& config() const { return config_; }
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
};

}  // namespace gregor::client
