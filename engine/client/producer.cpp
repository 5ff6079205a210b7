#include "engine/client/producer.h"

#include <algorithm>

#include "engine/client/partitioner.h"
#include "engine/protocol/init_producer_id.h"
#include "engine/protocol/produce.h"
#include "engine/record/batch_builder.h"
#include "engine/record/checked_batches.h"
#include "engine/record/compression.h"
#include "engine/record/record_batch.h"

namespace gregor::client {

using protocol::ErrorCode;

namespace {
constexpr int16_t kProduceVersion = 7;
constexpr int16_t kInitProducerIdVersion = 1;
constexpr int32_t kMaxInFlightIdempotent = 5;  // the broker keeps the last 5 batches per producer
constexpr size_t kMaxWaitingRecords = 1'000'000;  // records buffered before the topic is known
// Approximate bytes of one record in a batch (for batch.size): payload plus header overhead.
size_t record_bytes(const ProducerRecord& r) {
  size_t n = 24 + r.headers.size() * 8;
  if (r.key) n += r.key->size();
  if (r.value) n += r.value->size();
  for (const auto& h : r.headers) n += h.key.size() + (h.value ? h.value->size() : 0);
  return n;
}

// Records a new batch has room for before its vectors grow.
constexpr size_t kBatchRecordsReserved = 8;
}  // namespace

struct Producer::Pending {
  ProducerRecord record;
  Callback cb;
  Time created;
};

struct Producer::Batch {
  explicit Batch(size_t reserve_bytes) : records(reserve_bytes) {}
  record::BatchBuilder records;  // written as they are placed, until the batch is built
  std::vector<Callback> callbacks;  // one per record
  size_t bytes = 0;
  Time created;
  Time retry_at{0};
  int32_t attempts = 0;
  SharedBytes built;  // the wire bytes, built when first sent and resent as they are
  int64_t crc = 0;
  int32_t base_sequence = -1;  // idempotence: assigned when first sent, kept for every retry
  int16_t sent_acks = -1;      // the acks of the request that carried it last
};

Producer::Producer(Runtime& rt, ProducerConfig config)
    : rt_(rt),
      config_(std::move(config)),
      net_(rt, config_.client_id),
      metadata_(rt, net_, config_.bootstrap_servers, Duration::millis(config_.request_timeout_ms),
                Duration::millis(config_.metadata_max_age_ms)) {
  net_.set_sasl(config_.sasl());  // SASL_PLAINTEXT: every connection authenticates first
  metadata_.set_listener([this] { place_waiting(); });
  if (transactional()) config_.enable_idempotence = true;  // as Kafka's producer: transactions need it
  if (config_.enable_idempotence) {
    // As Kafka's producer does for enable.idempotence: acks=all, retries, at most 5 in flight.
    config_.acks = -1;
    if (config_.retries == 0) config_.retries = INT32_MAX;
    config_.max_in_flight_requests_per_connection =
        std::min(config_.max_in_flight_requests_per_connection, kMaxInFlightIdempotent);
  }
}

Producer::~Producer() = default;

const std::vector<std::string>& Producer::reconfigurable_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> dynamic;
    for (const auto& k : producer_config_def().keys())
      if (k.dynamic()) dynamic.push_back(k.name);
    return dynamic;
  }();
  return keys;
}

Result<ProducerConfig> Producer::reconfigured(const ProducerConfig& current, const std::map<std::string, std::string>& settings) {
  const auto& keys = reconfigurable_keys();
  for (const auto& [k, v] : settings)
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
      std::string list;
      for (const auto& x : keys) list += (list.empty() ? "" : ", ") + x;
      return Status::error(StatusCode::kInvalidArgument, "'" + k + "' cannot change in a running producer (these can: " + list + ")");
    }
  ProducerConfig next = current;
  GREGOR_RETURN_IF_ERROR(next.apply(settings));
  if (next.enable_idempotence && next.acks != -1)
    return Status::error(StatusCode::kInvalidArgument,
                         "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.");
  return next;
}

