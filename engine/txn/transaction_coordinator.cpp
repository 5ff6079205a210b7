// The transaction coordinator's requests: InitProducerId, AddPartitionsToTxn, EndTxn, and the
// state log writes behind them (Kafka's TransactionCoordinator and TransactionStateManager).
#include "engine/txn/transaction_coordinator.h"

#include <algorithm>

#include "engine/record/batch_builder.h"

namespace gregor::txn {

using protocol::ErrorCode;

std::string partitions_text(const std::set<TopicPartition>& partitions) {
  std::string out;
  for (const auto& tp : partitions) out += (out.empty() ? "" : ",") + tp.topic + "-" + std::to_string(tp.partition);
  return out;
}

namespace {

// Kafka's TransactionStateManager.appendTransactionToLog: what an append error becomes.
ErrorCode append_error(ErrorCode e) {
  switch (e) {
    case ErrorCode::NONE: return ErrorCode::NONE;
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::NOT_ENOUGH_REPLICAS:
    case ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode::REQUEST_TIMED_OUT: return ErrorCode::COORDINATOR_NOT_AVAILABLE;
    case ErrorCode::NOT_LEADER_OR_FOLLOWER:
    case ErrorCode::KAFKA_STORAGE_ERROR: return ErrorCode::NOT_COORDINATOR;
    default: return ErrorCode::UNKNOWN_SERVER_ERROR;
  }
}

// The epoch a transaction's producer had before the last bump. The state log does not store it
// (as Kafka's TransactionLogValue v0 does not), so a coordinator that loaded the transaction does
// not know it; with transaction.version 2 a transaction in Prepare* or Complete* was ended by an
// EndTxn that bumped the epoch by one (or by a fencing abort, which bumps it by one too), so it is
// the epoch before. Without this, a producer whose EndTxn was answered by nobody (the coordinator
// moved) would be fenced when it retries, or when it re-initialises with the epoch it knows.
int16_t epoch_before_bump(const TransactionMetadata& md, bool tv2) {
  if (md.last_producer_epoch != kNoProducerEpoch || !tv2) return md.last_producer_epoch;
  if ((is_prepare_state(md.state) || is_complete_state(md.state)) && md.producer_epoch > 0)
    return static_cast<int16_t>(md.producer_epoch - 1);
  return kNoProducerEpoch;
}

}  // namespace

TransactionCoordinator::TransactionCoordinator(Runtime& rt, const TxnConfig& config, TxnHost& host)
    : rt_(rt), config_(config), host_(host) {}

TransactionCoordinator::~TransactionCoordinator() {
  *alive_ = false;
  for (auto& [id, a] : pending_appends_) rt_.cancel(a.timer);
  rt_.cancel(timeout_timer_);
  rt_.cancel(expiration_timer_);
}

void TransactionCoordinator::start() {
  schedule_timeout_check();
  schedule_expiration_check();
}

int32_t TransactionCoordinator::state_partition_count() const {
  const int32_t n = host_.partition_count(kTransactionStateTopic);
  return n > 0 ? n : config_.transaction_state_log_num_partitions;
}

ErrorCode TransactionCoordinator::status_of(const std::string& transactional_id) const {
  const int32_t p = partition_for_transactional_id(transactional_id, state_partition_count());
  auto it = owned_.find(p);
  if (it == owned_.end()) return ErrorCode::NOT_COORDINATOR;
  if (it->second.loading) return ErrorCode::COORDINATOR_LOAD_IN_PROGRESS;
  return ErrorCode::NONE;
}

TransactionMetadata* TransactionCoordinator::find(const std::string& transactional_id) {
  auto it = txns_.find(transactional_id);
  return it == txns_.end() ? nullptr : it->second.get();
}

const TransactionMetadata* TransactionCoordinator::transaction(const std::string& transactional_id) const {
  auto it = txns_.find(transactional_id);
  return it == txns_.end() ? nullptr : it->second.get();
}

std::vector<std::string> TransactionCoordinator::transactional_ids() const {
  std::vector<std::string> out;
  for (const auto& [id, md] : txns_) out.push_back(id);
  return out;
}

std::vector<int32_t> TransactionCoordinator::owned_partitions() const {
  std::vector<int32_t> out;
  for (const auto& [p, o] : owned_) out.push_back(p);
  return out;
}

bool TransactionCoordinator::is_loading(int32_t partition) const {
  auto it = owned_.find(partition);
  return it != owned_.end() && it->second.loading;
}

TransactionCoordinator::Transit TransactionCoordinator::current(const TransactionMetadata& md) const {
  Transit t;
  t.producer_id = md.producer_id;
  t.last_producer_id = md.last_producer_id;
  t.producer_epoch = md.producer_epoch;
  t.last_producer_epoch = md.last_producer_epoch;
  t.txn_timeout_ms = md.txn_timeout_ms;
  t.state = md.state;
  t.partitions = md.partitions;
  t.txn_start_timestamp_ms = md.txn_start_timestamp_ms;
  t.txn_last_update_timestamp_ms = rt_.wall_time_ms();
  return t;
}

void TransactionCoordinator::emit_change(const TransactionMetadata& md, TxnState from) {
  rt_.emit(ev::TxnStateChange{.transactional_id = md.transactional_id,
                              .producer_id = md.producer_id,
                              .producer_epoch = md.producer_epoch,
                              .from = txn_state_name(from),
                              .to = txn_state_name(md.state),
                              .partitions = partitions_text(md.partitions)});
}

// ---------------------------------------------------------------------------------------------
// FindCoordinator.

TransactionCoordinator::Lookup TransactionCoordinator::find_coordinator(const std::string& transactional_id) {
  const int32_t partitions = host_.partition_count(kTransactionStateTopic);
  if (partitions == 0) {
    const int32_t rf = config_.transaction_state_log_replication_factor;
    if (!creating_topic_ && host_.live_broker_count() >= rf) {
      creating_topic_ = true;
      rt_.emit(ev::TxnTopicCreate{.partitions = config_.transaction_state_log_num_partitions, .replication_factor = rf});
      std::weak_ptr<bool> alive = alive_;
      host_.create_transaction_state_topic(config_.transaction_state_log_num_partitions, rf,
                                           config_.transaction_state_log_min_isr,
                                           config_.transaction_state_log_segment_bytes, [this, alive](ErrorCode) {
                                             if (alive.lock()) creating_topic_ = false;
                                           });
    }
    return {ErrorCode::COORDINATOR_NOT_AVAILABLE, {}};
  }
  const int32_t p = partition_for_transactional_id(transactional_id, partitions);
  auto leader = host_.partition_leader(TopicPartition{kTransactionStateTopic, p});
  if (!leader) return {ErrorCode::COORDINATOR_NOT_AVAILABLE, {}};
  return {ErrorCode::NONE, *leader};
}

// ---------------------------------------------------------------------------------------------
// Writing to __transaction_state with acks=all.

void TransactionCoordinator::write_transit(TransactionMetadata& md, const Transit& t, ErrorCallback done) {
  GREGOR_ASSERT(!md.pending_state);
  md.pending_state = t.state;
  TxnLogValue v;
  v.producer_id = t.producer_id;
  v.producer_epoch = t.producer_epoch;
  v.transaction_timeout_ms = t.txn_timeout_ms;
  v.state = t.state;
  v.partitions = t.partitions;
  v.last_update_timestamp_ms = t.txn_last_update_timestamp_ms;
  v.start_timestamp_ms = t.txn_start_timestamp_ms;
  const std::string id = md.transactional_id;
  const int32_t partition = md.log_partition;
  const int32_t epoch = owned_.count(partition) ? owned_.at(partition).leader_epoch : -1;
  append(partition, encode_txn_key(id), encode_txn_value(v), [this, id, partition, epoch, t, done](ErrorCode err) {
    TransactionMetadata* m = find(id);
    auto owned = owned_.find(partition);
    const bool still_ours = m && owned != owned_.end() && owned->second.leader_epoch == epoch;
    if (m) m->pending_state.reset();
    if (!still_ours) return done(ErrorCode::NOT_COORDINATOR);
    const ErrorCode code = append_error(err);
    if (code != ErrorCode::NONE) return done(code);
    const TxnState from = m->state;
    m->producer_id = t.producer_id;
    m->last_producer_id = t.last_producer_id;
    m->producer_epoch = t.producer_epoch;
    m->last_producer_epoch = t.last_producer_epoch;
    m->txn_timeout_ms = t.txn_timeout_ms;
    m->state = t.state;
    m->partitions = t.partitions;
    m->txn_start_timestamp_ms = t.txn_start_timestamp_ms;
    m->txn_last_update_timestamp_ms = t.txn_last_update_timestamp_ms;
    emit_change(*m, from);
    done(ErrorCode::NONE);
  });
}

void TransactionCoordinator::append(int32_t partition, Bytes key, std::optional<Bytes> value, ErrorCallback done) {
  auto later = [this](ErrorCallback cb, ErrorCode code) { rt_.after(Duration{0}, [cb = std::move(cb), code] { cb(code); }); };
  const TopicPartition tp{kTransactionStateTopic, partition};
  record::Record r;
  r.timestamp = rt_.wall_time_ms();
  r.key = std::move(key);
  r.value = std::move(value);
  OffsetsAppend a = host_.append_as_leader(tp, record::build_batch(record::BatchBuildOptions{}, {r}));
  if (a.error != ErrorCode::NONE) return later(std::move(done), a.error);
  const uint64_t id = next_append_id_++;
  TimerId timer = rt_.after(Duration::millis(kTxnAppendTimeoutMs), [this, id] {
    auto it = pending_appends_.find(id);
    if (it == pending_appends_.end()) return;
    auto cb = std::move(it->second.done);
    pending_appends_.erase(it);
    cb(ErrorCode::REQUEST_TIMED_OUT);
  });
  pending_appends_[id] = PendingAppend{tp, a.last_offset + 1, timer, std::move(done)};
  schedule_append_check();
}

void TransactionCoordinator::on_partition_progress(const TopicPartition& tp) {
  if (tp.topic == kTransactionStateTopic && !pending_appends_.empty()) schedule_append_check();
}

void TransactionCoordinator::schedule_append_check() {
  if (append_check_scheduled_) return;
  append_check_scheduled_ = true;
  std::weak_ptr<bool> alive = alive_;
  rt_.after(Duration{0}, [this, alive] {
    if (!alive.lock()) return;
    append_check_scheduled_ = false;
    check_appends();
  });
}

void TransactionCoordinator::check_appends() {
  std::vector<uint64_t> ids;
  for (const auto& [id, a] : pending_appends_) ids.push_back(id);
  for (uint64_t id : ids) {
    auto it = pending_appends_.find(id);
    if (it == pending_appends_.end()) continue;
    const ErrorCode code = host_.check_replicated(it->second.tp, it->second.required);
    if (code == ErrorCode::REQUEST_TIMED_OUT) continue;
    auto cb = std::move(it->second.done);
    rt_.cancel(it->second.timer);
    pending_appends_.erase(it);
    cb(code);
  }
}

void TransactionCoordinator::fail_appends(int32_t partition, ErrorCode error) {
  std::vector<uint64_t> ids;
  for (const auto& [id, a] : pending_appends_)
    if (a.tp.partition == partition) ids.push_back(id);
  for (uint64_t id : ids) {
    auto it = pending_appends_.find(id);
    auto cb = std::move(it->second.done);
    rt_.cancel(it->second.timer);
    pending_appends_.erase(it);
    cb(error);
  }
}

// ---------------------------------------------------------------------------------------------
// InitProducerId.

void TransactionCoordinator::new_producer_id_then(const std::string& transactional_id,
                                                  std::function<void(ErrorCode, int64_t)> next) {
  (void)transactional_id;
  std::weak_ptr<bool> alive = alive_;
  host_.generate_producer_id([alive, next](ErrorCode code, int64_t id) {
    if (!alive.lock()) return;
    next(code, id);
  });
}

void TransactionCoordinator::init_producer_id(const std::string& transactional_id, int32_t txn_timeout_ms,
                                              std::optional<std::pair<int64_t, int16_t>> expected, ResultCallback done) {
  if (transactional_id.empty()) return done({ErrorCode::INVALID_REQUEST});
  if (txn_timeout_ms <= 0 || txn_timeout_ms > config_.transaction_max_timeout_ms)
    return done({ErrorCode::INVALID_TRANSACTION_TIMEOUT});
  const ErrorCode status = status_of(transactional_id);
  if (status != ErrorCode::NONE) return done({status});
  if (find(transactional_id)) return init_existing(transactional_id, txn_timeout_ms, expected, std::move(done));
  if (txns_.size() >= kTransactionsPerCoordinatorMax) return done({ErrorCode::COORDINATOR_NOT_AVAILABLE});
  // A new transactional id: a new producer id, and the metadata at epoch -1 (the transit to Empty
  // bumps it to 0), as Kafka's putTransactionStateIfNotExists.
  new_producer_id_then(transactional_id, [this, transactional_id, txn_timeout_ms, expected, done](ErrorCode code, int64_t pid) {
    if (code != ErrorCode::NONE) return done({code});
    const ErrorCode st = status_of(transactional_id);
    if (st != ErrorCode::NONE) return done({st});
    if (!find(transactional_id)) {
      auto md = std::make_unique<TransactionMetadata>();
      md->transactional_id = transactional_id;
      md->log_partition = partition_for_transactional_id(transactional_id, state_partition_count());
      md->producer_id = pid;
      md->txn_timeout_ms = txn_timeout_ms;
      md->txn_last_update_timestamp_ms = rt_.wall_time_ms();
      txns_[transactional_id] = std::move(md);
    }
    init_existing(transactional_id, txn_timeout_ms, expected, done);
  });
}

void TransactionCoordinator::init_existing(const std::string& transactional_id, int32_t txn_timeout_ms,
                                           std::optional<std::pair<int64_t, int16_t>> expected, ResultCallback done) {
  TransactionMetadata& md = *find(transactional_id);
  if (md.pending_state) return done({ErrorCode::CONCURRENT_TRANSACTIONS});
  if (expected) {
    // KIP-360: a producer naming its id and epoch must be the current one (or the one just before).
    const auto [pid, epoch] = *expected;
    const int16_t before = epoch_before_bump(md, config_.transaction_version >= 2);
    const bool valid = (pid == md.producer_id && (epoch == md.producer_epoch || epoch == md.last_producer_epoch ||
                                                  (before != kNoProducerEpoch && epoch == before))) ||
                       (pid == md.last_producer_id && epoch == md.last_producer_epoch);
    if (!valid) return done({ErrorCode::PRODUCER_FENCED});
  }
  switch (md.state) {
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
    case TxnState::kPrepareEpochFence:
    case TxnState::kDead: return done({ErrorCode::CONCURRENT_TRANSACTIONS});
    case TxnState::kOngoing: {
      // The old instance's transaction is aborted (its epoch bumped: it is fenced); the new
      // instance retries until the abort completes.
      return fence_and_abort(md, [done](ErrorCode err) {
        done({err == ErrorCode::NONE ? ErrorCode::CONCURRENT_TRANSACTIONS : err});
      });
    }
    case TxnState::kEmpty:
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort: break;
  }
  auto write = [this, transactional_id, txn_timeout_ms, done](Transit t) {
    TransactionMetadata* m = find(transactional_id);
    if (!m) return done({ErrorCode::NOT_COORDINATOR});
    if (m->pending_state) return done({ErrorCode::CONCURRENT_TRANSACTIONS});
    t.txn_timeout_ms = txn_timeout_ms;
    t.state = TxnState::kEmpty;
    t.partitions.clear();
    t.txn_start_timestamp_ms = -1;
    write_transit(*m, t, [this, transactional_id, done](ErrorCode err) {
      const TransactionMetadata* w = transaction(transactional_id);
      if (err != ErrorCode::NONE || !w) return done({err == ErrorCode::NONE ? ErrorCode::NOT_COORDINATOR : err});
      rt_.emit(ev::ProducerIdAssigned{.producer_id = w->producer_id, .producer_epoch = w->producer_epoch});
      done({ErrorCode::NONE, w->producer_id, w->producer_epoch});
    });
  };
  Transit t = current(md);
  if (md.producer_epoch != kNoProducerEpoch && epoch_exhausted(md.producer_epoch)) {
    // The epoch is used up: a new producer id at epoch 0 (Kafka's prepareProducerIdRotation).
    return new_producer_id_then(transactional_id, [write, t, done](ErrorCode code, int64_t pid) mutable {
      if (code != ErrorCode::NONE) return done({code});
      t.last_producer_id = t.producer_id;
      t.last_producer_epoch = t.producer_epoch;
      t.producer_id = pid;
      t.producer_epoch = 0;
      write(t);
    });
  }
  t.last_producer_epoch = md.producer_epoch;
  t.producer_epoch = static_cast<int16_t>(md.producer_epoch == kNoProducerEpoch ? 0 : md.producer_epoch + 1);
  write(t);
}

// ---------------------------------------------------------------------------------------------
// AddPartitionsToTxn.

void TransactionCoordinator::add_partitions(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                                            const std::set<TopicPartition>& partitions, ErrorCallback done) {
  if (transactional_id.empty()) return done(ErrorCode::INVALID_REQUEST);
  const ErrorCode status = status_of(transactional_id);
  if (status != ErrorCode::NONE) return done(status);
  TransactionMetadata* md = find(transactional_id);
  if (!md || md->producer_id != producer_id) return done(ErrorCode::INVALID_PRODUCER_ID_MAPPING);
  if (md->producer_epoch != producer_epoch) return done(ErrorCode::PRODUCER_FENCED);
  if (md->pending_state) return done(ErrorCode::CONCURRENT_TRANSACTIONS);
  if (is_prepare_state(md->state) || md->state == TxnState::kPrepareEpochFence) return done(ErrorCode::CONCURRENT_TRANSACTIONS);
  if (md->state == TxnState::kDead) return done(ErrorCode::INVALID_TXN_STATE);
  if (md->state == TxnState::kOngoing &&
      std::includes(md->partitions.begin(), md->partitions.end(), partitions.begin(), partitions.end()))
    return done(ErrorCode::NONE);  // nothing new: no write
  Transit t = current(*md);
  if (md->state != TxnState::kOngoing) t.txn_start_timestamp_ms = rt_.wall_time_ms();
  t.state = TxnState::kOngoing;
  t.partitions.insert(partitions.begin(), partitions.end());
  write_transit(*md, t, std::move(done));
}

std::map<TopicPartition, ErrorCode> TransactionCoordinator::verify_partitions(const std::string& transactional_id,
                                                                              int64_t producer_id, int16_t producer_epoch,
                                                                              const std::set<TopicPartition>& partitions) {
  std::map<TopicPartition, ErrorCode> out;
  auto all = [&](ErrorCode e) {
    for (const auto& tp : partitions) out[tp] = e;
    return out;
  };
  if (transactional_id.empty()) return all(ErrorCode::INVALID_REQUEST);
  const ErrorCode status = status_of(transactional_id);
  if (status != ErrorCode::NONE) return all(status);
  const TransactionMetadata* md = find(transactional_id);
  if (!md || md->producer_id != producer_id) return all(ErrorCode::INVALID_PRODUCER_ID_MAPPING);
  if (md->producer_epoch != producer_epoch) return all(ErrorCode::PRODUCER_FENCED);
  if (md->pending_state || is_prepare_state(md->state)) return all(ErrorCode::CONCURRENT_TRANSACTIONS);
  for (const auto& tp : partitions)
    out[tp] = md->state == TxnState::kOngoing && md->partitions.count(tp) ? ErrorCode::NONE : ErrorCode::INVALID_TXN_STATE;
  return out;
}

// ---------------------------------------------------------------------------------------------
// EndTxn.

void TransactionCoordinator::end_txn(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                                     bool commit, ResultCallback done) {
  end_transaction(transactional_id, producer_id, producer_epoch, commit, true, std::move(done));
}

void TransactionCoordinator::end_transaction(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                                             bool commit, bool from_client, ResultCallback done) {
  if (transactional_id.empty()) return done({ErrorCode::INVALID_REQUEST});
  const ErrorCode status = status_of(transactional_id);
  if (status != ErrorCode::NONE) return done({status});
  TransactionMetadata* md = find(transactional_id);
  if (!md || md->producer_id != producer_id) return done({ErrorCode::INVALID_PRODUCER_ID_MAPPING});
  const bool tv2 = config_.transaction_version >= 2;
  const TxnState prepare = commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort;
  const TxnState complete = commit ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
  auto result = [md](ErrorCode e) { return ProducerIdAndEpoch{e, md->producer_id, md->producer_epoch}; };
  // transaction.version 2: the epoch moved on at this EndTxn; a retry of it carries the epoch
  // before (KIP-890 part 2).
  // While the next write is in flight (CompleteCommit after the markers, or the producer's own
  // InitProducerId) the retry waits (CONCURRENT_TRANSACTIONS) rather than being fenced.
  if (tv2 && from_client && producer_epoch != md->producer_epoch && producer_epoch == epoch_before_bump(*md, tv2) &&
      (md->state == prepare || md->state == complete))
    return done(result(md->state == prepare || md->pending_state ? ErrorCode::CONCURRENT_TRANSACTIONS : ErrorCode::NONE));
  if ((from_client && producer_epoch != md->producer_epoch) || producer_epoch < md->producer_epoch)
    return done({ErrorCode::PRODUCER_FENCED});
  if (md->pending_state && md->pending_state != TxnState::kPrepareEpochFence) return done({ErrorCode::CONCURRENT_TRANSACTIONS});
  switch (md->state) {
    case TxnState::kOngoing: break;
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort:
      // A retried EndTxn of a transaction already ended the same way is answered NONE.
      return done(result(md->state == complete ? ErrorCode::NONE : ErrorCode::INVALID_TXN_STATE));
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      return done(result(md->state == prepare ? ErrorCode::CONCURRENT_TRANSACTIONS : ErrorCode::INVALID_TXN_STATE));
    case TxnState::kEmpty:
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence: return done({ErrorCode::INVALID_TXN_STATE});
  }
  const bool fencing = md->pending_state == TxnState::kPrepareEpochFence;
  md->pending_state.reset();
  Transit t = current(*md);
  t.state = prepare;
  if (tv2 && !fencing && !epoch_exhausted(md->producer_epoch)) {
    t.last_producer_epoch = md->producer_epoch;
    t.producer_epoch = static_cast<int16_t>(md->producer_epoch + 1);
  }
  write_transit(*md, t, [this, transactional_id, done](ErrorCode err) {
    TransactionMetadata* m = find(transactional_id);
    if (err != ErrorCode::NONE || !m) return done({err == ErrorCode::NONE ? ErrorCode::NOT_COORDINATOR : err});
    // Answered once Prepare is stored (Kafka does); the markers follow.
    done({ErrorCode::NONE, m->producer_id, m->producer_epoch});
    start_markers(*m);
  });
}

void TransactionCoordinator::fence_and_abort(TransactionMetadata& md, ErrorCallback done) {
  // Kafka's prepareFenceProducerEpoch: the epoch is bumped in memory (PrepareEpochFence) and the
  // abort is written with it; if the abort cannot be written the bump is undone.
  const int16_t before = md.producer_epoch;
  const TxnState from = md.state;
  if (!epoch_exhausted(md.producer_epoch)) md.producer_epoch++;
  md.pending_state = TxnState::kPrepareEpochFence;
  rt_.emit(ev::TxnStateChange{.transactional_id = md.transactional_id,
                              .producer_id = md.producer_id,
                              .producer_epoch = md.producer_epoch,
                              .from = txn_state_name(from),
                              .to = txn_state_name(TxnState::kPrepareEpochFence),
                              .partitions = partitions_text(md.partitions)});
  const std::string id = md.transactional_id;
  end_transaction(id, md.producer_id, md.producer_epoch, false, false, [this, id, before, done](const ProducerIdAndEpoch& r) {
    if (r.error != ErrorCode::NONE) {
      TransactionMetadata* m = find(id);
      if (m && m->state == TxnState::kOngoing) {
        m->producer_epoch = before;
        if (m->pending_state == TxnState::kPrepareEpochFence) m->pending_state.reset();
      }
    }
    done(r.error);
  });
}

// ---------------------------------------------------------------------------------------------
// Periodic checks.

void TransactionCoordinator::schedule_timeout_check() {
  timeout_timer_ = rt_.after(Duration::millis(config_.transaction_abort_timed_out_transaction_cleanup_interval_ms), [this] {
    abort_timed_out_transactions();
    schedule_timeout_check();
  });
}

void TransactionCoordinator::schedule_expiration_check() {
  expiration_timer_ = rt_.after(Duration::millis(config_.transaction_remove_expired_transaction_cleanup_interval_ms), [this] {
    remove_expired_transactional_ids();
    schedule_expiration_check();
  });
}

void TransactionCoordinator::abort_timed_out_transactions() {
  const int64_t now = rt_.wall_time_ms();
  std::vector<std::string> expired;
  for (const auto& [id, md] : txns_) {
    auto owned = owned_.find(md->log_partition);
    if (owned == owned_.end() || owned->second.loading) continue;
    if (md->state == TxnState::kOngoing && !md->pending_state && md->txn_start_timestamp_ms + md->txn_timeout_ms < now)
      expired.push_back(id);
  }
  for (const auto& id : expired) {
    TransactionMetadata* md = find(id);
    if (!md) continue;
    rt_.log("aborting transaction " + id + " (producer id " + std::to_string(md->producer_id) +
            "): it was open longer than its timeout of " + std::to_string(md->txn_timeout_ms) + " ms");
    fence_and_abort(*md, [](ErrorCode) {});
  }
}

void TransactionCoordinator::remove_expired_transactional_ids() {
  const int64_t now = rt_.wall_time_ms();
  std::vector<std::string> expired;
  for (const auto& [id, md] : txns_) {
    auto owned = owned_.find(md->log_partition);
    if (owned == owned_.end() || owned->second.loading || md->pending_state) continue;
    const bool idle = md->state == TxnState::kEmpty || is_complete_state(md->state);
    if (idle && md->txn_last_update_timestamp_ms + config_.transactional_id_expiration_ms <= now) expired.push_back(id);
  }
  for (const auto& id : expired) {
    TransactionMetadata* md = find(id);
    md->pending_state = TxnState::kDead;
    const int32_t partition = md->log_partition;
    // A tombstone; once it is replicated the id is gone (Kafka's state Dead).
    append(partition, encode_txn_key(id), std::nullopt, [this, id](ErrorCode err) {
      TransactionMetadata* m = find(id);
      if (!m) return;
      m->pending_state.reset();
      if (err != ErrorCode::NONE) return;
      const TxnState from = m->state;
      m->state = TxnState::kDead;
      emit_change(*m, from);
      txns_.erase(id);
    });
  }
}

}  // namespace gregor::txn
