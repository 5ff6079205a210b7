// ProducerNode: a node that produces a steady workload with a Producer: `rate` records per second
// to one topic, values of `value_bytes` bytes that name the record ("p2001-17" padded), keys from a
// pattern. Scenarios, benchmarks and the dashboard use it as their producing client.
//
// Key patterns: "none" (null keys: sticky partitioning), "seq" (key = the record's sequence
// number), "mod:N" (N distinct keys, round robin).
//
// With a transactional.id the node runs transactions back to back: init_transactions, then
// begin, `transaction_records` records, commit (or abort, for every `abort_every`-th transaction;
// a failed commit aborts). A fenced producer stops. Stopping commits the open transaction.
#pragma once

#include <memory>
#include <string>

#include "engine/client/producer.h"

namespace gregor::client {

struct ProducerWorkload {
  std::string topic = "orders";
  double rate_per_sec = 100;
  int32_t value_bytes = 100;
  std::string key_pattern = "none";
  int64_t max_records = -1;  // -1: until stopped
  Time start_at{0};
  Time stop_at{INT64_MAX};
  int64_t transaction_records = 100;  // records per transaction (transactional producers)
  int64_t abort_every = 0;            // every k-th transaction aborts; 0: none
};

class ProducerNode final : public Node {
 public:
  ProducerNode(Runtime& rt, ProducerConfig config, ProducerWorkload workload);
  void start() override;
  void on_message(NodeId from, Bytes frame) override { producer_.on_message(from, frame); }
  void on_disconnect(NodeId peer) override { producer_.on_disconnect(peer); }

  Producer& producer() { return producer_; }
  ProducerWorkload& workload() { return workload_; }
  int64_t sent() const { return sent_; }
  int64_t acked() const { return acked_; }
  int64_t failed() const { return failed_; }

 private:
  void tick();
  void send_one();
  // Transactions: returns whether records may be sent now.
  bool transaction_step();
  void end_transaction(bool commit);
  Runtime& rt_;
  ProducerWorkload workload_;
  Producer producer_;
  int64_t sent_ = 0, acked_ = 0, failed_ = 0;
  // The record send_one fills and hands to the producer, which copies its bytes: kept, so that its
  // key and value buffers are reused instead of allocated for every record.
  ProducerRecord next_;
  double credit_ = 0;
  Time last_tick_{0};
  enum class Txn { kUninitialized, kInitializing, kIdle, kOpen, kEnding, kStopped } txn_ = Txn::kUninitialized;
  int64_t txn_sent_ = 0;    // records sent in the open transaction
  int64_t txn_number_ = 0;  // transactions begun
};

}  // namespace gregor::client