Status Producer::reconfigure(const std::map<std::string, std::string>& settings) {
  auto next = reconfigured(config_, settings);
  if (!next) return next.status();
  config_ = std::move(*next);
  std::string text;
  for (const auto& [k, v] : settings) text += (text.empty() ? "" : ",") + k + "=" + v;
  rt_.emit(ev::ProducerConfigChange{.client_id = config_.client_id, .config = text});
  return Status::ok();
}

void Producer::start() { metadata_.start(); }

void Producer::send(const ProducerRecord& record, Callback cb) {
  if (transactional()) {
    // Kafka's producer throws here; Gregor fails the record: fenced, or outside a transaction, or
    // in one that can only abort.
    ErrorCode e = fatal_error_ != ErrorCode::NONE                 ? fatal_error_
                  : txn_phase_ != TxnPhase::kInTransaction       ? ErrorCode::INVALID_TXN_STATE
                  : abortable_error_ != ErrorCode::NONE          ? abortable_error_
                                                                 : ErrorCode::NONE;
    if (e != ErrorCode::NONE) return cb(RecordMetadata{e, record.topic, record.partition.value_or(-1), -1});
  }
  SentTopic& st = sent_topic_;
  if (!st.valid || st.updates != metadata_.updates() || st.topic != record.topic) {
    st.topic = record.topic;
    st.updates = metadata_.updates();
    st.valid = true;
    st.error = metadata_.topic_error(record.topic);
    st.added = false;
    st.parts = nullptr;
  }
  if (st.error != ErrorCode::NONE) {
    // The cluster said the topic cannot be used (an illegal name, no permission): fail at once, as
    // Kafka's producer does, instead of waiting delivery.timeout.ms for metadata that never comes.
    cb(RecordMetadata{st.error, record.topic, -1, -1});
    return;
  }
  pending_++;
  if (!st.added) {
    metadata_.add_topic(record.topic);
    st.added = true;
    st.parts = metadata_.partitions(record.topic);
  }
  if (const auto* parts = st.parts) {
    place(record, std::move(cb), rt_.now(), *parts);  // no Pending: the common case allocates nothing here
    return;
  }
  if (waiting_for_metadata_.size() >= kMaxWaitingRecords) {
    pending_--;
    RecordMetadata md{ErrorCode::REQUEST_TIMED_OUT, record.topic, -1, -1};
    cb(md);
    return;
  }
  waiting_for_metadata_.push_back(std::make_unique<Pending>(Pending{record, std::move(cb), rt_.now()}));
  schedule_drain(Duration::millis(config_.retry_backoff_ms));
}

void Producer::place_waiting() {
  auto waiting = std::move(waiting_for_metadata_);
  waiting_for_metadata_.clear();
  for (auto& p : waiting) {
    if (ErrorCode e = metadata_.topic_error(p->record.topic); e != ErrorCode::NONE) {
      pending_--;
      p->cb(RecordMetadata{e, p->record.topic, -1, -1});
    } else if (const auto* parts = metadata_.partitions(p->record.topic))
      place(p->record, std::move(p->cb), p->created, *parts);
    else
      waiting_for_metadata_.push_back(std::move(p));
  }
  schedule_drain(Duration{0});
}

int32_t Producer::choose_partition(const ProducerRecord& r, const std::vector<PartitionInfo>& parts) {
  const int32_t n = static_cast<int32_t>(parts.size());
  if (n == 0) return -1;
  if (r.partition) return (*r.partition >= 0 && *r.partition < n) ? *r.partition : -1;
  if (r.key) return partition_for_key(as_view(*r.key), n);
  auto it = sticky_.find(r.topic);
  if (it != sticky_.end() && it->second < n && parts[static_cast<size_t>(it->second)].leader >= 0) return it->second;
  std::vector<int32_t> available;
  for (int32_t i = 0; i < n; i++)
    if (parts[static_cast<size_t>(i)].leader >= 0) available.push_back(i);
  int32_t chosen = available.empty() ? static_cast<int32_t>(rt_.rng().uniform(static_cast<uint64_t>(n)))
                                     : available[rt_.rng().uniform(available.size())];
  sticky_[r.topic] = chosen;
  return chosen;
}

