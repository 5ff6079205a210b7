// DeleteGroups and OffsetDelete (Kafka's GroupCoordinator.handleDeleteGroups and
// handleDeleteOffsets): what a group's deletion writes to __consumer_offsets is tombstones, one per
// committed offset and one for the group's metadata, so that a coordinator that loads the partition
// later does not bring the group or its offsets back.
#include "engine/group/group_coordinator.h"
#include "engine/group/store_errors.h"
#include "engine/protocol/consumer_protocol.h"

namespace gregor::group {

using protocol::ErrorCode;

namespace {
record::Record tombstone(Bytes key, int64_t now_ms) {
  record::Record r;
  r.timestamp = now_ms;
  r.key = std::move(key);
  r.value = std::nullopt;
  return r;
}

// Whether a member of a consumer group subscribes to `topic` (then its offsets may not be deleted).
bool subscribed(const GroupMetadata& g, const std::string& topic) {
  if (!g.protocol_name || g.protocol_type != std::optional<std::string>("consumer")) return false;
  for (const auto& [id, m] : g.members) {
    const Bytes* md = m.metadata(*g.protocol_name);
    if (!md) continue;
    auto sub = protocol::decode_subscription(as_view(*md));
    if (!sub) continue;
    for (const auto& t : sub->topics)
      if (t == topic) return true;
  }
  return false;
}
}  // namespace

void GroupCoordinator::delete_groups(const std::vector<std::string>& group_ids,
                                     std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> respond) {
  auto results = std::make_shared<std::vector<std::pair<std::string, ErrorCode>>>();
  auto remaining = std::make_shared<size_t>(group_ids.size());
  auto finish_one = [results, remaining, respond](const std::string& id, ErrorCode code) {
    results->emplace_back(id, code);
    if (--*remaining == 0) respond(*results);
  };
  if (group_ids.empty()) return respond({});
  for (const auto& id : group_ids) {
    if (ErrorCode status = coordinator_status(id); status != ErrorCode::NONE) {
      finish_one(id, status);
      continue;
    }
    GroupMetadata* g = find(id);
    if (!g || g->state == GroupState::kDead) {
      finish_one(id, ErrorCode::GROUP_ID_NOT_FOUND);
      continue;
    }
    if (g->state != GroupState::kEmpty) {
      finish_one(id, ErrorCode::NON_EMPTY_GROUP);
      continue;
    }
    // Dead at once (no join or commit gets in), then the tombstones; the group is gone when they
    // are stored.
    transition(*g, GroupState::kDead);
    const int64_t now_ms = rt_.wall_time_ms();
    std::vector<record::Record> records;
    for (const auto& [tp, c] : g->offsets)
      records.push_back(tombstone(encode_key(OffsetCommitKey{id, tp.topic, tp.partition}), now_ms));
    records.push_back(tombstone(encode_key(GroupMetadataKey{id}), now_ms));
    append_records(g->offsets_partition, records, [this, id, finish_one](ErrorCode err) {
      auto it = groups_.find(id);
      if (it != groups_.end() && it->second->state == GroupState::kDead) groups_.erase(it);
      if (err == ErrorCode::NONE) rt_.emit(ev::GroupDeleted{.group = id});
      finish_one(id, err == ErrorCode::NONE ? ErrorCode::NONE : store_error(err, StoreKind::kGroup));
    });
  }
}

void GroupCoordinator::offset_delete(const protocol::OffsetDeleteRequest& req,
                                     std::function<void(const protocol::OffsetDeleteResponse&)> respond) {
  protocol::OffsetDeleteResponse resp;
  auto fail_all = [&](ErrorCode code) {
    resp.error_code = code;
    respond(resp);
  };
  if (ErrorCode status = coordinator_status(req.group_id); status != ErrorCode::NONE) return fail_all(status);
  GroupMetadata* g = find(req.group_id);
  if (!g || g->state == GroupState::kDead) return fail_all(ErrorCode::GROUP_ID_NOT_FOUND);
  // Kafka: offsets of a group that is not a consumer group can only go when it is empty.
  const bool consumer = g->protocol_type == std::optional<std::string>("consumer");
  if (!consumer && g->state != GroupState::kEmpty) return fail_all(ErrorCode::NON_EMPTY_GROUP);
  const int64_t now_ms = rt_.wall_time_ms();
  std::vector<record::Record> records;
  std::vector<TopicPartition> deleted;
  for (const auto& t : req.topics) {
    resp.topics.push_back({});
    resp.topics.back().name = t.name;
    const bool in_use = g->state != GroupState::kEmpty && subscribed(*g, t.name);
    for (const auto& p : t.partitions) {
      resp.topics.back().partitions.push_back({p.partition_index, in_use ? ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC : ErrorCode::NONE});
      const TopicPartition tp{t.name, p.partition_index};
      if (in_use || !g->offsets.count(tp)) continue;
      records.push_back(tombstone(encode_key(OffsetCommitKey{req.group_id, tp.topic, tp.partition}), now_ms));
      deleted.push_back(tp);
    }
  }
  if (records.empty()) return respond(resp);
  const std::string group_id = req.group_id;
  auto shared = std::make_shared<protocol::OffsetDeleteResponse>(std::move(resp));
  append_records(g->offsets_partition, records, [this, group_id, deleted, shared, respond](ErrorCode err) {
    if (err != ErrorCode::NONE) {
      shared->error_code = store_error(err, StoreKind::kOffsets);
      shared->topics.clear();
      return respond(*shared);
    }
    if (GroupMetadata* cg = find(group_id))
      for (const auto& tp : deleted) cg->offsets.erase(tp);
    respond(*shared);
  });
}

}  // namespace gregor::group
