// The coordinator's plumbing: which groups it owns, FindCoordinator, DescribeGroups, ListGroups,
// and appending to __consumer_offsets with acks=all semantics.
#include "engine/group/group_coordinator.h"

#include <algorithm>
#include <cctype>

#include "engine/group/offsets_topic.h"
#include "engine/record/batch_builder.h"

namespace gregor::group {

using protocol::ErrorCode;

GroupCoordinator::GroupCoordinator(Runtime& rt, const GroupConfig& config, CoordinatorHost& host)
    : rt_(rt), config_(config), host_(host) {}

GroupCoordinator::~GroupCoordinator() {
  for (auto& [id, s] : pending_stores_) rt_.cancel(s.timer);
  for (auto& [id, g] : groups_) {
    rt_.cancel(g->join_timer);
    for (auto& [mid, m] : g->members) rt_.cancel(m.heartbeat_timer);
    for (auto& [mid, t] : g->pending_members) rt_.cancel(t);
  }
}

int32_t GroupCoordinator::offsets_partition_count() const {
  const int32_t n = host_.partition_count(kOffsetsTopic);
  return n > 0 ? n : config_.offsets_topic_num_partitions;
}

ErrorCode GroupCoordinator::coordinator_status(const std::string& group_id) const {
  const int32_t p = partition_for_group(group_id, offsets_partition_count());
  auto it = owned_.find(p);
  if (it == owned_.end()) return ErrorCode::NOT_COORDINATOR;
  if (it->second.loading) return ErrorCode::COORDINATOR_LOAD_IN_PROGRESS;
  return ErrorCode::NONE;
}

GroupMetadata* GroupCoordinator::find(const std::string& group_id) {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : it->second.get();
}

const GroupMetadata* GroupCoordinator::group(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : it->second.get();
}

GroupMetadata& GroupCoordinator::get_or_create(const std::string& group_id) {
  auto& slot = groups_[group_id];
  if (!slot) {
    slot = std::make_unique<GroupMetadata>();
    slot->group_id = group_id;
    slot->offsets_partition = partition_for_group(group_id, offsets_partition_count());
    slot->state_timestamp_ms = rt_.wall_time_ms();
  }
  return *slot;
}

std::vector<std::string> GroupCoordinator::group_ids() const {
  std::vector<std::string> ids;
  for (const auto& [id, g] : groups_) ids.push_back(id);
  return ids;
}

std::vector<int32_t> GroupCoordinator::owned_partitions() const {
  std::vector<int32_t> out;
  for (const auto& [p, o] : owned_) out.push_back(p);
  return out;
}

bool GroupCoordinator::is_loading(int32_t partition) const {
  auto it = owned_.find(partition);
  return it != owned_.end() && it->second.loading;
}

// ---------------------------------------------------------------------------------------------
// FindCoordinator, DescribeGroups, ListGroups.

GroupCoordinator::CoordinatorLookup GroupCoordinator::lookup_coordinator(const std::string& key, int8_t key_type) {
  // Transactions are not modelled: there is no transaction coordinator to find.
  if (key_type != protocol::kCoordinatorKeyTypeGroup) return {ErrorCode::COORDINATOR_NOT_AVAILABLE, {}};
  const int32_t partitions = host_.partition_count(kOffsetsTopic);
  if (partitions == 0) {
    // As Kafka: the first lookup creates the offsets topic; clients retry until it has leaders.
    // Kafka creates it with offsets.topic.replication.factor replicas, and refuses (the client
    // retries) while fewer brokers are alive than that: "the internal topic creation will fail
    // until the cluster size meets this replication factor requirement".
    const int32_t live = host_.live_broker_count();
    const int32_t rf = config_.offsets_topic_replication_factor;
    if (!creating_offsets_topic_ && live >= rf) {
      creating_offsets_topic_ = true;
      rt_.emit(ev::OffsetsTopicCreate{.partitions = config_.offsets_topic_num_partitions, .replication_factor = rf});
      host_.create_offsets_topic(config_.offsets_topic_num_partitions, rf, [this](ErrorCode) { creating_offsets_topic_ = false; });
    }
    return {ErrorCode::COORDINATOR_NOT_AVAILABLE, {}};
  }
  const int32_t p = partition_for_group(key, partitions);
  const auto leader = host_.partition_leader(TopicPartition{kOffsetsTopic, p});
  if (!leader) return {ErrorCode::COORDINATOR_NOT_AVAILABLE, {}};
  return {ErrorCode::NONE, *leader};
}

void GroupCoordinator::find_coordinator(const protocol::FindCoordinatorRequest& req, int16_t version,
                                        std::function<void(const protocol::FindCoordinatorResponse&)> respond) {
  protocol::FindCoordinatorResponse resp;
  if (version >= 4) {
    // KIP-699: one answer per key, each with its own error.
    for (const std::string& key : req.coordinator_keys) {
      const CoordinatorLookup found = lookup_coordinator(key, req.key_type);
      protocol::FindCoordinatorResponse::Coordinator c;
      c.key = key;
      c.error_code = found.error;
      if (found.error == ErrorCode::NONE) {
        c.node_id = found.leader.id;
        c.host = found.leader.host;
        c.port = found.leader.port;
      } else {
        c.node_id = -1;
        c.port = -1;
        c.error_message = std::string(protocol::error_name(found.error));
      }
      resp.coordinators.push_back(std::move(c));
    }
    return respond(resp);
  }
  const CoordinatorLookup found = lookup_coordinator(req.key, req.key_type);
  resp.error_code = found.error;
  if (found.error != ErrorCode::NONE) {
    resp.error_message = std::string(protocol::error_name(found.error));
    resp.node_id = -1;
    resp.host = "";
    resp.port = -1;
    return respond(resp);
  }
  resp.error_message = std::nullopt;
  resp.node_id = found.leader.id;
  resp.host = found.leader.host;
  resp.port = found.leader.port;
  respond(resp);
}

protocol::DescribeGroupsResponse GroupCoordinator::describe_groups(const protocol::DescribeGroupsRequest& req) {
  protocol::DescribeGroupsResponse resp;
  for (const auto& id : req.groups) {
    protocol::DescribeGroupsResponse::DescribedGroup d;
    d.group_id = id;
    d.error_code = coordinator_status(id);
    if (d.error_code != ErrorCode::NONE) {
      resp.groups.push_back(std::move(d));
      continue;
    }
    const GroupMetadata* g = group(id);
    if (!g) {
      d.group_state = group_state_name(GroupState::kDead);
      resp.groups.push_back(std::move(d));
      continue;
    }
    d.group_state = group_state_name(g->state);
    // v3+: without ACLs every operation on a group is allowed (KIP-430's bit set: READ, DELETE, DESCRIBE).
    if (req.include_authorized_operations) d.authorized_operations = kGroupAuthorizedOperations;
    d.protocol_type = g->protocol_type.value_or("");
    const bool stable = g->state == GroupState::kStable;
    d.protocol_data = stable ? g->protocol_name.value_or("") : "";
    for (const auto& [mid, m] : g->members) {
      protocol::DescribeGroupsResponse::DescribedGroupMember dm;
      dm.member_id = mid;
      dm.group_instance_id = m.group_instance_id;
      dm.client_id = m.client_id;
      dm.client_host = m.client_host;
      if (stable && g->protocol_name) {
        if (const Bytes* md = m.metadata(*g->protocol_name)) dm.member_metadata = *md;
        dm.member_assignment = m.assignment;
      }
      d.members.push_back(std::move(dm));
    }
    resp.groups.push_back(std::move(d));
  }
  return resp;
}

protocol::ListGroupsResponse GroupCoordinator::list_groups(const protocol::ListGroupsRequest& req) {
  protocol::ListGroupsResponse resp;
  for (const auto& [p, o] : owned_)
    if (o.loading) resp.error_code = ErrorCode::COORDINATOR_LOAD_IN_PROGRESS;
  // Filters compare case-insensitively, as Kafka's (v4 states, v5 types: every group here is "classic").
  auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  auto listed = [&](const std::vector<std::string>& filter, const std::string& value) {
    if (filter.empty()) return true;
    for (const auto& f : filter)
      if (lower(f) == lower(value)) return true;
    return false;
  };
  for (const auto& [id, g] : groups_) {
    const std::string state = group_state_name(g->state);
    if (!listed(req.states_filter, state) || !listed(req.types_filter, kClassicGroupType)) continue;
    resp.groups.push_back({.group_id = id, .protocol_type = g->protocol_type.value_or(""), .group_state = state,
                           .group_type = kClassicGroupType});
  }
  return resp;
}

// ---------------------------------------------------------------------------------------------
// Appending to __consumer_offsets and waiting for the high watermark.

void GroupCoordinator::append_records(int32_t partition, const std::vector<record::Record>& records,
                                      std::function<void(ErrorCode)> done) {
  GREGOR_ASSERT(!records.empty());
  append_batch(partition, record::build_batch(record::BatchBuildOptions{}, records), std::move(done));
}

void GroupCoordinator::append_txn_records(int32_t partition, int64_t producer_id, int16_t producer_epoch,
                                          const std::vector<record::Record>& records, std::function<void(ErrorCode)> done) {
  GREGOR_ASSERT(!records.empty());
  auto& seq = txn_sequences_[{partition, producer_id}];
  if (seq.first != producer_epoch) seq = {producer_epoch, 0};  // a new epoch starts at sequence 0
  record::BatchBuildOptions options;
  options.attributes = record::kTransactionalFlagMask;
  options.producer_id = producer_id;
  options.producer_epoch = producer_epoch;
  options.base_sequence = seq.second;
  const auto n = static_cast<int32_t>(records.size());
  seq.second += n;
  if (!append_batch(partition, record::build_batch(options, records), std::move(done))) seq.second -= n;
}

bool GroupCoordinator::append_batch(int32_t partition, Bytes batch, std::function<void(ErrorCode)> done) {
  auto later = [this](std::function<void(ErrorCode)> cb, ErrorCode code) {
    rt_.after(Duration{0}, [cb = std::move(cb), code] { cb(code); });
  };
  const TopicPartition tp{kOffsetsTopic, partition};
  OffsetsAppend a = host_.append_as_leader(tp, std::move(batch));
  if (a.error != ErrorCode::NONE) {
    later(std::move(done), a.error);
    return false;
  }
  const uint64_t id = next_store_id_++;
  TimerId timer = rt_.after(Duration::millis(kOffsetCommitTimeoutMs), [this, id] {
    auto it = pending_stores_.find(id);
    if (it == pending_stores_.end()) return;
    auto cb = std::move(it->second.done);
    pending_stores_.erase(it);
    cb(ErrorCode::REQUEST_TIMED_OUT);
  });
  pending_stores_[id] = PendingStore{tp, a.last_offset + 1, timer, std::move(done)};
  schedule_store_check();
  return true;
}

void GroupCoordinator::on_partition_progress(const TopicPartition& tp) {
  if (tp.topic == kOffsetsTopic && !pending_stores_.empty()) schedule_store_check();
}

void GroupCoordinator::schedule_store_check() {
  if (store_check_scheduled_) return;
  store_check_scheduled_ = true;
  // Deferred: progress is reported from inside appends, and callbacks must not re-enter them.
  rt_.after(Duration{0}, [this] {
    store_check_scheduled_ = false;
    check_stores();
  });
}

void GroupCoordinator::check_stores() {
  std::vector<uint64_t> ids;
  for (const auto& [id, s] : pending_stores_) ids.push_back(id);
  for (uint64_t id : ids) {
    auto it = pending_stores_.find(id);
    if (it == pending_stores_.end()) continue;
    ErrorCode code = host_.check_replicated(it->second.tp, it->second.required);
    if (code == ErrorCode::REQUEST_TIMED_OUT) continue;  // still waiting for the high watermark
    auto cb = std::move(it->second.done);
    rt_.cancel(it->second.timer);
    pending_stores_.erase(it);
    cb(code);
  }
}

void GroupCoordinator::fail_stores(int32_t partition, ErrorCode error) {
  std::vector<uint64_t> ids;
  for (const auto& [id, s] : pending_stores_)
    if (s.tp.partition == partition) ids.push_back(id);
  for (uint64_t id : ids) {
    auto it = pending_stores_.find(id);
    auto cb = std::move(it->second.done);
    rt_.cancel(it->second.timer);
    pending_stores_.erase(it);
    cb(error);
  }
}

void GroupCoordinator::store_group(GroupMetadata& g, const std::map<std::string, Bytes>& assignment,
                                   std::function<void(ErrorCode)> done) {
  GroupMetadataValue v;
  v.protocol_type = g.protocol_type.value_or("");
  v.generation = g.generation;
  v.protocol = g.protocol_name;
  v.leader = g.leader_id;
  v.current_state_timestamp = g.state_timestamp_ms;
  for (const auto& [mid, m] : g.members) {
    GroupMemberValue mv;
    static_cast<MemberIdentity&>(mv) = m;
    mv.member_id = mid;
    if (g.protocol_name)
      if (const Bytes* md = m.metadata(*g.protocol_name)) mv.subscription = *md;
    auto a = assignment.find(mid);
    if (a != assignment.end()) mv.assignment = a->second;
    v.members.push_back(std::move(mv));
  }
  record::Record r;
  r.timestamp = rt_.wall_time_ms();
  r.key = encode_key(GroupMetadataKey{g.group_id});
  r.value = encode_value(v);
  append_records(g.offsets_partition, {r}, std::move(done));
}

void GroupCoordinator::on_partitions_changed() {
  const int32_t n = std::max(offsets_partition_count(), config_.offsets_topic_num_partitions);
  for (int32_t p = 0; p < n; p++) {
    const std::optional<int32_t> epoch = host_.local_leader_epoch(TopicPartition{kOffsetsTopic, p});
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

}  // namespace gregor::group