Producer::Queue& Producer::queue_for(const std::string& topic, int32_t partition) {
  if (topic != cached_topic_) {
    cached_topic_ = topic;
    cached_queues_.clear();
  }
  const auto i = static_cast<size_t>(partition);
  if (i >= cached_queues_.size()) cached_queues_.resize(i + 1, nullptr);
  if (!cached_queues_[i]) cached_queues_[i] = &queues_[TopicPartitionKey{topic, partition}];
  return *cached_queues_[i];
}

void Producer::place(const ProducerRecord& record, Callback&& cb, Time created, const std::vector<PartitionInfo>& parts) {
  int32_t partition = choose_partition(record, parts);
  if (partition < 0) {
    pending_--;
    cb(RecordMetadata{ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, record.topic, record.partition.value_or(-1), -1});
    return;
  }
  auto& q = queue_for(record.topic, partition);
  const size_t size = record_bytes(record);
  if (q.empty() || !q.back()->built.empty() || q.back()->attempts > 0 ||
      q.back()->bytes + size > static_cast<size_t>(config_.batch_size)) {
    // The batch's buffer has room for batch.size bytes from the start, as Kafka's producer's has.
    auto b = std::make_unique<Batch>(static_cast<size_t>(std::max(config_.batch_size, 0)));
    b->created = created;
    // Room for a few callbacks from the start, instead of growing through 1, 2, 4 and 8.
    b->callbacks.reserve(kBatchRecordsReserved);
    q.push_back(std::move(b));
  }
  Batch& b = *q.back();
  const int64_t timestamp = record.timestamp >= 0 ? record.timestamp : rt_.wall_time_ms();
  b.records.append(b.records.next_offset_delta(), timestamp, record.key, record.value, record.headers);
  b.callbacks.push_back(std::move(cb));
  b.bytes += size;
  const bool full = b.bytes >= static_cast<size_t>(config_.batch_size);
  schedule_drain(full ? Duration{0} : Duration::millis(config_.linger_ms));
}

void Producer::schedule_drain(Duration d) {
  Time at = rt_.now() + d;
  if (drain_scheduled_ && drain_at_ <= at) return;
  // An earlier drain replaces the scheduled one, which is cancelled rather than left to fire for
  // nothing: after each drain with batches in flight the next wake is delivery.timeout.ms (120 s)
  // away, so a busy producer left thousands of such timers in the event queue.
  if (drain_scheduled_) rt_.cancel(drain_timer_);
  drain_scheduled_ = true;
  drain_at_ = at;
  drain_timer_ = rt_.after(d, [this] {
    drain_scheduled_ = false;
    drain();
  });
}

void Producer::expire_old_batches() {
  const Time now = rt_.now();
  const Duration limit = Duration::millis(config_.delivery_timeout_ms);
  for (auto& [tp, q] : queues_) {
    while (!q.empty() && now - q.front()->created >= limit) {
      auto b = std::move(q.front());
      q.pop_front();
      complete(tp, *b, ErrorCode::REQUEST_TIMED_OUT, -1);
    }
  }
  while (!waiting_for_metadata_.empty() && now - waiting_for_metadata_.front()->created >= limit) {
    auto p = std::move(waiting_for_metadata_.front());
    waiting_for_metadata_.pop_front();
    pending_--;
    p->cb(RecordMetadata{ErrorCode::REQUEST_TIMED_OUT, p->record.topic, -1, -1});
  }
}

