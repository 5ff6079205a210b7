// ConsumerNode: a consumer workload for the simulator: a Consumer in a group, a "processing" step
// that records what it consumed, and one of the three delivery modes, which differ only in when
// the offset is saved relative to processing (the seed design's last chapter):
//
//   at-most-once   commit the polled batch's offsets, then process it. A crash (or a failed commit)
//                  between the two loses the batch: records may be lost, never processed twice.
//   at-least-once  process the batch, then commit. A crash between the two, or a commit refused
//                  after a rebalance (ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS), makes the next
//                  owner process the batch again: records may be duplicated, never lost.
//   exactly-once   process the batch into the TransactionalSinkNode (engine/client/
//                  transactional_sink.h), which stores the output and the offsets in one atomic,
//                  idempotent transaction; a member given a partition resumes from the sink's
//                  offset, not the group's. With the idempotent producer (no duplicates in the
//                  input log) every record is output exactly once. Offsets are also committed to
//                  the group afterwards, for monitoring only.
//
//   exactly-once-txn
//                  Kafka's own consume-transform-produce loop (KIP-98, KIP-447; Kafka Streams'
//                  exactly_once_v2): each member owns a transactional producer (transactional.id:
//                  the workload's, one per member) and reads with isolation.level=read_committed.
//                  Per polled batch: begin a transaction, write one output record per input record
//                  to `output_topic`, send the batch's offsets to the transaction with the member's
//                  generation (sendOffsetsToTransaction with ConsumerGroupMetadata: a member a
//                  rebalance replaced is refused, ILLEGAL_GENERATION), commit. If anything fails the
//                  transaction aborts and the batch's partitions restart from the group's committed
//                  offsets (OffsetFetch with require_stable waits for a transaction still ending);
//                  a fenced producer is replaced by a new one with the same transactional.id. An
//                  output record's value names its input: "<topic>/<partition>/<offset>=<id>" (id:
//                  the input's record id), which the output-each-input-once checker reads back.
//
// Processing takes `processing_time` per polled batch (a crash can fall inside it). At-most-once
// and at-least-once record a processed record by emitting `consume`; in exactly-once the sink
// emits it when the transaction is durable, in exactly-once-txn the member once its transaction
// committed.
//
// For testing the checkers, `behaviour` may differ from `mode`: the node then claims one guarantee
// in its events and behaves by another (a deliberately broken mode).
//
// Trace events: consumer_start {group, client_id, mode, behaviour, topics}, consume {group, member,
// generation, mode, topic, partition, offset, value} (value: the record's id, the value up to its
// first '.', e.g. "p2001-17"), consume_dropped {group, member, count, error} (at-most-once batches
// given up after a failed commit; in exactly-once-txn, batches whose transaction aborted, to be read
// again), sink_error {group, error}; plus the Consumer's events and, in exactly-once-txn, the
// member's producer's (txn_begin, produce_ack, txn_commit, txn_abort, ...).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/client/consumer.h"
#include "engine/client/producer.h"
#include "engine/client/transactional_sink.h"

namespace gregor::client {

enum class DeliveryMode { kAtMostOnce, kAtLeastOnce, kExactlyOnce, kExactlyOnceTxn };
// "at-most-once", "at-least-once", "exactly-once", "exactly-once-txn"
const char* delivery_mode_name(DeliveryMode m);
std::optional<DeliveryMode> parse_delivery_mode(const std::string& name);

// The record's id as checkers know it: the value up to its first '.' ("p2001-17........" ->
// "p2001-17"); for another value, at most its first 64 bytes.
std::string record_id(const std::optional<Bytes>& value);

// exactly-once-txn: an output record's value, "<topic>/<partition>/<offset>=<id>": the input
// record it was made from. Its record id (above) is the whole reference when the topic name has no
// '.'; parse_output_reference reads it back.
std::string output_value(const std::string& topic, int32_t partition, int64_t offset, const std::string& input_id);
struct OutputReference {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::string input_id;
};
std::optional<OutputReference> parse_output_reference(const std::string& id);

struct ConsumerWorkload {
  std::vector<std::string> topics = {"orders"};
  DeliveryMode mode = DeliveryMode::kAtLeastOnce;
  std::optional<DeliveryMode> behaviour;  // unset: behave as `mode`
  Duration processing_time = Duration::millis(5);  // per polled batch
  Duration poll_idle = Duration::millis(50);       // poll again after an empty poll
  NodeId sink{0};                                  // exactly-once: the sink node
  Duration sink_timeout = Duration::seconds(5);
  Time start_at{0};
  // exactly-once-txn: where the output goes, and the member's producer (transactional.id set).
  std::string output_topic;
  ProducerConfig producer;
};

class ConsumerNode final : public Node {
 public:
  ConsumerNode(Runtime& rt, ConsumerConfig config, ConsumerWorkload workload);
  ~ConsumerNode() override;
  void start() override;
  void on_message(NodeId from, Bytes frame) override;
  void on_disconnect(NodeId peer) override;

  Consumer& consumer() { return consumer_; }
  const ConsumerWorkload& workload() const { return workload_; }
  DeliveryMode behaviour() const { return workload_.behaviour.value_or(workload_.mode); }
  int64_t processed() const { return processed_; }
  int64_t batches() const { return batches_; }
  // Leaves the group (LeaveGroup) and stops polling.
  void stop(std::function<void()> done);

 private:
  struct SinkCall {
    std::function<void(protocol::ErrorCode, ByteReader*)> done;
    TimerId timer;
  };
  void schedule_poll(Duration d);
  void poll_loop();
  void handle(std::vector<ConsumerRecord> records);
  void process(const std::vector<ConsumerRecord>& records);  // emits consume
  void finish_batch();
  OffsetMap next_offsets(const std::vector<ConsumerRecord>& records) const;
  // Exactly-once.
  void sink_write(std::shared_ptr<std::vector<ConsumerRecord>> records);
  void sink_resume(const std::vector<TopicPartition>& tps);
  void sink_call(Bytes frame, int32_t correlation_id, std::function<void(protocol::ErrorCode, ByteReader*)> done);
  // Exactly-once-txn.
  class TaggedRuntime;
  void txn_start_producer();
  void txn_process(std::shared_ptr<std::vector<ConsumerRecord>> records, ConsumerGroupMetadata group);
  void txn_abort(std::shared_ptr<std::vector<ConsumerRecord>> records, protocol::ErrorCode why);
  void txn_rewind(const std::vector<ConsumerRecord>& records, protocol::ErrorCode why);

  Runtime& rt_;
  ConsumerWorkload workload_;
  Consumer consumer_;
  bool busy_ = false;
  bool stopped_ = false;
  bool poll_scheduled_ = false;
  Time poll_at_{0};
  TimerId poll_timer_{0};  // the scheduled poll, cancelled when an earlier one replaces it
  int64_t processed_ = 0;
  int64_t batches_ = 0;
  int32_t next_sink_correlation_ = 1;
  std::map<int32_t, SinkCall> sink_calls_;
  // Exactly-once-txn: the member's producer shares the node's connections; TaggedRuntime marks its
  // correlation ids so that responses reach the right client. A producer replaced after fencing is
  // kept (its callbacks check the incarnation) until the node ends.
  std::unique_ptr<TaggedRuntime> producer_rt_;
  std::unique_ptr<Producer> producer_;
  std::vector<std::pair<std::unique_ptr<TaggedRuntime>, std::unique_ptr<Producer>>> retired_producers_;
  uint32_t producer_incarnation_ = 0;
  bool producer_ready_ = false;
};

}  // namespace gregor::client
