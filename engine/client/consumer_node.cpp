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
  }
  return "?";
}

std::optional<DeliveryMode> parse_delivery_mode(const std::string& name) {
  if (name == "at-most-once") return DeliveryMode::kAtMostOnce;
  if (name == "at-least-once") return DeliveryMode::kAtLeastOnce;
  if (name == "exactly-once") return DeliveryMode::kExactlyOnce;
  return std::nullopt;
}

std::string record_id(const std::optional<Bytes>& value) {
  if (!value) return "null";
  const Bytes& v = *value;
  auto dot = std::find(v.begin(), v.end(), static_cast<uint8_t>('.'));
  size_t n = static_cast<size_t>(dot - v.begin());
  return std::string(v.begin(), v.begin() + static_cast<long>(std::min(n, kRecordIdBytesMax)));
}

ConsumerNode::ConsumerNode(Runtime& rt, ConsumerConfig config, ConsumerWorkload workload)
    : rt_(rt), workload_(std::move(workload)), consumer_(rt, std::move(config)) {
  GREGOR_ASSERT_MSG(behaviour() != DeliveryMode::kExactlyOnce || workload_.sink.value > 0, "exactly-once needs a sink node");
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
  Duration wait = workload_.start_at > rt_.now() ? workload_.start_at - rt_.now() : Duration{0};
  schedule_poll(wait);
}

void ConsumerNode::on_message(NodeId from, Bytes frame) {
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
  poll_scheduled_ = true;
  poll_at_ = at;
  const uint64_t epoch = ++poll_epoch_;
  rt_.after(d, [this, epoch] {
    if (epoch != poll_epoch_) return;  // superseded by an earlier poll
    poll_scheduled_ = false;
    poll_loop();
  });
}

void ConsumerNode::poll_loop() {
  if (busy_ || stopped_) return;
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
  }
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