void Producer::drain() {
  expire_old_batches();
  const Time now = rt_.now();
  if (transactional()) {
    if (producer_id_ < 0 || txn_phase_ == TxnPhase::kFatal) return maybe_end_transaction();
  } else if (idempotent()) {
    maybe_reset_producer_id();
    if (producer_id_ < 0) {
      init_producer_id();
      if (pending_ > 0) schedule_drain(Duration::millis(config_.retry_backoff_ms));
      return;
    }
  }
  std::map<int32_t, std::vector<std::pair<TopicPartitionKey, std::unique_ptr<Batch>>>> per_leader;
  Duration next_wake = Duration::millis(config_.delivery_timeout_ms);
  bool need_metadata = false;
  for (auto& [tp, q] : queues_) {
    if (q.empty()) continue;
    Batch& b = *q.front();
    const Time linger_done = b.created + Duration::millis(config_.linger_ms);
    const bool ready = b.bytes >= static_cast<size_t>(config_.batch_size) || q.size() > 1 || now >= linger_done ||
                       b.attempts > 0 || txn_phase_ == TxnPhase::kCommitting;  // commit flushes
    if (!ready) {
      next_wake = std::min(next_wake, linger_done - now);
      continue;
    }
    if (b.retry_at > now) {
      next_wake = std::min(next_wake, b.retry_at - now);
      continue;
    }
    int32_t leader = metadata_.leader(tp.topic, tp.partition);
    if (leader < 0) {
      need_metadata = true;
      next_wake = std::min(next_wake, Duration::millis(config_.retry_backoff_ms));
      continue;
    }
    if (in_flight_[leader] + (per_leader.count(leader) ? 1 : 0) >= config_.max_in_flight_requests_per_connection) continue;
    if (idempotent() && !may_send_idempotent(tp, b)) continue;
    if (transactional() && !may_send_transactional(tp)) continue;
    per_leader[leader].emplace_back(tp, std::move(q.front()));
    q.pop_front();
    auto sticky = sticky_.find(tp.topic);
    if (sticky != sticky_.end() && sticky->second == tp.partition) sticky_.erase(sticky);  // KIP-480
    if (!q.empty()) next_wake = Duration{0};
  }
  if (need_metadata) metadata_.request_update();
  for (auto& [leader, batches] : per_leader) send_batches(leader, std::move(batches));
  if (transactional()) add_partitions();
  if (pending_ > 0) schedule_drain(std::max(next_wake, Duration{0}));
  if (transactional()) maybe_end_transaction();
}

