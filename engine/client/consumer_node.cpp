#include "engine/client/consumer_node.h"

#include <algorithm>

namespace gregor::client {

using protocol::ErrorCode;

namespace {
constexpr Duration kSinkRetryBackoff = Duration::millis(100);
constexpr size_t kRecordIdBytesMax = 64;

}  // namespace

const char* delivery_mode_name(DeliveryMode m) {
  switch (m) {
    case DeliveryMode::kAtMostOnce: return "at-most-once";
    case DeliveryMode::kAtLeastOnce: return "at-least-once";
    case DeliveryMode::kExactlyOnce: return "exactly-once";
    case DeliveryMode::kExactlyOnceTxn: return "exactly-once-txn";
  }
  return "?";
}

std::optional<DeliveryMode> parse_delivery_mode(const std::string& name) {
  if (name == "at-most-once") return DeliveryMode::kAtMostOnce;
  if (name == "at-least-once") return DeliveryMode::kAtLeastOnce;
  if (name == "exactly-once") return DeliveryMode::kExactlyOnce;
  if (name == "exactly-once-txn") return DeliveryMode::kExactlyOnceTxn;
  return std::nullopt;
}

std::string record_id(const std::optional<Bytes>& value) {
  if (!value) return "null";
  const Bytes& v = *value;
  auto dot = std::find(v.begin(), v.end(), static_cast<uint8_t>('.'));
  size_t n = static_cast<size_t>(dot - v.begin());
  return std::string(v.begin(), v.begin() + static_cast<long>(std::min(n, kRecordIdBytesMax)));
}

std::string output_value(const std::string& topic, int32_t partition, int64_t offset, const std::string& input_id) {
  return topic + "/" + std::to_string(partition) + "/" + std::to_string(offset) + "=" + input_id;
}

std::optional<OutputReference> parse_output_reference(const std::string& id) {
  // "<topic>/<partition>/<offset>=<id>": Kafka's topic names have no '/' or '='.
  const size_t eq = id.find('=');
  if (eq == std::string::npos) return std::nullopt;
  const size_t second = id.rfind('/', eq);
  if (second == std::string::npos || second == 0) return std::nullopt;
  const size_t first = id.rfind('/', second - 1);
  if (first == std::string::npos || first == 0) return std::nullopt;
  auto number = [](const std::string& text, int64_t max) -> std::optional<int64_t> {
    if (text.empty() || text.size() > 18) return std::nullopt;
    int64_t v = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    if (v > max) return std::nullopt;
    return v;
  };
  auto partition = number(id.substr(first + 1, second - first - 1), INT32_MAX);
  auto offset = number(id.substr(second + 1, eq - second - 1), INT64_MAX);
  if (!partition || !offset) return std::nullopt;
  return OutputReference{id.substr(0, first), static_cast<int32_t>(*partition), *offset, id.substr(eq + 1)};
}

namespace {

ConsumerConfig with_mode_settings(ConsumerConfig config, const ConsumerWorkload& w) {
  // Kafka Streams' exactly_once_v2 reads read_committed: an upstream transaction's records only
  // once it committed.
  if (w.behaviour.value_or(w.mode) == DeliveryMode::kExactlyOnceTxn) config.isolation_level = "read_committed";
  return config;
}

// Correlation ids of the member's producer carry a tag in their top byte: 0x40 plus the producer's
// incarnation (6 bits). The clients' own ids stay below 2^24.
constexpr uint8_t kProducerTag = 0x40;
constexpr uint8_t kIncarnationMask = 0x3f;
constexpr size_t kCorrelationIdAt = 4;  // request header: api_key i16, api_version i16, correlation_id i32

uint8_t producer_tag(uint32_t incarnation) { return static_cast<uint8_t>(kProducerTag | (incarnation & kIncarnationMask)); }

}  // namespace

// The member's producer runs on the node's runtime, except that its requests' correlation ids are
// tagged (the node hands tagged responses to it, untagged ones to the consumer): one connection per
// broker carries both clients, as one Kafka client's connection would carry one.
class ConsumerNode::TaggedRuntime final : public Runtime {
 public:
  TaggedRuntime(Runtime& rt, uint8_t tag) : rt_(rt), tag_(tag) {}
  NodeId self() const override { return rt_.self(); }
  Time now() const override { return rt_.now(); }
  int64_t wall_time_ms() const override { return rt_.wall_time_ms(); }
  TimerId after(Duration d, std::function<void()> fn) override { return rt_.after(d, std::move(fn)); }
  void cancel(TimerId id) override { rt_.cancel(id); }
  bool send(NodeId to, Bytes frame) override {
    tag(frame);
    return rt_.send(to, std::move(frame));
  }
  bool send_gather(NodeId to, Bytes head, Bytes body) override {
    if (head.size() > kCorrelationIdAt) {
      tag(head);
      return rt_.send_gather(to, std::move(head), std::move(body));
    }
    head.insert(head.end(), body.begin(), body.end());
    return send(to, std::move(head));
  }
  void learn_address(NodeId id, const std::string& host, int32_t port) override { rt_.learn_address(id, host, port); }
  void close_connection(NodeId peer) override { rt_.close_connection(peer); }
  std::string peer_host(NodeId peer) const override { return rt_.peer_host(peer); }
  std::string listener_name(NodeId peer) const override { return rt_.listener_name(peer); }
  Disk& disk() override { return rt_.disk(); }
  Rng& rng() override { return rt_.rng(); }
  void emit(TraceBody event) override { rt_.emit(std::move(event)); }
  void log(const std::string& line) override { rt_.log(line); }
  void halt(const std::string& reason) override { rt_.halt(reason); }

