// The transactional half of Producer (producer.h explains the protocol): coordinator lookups with
// retries, InitProducerId with a transactional.id, AddPartitionsToTxn before a partition's first
// batch, AddOffsetsToTxn + TxnOffsetCommit, EndTxn, and fencing.
#include "engine/client/producer.h"

#include "engine/protocol/add_offsets_to_txn.h"
#include "engine/protocol/add_partitions_to_txn.h"
#include "engine/protocol/api_versions.h"
#include "engine/protocol/end_txn.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/init_producer_id.h"
#include "engine/protocol/txn_offset_commit.h"

namespace gregor::client {

using protocol::ErrorCode;

namespace {
// Versions Kafka 3.9's producer sends: the ones that answer PRODUCER_FENCED (KIP-588) rather
// than INVALID_PRODUCER_EPOCH, which Gregor's producer treats alike.
constexpr int16_t kFindCoordinatorVersion = 2;
constexpr int16_t kInitProducerIdVersion = 4;
constexpr int16_t kAddPartitionsToTxnVersion = 3;
constexpr int16_t kAddOffsetsToTxnVersion = 3;
constexpr int16_t kTxnOffsetCommitVersion = 3;
constexpr int16_t kEndTxnVersion = 3;
// ApiVersions v3: the first version with features (KIP-584).
constexpr int16_t kApiVersionsVersion = 3;

// Errors after which the same request is sent again: the coordinator is elsewhere, still loading,
// or busy ending the previous transaction.
bool coordinator_retriable(ErrorCode e) {
  switch (e) {
    case ErrorCode::COORDINATOR_NOT_AVAILABLE:
    case ErrorCode::NOT_COORDINATOR:
    case ErrorCode::COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode::CONCURRENT_TRANSACTIONS:
    case ErrorCode::NETWORK_EXCEPTION:
    case ErrorCode::REQUEST_TIMED_OUT:
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:  // metadata not yet everywhere
    case ErrorCode::OPERATION_NOT_ATTEMPTED:     // another partition of the request failed
      return true;
    default:
      return false;
  }
}
// Errors after which the coordinator must be looked up again.
bool coordinator_moved(ErrorCode e) {
  return e == ErrorCode::COORDINATOR_NOT_AVAILABLE || e == ErrorCode::NOT_COORDINATOR ||
         e == ErrorCode::NETWORK_EXCEPTION || e == ErrorCode::REQUEST_TIMED_OUT;
}
}  // namespace

bool Producer::fencing_error(ErrorCode err) {
  return err == ErrorCode::PRODUCER_FENCED || err == ErrorCode::INVALID_PRODUCER_EPOCH ||
         err == ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED || err == ErrorCode::TRANSACTION_COORDINATOR_FENCED;
}

std::optional<int32_t>& Producer::coordinator_for(int8_t key_type, const std::string& key) {
  if (key_type == protocol::kCoordinatorKeyTypeTransaction) return txn_coordinator_;
  return group_coordinators_[key];
}

void Producer::find_coordinator(int8_t key_type, const std::string& key, std::function<void(ErrorCode)> done) {
  protocol::FindCoordinatorRequest req;
  req.key = key;
  req.key_type = key_type;
  net_.send(metadata_.any_broker(), req, kFindCoordinatorVersion, Duration::millis(config_.request_timeout_ms),
            [this, key_type, key, done](ErrorCode transport, ByteReader* body) {
              std::optional<protocol::FindCoordinatorResponse> resp;
              if (transport == ErrorCode::NONE && body) {
                auto r = protocol::FindCoordinatorResponse::decode(*body, kFindCoordinatorVersion);
                if (r) resp = *r;
              }
              if (!resp) return done(transport == ErrorCode::NONE ? ErrorCode::NETWORK_EXCEPTION : transport);
              if (resp->error_code != ErrorCode::NONE || resp->node_id < 0)
                return done(resp->error_code == ErrorCode::NONE ? ErrorCode::COORDINATOR_NOT_AVAILABLE : resp->error_code);
              rt_.learn_address(NodeId{resp->node_id}, resp->host, resp->port);
              coordinator_for(key_type, key) = resp->node_id;
              done(ErrorCode::NONE);
            });
}

template <typename Req, typename Resp>
void Producer::coordinator_call(int8_t key_type, std::string key, Req req, int16_t version,
                                std::function<ErrorCode(const Resp&)> error_of,
                                std::function<void(ErrorCode, const Resp*)> done, Time deadline) {
  // Once fenced, nothing more is sent: the call fails with the fencing error.
  if (txn_phase_ == TxnPhase::kFatal) return done(fatal_error_, nullptr);
  auto retry = [this, key_type, key, req, version, error_of, done, deadline](ErrorCode why) {
    if (coordinator_moved(why)) coordinator_for(key_type, key).reset();
    if (rt_.now() >= deadline) return done(why == ErrorCode::NONE ? ErrorCode::REQUEST_TIMED_OUT : why, nullptr);
    rt_.after(Duration::millis(std::max<int64_t>(config_.retry_backoff_ms, 1)),
              [this, key_type, key, req, version, error_of, done, deadline] {
                coordinator_call<Req, Resp>(key_type, key, req, version, error_of, done, deadline);
              });
  };
  const std::optional<int32_t> coordinator = coordinator_for(key_type, key);
  if (!coordinator) {
    find_coordinator(key_type, key, [this, key_type, key, req, version, error_of, done, deadline, retry](ErrorCode e) {
      if (e != ErrorCode::NONE) return retry(e);
      coordinator_call<Req, Resp>(key_type, key, req, version, error_of, done, deadline);
    });
    return;
  }
  net_.send(NodeId{*coordinator}, req, version, Duration::millis(config_.request_timeout_ms),
            [this, version, error_of, done, retry](ErrorCode transport, ByteReader* body) {
              if (txn_phase_ == TxnPhase::kFatal) return done(fatal_error_, nullptr);
              std::optional<Resp> resp;
              if (transport == ErrorCode::NONE && body) {
                auto r = Resp::decode(*body, version);
                if (r) resp = std::move(*r);
              }
              if (!resp) return retry(transport == ErrorCode::NONE ? ErrorCode::NETWORK_EXCEPTION : transport);
              const ErrorCode e = error_of(*resp);
              if (coordinator_retriable(e)) return retry(e);
              done(e, &*resp);
            });
}

void Producer::init_transactions(TxnCallback cb) {
  GREGOR_ASSERT(transactional());
  if (txn_phase_ == TxnPhase::kFatal) return cb(fatal_error_);
  if (txn_phase_ != TxnPhase::kUninitialized) return cb(ErrorCode::INVALID_TXN_STATE);
  // First the coordinator's features: whether every EndTxn bumps the epoch (transaction.version 2,
  // KIP-890 part 2). Kafka's client learns them from the ApiVersions of every connection.
  txn_phase_ = TxnPhase::kInitializing;
  protocol::ApiVersionsRequest req;
  req.client_software_name = "gregor";
  req.client_software_version = "1.0";
  using Resp = protocol::ApiVersionsResponse;
  coordinator_call<protocol::ApiVersionsRequest, Resp>(
      protocol::kCoordinatorKeyTypeTransaction, config_.transactional_id, req, kApiVersionsVersion,
      [](const Resp& r) { return r.error_code; },
      [this, cb = std::move(cb)](ErrorCode e, const Resp* r) mutable {
        if (txn_phase_ == TxnPhase::kFatal) return cb(fatal_error_);
        if (e != ErrorCode::NONE && !r) {
          txn_phase_ = TxnPhase::kUninitialized;  // may be called again
          rt_.emit(ev::ProducerInitError{.error = protocol::error_name(e)});
          return cb(e);
        }
        transaction_version_ = 1;
        if (r)
          for (const auto& f : r->finalized_features)
            if (f.name == "transaction.version") transaction_version_ = f.max_version_level;
        txn_init_producer_id(false, std::move(cb));
      },
      rt_.now() + Duration::millis(config_.delivery_timeout_ms));
}

void Producer::txn_init_producer_id(bool bump, TxnCallback cb) {
  txn_phase_ = TxnPhase::kInitializing;
  init_cb_ = std::move(cb);
  protocol::InitProducerIdRequest req;
  req.transactional_id = config_.transactional_id;
  req.transaction_timeout_ms = static_cast<int32_t>(config_.transaction_timeout_ms);
  if (bump) {
    // KIP-360: the same producer id at the next epoch, the sequences start again at 0.
    req.producer_id = producer_id_;
    req.producer_epoch = producer_epoch_;
  }
  using Resp = protocol::InitProducerIdResponse;
  coordinator_call<protocol::InitProducerIdRequest, Resp>(
      protocol::kCoordinatorKeyTypeTransaction, config_.transactional_id, req, kInitProducerIdVersion,
      [this](const Resp& r) {
        if (coordinator_retriable(r.error_code))
          rt_.emit(ev::ProducerInitError{.error = protocol::error_name(r.error_code)});
        return r.error_code;
      },
      [this](ErrorCode e, const Resp* r) {
        auto done = std::move(init_cb_);
        init_cb_ = nullptr;
        if (e == ErrorCode::NONE && r) {
          producer_id_ = r->producer_id;
          producer_epoch_ = r->producer_epoch;
          epoch_bump_needed_ = false;
          next_sequence_.clear();
          unacked_.clear();
          in_flight_batches_.clear();
          txn_phase_ = TxnPhase::kReady;
          rt_.emit(ev::ProducerInit{.producer_id = producer_id_, .producer_epoch = producer_epoch_});
        } else if (fencing_error(e)) {
          become_fatal(e);
        } else if (txn_phase_ == TxnPhase::kInitializing) {
          rt_.emit(ev::ProducerInitError{.error = protocol::error_name(e)});
          // May be called again (after a bump that failed, too: the id and epoch are still ours).
          txn_phase_ = TxnPhase::kUninitialized;
        }
        if (done) done(txn_phase_ == TxnPhase::kFatal ? fatal_error_ : e);
      },
      rt_.now() + Duration::millis(config_.delivery_timeout_ms));
}

ErrorCode Producer::begin_transaction() {
  GREGOR_ASSERT(transactional());
  if (txn_phase_ == TxnPhase::kFatal) return fatal_error_;
  if (txn_phase_ != TxnPhase::kReady) return ErrorCode::INVALID_TXN_STATE;
  txn_phase_ = TxnPhase::kInTransaction;
  abortable_error_ = ErrorCode::NONE;
  txn_partitions_.clear();
  partitions_to_add_.clear();
  offsets_added_ = false;
  rt_.emit(ev::TxnBegin{.transactional_id = config_.transactional_id, .producer_id = producer_id_, .epoch = producer_epoch_});
  return ErrorCode::NONE;
}

bool Producer::may_send_transactional(const TopicPartitionKey& tp) {
  if (txn_partitions_.count(tp)) return true;
  partitions_to_add_.insert(tp);
  return false;
}

void Producer::add_partitions() {
  if (add_in_flight_ || partitions_to_add_.empty() || txn_phase_ == TxnPhase::kFatal) return;
  if (txn_phase_ == TxnPhase::kAborting) {
    partitions_to_add_.clear();  // their batches were dropped
    return;
  }
  add_in_flight_ = true;
  std::set<TopicPartitionKey> adding = partitions_to_add_;
  protocol::AddPartitionsToTxnRequest req;
  req.v3_and_below_transactional_id = config_.transactional_id;
  req.v3_and_below_producer_id = producer_id_;
  req.v3_and_below_producer_epoch = producer_epoch_;
  for (const auto& tp : adding) {
    if (req.v3_and_below_topics.empty() || req.v3_and_below_topics.back().name != tp.topic)
      req.v3_and_below_topics.push_back({tp.topic, {}});
    req.v3_and_below_topics.back().partitions.push_back(tp.partition);
  }
  using Resp = protocol::AddPartitionsToTxnResponse;
  coordinator_call<protocol::AddPartitionsToTxnRequest, Resp>(
      protocol::kCoordinatorKeyTypeTransaction, config_.transactional_id, req, kAddPartitionsToTxnVersion,
      [](const Resp& r) {
        // All or nothing: Kafka answers OPERATION_NOT_ATTEMPTED for the rest when one fails, so
        // the worst error decides (a retriable one only if no other).
        ErrorCode worst = ErrorCode::NONE;
        for (const auto& t : r.results_by_topic_v3_and_below)
          for (const auto& p : t.results_by_partition)
            if (p.partition_error_code != ErrorCode::NONE &&
                (worst == ErrorCode::NONE || coordinator_retriable(worst)))
              worst = p.partition_error_code;
        return worst;
      },
      [this, adding](ErrorCode e, const Resp*) {
        add_in_flight_ = false;
        if (e == ErrorCode::NONE) {
          for (const auto& tp : adding) {
            txn_partitions_.insert(tp);
            partitions_to_add_.erase(tp);
          }
        } else if (fencing_error(e)) {
          become_fatal(e);
        } else if (txn_phase_ != TxnPhase::kFatal) {
          // The transaction can only abort now; its queued batches fail with the error.
          if (abortable_error_ == ErrorCode::NONE) abortable_error_ = e;
          partitions_to_add_.clear();
          fail_unsent(e);
        }
        schedule_drain(Duration{0});
      },
      rt_.now() + Duration::millis(config_.delivery_timeout_ms));
}

void Producer::send_offsets_to_transaction(std::vector<TopicPartitionOffset> offsets, std::string group_id, TxnCallback cb) {
  send_offsets_to_transaction(std::move(offsets), ConsumerGroupMetadata{.group_id = std::move(group_id), .generation_id = -1, .member_id = ""}, std::move(cb));
}

void Producer::send_offsets_to_transaction(std::vector<TopicPartitionOffset> offsets, ConsumerGroupMetadata group, TxnCallback cb) {
  GREGOR_ASSERT(transactional());
  const std::string group_id = group.group_id;
  if (txn_phase_ == TxnPhase::kFatal) return cb(fatal_error_);
  if (txn_phase_ != TxnPhase::kInTransaction) return cb(ErrorCode::INVALID_TXN_STATE);
  if (abortable_error_ != ErrorCode::NONE) return cb(abortable_error_);
  offsets_in_flight_++;
  const Time deadline = rt_.now() + Duration::millis(config_.delivery_timeout_ms);
  auto finish = [this, cb](ErrorCode e) {
    offsets_in_flight_--;
    if (e != ErrorCode::NONE) {
      if (fencing_error(e))
        become_fatal(e);
      else if (txn_phase_ != TxnPhase::kFatal && abortable_error_ == ErrorCode::NONE)
        abortable_error_ = e;
    }
    cb(txn_phase_ == TxnPhase::kFatal ? fatal_error_ : e);
    schedule_drain(Duration{0});  // a commit may be waiting for these offsets
  };
  protocol::AddOffsetsToTxnRequest add;
  add.transactional_id = config_.transactional_id;
  add.producer_id = producer_id_;
  add.producer_epoch = producer_epoch_;
  add.group_id = group_id;
  using AddResp = protocol::AddOffsetsToTxnResponse;
  using CommitResp = protocol::TxnOffsetCommitResponse;
  coordinator_call<protocol::AddOffsetsToTxnRequest, AddResp>(
      protocol::kCoordinatorKeyTypeTransaction, config_.transactional_id, add, kAddOffsetsToTxnVersion,
      [](const AddResp& r) { return r.error_code; },
      [this, offsets = std::move(offsets), group, group_id, finish, deadline](ErrorCode e, const AddResp*) {
        if (e != ErrorCode::NONE) return finish(e);
        offsets_added_ = true;
        protocol::TxnOffsetCommitRequest commit;
        commit.transactional_id = config_.transactional_id;
        commit.group_id = group_id;
        commit.generation_id = group.generation_id;
        commit.member_id = group.member_id;
        commit.producer_id = producer_id_;
        commit.producer_epoch = producer_epoch_;
        for (const auto& o : offsets) {
          if (commit.topics.empty() || commit.topics.back().name != o.topic) commit.topics.push_back({o.topic, {}});
          commit.topics.back().partitions.push_back(
              {.partition_index = o.partition, .committed_offset = o.offset, .committed_metadata = std::nullopt});
        }
        coordinator_call<protocol::TxnOffsetCommitRequest, CommitResp>(
            protocol::kCoordinatorKeyTypeGroup, group_id, commit, kTxnOffsetCommitVersion,
            [](const CommitResp& r) {
              for (const auto& t : r.topics)
                for (const auto& p : t.partitions)
                  if (p.error_code != ErrorCode::NONE) return p.error_code;
              return ErrorCode::NONE;
            },
            [finish](ErrorCode e2, const CommitResp*) { finish(e2); }, deadline);
      },
      deadline);
}

void Producer::commit_transaction(TxnCallback cb) {
  GREGOR_ASSERT(transactional());
  if (txn_phase_ == TxnPhase::kFatal) return cb(fatal_error_);
  if (txn_phase_ != TxnPhase::kInTransaction) return cb(ErrorCode::INVALID_TXN_STATE);
  if (abortable_error_ != ErrorCode::NONE) return cb(abortable_error_);  // only abort may follow
  txn_phase_ = TxnPhase::kCommitting;
  end_cb_ = std::move(cb);
  schedule_drain(Duration{0});  // flush: batches go out without waiting for linger.ms
}

void Producer::abort_transaction(TxnCallback cb) {
  GREGOR_ASSERT(transactional());
  if (txn_phase_ == TxnPhase::kFatal) return cb(fatal_error_);
  if (txn_phase_ != TxnPhase::kInTransaction) return cb(ErrorCode::INVALID_TXN_STATE);
  txn_phase_ = TxnPhase::kAborting;
  end_cb_ = std::move(cb);
  partitions_to_add_.clear();
  // Kafka fails them with TransactionAbortedException, which has no wire code; TRANSACTION_ABORTABLE
  // says the same to a callback.
  fail_unsent(ErrorCode::TRANSACTION_ABORTABLE);
  schedule_drain(Duration{0});
}

void Producer::maybe_end_transaction() {
  if (txn_phase_ != TxnPhase::kCommitting && txn_phase_ != TxnPhase::kAborting) return;
  if (end_in_flight_ || pending_ > 0 || add_in_flight_ || offsets_in_flight_ > 0) return;
  const bool commit = txn_phase_ == TxnPhase::kCommitting;
  if (commit && abortable_error_ != ErrorCode::NONE) {
    // A batch failed while the commit flushed: the commit fails, the transaction must abort.
    txn_phase_ = TxnPhase::kInTransaction;
    return finish_end(true, abortable_error_);
  }
  if (txn_partitions_.empty() && !offsets_added_) return finish_end(commit, ErrorCode::NONE);  // nothing to end
  end_transaction(commit);
}

void Producer::end_transaction(bool commit) {
  end_in_flight_ = true;
  protocol::EndTxnRequest req;
  req.transactional_id = config_.transactional_id;
  req.producer_id = producer_id_;
  req.producer_epoch = producer_epoch_;
  req.committed = commit;
  using Resp = protocol::EndTxnResponse;
  coordinator_call<protocol::EndTxnRequest, Resp>(
      protocol::kCoordinatorKeyTypeTransaction, config_.transactional_id, req, kEndTxnVersion,
      [](const Resp& r) { return r.error_code; },
      [this, commit](ErrorCode e, const Resp*) {
        end_in_flight_ = false;
        if (txn_phase_ == TxnPhase::kFatal) return;  // become_fatal answered the callback
        // Kafka's TransactionManager: fencing, and a coordinator that has no such transaction in
        // a state to end, are fatal.
        if (fencing_error(e) || e == ErrorCode::INVALID_TXN_STATE || e == ErrorCode::INVALID_PRODUCER_ID_MAPPING)
          return become_fatal(e);
        if (e != ErrorCode::NONE) {
          // The coordinator refused (or never answered in time): the transaction stays open and
          // can only abort.
          txn_phase_ = TxnPhase::kInTransaction;
          if (abortable_error_ == ErrorCode::NONE) abortable_error_ = e;
        } else if (transaction_version_ >= 2) {
          // KIP-890 part 2: this EndTxn bumped the epoch at the coordinator. Kafka 4.0 reads the new
          // one from EndTxn v5, past Kafka 3.9's range (0-4) that Gregor keeps; Gregor's producer
          // asks for it instead with InitProducerId naming its id and old epoch (KIP-360), which the
          // coordinator accepts once the markers are written and answers with the next epoch.
          epoch_bump_needed_ = true;
        }
        finish_end(commit, e);
      },
      rt_.now() + Duration::millis(config_.delivery_timeout_ms));
}

std::string Producer::txn_partitions_text() const {
  std::string out;
  for (const auto& tp : txn_partitions_) out += (out.empty() ? "" : ",") + tp.topic + "-" + std::to_string(tp.partition);
  return out;
}

void Producer::finish_end(bool commit, ErrorCode err) {
  const std::string outcome = protocol::error_name(err);
  if (commit)
    rt_.emit(ev::TxnCommit{.transactional_id = config_.transactional_id, .producer_id = producer_id_, .epoch = producer_epoch_,
                           .partitions = txn_partitions_text(), .outcome = outcome});
  else
    rt_.emit(ev::TxnAbort{.transactional_id = config_.transactional_id, .producer_id = producer_id_, .epoch = producer_epoch_,
                          .partitions = txn_partitions_text(), .outcome = outcome});
  auto cb = std::move(end_cb_);
  end_cb_ = nullptr;
  if (err == ErrorCode::NONE) {
    txn_phase_ = TxnPhase::kReady;
    abortable_error_ = ErrorCode::NONE;
    txn_partitions_.clear();
    offsets_added_ = false;
    if (epoch_bump_needed_) {
      // A batch with a sequence number failed for good in the aborted transaction: the broker
      // would refuse the next one's sequences as out of order. A new epoch starts them at 0.
      return txn_init_producer_id(true, [cb](ErrorCode e) {
        if (cb) cb(e);
      });
    }
  }
  if (cb) cb(err);
}

}  // namespace gregor::client