void Producer::send_batches(int32_t leader, std::vector<std::pair<TopicPartitionKey, std::unique_ptr<Batch>>> batches) {
  protocol::ProduceRequest req;
  req.acks = config_.acks;
  req.timeout_ms = static_cast<int32_t>(config_.request_timeout_ms);
  if (transactional()) req.transactional_id = config_.transactional_id;
  for (auto& [tp, b] : batches) {
    // A batch gets its sequence when first sent, or again after the producer id was reset.
    const bool new_sequence = idempotent() && b->base_sequence < 0;
    if (new_sequence) {
      int32_t& next = next_sequence_[tp];
      b->base_sequence = next;
      const int64_t after = static_cast<int64_t>(next) + static_cast<int64_t>(b->callbacks.size());
      next = static_cast<int32_t>(after > INT32_MAX ? after - INT32_MAX - 1 : after);  // wraps like Kafka's
    }
    if (b->built.empty()) {
      record::BatchBuildOptions options;
      if (idempotent()) {
        options.producer_id = producer_id_;
        options.producer_epoch = producer_epoch_;
        options.base_sequence = b->base_sequence;
        if (transactional()) options.attributes = record::kTransactionalFlagMask;
      }
      // compression.type: "none" or one of the codecs; the declaration admits nothing else.
      if (config_.compression_type != "none") {
        const bool known = record::parse_compression_name(config_.compression_type, &options.compression);
        GREGOR_ASSERT(known);
      }
      b->built = SharedBytes(b->records.finish(options));
      auto h = record::parse_batch_header(b->built.view(), false);
      b->crc = h ? static_cast<int64_t>(h->crc) : 0;
      // Its CRC was computed over these very bytes just now, so a check of them would find it good:
      // in the simulator the request carries them to the leader, whose check is then skipped. The
      // buffer has room for batch.size.
      record::remember_checked(b->built, static_cast<size_t>(std::max(config_.batch_size, 0)) + record::kRecordsPosition);
    } else if (new_sequence) {
      // Built under a producer id since reset: the new id, epoch and sequence go into a copy (the
      // old bytes may still be held), as Kafka's producer rewrites its batch's header.
      Bytes rewritten = b->built.to_bytes();
      record::set_producer_state(rewritten, producer_id_, producer_epoch_, b->base_sequence);
      b->built = SharedBytes(std::move(rewritten));
      b->crc = static_cast<int64_t>(record::parse_batch_header(b->built.view(), false)->crc);
    }
    b->attempts++;
    b->sent_acks = config_.acks;
    if (idempotent()) {
      unacked_[tp].insert(b->base_sequence);
      in_flight_batches_[tp]++;
    }
    if (req.topic_data.empty() || req.topic_data.back().name != tp.topic) req.topic_data.push_back({tp.topic, {}});
    req.topic_data.back().partition_data.push_back({tp.partition, b->built});
  }
  in_flight_[leader]++;
  auto shared = std::make_shared<std::vector<std::pair<TopicPartitionKey, std::unique_ptr<Batch>>>>(std::move(batches));
  const bool expect_response = config_.acks != 0;
  net_.send(NodeId{leader}, req, kProduceVersion, Duration::millis(config_.request_timeout_ms),
            [this, leader, shared, expect_response](ErrorCode transport, ByteReader* body) {
              in_flight_[leader]--;
              if (!expect_response && transport == ErrorCode::NONE) {
                for (auto& [tp, b] : *shared) complete(tp, *b, ErrorCode::NONE, -1);
                return schedule_drain(Duration{0});
              }
              std::optional<protocol::ProduceResponse> resp;
              if (transport == ErrorCode::NONE && body) {
                auto r = protocol::ProduceResponse::decode(*body, kProduceVersion);
                if (r) resp = std::move(*r);
              }
              for (auto& [tp, b] : *shared) {
                if (idempotent()) in_flight_batches_[tp]--;
                ErrorCode code = transport != ErrorCode::NONE ? transport : ErrorCode::NETWORK_EXCEPTION;
                int64_t base = -1;
                if (resp)
                  for (const auto& t : resp->responses)
                    if (t.name == tp.topic)
                      for (const auto& pr : t.partition_responses)
                        if (pr.index == tp.partition) {
                          code = pr.error_code;
                          base = pr.base_offset;
                        }
                // librdkafka's reading: a duplicate the broker no longer has the offset of is success.
                if (code == ErrorCode::DUPLICATE_SEQUENCE_NUMBER && idempotent()) code = ErrorCode::NONE;
                if (code == ErrorCode::NONE)
                  complete(tp, *b, code, base);
                else
                  retry_or_fail(tp, std::move(b), code);
              }
              schedule_drain(Duration{0});
            },
            expect_response);
}

bool Producer::retriable(ErrorCode err) const {
  switch (err) {
    case ErrorCode::NOT_LEADER_OR_FOLLOWER:
    case ErrorCode::LEADER_NOT_AVAILABLE:
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::REQUEST_TIMED_OUT:
    case ErrorCode::NETWORK_EXCEPTION:
    case ErrorCode::NOT_ENOUGH_REPLICAS:
    case ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode::KAFKA_STORAGE_ERROR:
    case ErrorCode::FENCED_LEADER_EPOCH:
    case ErrorCode::UNKNOWN_LEADER_EPOCH:
      return true;
    default:
      return false;
  }
}

