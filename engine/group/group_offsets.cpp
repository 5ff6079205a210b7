// Offsets: OffsetCommit and OffsetFetch, and loading/unloading an offsets partition's groups and
// offsets when this broker gains or loses its leadership (GroupMetadataManager).
#include <algorithm>

#include "engine/group/group_coordinator.h"
#include "engine/group/store_errors.h"
#include "engine/group/offsets_topic.h"
#include "engine/record/batch_split.h"

namespace gregor::group {

using protocol::ErrorCode;

namespace {

protocol::OffsetCommitResponse commit_response(const protocol::OffsetCommitRequest& req, ErrorCode code) {
  protocol::OffsetCommitResponse resp;
  for (const auto& t : req.topics) {
    protocol::OffsetCommitResponse::OffsetCommitResponseTopic rt;
    rt.name = t.name;
    for (const auto& p : t.partitions) rt.partitions.push_back({p.partition_index, code});
    resp.topics.push_back(std::move(rt));
  }
  return resp;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// OffsetCommit.

void GroupCoordinator::offset_commit(const protocol::OffsetCommitRequest& req,
                                     std::function<void(const protocol::OffsetCommitResponse&)> respond) {
  ErrorCode status = coordinator_status(req.group_id);
  if (status != ErrorCode::NONE) return respond(commit_response(req, status));
  GroupMetadata* g = find(req.group_id);
  if (!g) {
    // A group not relying on Kafka for membership (generation -1) may commit; anything else is
    // from a generation this coordinator never saw.
    if (req.generation_id >= 0) return respond(commit_response(req, ErrorCode::ILLEGAL_GENERATION));
    g = &get_or_create(req.group_id);
  }
  ErrorCode check = ErrorCode::NONE;
  if (g->state == GroupState::kDead) {
    check = ErrorCode::COORDINATOR_NOT_AVAILABLE;
  } else if (req.generation_id < 0 && g->state == GroupState::kEmpty) {
    // A simple (non-member) commit, as every v0 commit is (it has no generation).
  } else if (g->is_static_member_fenced(req.group_instance_id, req.member_id)) {
    check = ErrorCode::FENCED_INSTANCE_ID;
  } else if (!g->has(req.member_id)) {
    check = ErrorCode::UNKNOWN_MEMBER_ID;
  } else if (req.generation_id != g->generation) {
    check = ErrorCode::ILLEGAL_GENERATION;
  } else if (g->state == GroupState::kCompletingRebalance) {
    // As Kafka's handleCommitOffsets after validateOffsetCommit: the member and generation are
    // current (it has its JoinGroup response) but the assignment is not out yet.
    check = ErrorCode::REBALANCE_IN_PROGRESS;
  } else {
    // Accepted in Stable and in PreparingRebalance (Kafka's validateOffsetCommit): a commit is as
    // good as a heartbeat.
    schedule_heartbeat_expiry(*g, g->members.at(req.member_id));
  }
  if (check != ErrorCode::NONE) return respond(commit_response(req, check));

  auto resp = std::make_shared<protocol::OffsetCommitResponse>(commit_response(req, ErrorCode::NONE));
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
      // v1 carries the commit's time (-1: the broker's); v6+ the leader epoch the offset was read in.
      CommittedOffset c{p.committed_offset, p.committed_leader_epoch, metadata,
                        p.commit_timestamp >= 0 ? p.commit_timestamp : now_ms};
      record::Record r;
      r.timestamp = now_ms;
      r.key = encode_key(OffsetCommitKey{req.group_id, req.topics[ti].name, p.partition_index});
      r.value = encode_value(c);
      records.push_back(std::move(r));
      accepted.emplace_back(TopicPartition{req.topics[ti].name, p.partition_index}, c);
    }
  if (records.empty()) return respond(*resp);
  const std::string group_id = req.group_id;
  const std::string member_id = req.member_id;
  const int32_t generation = req.generation_id;
  append_records(g->offsets_partition, records, [this, resp, accepted, group_id, member_id, generation, respond](ErrorCode err) {
    const ErrorCode code = err == ErrorCode::NONE ? ErrorCode::NONE : store_error(err, StoreKind::kOffsets);
    GroupMetadata* cg = find(group_id);
    if (code == ErrorCode::NONE && cg) {
      for (const auto& [tp, c] : accepted) {
        cg->offsets[tp] = c;
        rt_.emit(ev::OffsetCommit{.group = group_id,
                                  .member = member_id,
                                  .generation = generation,
                                  .topic = tp.topic,
                                  .partition = tp.partition,
                                  .offset = c.offset});
      }
    }
    for (auto& t : resp->topics)
      for (auto& p : t.partitions)
        if (p.error_code == ErrorCode::NONE) p.error_code = cg ? code : ErrorCode::NOT_COORDINATOR;
    respond(*resp);
  });
}

// ---------------------------------------------------------------------------------------------
// OffsetFetch.

GroupCoordinator::GroupOffsets GroupCoordinator::fetch_group_offsets(const std::string& group_id,
                                                                    const std::optional<std::vector<TopicRequest>>& topics,
                                                                    bool require_stable) const {
  GroupOffsets out;
  out.error = coordinator_status(group_id);
  const GroupMetadata* g = out.error == ErrorCode::NONE ? group(group_id) : nullptr;
  if (topics) {
    for (const auto& [name, partitions] : *topics) {
      out.topics.push_back({name, {}});
      for (int32_t p : partitions) {
        PartitionOffset po{.partition = p, .error = out.error, .committed = {}};
        if (g) {
          auto it = g->offsets.find(TopicPartition{name, p});
          if (it != g->offsets.end()) po.committed = it->second;
          // v7+ require_stable (KIP-447): an offset a transaction has not ended yet is unstable.
          if (require_stable && g->has_pending_txn_offset(TopicPartition{name, p})) {
            po.error = ErrorCode::UNSTABLE_OFFSET_COMMIT;
            po.committed = CommittedOffset{};
          }
        }
        out.topics.back().second.push_back(po);
      }
    }
  } else if (g) {
    // Null topics (v2+): every partition the group has committed.
    for (const auto& [tp, c] : g->offsets) {
      if (out.topics.empty() || out.topics.back().first != tp.topic) out.topics.push_back({tp.topic, {}});
      const bool unstable = require_stable && g->has_pending_txn_offset(tp);
      out.topics.back().second.push_back({.partition = tp.partition,
                                          .error = unstable ? ErrorCode::UNSTABLE_OFFSET_COMMIT : ErrorCode::NONE,
                                          .committed = unstable ? CommittedOffset{} : c});
    }
  }
  return out;
}

protocol::OffsetFetchResponse GroupCoordinator::offset_fetch(const protocol::OffsetFetchRequest& req, int16_t version) {
  protocol::OffsetFetchResponse resp;
  if (version >= 8) {
    // KIP-709: several groups, each answered with its own error. v9's member id and epoch are
    // KIP-848's; a classic group's offsets are anyone's to read.
    for (const auto& rg : req.groups) {
      std::optional<std::vector<TopicRequest>> topics;
      if (rg.topics) {
        topics.emplace();
        for (const auto& t : *rg.topics) topics->push_back({t.name, t.partition_indexes});
      }
      GroupOffsets found = fetch_group_offsets(rg.group_id, topics, req.require_stable);
      protocol::OffsetFetchResponse::OffsetFetchResponseGroup out;
      out.group_id = rg.group_id;
      out.error_code = found.error;
      if (found.error == ErrorCode::NONE)
        for (const auto& [name, parts] : found.topics) {
          protocol::OffsetFetchResponse::OffsetFetchResponseTopics ot;
          ot.name = name;
          for (const PartitionOffset& po : parts)
            ot.partitions.push_back({.partition_index = po.partition,
                                     .committed_offset = po.committed.offset,
                                     .committed_leader_epoch = po.committed.leader_epoch,
                                     .metadata = po.committed.metadata,
                                     .error_code = po.error == ErrorCode::UNSTABLE_OFFSET_COMMIT ? po.error : ErrorCode::NONE});
          out.topics.push_back(std::move(ot));
        }
      resp.groups.push_back(std::move(out));
    }
    return resp;
  }
  std::optional<std::vector<TopicRequest>> topics;
  if (req.topics) {
    topics.emplace();
    for (const auto& t : *req.topics) topics->push_back({t.name, t.partition_indexes});
  }
  GroupOffsets found = fetch_group_offsets(req.group_id, topics, version >= 7 && req.require_stable);
  resp.error_code = found.error;
  for (const auto& [name, parts] : found.topics) {
    protocol::OffsetFetchResponse::OffsetFetchResponseTopic rt;
    rt.name = name;
    for (const PartitionOffset& po : parts)
      rt.partitions.push_back({.partition_index = po.partition,
                               .committed_offset = po.committed.offset,
                               // v5+: the leader epoch of the committed offset.
                               .committed_leader_epoch = po.committed.leader_epoch,
                               .metadata = po.committed.metadata,
                               // v0-1 have no top-level error: every requested partition carries it.
                               .error_code = version < 2 || po.error == ErrorCode::UNSTABLE_OFFSET_COMMIT ? po.error : ErrorCode::NONE});
    resp.topics.push_back(std::move(rt));
  }
  return resp;
}

// ---------------------------------------------------------------------------------------------
// Loading and unloading.

void GroupCoordinator::load_partition(int32_t partition, int32_t leader_epoch) {
  owned_[partition] = OwnedPartition{leader_epoch, true};
  rt_.emit(ev::OffsetsLoadStart{.topic = kOffsetsTopic, .partition = partition, .leader_epoch = leader_epoch});
  // Asynchronous, as Kafka's loading is: requests meanwhile get COORDINATOR_LOAD_IN_PROGRESS.
  rt_.after(Duration{0}, [this, partition, leader_epoch] {
    auto it = owned_.find(partition);
    if (it == owned_.end() || it->second.leader_epoch != leader_epoch || !it->second.loading) return;
    int64_t records = 0;
    Status s = read_offsets_partition(partition, &records);
    if (!s.is_ok()) {
      // The log could not be read: stay "loading" (clients retry) and say why.
      rt_.log("loading " + std::string(kOffsetsTopic) + "-" + std::to_string(partition) + " failed: " + s.to_string());
      rt_.emit(ev::OffsetsLoadFailed{.topic = kOffsetsTopic, .partition = partition, .error = s.to_string()});
      return;
    }
    it->second.loading = false;
    int64_t groups = 0, offsets = 0, members = 0;
    for (auto& [id, g] : groups_) {
      if (g->offsets_partition != partition) continue;
      groups++;
      offsets += static_cast<int64_t>(g->offsets.size());
      members += static_cast<int64_t>(g->members.size());
    }
    rt_.emit(ev::OffsetsLoad{.topic = kOffsetsTopic,
                             .partition = partition,
                             .leader_epoch = leader_epoch,
                             .records = records,
                             .groups = groups,
                             .offsets = offsets,
                             .members = members});
  });
}

Status GroupCoordinator::read_offsets_partition(int32_t partition, int64_t* records_read) {
  log::Log* p = host_.local_log(TopicPartition{kOffsetsTopic, partition});
  if (!p) return Status::error(StatusCode::kNotFound, "no local replica");
  // The latest record per key wins; a tombstone deletes.
  std::map<std::pair<std::string, TopicPartition>, std::optional<OffsetCommitValue>> offsets;
  std::map<std::string, std::optional<GroupMetadataValue>> groups;
  // Transactional offset batches wait for their producer's marker (control batch): a commit
  // applies them where the marker stands, an abort drops them; without a marker they stay pending.
  std::map<int64_t, std::vector<std::pair<std::pair<std::string, TopicPartition>, OffsetCommitValue>>> pending_txn;
  Offset from = p->log_start_offset();
  const Offset end = p->log_end_offset();
  constexpr size_t kReadBytes = 1 << 20;
  while (from < end) {
    auto read = p->read(from, kReadBytes, end);
    if (!read) return read.status();
    if (read->records.empty()) break;
    auto split = record::split_batches(as_view(read->records), true);
    if (!split) return split.status();
    if (split->batches.empty()) break;
    for (const auto& b : split->batches) {
      from = Offset{b.header.next_offset()};
      const int64_t pid = b.header.producer_id;
      if (b.header.is_transactional() && pid >= 0) {
        // Where this producer's sequence stands in this partition (the next TxnOffsetCommit continues it).
        auto& seq = txn_sequences_[{partition, pid}];
        if (!b.header.is_control()) seq = {b.header.producer_epoch, b.header.base_sequence + b.header.last_offset_delta + 1};
      }
      if (b.header.is_control()) {
        auto recs = record::decode_records(b.bytes);
        if (!recs) return recs.status();
        auto it = pending_txn.find(pid);
        if (it == pending_txn.end() || recs->empty() || !recs->front().key) continue;
        // The control record key: int16 version, int16 type (0 abort, 1 commit).
        ByteReader kr(as_view(*recs->front().key));
        (void)kr.i16();
        const int16_t type = kr.i16();
        if (kr.ok() && type == 1)
          for (const auto& [key, value] : it->second) offsets[key] = value;
        pending_txn.erase(it);
        continue;
      }
      auto recs = record::decode_records(b.bytes);
      if (!recs) return recs.status();
      for (const auto& r : *recs) {
        (*records_read)++;
        auto decoded = decode_offsets_record(r.key, r.value);
        if (!decoded) {
          if (decoded.status().code() == StatusCode::kInvalidArgument) continue;  // a record type Gregor does not know
          return decoded.status();
        }
        auto* ok = std::get_if<OffsetCommitKey>(&decoded->key);
        if (ok && b.header.is_transactional() && pid >= 0) {
          if (decoded->offset_value)
            pending_txn[pid].push_back({{ok->group, TopicPartition{ok->topic, ok->partition}}, *decoded->offset_value});
          continue;
        }
        if (auto* k = ok)
          offsets[{k->group, TopicPartition{k->topic, k->partition}}] = decoded->offset_value;
        else if (auto* gk = std::get_if<GroupMetadataKey>(&decoded->key))
          groups[gk->group] = decoded->group_value;
      }
    }
  }
  // Groups with metadata, then groups that only have offsets (simple consumers).
  for (const auto& [id, value] : groups) {
    if (!value || partition_for_group(id, offsets_partition_count()) != partition) continue;
    GroupMetadata& g = get_or_create(id);
    g.offsets_partition = partition;
    g.generation = value->generation;
    g.protocol_type = value->protocol_type.empty() ? std::nullopt : std::optional<std::string>(value->protocol_type);
    g.protocol_name = value->protocol;
    g.leader_id = value->leader;
    g.state_timestamp_ms = value->current_state_timestamp;
    for (const auto& mv : value->members) {
      MemberMetadata m;
      static_cast<MemberIdentity&>(m) = mv;
      m.protocol_type = value->protocol_type;
      if (value->protocol) m.protocols.emplace_back(*value->protocol, mv.subscription);
      m.assignment = mv.assignment;
      if (m.group_instance_id) g.static_members[*m.group_instance_id] = m.member_id;
      g.members[m.member_id] = std::move(m);
    }
    // Kafka's loadGroup: a group with members is Stable (its members go on heartbeating to the new
    // coordinator), one without is Empty.
    g.state = g.members.empty() ? GroupState::kEmpty : GroupState::kStable;
    if (g.leader_id && !g.members.count(*g.leader_id)) g.leader_id.reset();
    for (auto& [mid, m] : g.members) schedule_heartbeat_expiry(g, m);
  }
  for (const auto& [key, value] : offsets) {
    const auto& [group_id, tp] = key;
    if (!value || partition_for_group(group_id, offsets_partition_count()) != partition) continue;
    GroupMetadata& g = get_or_create(group_id);
    g.offsets[tp] = *value;
  }
  for (const auto& [pid, entries] : pending_txn)
    for (const auto& [key, value] : entries) {
      const auto& [group_id, tp] = key;
      if (partition_for_group(group_id, offsets_partition_count()) != partition) continue;
      get_or_create(group_id).pending_txn_offsets[pid][tp] = value;
    }
  return Status::ok();
}

void GroupCoordinator::unload_partition(int32_t partition) {
  owned_.erase(partition);
  for (auto it = txn_sequences_.begin(); it != txn_sequences_.end();)
    it = it->first.first == partition ? txn_sequences_.erase(it) : std::next(it);
  fail_stores(partition, ErrorCode::NOT_LEADER_OR_FOLLOWER);
  std::vector<std::string> ids;
  for (const auto& [id, g] : groups_)
    if (g->offsets_partition == partition) ids.push_back(id);
  for (const auto& id : ids) {
    auto node = groups_.extract(id);
    GroupMetadata& g = *node.mapped();
    rt_.cancel(g.join_timer);
    for (auto& [mid, t] : g.pending_members) rt_.cancel(t);
    // Members parked in JoinGroup or SyncGroup learn that this broker no longer coordinates them.
    for (auto& [mid, m] : g.members) {
      rt_.cancel(m.heartbeat_timer);
      if (m.awaiting_join) {
        protocol::JoinGroupResponse r;
        r.error_code = ErrorCode::NOT_COORDINATOR;
        r.generation_id = -1;
        r.member_id = mid;
        m.awaiting_join(r);
      }
      if (m.awaiting_sync) {
        protocol::SyncGroupResponse r;
        r.error_code = ErrorCode::NOT_COORDINATOR;
        m.awaiting_sync(r);
      }
    }
  }
  rt_.emit(ev::OffsetsUnload{.topic = kOffsetsTopic, .partition = partition, .groups = static_cast<int64_t>(ids.size())});
}

}  // namespace gregor::group
