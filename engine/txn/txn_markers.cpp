// Markers (Kafka's TransactionMarkerChannelManager): once PrepareCommit or PrepareAbort is stored,
// WriteTxnMarkers goes to the leader of every partition of the transaction, grouped by broker,
// retried (leaders move, brokers fail) until every partition answered; then CompleteCommit or
// CompleteAbort is written. Loading, unloading, DescribeTransactions and ListTransactions too.
#include <algorithm>

#include "engine/record/batch_split.h"
#include "engine/record/record.h"
#include "engine/txn/transaction_coordinator.h"

namespace gregor::txn {

using protocol::ErrorCode;

void TransactionCoordinator::start_markers(TransactionMetadata& md) {
  md.markers_remaining = md.partitions;
  md.markers_epoch = next_marker_round_++;
  send_markers(md.transactional_id, md.markers_epoch);
}

void TransactionCoordinator::send_markers(const std::string& transactional_id, uint64_t round) {
  TransactionMetadata* md = find(transactional_id);
  if (!md || md->markers_epoch != round || !is_prepare_state(md->state)) return;
  auto owned = owned_.find(md->log_partition);
  if (owned == owned_.end() || owned->second.loading) return;
  const int32_t coordinator_epoch = owned->second.leader_epoch;
  // Partitions the topic no longer has need no marker (Kafka drops those of deleted topics); the
  // others by leader. A topic this broker's metadata does not name at all is waited for like a
  // leaderless partition: a new controller's first UpdateMetadata can leave topics out for a
  // moment, and dropping their markers then would leave the records of a committed transaction
  // to whatever ends the producer's next one (the transactions swarm found it, seed 30).
  std::map<int32_t, std::set<TopicPartition>> by_broker;
  bool leaderless = false;
  for (auto it = md->markers_remaining.begin(); it != md->markers_remaining.end();) {
    const int32_t count = host_.partition_count(it->topic);
    if (count > 0 && it->partition >= count) {
      it = md->markers_remaining.erase(it);
      continue;
    }
    auto leader = host_.partition_leader(*it);
    if (leader)
      by_broker[leader->id].insert(*it);
    else
      leaderless = true;
    ++it;
  }
  if (md->markers_remaining.empty()) return complete_transaction(transactional_id, round);
  if (leaderless) retry_markers(transactional_id, round);
  const bool commit = md->state == TxnState::kPrepareCommit;
  for (const auto& [broker, parts] : by_broker) {
    protocol::WriteTxnMarkersRequest req;
    protocol::WriteTxnMarkersRequest::WritableTxnMarker m;
    m.producer_id = md->producer_id;
    m.producer_epoch = md->producer_epoch;
    m.transaction_result = commit;
    m.coordinator_epoch = coordinator_epoch;
    for (const auto& tp : parts) {
      if (m.topics.empty() || m.topics.back().name != tp.topic) m.topics.push_back({});
      m.topics.back().name = tp.topic;
      m.topics.back().partition_indexes.push_back(tp.partition);
    }
    req.markers.push_back(std::move(m));
    rt_.emit(ev::TxnMarkerSend{.transactional_id = transactional_id,
                               .producer_id = md->producer_id,
                               .producer_epoch = md->producer_epoch,
                               .committed = commit,
                               .broker = broker,
                               .partitions = partitions_text(parts)});
    std::weak_ptr<bool> alive = alive_;
    host_.send_write_txn_markers(broker, req, [this, alive, transactional_id, round, broker, parts](
                                                  ErrorCode transport, const protocol::WriteTxnMarkersResponse* resp) {
      if (!alive.lock()) return;
      on_marker_response(transactional_id, round, broker, parts, transport, resp);
    });
  }
}

void TransactionCoordinator::on_marker_response(const std::string& transactional_id, uint64_t round, int32_t broker,
                                                const std::set<TopicPartition>& sent, ErrorCode transport,
                                                const protocol::WriteTxnMarkersResponse* resp) {
  TransactionMetadata* md = find(transactional_id);
  if (!md || md->markers_epoch != round || !is_prepare_state(md->state)) return;
  auto report = [&](const TopicPartition& tp, ErrorCode e) {
    rt_.emit(ev::TxnMarkerError{.transactional_id = transactional_id,
                                .producer_id = md->producer_id,
                                .broker = broker,
                                .partition = tp.topic + "-" + std::to_string(tp.partition),
                                .error = std::string(protocol::error_name(e))});
  };
  std::set<TopicPartition> answered;
  bool retry = false;
  if (transport != ErrorCode::NONE || !resp) {
    for (const auto& tp : sent) report(tp, transport == ErrorCode::NONE ? ErrorCode::NETWORK_EXCEPTION : transport);
    retry = true;
  } else {
    for (const auto& marker : resp->markers) {
      if (marker.producer_id != md->producer_id) continue;
      for (const auto& t : marker.topics)
        for (const auto& p : t.partitions) {
          const TopicPartition tp{t.name, p.partition_index};
          if (!sent.count(tp)) continue;
          answered.insert(tp);
          switch (p.error_code) {
            case ErrorCode::NONE:
              md->markers_remaining.erase(tp);
              break;
            case ErrorCode::UNSUPPORTED_FOR_MESSAGE_FORMAT:
            case ErrorCode::UNSUPPORTED_VERSION:
              // As Kafka: the producer could not have written transactional data there.
              report(tp, p.error_code);
              md->markers_remaining.erase(tp);
              break;
            case ErrorCode::INVALID_PRODUCER_EPOCH:
            case ErrorCode::TRANSACTION_COORDINATOR_FENCED:
              // A newer coordinator (or producer epoch) owns this transaction now: stop here.
              report(tp, p.error_code);
              md->markers_epoch = 0;
              return;
            default:
              report(tp, p.error_code);  // retriable: the leader moved, too few replicas, ...
              retry = true;
              break;
          }
        }
    }
    for (const auto& tp : sent)
      if (!answered.count(tp)) retry = true;
  }
  if (md->markers_remaining.empty()) return complete_transaction(transactional_id, round);
  if (retry) retry_markers(transactional_id, round);
}

void TransactionCoordinator::retry_markers(const std::string& transactional_id, uint64_t round) {
  // One retry timer per round at a time: the round number moves on when it is armed.
  TransactionMetadata* md = find(transactional_id);
  if (!md || md->markers_epoch != round) return;
  const uint64_t next = next_marker_round_++;
  md->markers_epoch = next;
  std::weak_ptr<bool> alive = alive_;
  rt_.after(Duration::millis(kMarkerRetryBackoffMs), [this, alive, transactional_id, next] {
    if (alive.lock()) send_markers(transactional_id, next);
  });
}

void TransactionCoordinator::complete_transaction(const std::string& transactional_id, uint64_t round) {
  TransactionMetadata* md = find(transactional_id);
  if (!md || md->markers_epoch != round || !is_prepare_state(md->state)) return;
  if (md->pending_state) return;
  md->markers_epoch = 0;
  Transit t = current(*md);
  t.state = md->state == TxnState::kPrepareCommit ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
  t.partitions.clear();
  write_transit(*md, t, [this, transactional_id](ErrorCode err) {
    if (err == ErrorCode::NONE || err == ErrorCode::NOT_COORDINATOR) return;
    // The state log could not take it (too few in-sync replicas, a timeout): try again.
    TransactionMetadata* m = find(transactional_id);
    if (!m || !is_prepare_state(m->state)) return;
    const uint64_t next = next_marker_round_++;
    m->markers_epoch = next;
    std::weak_ptr<bool> alive = alive_;
    rt_.after(Duration::millis(kMarkerRetryBackoffMs), [this, alive, transactional_id, next] {
      if (alive.lock()) complete_transaction(transactional_id, next);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Loading and unloading.

void TransactionCoordinator::on_partitions_changed() {
  const int32_t n = std::max(state_partition_count(), config_.transaction_state_log_num_partitions);
  for (int32_t p = 0; p < n; p++) {
    const std::optional<int32_t> epoch = host_.local_leader_epoch(TopicPartition{kTransactionStateTopic, p});
    auto it = owned_.find(p);
    if (epoch) {
      if (it != owned_.end() && it->second.leader_epoch == *epoch) continue;
      if (it != owned_.end()) unload_partition(p);
      load_partition(p, *epoch);
    } else if (it != owned_.end()) {
      unload_partition(p);
    }
  }
}

void TransactionCoordinator::load_partition(int32_t partition, int32_t leader_epoch) {
  owned_[partition] = OwnedPartition{leader_epoch, true};
  std::weak_ptr<bool> alive = alive_;
  rt_.after(Duration{0}, [this, alive, partition, leader_epoch] {
    if (!alive.lock()) return;
    auto it = owned_.find(partition);
    if (it == owned_.end() || it->second.leader_epoch != leader_epoch || !it->second.loading) return;
    // The latest record per transactional id wins; a tombstone removes it.
    std::map<std::string, std::optional<TxnLogValue>> latest;
    int64_t records = 0;
    Status s = host_.read_log(TopicPartition{kTransactionStateTopic, partition}, [&](ByteView batch) -> Status {
      auto header = record::parse_batch_header(batch, false);
      if (!header) return header.status();
      if (header->is_control()) return Status::ok();
      auto recs = record::decode_records(batch);
      if (!recs) return recs.status();
      for (const auto& r : *recs) {
        records++;
        if (!r.key) continue;
        auto id = decode_txn_key(*r.key);
        if (!id) {
          if (id.status().code() == StatusCode::kInvalidArgument) continue;
          return id.status();
        }
        if (!r.value) {
          latest[*id] = std::nullopt;
          continue;
        }
        auto v = decode_txn_value(*r.value);
        if (!v) {
          if (v.status().code() == StatusCode::kInvalidArgument) continue;
          return v.status();
        }
        latest[*id] = std::move(*v);
      }
      return Status::ok();
    });
    if (!s.is_ok()) {
      // Stay loading (clients retry) and say why.
      rt_.log("loading " + std::string(kTransactionStateTopic) + "-" + std::to_string(partition) + " failed: " + s.to_string());
      return;
    }
    it->second.loading = false;
    int64_t loaded = 0;
    std::vector<std::string> unfinished;
    for (auto& [id, value] : latest) {
      if (!value || partition_for_transactional_id(id, state_partition_count()) != partition) continue;
      auto md = std::make_unique<TransactionMetadata>();
      md->transactional_id = id;
      md->log_partition = partition;
      md->producer_id = value->producer_id;
      md->producer_epoch = value->producer_epoch;
      md->txn_timeout_ms = value->transaction_timeout_ms;
      md->state = value->state;
      md->partitions = value->partitions;
      md->txn_last_update_timestamp_ms = value->last_update_timestamp_ms;
      md->txn_start_timestamp_ms = value->start_timestamp_ms;
      if (is_prepare_state(md->state)) unfinished.push_back(id);
      txns_[id] = std::move(md);
      loaded++;
    }
    rt_.emit(ev::TxnLoad{.partition = partition, .leader_epoch = leader_epoch, .records = records, .transactions = loaded});
    // Transactions left in PrepareCommit/PrepareAbort by the previous coordinator are finished.
    for (const auto& id : unfinished) start_markers(*find(id));
  });
}

void TransactionCoordinator::unload_partition(int32_t partition) {
  owned_.erase(partition);
  fail_appends(partition, ErrorCode::NOT_LEADER_OR_FOLLOWER);
  int64_t n = 0;
  for (auto it = txns_.begin(); it != txns_.end();) {
    if (it->second->log_partition == partition) {
      it = txns_.erase(it);
      n++;
    } else {
      ++it;
    }
  }
  rt_.emit(ev::TxnUnload{.partition = partition, .transactions = n});
}

// ---------------------------------------------------------------------------------------------
// DescribeTransactions, ListTransactions.

protocol::DescribeTransactionsResponse::TransactionState TransactionCoordinator::describe(
    const std::string& transactional_id) const {
  protocol::DescribeTransactionsResponse::TransactionState out;
  out.transactional_id = transactional_id;
  out.producer_id = -1;
  out.producer_epoch = -1;
  out.transaction_timeout_ms = -1;
  out.transaction_start_time_ms = -1;
  out.error_code = status_of(transactional_id);
  if (out.error_code != ErrorCode::NONE) return out;
  const TransactionMetadata* md = transaction(transactional_id);
  if (!md || md->state == TxnState::kDead) {
    out.error_code = ErrorCode::TRANSACTIONAL_ID_NOT_FOUND;
    return out;
  }
  out.transaction_state = txn_state_name(md->state);
  out.transaction_timeout_ms = md->txn_timeout_ms;
  out.transaction_start_time_ms = md->txn_start_timestamp_ms;
  out.producer_id = md->producer_id;
  out.producer_epoch = md->producer_epoch;
  for (const auto& tp : md->partitions) {
    if (out.topics.empty() || out.topics.back().topic != tp.topic) out.topics.push_back({});
    out.topics.back().topic = tp.topic;
    out.topics.back().partitions.push_back(tp.partition);
  }
  return out;
}

protocol::ListTransactionsResponse TransactionCoordinator::list(const protocol::ListTransactionsRequest& req) const {
  protocol::ListTransactionsResponse resp;
  for (const auto& [p, o] : owned_)
    if (o.loading) resp.error_code = ErrorCode::COORDINATOR_LOAD_IN_PROGRESS;
  if (resp.error_code != ErrorCode::NONE) return resp;
  std::set<TxnState> states;
  for (const auto& name : req.state_filters) {
    auto s = txn_state_from_name(name);
    if (s)
      states.insert(*s);
    else
      resp.unknown_state_filters.push_back(name);
  }
  const std::set<int64_t> pids(req.producer_id_filters.begin(), req.producer_id_filters.end());
  const int64_t now = rt_.wall_time_ms();
  for (const auto& [id, md] : txns_) {
    auto owned = owned_.find(md->log_partition);
    if (owned == owned_.end() || md->state == TxnState::kDead) continue;
    if (!req.state_filters.empty() && !states.count(md->state)) continue;
    if (!pids.empty() && !pids.count(md->producer_id)) continue;
    // v1 (KIP-994): only transactions running longer than the duration (ms), Ongoing ones alone
    // having a running time.
    if (req.duration_filter >= 0 &&
        (md->state != TxnState::kOngoing || now - md->txn_start_timestamp_ms <= req.duration_filter))
      continue;
    resp.transaction_states.push_back(
        {.transactional_id = id, .producer_id = md->producer_id, .transaction_state = txn_state_name(md->state)});
  }
  return resp;
}

}  // namespace gregor::txn