void Producer::retry_or_fail(const TopicPartitionKey& tp, std::unique_ptr<Batch> b, ErrorCode err) {
  const Time now = rt_.now();
  rt_.emit(ev::ProduceError{.topic = tp.topic, .partition = tp.partition, .error = protocol::error_name(err), .attempt = b->attempts});
  bool may_retry = retriable(err);
  if (idempotent() && err == ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER) {
    // Out of order behind an older batch still unacknowledged (it failed and will be retried
    // first): retry in turn. As the oldest one it means a real gap: fail it.
    auto& u = unacked_[tp];
    may_retry = !u.empty() && *u.begin() != b->base_sequence;
  }
  if (may_retry && b->attempts <= config_.retries && now - b->created < Duration::millis(config_.delivery_timeout_ms)) {
    b->retry_at = now + Duration::millis(config_.retry_backoff_ms);
    if (idempotent())
      requeue_in_sequence_order(tp, std::move(b));
    else
      queues_[tp].push_front(std::move(b));
    metadata_.request_update();
    schedule_drain(Duration::millis(config_.retry_backoff_ms));
    return;
  }
  complete(tp, *b, err, -1);
}

void Producer::complete(const TopicPartitionKey& tp, Batch& b, ErrorCode err, int64_t base_offset) {
  if (idempotent() && b.base_sequence >= 0) {
    unacked_[tp].erase(b.base_sequence);
    // A sequenced batch that failed for good leaves a gap the broker would never accept. A
    // transactional producer keeps its id: the transaction can only abort (below).
    if (err != ErrorCode::NONE && !transactional()) reset_needed_ = true;
  }
  if (transactional() && err != ErrorCode::NONE) {
    if (b.base_sequence >= 0) epoch_bump_needed_ = true;
    if (fencing_error(err))
      become_fatal(err);
    else if (abortable_error_ == ErrorCode::NONE && fatal_error_ == ErrorCode::NONE)
      abortable_error_ = err;
  }
  if (err == ErrorCode::NONE && b.sent_acks != 0)
    rt_.emit(ev::ProduceAck{.topic = tp.topic,
                            .partition = tp.partition,
                            .base_offset = base_offset,
                            .count = static_cast<int64_t>(b.callbacks.size()),
                            .crc = b.crc,
                            .acks = b.sent_acks});
  for (size_t i = 0; i < b.callbacks.size(); i++) {
    pending_--;
    RecordMetadata md{err, tp.topic, tp.partition, base_offset >= 0 ? base_offset + static_cast<int64_t>(i) : -1};
    if (b.callbacks[i]) b.callbacks[i](md);
  }
}

}  // namespace gregor::client

