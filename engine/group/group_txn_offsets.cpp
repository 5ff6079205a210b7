// Transactional offsets (KIP-98): TxnOffsetCommit stores a group's offsets as a transactional
// batch of the producer in __consumer_offsets; they stay pending, invisible to OffsetFetch, until
// the transaction's marker reaches that partition (complete_txn_offsets), as Kafka's
// GroupMetadataManager does with pendingTransactionalOffsetCommits.
#include "engine/group/group_coordinator.h"
#include "engine/group/offsets_topic.h"
#include "engine/group/store_errors.h"

namespace gregor::group {

using protocol::ErrorCode;

namespace {

protocol::TxnOffsetCommitResponse txn_commit_response(const protocol::TxnOffsetCommitRequest& req, ErrorCode code) {
  protocol::TxnOffsetCommitResponse resp;
  for (const auto& t : req.topics) {
    protocol::TxnOffsetCommitResponse::TxnOffsetCommitResponseTopic rt;
    rt.name = t.name;
    for (const auto& p : t.partitions) rt.partitions.push_back({p.partition_index, code});
    resp.topics.push_back(std::move(rt));
  }
  return resp;
}

}  // namespace

void GroupCoordinator::txn_offset_commit(const protocol::TxnOffsetCommitRequest& req, int16_t version,
                                         std::function<void(const protocol::TxnOffsetCommitResponse&)> respond) {
  (void)version;
  const ErrorCode status = coordinator_status(req.group_id);
  if (status != ErrorCode::NONE) return respond(txn_commit_response(req, status));
  GroupMetadata* g = find(req.group_id);
  // v3+ (KIP-447): a member's generation is checked as OffsetCommit's is; a group the coordinator
  // does not know is created for the offsets, as Kafka's doTxnCommitOffsets does.
  if (!g) {
    if (req.generation_id >= 0) return respond(txn_commit_response(req, ErrorCode::ILLEGAL_GENERATION));
    g = &get_or_create(req.group_id);
  }
  ErrorCode check = ErrorCode::NONE;
  if (g->state == GroupState::kDead) {
    check = ErrorCode::COORDINATOR_NOT_AVAILABLE;
  } else if (g->is_static_member_fenced(req.group_instance_id, req.member_id)) {
    check = ErrorCode::FENCED_INSTANCE_ID;
  } else if (req.generation_id >= 0 || !req.member_id.empty()) {
    if (!req.member_id.empty() && !g->has(req.member_id))
      check = ErrorCode::UNKNOWN_MEMBER_ID;
    else if (req.generation_id >= 0 && req.generation_id != g->generation)
      check = ErrorCode::ILLEGAL_GENERATION;
  }
  if (check != ErrorCode::NONE) return respond(txn_commit_response(req, check));

  auto resp = std::make_shared<protocol::TxnOffsetCommitResponse>(txn_commit_response(req, ErrorCode::NONE));
  std::vector<record::Record> records;
  std::vector<std::pair<TopicPartition, CommittedOffset>> accepted;
  const int64_t now_ms = rt_.wall_time_ms();
  for (size_t ti = 0; ti < req.topics.size(); ti++)
    for (size_t pi = 0; pi < req.topics[ti].partitions.size(); pi++) {
      const auto& p = req.topics[ti].partitions[pi];
      std::string metadata = p.committed_metadata.value_or("");
      if (metadata.size() > kOffsetMetadataMaxBytes) {
        resp->topics[ti].partitions[pi].error_code = ErrorCode::OFFSET_METADATA_TOO_LARGE;
        continue;
      }
      CommittedOffset c{p.committed_offset, p.committed_leader_epoch, metadata, now_ms};
      record::Record r;
      r.timestamp = now_ms;
      r.key = encode_key(OffsetCommitKey{req.group_id, req.topics[ti].name, p.partition_index});
      r.value = encode_value(c);
      records.push_back(std::move(r));
      accepted.emplace_back(TopicPartition{req.topics[ti].name, p.partition_index}, c);
    }
  if (records.empty()) return respond(*resp);
  const std::string group_id = req.group_id;
  const int64_t producer_id = req.producer_id;
  append_txn_records(g->offsets_partition, req.producer_id, req.producer_epoch, records,
                     [this, resp, accepted, group_id, producer_id, respond](ErrorCode err) {
                       const ErrorCode code = err == ErrorCode::NONE ? ErrorCode::NONE : store_error(err, StoreKind::kOffsets);
                       GroupMetadata* cg = find(group_id);
                       if (code == ErrorCode::NONE && cg)
                         for (const auto& [tp, c] : accepted) cg->pending_txn_offsets[producer_id][tp] = c;
                       for (auto& t : resp->topics)
                         for (auto& p : t.partitions)
                           if (p.error_code == ErrorCode::NONE) p.error_code = cg ? code : ErrorCode::NOT_COORDINATOR;
                       respond(*resp);
                     });
}

void GroupCoordinator::complete_txn_offsets(int32_t offsets_partition, int64_t producer_id, int16_t producer_epoch,
                                            bool committed) {
  (void)producer_epoch;
  for (auto& [id, g] : groups_) {
    if (g->offsets_partition != offsets_partition) continue;
    auto it = g->pending_txn_offsets.find(producer_id);
    if (it == g->pending_txn_offsets.end()) continue;
    if (committed)
      for (const auto& [tp, c] : it->second) {
        g->offsets[tp] = c;
        rt_.emit(ev::OffsetCommit{.group = id,
                                  .member = "",
                                  .generation = -1,
                                  .topic = tp.topic,
                                  .partition = tp.partition,
                                  .offset = c.offset});
      }
    g->pending_txn_offsets.erase(it);
  }
}

}  // namespace gregor::group