 private:
  void tag(Bytes& frame) const {
    GREGOR_ASSERT(frame.size() > kCorrelationIdAt);
    GREGOR_ASSERT_MSG(frame[kCorrelationIdAt] == 0, "producer correlation ids ran past 2^24");
    frame[kCorrelationIdAt] = tag_;
  }
  Runtime& rt_;
  uint8_t tag_;
};

ConsumerNode::ConsumerNode(Runtime& rt, ConsumerConfig config, ConsumerWorkload workload)
    : rt_(rt), workload_(std::move(workload)), consumer_(rt, with_mode_settings(std::move(config), workload_)) {
  GREGOR_ASSERT_MSG(behaviour() != DeliveryMode::kExactlyOnce || workload_.sink.value > 0, "exactly-once needs a sink node");
  GREGOR_ASSERT_MSG(behaviour() != DeliveryMode::kExactlyOnceTxn ||
                        (!workload_.output_topic.empty() && !workload_.producer.transactional_id.empty()),
                    "exactly-once-txn needs an output topic and a transactional.id");
}

ConsumerNode::~ConsumerNode() {
  for (auto& [id, c] : sink_calls_) rt_.cancel(c.timer);
}

void ConsumerNode::start() {
  consumer_.start();
  consumer_.set_wakeup([this] {
    if (!busy_ && !stopped_) schedule_poll(Duration{0});
  });
  rt_.emit(ev::ConsumerStart{.group = consumer_.config().group_id,
                             .client_id = consumer_.config().client_id,
                             .mode = delivery_mode_name(workload_.mode),
                             .behaviour = delivery_mode_name(behaviour()),
                             .topics = workload_.topics,
                             .isolation = consumer_.config().isolation_level});
  RebalanceListener listener;
  if (behaviour() == DeliveryMode::kExactlyOnce) {
    // The sink, not the group, knows where this member's new partitions stand.
    listener.on_assigned = [this](const std::vector<TopicPartition>& tps) {
      consumer_.pause(tps);
      sink_resume(tps);
    };
  }
  consumer_.subscribe(workload_.topics, std::move(listener));
  if (behaviour() == DeliveryMode::kExactlyOnceTxn) txn_start_producer();
  Duration wait = workload_.start_at > rt_.now() ? workload_.start_at - rt_.now() : Duration{0};
  schedule_poll(wait);
}

void ConsumerNode::on_message(NodeId from, Bytes frame) {
  if (behaviour() == DeliveryMode::kExactlyOnceTxn && !frame.empty() && (frame[0] & kProducerTag) != 0) {
    // A response to the producer (its tagged correlation id); one to a replaced producer is dropped.
    if (producer_ && frame[0] == producer_tag(producer_incarnation_)) {
      frame[0] = 0;
      producer_->on_message(from, frame);
    }
    return;
  }
  if (workload_.sink.value > 0 && from == workload_.sink) {
    ByteReader r(as_view(frame));
    int32_t correlation_id = r.i32();
    auto it = sink_calls_.find(correlation_id);
    if (!r.ok() || it == sink_calls_.end()) return;
    SinkCall call = std::move(it->second);
    sink_calls_.erase(it);
    rt_.cancel(call.timer);
    call.done(ErrorCode::NONE, &r);
    return;
  }
  consumer_.on_message(from, frame);
}

void ConsumerNode::on_disconnect(NodeId peer) {
  if (workload_.sink.value > 0 && peer == workload_.sink) {
    auto calls = std::move(sink_calls_);
    sink_calls_.clear();
    for (auto& [id, c] : calls) {
      rt_.cancel(c.timer);
      c.done(ErrorCode::NETWORK_EXCEPTION, nullptr);
    }
    return;
  }
  if (producer_) producer_->on_disconnect(peer);
  consumer_.on_disconnect(peer);
}

void ConsumerNode::stop(std::function<void()> done) {
  stopped_ = true;
  consumer_.close(std::move(done));
}

// ---------------------------------------------------------------------------------------------
// The poll loop.

void ConsumerNode::schedule_poll(Duration d) {
  const Time at = rt_.now() + d;
  if (poll_scheduled_ && poll_at_ <= at) return;
  if (poll_scheduled_) rt_.cancel(poll_timer_);  // replaced by an earlier poll: it would fire for nothing
  poll_scheduled_ = true;
  poll_at_ = at;
  poll_timer_ = rt_.after(d, [this] {
    poll_scheduled_ = false;
    poll_loop();
  });
}

void ConsumerNode::poll_loop() {
  if (busy_ || stopped_) return;
  // exactly-once-txn polls once its producer is ready (init_transactions done).
  if (behaviour() == DeliveryMode::kExactlyOnceTxn && !producer_ready_) return;
  std::vector<ConsumerRecord> records = consumer_.poll();
  if (records.empty()) return schedule_poll(workload_.poll_idle);
  handle(std::move(records));
}

OffsetMap ConsumerNode::next_offsets(const std::vector<ConsumerRecord>& records) const {
  OffsetMap out;
  for (const auto& r : records) {
    auto& o = out[TopicPartition{r.topic, r.partition}];
    o = std::max(o, r.offset + 1);
  }
  return out;
}

void ConsumerNode::process(const std::vector<ConsumerRecord>& records) {
  const std::string& group = consumer_.config().group_id;
  for (const auto& r : records) {
    processed_++;
    rt_.emit(ev::Consume{.group = group,
                         .member = consumer_.member_id(),
                         .generation = consumer_.generation(),
                         .mode = delivery_mode_name(workload_.mode),
                         .topic = r.topic,
                         .partition = r.partition,
                         .offset = r.offset,
                         .value = record_id(r.value)});
  }
}

void ConsumerNode::finish_batch() {
  busy_ = false;
  schedule_poll(Duration{0});
}

void ConsumerNode::handle(std::vector<ConsumerRecord> records) {
  busy_ = true;
  batches_++;
  auto recs = std::make_shared<std::vector<ConsumerRecord>>(std::move(records));
  const OffsetMap offsets = next_offsets(*recs);
  switch (behaviour()) {
    case DeliveryMode::kAtMostOnce:
      // Save the position first; only a batch whose offsets are saved is processed.
      consumer_.commit(offsets, [this, recs](ErrorCode err) {
        if (err != ErrorCode::NONE) {
          rt_.emit(ev::ConsumeDropped{.group = consumer_.config().group_id,
                                      .member = consumer_.member_id(),
                                      .count = static_cast<int64_t>(recs->size()),
                                      .error = protocol::error_name(err)});
          return finish_batch();
        }
        rt_.after(workload_.processing_time, [this, recs] {
          process(*recs);
          finish_batch();
        });
      });
      return;
    case DeliveryMode::kAtLeastOnce:
      rt_.after(workload_.processing_time, [this, recs, offsets] {
        process(*recs);
        consumer_.commit(offsets, [this](ErrorCode) { finish_batch(); });
      });
      return;
    case DeliveryMode::kExactlyOnce:
      rt_.after(workload_.processing_time, [this, recs] { sink_write(recs); });
      return;
    case DeliveryMode::kExactlyOnceTxn: {
      // The generation the records were polled in: if a rebalance ends before the offsets reach
      // the group coordinator, they are refused (ILLEGAL_GENERATION) and the transaction aborts,
      // even if the member has joined the next generation meanwhile.
      ConsumerGroupMetadata group{.group_id = consumer_.config().group_id,
                                  .generation_id = consumer_.generation(),
                                  .member_id = consumer_.member_id()};
      rt_.after(workload_.processing_time, [this, recs, group] { txn_process(recs, group); });
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Exactly-once-txn: the consume-transform-produce loop.

void ConsumerNode::txn_start_producer() {
  if (producer_) {
    // Fenced (or failed for good): keep the old one, whose requests may still be answered or time
    // out, and start a new instance of the same transactional.id, which fences what it left open.
    retired_producers_.emplace_back(std::move(producer_rt_), std::move(producer_));
    GREGOR_ASSERT_MSG(retired_producers_.size() <= static_cast<size_t>(kIncarnationMask), "too many producers replaced");
    producer_incarnation_++;
  }
  producer_ready_ = false;
  producer_rt_ = std::make_unique<TaggedRuntime>(rt_, producer_tag(producer_incarnation_));
  producer_ = std::make_unique<Producer>(*producer_rt_, workload_.producer);
  producer_->start();
  const uint32_t incarnation = producer_incarnation_;
  producer_->init_transactions([this, incarnation](ErrorCode e) {
    if (incarnation != producer_incarnation_ || stopped_) return;
    if (e != ErrorCode::NONE) {
      // Timed out or fenced: try again with a new instance a little later.
      rt_.after(kSinkRetryBackoff, [this, incarnation] {
        if (incarnation == producer_incarnation_ && !stopped_) txn_start_producer();
      });
      return;
    }
    producer_ready_ = true;
    if (!busy_) schedule_poll(Duration{0});
  });
}

void ConsumerNode::txn_process(std::shared_ptr<std::vector<ConsumerRecord>> records, ConsumerGroupMetadata group) {
  if (!producer_ready_) return txn_rewind(*records, ErrorCode::INVALID_TXN_STATE);
  Producer& producer = *producer_;
  const ErrorCode begun = producer.begin_transaction();
  if (begun != ErrorCode::NONE) return txn_abort(records, begun);
  const uint32_t incarnation = producer_incarnation_;
  for (const auto& r : *records) {
    ProducerRecord out;
    out.topic = workload_.output_topic;
    out.key = r.key;
    const std::string value = output_value(r.topic, r.partition, r.offset, record_id(r.value));
    out.value = Bytes(value.begin(), value.end());
    // A failed send makes the transaction abortable; commit then fails with the error.
    producer.send(std::move(out), [](const RecordMetadata&) {});
  }
  std::vector<TopicPartitionOffset> offsets;
  for (const auto& [tp, next] : next_offsets(*records))
    offsets.push_back(TopicPartitionOffset{.topic = tp.topic, .partition = tp.partition, .offset = next});
  producer.send_offsets_to_transaction(std::move(offsets), std::move(group), [this, incarnation, records](ErrorCode e) {
    // A replaced producer's answer: the batch was given back when it was replaced.
    if (incarnation != producer_incarnation_) return;
    if (e != ErrorCode::NONE) return txn_abort(records, e);
    producer_->commit_transaction([this, incarnation, records](ErrorCode e2) {
      if (incarnation != producer_incarnation_) return;
      if (e2 != ErrorCode::NONE) return txn_abort(records, e2);
      process(*records);  // committed: output and offsets together
      finish_batch();
    });
  });
}

void ConsumerNode::txn_abort(std::shared_ptr<std::vector<ConsumerRecord>> records, ErrorCode why) {
  if (producer_->fatal_error() != ErrorCode::NONE) {
    txn_rewind(*records, why);
    return txn_start_producer();
  }
  if (!producer_->in_transaction()) {
    // Not in a state to begin or abort (an epoch bump after an abort failed): a new instance.
    txn_rewind(*records, why);
    return txn_start_producer();
  }
  const uint32_t incarnation = producer_incarnation_;
  producer_->abort_transaction([this, incarnation, records, why](ErrorCode e) {
    if (incarnation != producer_incarnation_) return;
    if (e != ErrorCode::NONE) {
      // The abort failed too: a new instance of the transactional.id aborts what is open.
      txn_rewind(*records, why);
      return txn_start_producer();
    }
    txn_rewind(*records, why);
  });
}

void ConsumerNode::txn_rewind(const std::vector<ConsumerRecord>& records, ErrorCode why) {
  rt_.emit(ev::ConsumeDropped{.group = consumer_.config().group_id,
                              .member = consumer_.member_id(),
                              .count = static_cast<int64_t>(records.size()),
                              .error = protocol::error_name(why)});
  std::vector<TopicPartition> tps;
  for (const auto& [tp, next] : next_offsets(records)) tps.push_back(tp);
  consumer_.reset_to_committed(tps);
  finish_batch();
}

// ---------------------------------------------------------------------------------------------
// Exactly-once: the sink.

void ConsumerNode::sink_call(Bytes frame, int32_t correlation_id, std::function<void(ErrorCode, ByteReader*)> done) {
  if (!rt_.send(workload_.sink, std::move(frame))) {
    rt_.after(Duration{0}, [done] { done(ErrorCode::NETWORK_EXCEPTION, nullptr); });
    return;
  }
  TimerId timer = rt_.after(workload_.sink_timeout, [this, correlation_id] {
    auto it = sink_calls_.find(correlation_id);
    if (it == sink_calls_.end()) return;
    auto cb = std::move(it->second.done);
    sink_calls_.erase(it);
    cb(ErrorCode::REQUEST_TIMED_OUT, nullptr);
  });
  sink_calls_[correlation_id] = SinkCall{std::move(done), timer};
}

void ConsumerNode::sink_write(std::shared_ptr<std::vector<ConsumerRecord>> records) {
  std::map<TopicPartition, SinkPartitionWrite> by_tp;
  for (const auto& r : *records) {
    TopicPartition tp{r.topic, r.partition};
    auto [it, fresh] = by_tp.try_emplace(tp);
    if (fresh) {
      it->second.tp = tp;
      it->second.first_offset = r.offset;
    }
    it->second.next_offset = r.offset + 1;
    it->second.records.emplace_back(r.offset, record_id(r.value));
  }
  std::vector<SinkPartitionWrite> writes;
  for (auto& [tp, w] : by_tp) writes.push_back(std::move(w));
  const int32_t id = next_sink_correlation_++;
  const std::string& group = consumer_.config().group_id;
  sink_call(encode_sink_write(id, group, consumer_.member_id(), consumer_.generation(), writes), id,
            [this, records](ErrorCode transport, ByteReader* r) {
              ErrorCode code = transport;
              std::vector<SinkWriteResult> results;
              if (transport == ErrorCode::NONE && r) {
                code = static_cast<ErrorCode>(r->i16());
                int32_t n = r->array_count(2 + 4 + 8 + 4 + 1);
                for (int32_t i = 0; i < n && r->ok(); i++) {
                  SinkWriteResult res;
                  res.tp.topic = r->string();
                  res.tp.partition = r->i32();
                  res.next_offset = r->i64();
                  res.applied = r->i32();
                  res.gap = r->i8() != 0;
                  results.push_back(res);
                }
                if (!r->ok()) code = ErrorCode::CORRUPT_MESSAGE;
              }
              if (code != ErrorCode::NONE) {
                // Retry the same transaction: the sink applies a record at most once.
                rt_.emit(ev::SinkError{.group = consumer_.config().group_id, .error = protocol::error_name(code)});
                rt_.after(kSinkRetryBackoff, [this, records] { sink_write(records); });
                return;
              }
              OffsetMap commit;
              for (const auto& res : results) {
                if (res.gap && res.next_offset >= 0) consumer_.seek(res.tp, res.next_offset);
                if (!res.gap && res.next_offset >= 0) commit[res.tp] = res.next_offset;
              }
              // The group's offsets are only for monitoring (lag) in this mode; failures do not
              // matter, and the commit is asynchronous: not retried, so it cannot land after a
              // later one (the next batch's commit carries the offsets on).
              consumer_.commit_async(commit, [](ErrorCode) {});
              finish_batch();
            });
}

void ConsumerNode::sink_resume(const std::vector<TopicPartition>& tps) {
  const int32_t id = next_sink_correlation_++;
  sink_call(encode_sink_read_offsets(id, consumer_.config().group_id, tps), id, [this, tps](ErrorCode transport, ByteReader* r) {
    ErrorCode code = transport;
    std::map<TopicPartition, int64_t> offsets;
    if (transport == ErrorCode::NONE && r) {
      code = static_cast<ErrorCode>(r->i16());
      int32_t n = r->array_count(2 + 4 + 8);
      for (int32_t i = 0; i < n && r->ok(); i++) {
        TopicPartition tp;
        tp.topic = r->string();
        tp.partition = r->i32();
        offsets[tp] = r->i64();
      }
      if (!r->ok()) code = ErrorCode::CORRUPT_MESSAGE;
    }
    if (code != ErrorCode::NONE) {
      rt_.emit(ev::SinkError{.group = consumer_.config().group_id, .error = protocol::error_name(code)});
      rt_.after(kSinkRetryBackoff, [this, tps] { sink_resume(tps); });
      return;
    }
    // Only partitions still ours; a partition the sink has never seen starts where the group says.
    std::vector<TopicPartition> mine;
    const auto assigned = consumer_.assignment();
    for (const auto& tp : tps)
      if (std::find(assigned.begin(), assigned.end(), tp) != assigned.end()) mine.push_back(tp);
    for (const auto& tp : mine) {
      auto it = offsets.find(tp);
      if (it != offsets.end() && it->second >= 0) consumer_.seek(tp, it->second);
    }
    consumer_.resume(mine);
  });
}

}  // namespace gregor::client