namespace gregor::client {

void Producer::init_producer_id() {
  if (init_in_flight_) return;
  init_in_flight_ = true;
  protocol::InitProducerIdRequest req;
  req.transactional_id = std::nullopt;
  req.transaction_timeout_ms = -1;
  NodeId to = metadata_.any_broker();
  net_.send(to, req, kInitProducerIdVersion, Duration::millis(config_.request_timeout_ms),
            [this](ErrorCode transport, ByteReader* body) {
              init_in_flight_ = false;
              std::optional<protocol::InitProducerIdResponse> resp;
              if (transport == ErrorCode::NONE && body) {
                auto r = protocol::InitProducerIdResponse::decode(*body, kInitProducerIdVersion);
                if (r) resp = *r;
              }
              if (!resp || resp->error_code != ErrorCode::NONE || resp->producer_id < 0) {
                rt_.emit(ev::ProducerInitError{.error = protocol::error_name(resp ? resp->error_code : transport)});
                schedule_drain(Duration::millis(config_.retry_backoff_ms));
                return;
              }
              producer_id_ = resp->producer_id;
              producer_epoch_ = resp->producer_epoch;
              rt_.emit(ev::ProducerInit{.producer_id = producer_id_, .producer_epoch = producer_epoch_});
              schedule_drain(Duration{0});
            });
}

void Producer::maybe_reset_producer_id() {
  if (!reset_needed_) return;
  for (const auto& [tp, n] : in_flight_batches_)
    if (n > 0) return;  // wait until nothing of the old id is in flight
  reset_needed_ = false;
  rt_.emit(ev::ProducerReset{.producer_id = producer_id_});
  producer_id_ = -1;
  producer_epoch_ = -1;
  next_sequence_.clear();
  unacked_.clear();
  in_flight_batches_.clear();
  // Queued batches get new sequences under the new producer id.
  for (auto& [tp, q] : queues_)
    for (auto& b : q) {
      b->base_sequence = -1;  // send_batches gives it a new one, and rewrites the bytes built
    }
}

bool Producer::may_send_idempotent(const TopicPartitionKey& tp, const Batch& b) {
  if (reset_needed_) return false;
  if (b.base_sequence < 0) return true;  // a fresh batch follows whatever is in flight
  // A retry goes alone, and only as the oldest unacknowledged batch of its partition.
  auto& u = unacked_[tp];
  return in_flight_batches_[tp] == 0 && !u.empty() && *u.begin() == b.base_sequence;
}

void Producer::requeue_in_sequence_order(const TopicPartitionKey& tp, std::unique_ptr<Batch> b) {
  auto& q = queues_[tp];
  auto it = q.begin();
  while (it != q.end() && (*it)->base_sequence >= 0 && (*it)->base_sequence < b->base_sequence) ++it;
  q.insert(it, std::move(b));
}

// Transactions: what touches the queues (the rest is in producer_txn.cpp).

void Producer::fail_unsent(ErrorCode err) {
  // Batches never sent hold no sequence numbers, so dropping them leaves no gap. Retries keep
  // theirs and go out (they are in the transaction, the abort marker covers them).
  for (auto& [tp, q] : queues_) {
    std::deque<std::unique_ptr<Batch>> keep;
    while (!q.empty()) {
      auto b = std::move(q.front());
      q.pop_front();
      if (b->base_sequence < 0 && b->attempts == 0)
        complete(tp, *b, err, -1);
      else
        keep.push_back(std::move(b));
    }
    q = std::move(keep);
  }
  while (!waiting_for_metadata_.empty()) {
    auto p = std::move(waiting_for_metadata_.front());
    waiting_for_metadata_.pop_front();
    pending_--;
    p->cb(RecordMetadata{err, p->record.topic, -1, -1});
  }
}

void Producer::become_fatal(ErrorCode err) {
  if (txn_phase_ == TxnPhase::kFatal) return;
  const TxnPhase was = txn_phase_;
  txn_phase_ = TxnPhase::kFatal;
  fatal_error_ = err;
  partitions_to_add_.clear();
  // Everything queued fails with the fencing error; what is in flight fails when it returns
  // (complete() sees the error or the callbacks below already ran).
  for (auto& [tp, q] : queues_) {
    auto batches = std::move(q);
    q.clear();
    for (auto& b : batches) complete(tp, *b, err, -1);
  }
  while (!waiting_for_metadata_.empty()) {
    auto p = std::move(waiting_for_metadata_.front());
    waiting_for_metadata_.pop_front();
    pending_--;
    p->cb(RecordMetadata{err, p->record.topic, -1, -1});
  }
  if (was == TxnPhase::kCommitting || was == TxnPhase::kAborting) {
    const bool commit = was == TxnPhase::kCommitting;
    if (commit)
      rt_.emit(ev::TxnCommit{.transactional_id = config_.transactional_id, .producer_id = producer_id_,
                             .epoch = producer_epoch_, .partitions = txn_partitions_text(), .outcome = protocol::error_name(err)});
    else
      rt_.emit(ev::TxnAbort{.transactional_id = config_.transactional_id, .producer_id = producer_id_,
                            .epoch = producer_epoch_, .partitions = txn_partitions_text(), .outcome = protocol::error_name(err)});
    auto cb = std::move(end_cb_);
    end_cb_ = nullptr;
    if (cb) cb(err);
  }
  if (auto cb = std::move(init_cb_)) {
    init_cb_ = nullptr;
    cb(err);
  }
}

}  // namespace gregor::client
