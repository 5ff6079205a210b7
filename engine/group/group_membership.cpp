// The classic group membership protocol: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, and the
// rebalance machinery behind them (Kafka's GroupCoordinator.scala, 2.x).
#include <algorithm>

#include "engine/protocol/consumer_protocol.h"
#include "engine/group/group_coordinator.h"
#include "engine/group/store_errors.h"
#include "engine/group/offsets_topic.h"

namespace gregor::group {

using protocol::ErrorCode;

namespace {

protocol::JoinGroupResponse join_error(ErrorCode code, const std::string& member_id) {
  protocol::JoinGroupResponse r;
  r.error_code = code;
  r.generation_id = -1;
  r.member_id = member_id;
  return r;
}

protocol::SyncGroupResponse sync_result(ErrorCode code, Bytes assignment = {}) {
  protocol::SyncGroupResponse r;
  r.error_code = code;
  r.assignment = std::move(assignment);
  return r;
}

NameList member_list(const GroupMetadata& g) {
  NameList out;
  for (const auto& [id, m] : g.members) out.push_back(id);
  return out;
}

// Each member's partitions when the group speaks the consumer protocol (the coordinator cannot
// read other protocols' assignments).
MemberAssignments assignment_summary(const GroupMetadata& g, const std::map<std::string, Bytes>& assignment) {
  MemberAssignments out;
  for (const auto& [mid, bytes] : assignment) {
    MemberAssignment m{mid, std::nullopt};
    if (g.protocol_type == std::string(protocol::kConsumerProtocolType)) {
      auto a = protocol::decode_assignment(as_view(bytes));
      if (a) {
        m.partitions.emplace();
        for (const auto& [topic, parts] : a->partitions)
          for (int32_t p : parts) m.partitions->push_back({topic, p});
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

void GroupCoordinator::transition(GroupMetadata& g, GroupState to) {
  GREGOR_ASSERT_MSG(valid_transition(g.state, to),
                    std::string("group ") + g.group_id + ": " + group_state_name(g.state) + " -> " + group_state_name(to));
  g.state = to;
  g.state_timestamp_ms = rt_.wall_time_ms();
}

std::string GroupCoordinator::new_member_id(const std::string& client_id) {
  // Kafka: clientId + "-" + a random UUID; the randomness is the node's seeded stream here.
  static const char* kHex = "0123456789abcdef";
  std::string uuid;
  uint64_t hi = rt_.rng().next_u64();
  uint64_t lo = rt_.rng().next_u64();
  for (int i = 0; i < 32; i++) {
    uint64_t word = i < 16 ? hi : lo;
    int shift = 60 - 4 * (i % 16);
    if (i == 8 || i == 12 || i == 16 || i == 20) uuid += '-';
    uuid += kHex[(word >> shift) & 0xF];
  }
  return client_id + "-" + uuid;
}

// ---------------------------------------------------------------------------------------------
// JoinGroup.

void GroupCoordinator::join_group(const protocol::JoinGroupRequest& req, int16_t version, const std::string& client_id,
                                  const std::string& client_host, JoinCallback respond) {
  if (req.group_id.empty()) return respond(join_error(ErrorCode::INVALID_GROUP_ID, req.member_id));
  ErrorCode status = coordinator_status(req.group_id);
  if (status != ErrorCode::NONE) return respond(join_error(status, req.member_id));
  if (req.session_timeout_ms < config_.group_min_session_timeout_ms ||
      req.session_timeout_ms > config_.group_max_session_timeout_ms)
    return respond(join_error(ErrorCode::INVALID_SESSION_TIMEOUT, req.member_id));
  const int32_t rebalance_timeout_ms = version == 0 ? req.session_timeout_ms : req.rebalance_timeout_ms;
  GroupMetadata* g = find(req.group_id);
  if (!g) {
    // A member id for a group this coordinator does not know: the group was lost (or never was).
    if (!req.member_id.empty()) return respond(join_error(ErrorCode::UNKNOWN_MEMBER_ID, req.member_id));
    if (groups_.size() >= kGroupsPerCoordinatorMax) return respond(join_error(ErrorCode::COORDINATOR_NOT_AVAILABLE, ""));
    g = &get_or_create(req.group_id);
  }
  if (req.member_id.empty() && req.group_instance_id)
    return join_static_member(*g, req, version, rebalance_timeout_ms, client_id, client_host, std::move(respond));
  if (req.member_id.empty())
    return join_unknown_member(*g, req, version >= 4, rebalance_timeout_ms, client_id, client_host, std::move(respond));
  if (g->is_static_member_fenced(req.group_instance_id, req.member_id))
    return respond(join_error(ErrorCode::FENCED_INSTANCE_ID, req.member_id));
  join_known_member(*g, req, rebalance_timeout_ms, client_id, client_host, std::move(respond));
}

// KIP-345: a static member (group.instance.id) joins without MEMBER_ID_REQUIRED. A known instance
// takes over its old member id's place (the old instance is fenced) and, in a stable group with
// unchanged metadata, gets the current generation back without a rebalance (KIP-814: the leader
// too from v9, told to skip the assignment).
void GroupCoordinator::join_static_member(GroupMetadata& g, const protocol::JoinGroupRequest& req, int16_t version,
                                          int32_t rebalance_timeout_ms, const std::string& client_id,
                                          const std::string& client_host, JoinCallback respond) {
  const std::string& instance_id = *req.group_instance_id;
  if (g.state == GroupState::kDead) return respond(join_error(ErrorCode::COORDINATOR_NOT_AVAILABLE, ""));
  if (!g.supports_protocols(req.protocol_type, req.protocols))
    return respond(join_error(ErrorCode::INCONSISTENT_GROUP_PROTOCOL, ""));
  const std::string new_id = new_member_id(instance_id);
  auto known = g.static_members.find(instance_id);
  if (known == g.static_members.end() || !g.has(known->second)) {
    if (g.members.size() + g.pending_members.size() >= kMembersPerGroupMax)
      return respond(join_error(ErrorCode::GROUP_MAX_SIZE_REACHED, ""));
    g.static_members[instance_id] = new_id;
    return add_member_and_rebalance(g, new_id, req, rebalance_timeout_ms, client_id, client_host, std::move(respond));
  }
  const std::string old_id = known->second;
  auto node = g.members.extract(old_id);
  MemberMetadata& old = node.mapped();
  rt_.cancel(old.heartbeat_timer);
  if (old.awaiting_join) old.awaiting_join(join_error(ErrorCode::FENCED_INSTANCE_ID, old_id));
  if (old.awaiting_sync) old.awaiting_sync(sync_result(ErrorCode::FENCED_INSTANCE_ID));
  old.awaiting_join = nullptr;
  old.awaiting_sync = nullptr;
  node.key() = new_id;
  node.mapped().member_id = new_id;
  node.mapped().client_id = client_id;
  node.mapped().client_host = client_host;
  node.mapped().rebalance_timeout_ms = rebalance_timeout_ms;
  g.members.insert(std::move(node));
  known->second = new_id;
  if (g.leader_id == old_id) g.leader_id = new_id;
  rt_.emit(ev::MemberLeave{.group = g.group_id, .member = old_id, .generation = g.generation, .reason = "fenced_by_static_member"});
  rt_.emit(ev::MemberJoin{.group = g.group_id,
                          .member = new_id,
                          .client_id = client_id,
                          .generation = g.generation,
                          .state = group_state_name(g.state)});
  MemberMetadata& m = g.members.at(new_id);
  const bool is_leader = g.leader_id == new_id;
  if (g.state != GroupState::kStable || !m.matches(req.protocols) || (is_leader && version < 9))
    return update_member_and_rebalance(g, m, req, std::move(respond));
  // The stored group must name the new member id before it is handed out.
  m.session_timeout_ms = req.session_timeout_ms;
  schedule_heartbeat_expiry(g, m);
  std::map<std::string, Bytes> assignment;
  for (const auto& [mid, mm] : g.members) assignment[mid] = mm.assignment;
  const std::string group_id = g.group_id;
  const int32_t generation = g.generation;
  store_group(g, assignment, [this, group_id, generation, new_id, is_leader, respond](ErrorCode err) {
    GroupMetadata* sg = find(group_id);
    if (!sg || !sg->has(new_id)) return respond(join_error(ErrorCode::UNKNOWN_MEMBER_ID, new_id));
    if (err != ErrorCode::NONE) return respond(join_error(store_error(err, StoreKind::kGroup), new_id));
    protocol::JoinGroupResponse r = join_result(*sg, new_id, is_leader);
    r.generation_id = generation;
    r.skip_assignment = is_leader;
    respond(r);
  });
}

void GroupCoordinator::join_unknown_member(GroupMetadata& g, const protocol::JoinGroupRequest& req,
                                           bool require_known_member_id, int32_t rebalance_timeout_ms,
                                           const std::string& client_id, const std::string& client_host,
                                           JoinCallback respond) {
  if (g.state == GroupState::kDead) return respond(join_error(ErrorCode::COORDINATOR_NOT_AVAILABLE, ""));
  if (!g.supports_protocols(req.protocol_type, req.protocols))
    return respond(join_error(ErrorCode::INCONSISTENT_GROUP_PROTOCOL, ""));
  if (g.members.size() + g.pending_members.size() >= kMembersPerGroupMax)
    return respond(join_error(ErrorCode::GROUP_MAX_SIZE_REACHED, ""));
  const std::string member_id = new_member_id(client_id);
  if (require_known_member_id) {
    // KIP-394: hand out the id first; the member joins with it, so a retried join cannot leave a
    // ghost member behind. The id expires if the member does not come back within its session.
    const std::string group_id = g.group_id;
    g.pending_members[member_id] =
        rt_.after(Duration::millis(req.session_timeout_ms), [this, group_id, member_id] {
          GroupMetadata* pg = find(group_id);
          if (pg && pg->pending_members.count(member_id)) remove_pending_member(*pg, member_id);
        });
    return respond(join_error(ErrorCode::MEMBER_ID_REQUIRED, member_id));
  }
  add_member_and_rebalance(g, member_id, req, rebalance_timeout_ms, client_id, client_host, std::move(respond));
}

void GroupCoordinator::join_known_member(GroupMetadata& g, const protocol::JoinGroupRequest& req, int32_t rebalance_timeout_ms,
                                         const std::string& client_id, const std::string& client_host,
                                         JoinCallback respond) {
  const std::string& member_id = req.member_id;
  if (g.state == GroupState::kDead) return respond(join_error(ErrorCode::COORDINATOR_NOT_AVAILABLE, member_id));
  if (!g.supports_protocols(req.protocol_type, req.protocols))
    return respond(join_error(ErrorCode::INCONSISTENT_GROUP_PROTOCOL, member_id));
  auto pending = g.pending_members.find(member_id);
  if (pending != g.pending_members.end()) {
    rt_.cancel(pending->second);
    g.pending_members.erase(pending);
    return add_member_and_rebalance(g, member_id, req, rebalance_timeout_ms, client_id, client_host, std::move(respond));
  }
  auto it = g.members.find(member_id);
  if (it == g.members.end()) return respond(join_error(ErrorCode::UNKNOWN_MEMBER_ID, member_id));
  MemberMetadata& m = it->second;
  switch (g.state) {
    case GroupState::kPreparingRebalance:
      return update_member_and_rebalance(g, m, req, std::move(respond));
    case GroupState::kCompletingRebalance:
      // A retried join of this generation gets the same answer again; changed metadata rebalances.
      if (m.matches(req.protocols)) return respond(join_result(g, member_id, g.leader_id == member_id));
      return update_member_and_rebalance(g, m, req, std::move(respond));
    case GroupState::kStable:
      // The leader rejoining (it may have seen metadata change) or changed metadata rebalances;
      // a follower with the same metadata just gets the current generation.
      if (g.leader_id == member_id || !m.matches(req.protocols)) return update_member_and_rebalance(g, m, req, std::move(respond));
      return respond(join_result(g, member_id, false));
    case GroupState::kEmpty:
    case GroupState::kDead:
      return respond(join_error(ErrorCode::UNKNOWN_MEMBER_ID, member_id));
  }
}

void GroupCoordinator::add_member_and_rebalance(GroupMetadata& g, const std::string& member_id,
                                                const protocol::JoinGroupRequest& req, int32_t rebalance_timeout_ms,
                                                const std::string& client_id, const std::string& client_host,
                                                JoinCallback respond) {
  MemberMetadata m;
  m.member_id = member_id;
  m.group_instance_id = req.group_instance_id;
  m.client_id = client_id;
  m.client_host = client_host;
  m.rebalance_timeout_ms = rebalance_timeout_ms;
  m.session_timeout_ms = req.session_timeout_ms;
  m.protocol_type = req.protocol_type;
  for (const auto& p : req.protocols) m.protocols.emplace_back(p.name, p.metadata);
  m.awaiting_join = std::move(respond);
  m.is_new = true;
  if (g.members.empty()) g.protocol_type = req.protocol_type;
  if (!g.leader_id) g.leader_id = member_id;
  g.members[member_id] = std::move(m);
  g.new_member_added = true;
  rt_.emit(ev::MemberJoin{.group = g.group_id,
                          .member = member_id,
                          .client_id = client_id,
                          .generation = g.generation,
                          .state = group_state_name(g.state)});
  maybe_prepare_rebalance(g, "add member " + member_id + (req.reason ? " (" + *req.reason + ")" : ""));
  try_complete_join(g);
}

void GroupCoordinator::update_member_and_rebalance(GroupMetadata& g, MemberMetadata& m, const protocol::JoinGroupRequest& req,
                                                   JoinCallback respond) {
  m.protocols.clear();
  for (const auto& p : req.protocols) m.protocols.emplace_back(p.name, p.metadata);
  m.session_timeout_ms = req.session_timeout_ms;
  // A join retried on a new connection replaces the old one, which is told to rejoin.
  if (m.awaiting_join) m.awaiting_join(join_error(ErrorCode::REBALANCE_IN_PROGRESS, m.member_id));
  m.awaiting_join = std::move(respond);
  maybe_prepare_rebalance(g, "update member " + m.member_id + (req.reason ? " (" + *req.reason + ")" : ""));
  try_complete_join(g);
}

protocol::JoinGroupResponse GroupCoordinator::join_result(const GroupMetadata& g, const std::string& member_id,
                                                          bool with_members) const {
  protocol::JoinGroupResponse r;
  r.error_code = ErrorCode::NONE;
  r.generation_id = g.generation;
  r.protocol_type = g.protocol_type;
  r.protocol_name = g.protocol_name.value_or("");
  r.leader = g.leader_id.value_or("");
  r.member_id = member_id;
  if (with_members && g.protocol_name)
    for (const auto& [mid, m] : g.members) {
      protocol::JoinGroupResponse::JoinGroupResponseMember rm;
      rm.member_id = mid;
      rm.group_instance_id = m.group_instance_id;
      if (const Bytes* md = m.metadata(*g.protocol_name)) rm.metadata = *md;
      r.members.push_back(std::move(rm));
    }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Rebalances.

void GroupCoordinator::maybe_prepare_rebalance(GroupMetadata& g, const std::string& reason) {
  if (g.can_rebalance()) prepare_rebalance(g, reason);
}

void GroupCoordinator::prepare_rebalance(GroupMetadata& g, const std::string& reason) {
  // Members waiting for their assignment are told to rejoin.
  if (g.state == GroupState::kCompletingRebalance) reset_and_propagate_assignment_error(g, ErrorCode::REBALANCE_IN_PROGRESS);
  const bool was_empty = g.state == GroupState::kEmpty;
  transition(g, GroupState::kPreparingRebalance);
  if (was_empty) {
    const int64_t delay = config_.group_initial_rebalance_delay_ms;
    g.initial_delay = true;
    g.initial_delay_remaining_ms = std::max<int64_t>(g.rebalance_timeout_ms() - delay, 0);
    g.new_member_added = false;
    arm_join_timer(g, delay);
  } else {
    g.initial_delay = false;
    arm_join_timer(g, g.rebalance_timeout_ms());
  }
  rt_.emit(ev::GroupRebalance{.group = g.group_id,
                              .generation = g.generation,
                              .state = group_state_name(g.state),
                              .members = member_list(g),
                              .reason = reason});
}

void GroupCoordinator::arm_join_timer(GroupMetadata& g, int64_t delay_ms) {
  rt_.cancel(g.join_timer);
  const uint64_t epoch = ++g.join_epoch;
  const std::string group_id = g.group_id;
  g.join_timer = rt_.after(Duration::millis(delay_ms), [this, group_id, epoch] { on_join_timer(group_id, epoch); });
}

void GroupCoordinator::on_join_timer(const std::string& group_id, uint64_t epoch) {
  GroupMetadata* g = find(group_id);
  if (!g || g->join_epoch != epoch || g->state != GroupState::kPreparingRebalance) return;
  if (g->initial_delay) {
    // InitialDelayedJoin: while new members keep arriving, wait another delay, up to the
    // rebalance timeout in all.
    if (g->new_member_added && g->initial_delay_remaining_ms > 0) {
      g->new_member_added = false;
      const int64_t delay = std::min(config_.group_initial_rebalance_delay_ms, g->initial_delay_remaining_ms);
      g->initial_delay_remaining_ms = std::max<int64_t>(g->initial_delay_remaining_ms - delay, 0);
      arm_join_timer(*g, delay);
      return;
    }
    g->initial_delay = false;
  }
  complete_join(*g);
}

void GroupCoordinator::try_complete_join(GroupMetadata& g) {
  if (g.state != GroupState::kPreparingRebalance || g.initial_delay) return;
  if (g.has_all_members_joined()) complete_join(g);
}

void GroupCoordinator::complete_join(GroupMetadata& g) {
  if (g.state != GroupState::kPreparingRebalance) return;
  rt_.cancel(g.join_timer);
  g.join_epoch++;
  // Members that did not rejoin in time are out.
  std::vector<std::string> gone;
  for (const auto& [mid, m] : g.members)
    if (!m.awaiting_join) gone.push_back(mid);
  for (const auto& mid : gone) {
    forget_static_member(g, mid);
    rt_.cancel(g.members.at(mid).heartbeat_timer);
    g.members.erase(mid);
    rt_.emit(ev::MemberLeave{.group = g.group_id, .member = mid, .generation = g.generation, .reason = "rebalance_timeout"});
  }
  if (g.leader_id && !g.members.count(*g.leader_id)) g.leader_id.reset();
  if (!g.leader_id && !g.members.empty()) g.leader_id = g.members.begin()->first;
  // Next generation.
  g.generation++;
  if (g.members.empty()) {
    g.protocol_name.reset();
    g.leader_id.reset();
    transition(g, GroupState::kEmpty);
    rt_.emit(ev::GroupEmpty{
        .group = g.group_id, .generation = g.generation, .state = group_state_name(g.state), .members = member_list(g)});
    const std::string group_id = g.group_id;
    store_group(g, {}, [this, group_id](ErrorCode err) {
      if (err != ErrorCode::NONE)
        rt_.emit(ev::GroupStoreFailed{.group = group_id, .generation = std::nullopt, .error = protocol::error_name(err)});
    });
    return;
  }
  g.protocol_name = g.select_protocol();
  transition(g, GroupState::kCompletingRebalance);
  rt_.emit(ev::GroupJoinComplete{.group = g.group_id,
                                 .generation = g.generation,
                                 .state = group_state_name(g.state),
                                 .members = member_list(g),
                                 .leader = g.leader_id.value_or(""),
                                 .protocol = g.protocol_name.value_or("")});
  std::vector<std::string> ids;
  for (const auto& [mid, m] : g.members) ids.push_back(mid);
  for (const auto& mid : ids) {
    MemberMetadata& m = g.members.at(mid);
    JoinCallback cb = std::move(m.awaiting_join);
    m.awaiting_join = nullptr;
    m.is_new = false;
    schedule_heartbeat_expiry(g, m);
    cb(join_result(g, mid, g.leader_id == mid));
  }
}

void GroupCoordinator::reset_and_propagate_assignment_error(GroupMetadata& g, ErrorCode error) {
  for (auto& [mid, m] : g.members) {
    m.assignment.clear();
    if (m.awaiting_sync) {
      SyncCallback cb = std::move(m.awaiting_sync);
      m.awaiting_sync = nullptr;
      cb(sync_result(error));
    }
    schedule_heartbeat_expiry(g, m);
  }
}

void GroupCoordinator::set_and_propagate_assignment(GroupMetadata& g, const std::map<std::string, Bytes>& assignment) {
  for (auto& [mid, m] : g.members) {
    auto a = assignment.find(mid);
    m.assignment = a == assignment.end() ? Bytes{} : a->second;
    if (m.awaiting_sync) {
      SyncCallback cb = std::move(m.awaiting_sync);
      m.awaiting_sync = nullptr;
      cb(sync_result(ErrorCode::NONE, m.assignment));
    }
    // A session that ran out while the member waited for the leader or the store starts afresh.
    schedule_heartbeat_expiry(g, m);
  }
}

// ---------------------------------------------------------------------------------------------
// SyncGroup.

void GroupCoordinator::sync_group(const protocol::SyncGroupRequest& req, SyncCallback answer) {
  // v5 answers with the group's protocol type and name (KIP-559), whenever it has them.
  SyncCallback respond = [this, group_id = req.group_id, answer = std::move(answer)](const protocol::SyncGroupResponse& r) {
    protocol::SyncGroupResponse out = r;
    if (const GroupMetadata* sg = group(group_id); sg && out.error_code == ErrorCode::NONE) {
      out.protocol_type = sg->protocol_type;
      out.protocol_name = sg->protocol_name;
    }
    answer(out);
  };
  if (req.group_id.empty()) return respond(sync_result(ErrorCode::INVALID_GROUP_ID));
  ErrorCode status = coordinator_status(req.group_id);
  if (status != ErrorCode::NONE) return respond(sync_result(status));
  GroupMetadata* g = find(req.group_id);
  if (g && g->is_static_member_fenced(req.group_instance_id, req.member_id))
    return respond(sync_result(ErrorCode::FENCED_INSTANCE_ID));
  if (!g || !g->has(req.member_id)) return respond(sync_result(ErrorCode::UNKNOWN_MEMBER_ID));
  if (req.generation_id != g->generation) return respond(sync_result(ErrorCode::ILLEGAL_GENERATION));
  // v5: a client that names its protocol type or name must name the group's (KIP-559).
  if ((req.protocol_type && req.protocol_type != g->protocol_type) ||
      (req.protocol_name && req.protocol_name != g->protocol_name))
    return respond(sync_result(ErrorCode::INCONSISTENT_GROUP_PROTOCOL));
  switch (g->state) {
    case GroupState::kEmpty: return respond(sync_result(ErrorCode::UNKNOWN_MEMBER_ID));
    case GroupState::kDead: return respond(sync_result(ErrorCode::COORDINATOR_NOT_AVAILABLE));
    case GroupState::kPreparingRebalance: return respond(sync_result(ErrorCode::REBALANCE_IN_PROGRESS));
    case GroupState::kStable: {
      MemberMetadata& m = g->members.at(req.member_id);
      schedule_heartbeat_expiry(*g, m);
      return respond(sync_result(ErrorCode::NONE, m.assignment));
    }
    case GroupState::kCompletingRebalance: break;
  }
  MemberMetadata& m = g->members.at(req.member_id);
  if (m.awaiting_sync) m.awaiting_sync(sync_result(ErrorCode::REBALANCE_IN_PROGRESS));
  m.awaiting_sync = std::move(respond);
  if (g->leader_id != req.member_id) return;  // followers wait for the leader's assignments
  // The leader's assignments, for members of this generation only; the rest get nothing.
  std::map<std::string, Bytes> assignment;
  for (const auto& a : req.assignments)
    if (g->has(a.member_id)) assignment[a.member_id] = a.assignment;
  for (const auto& [mid, mm] : g->members) assignment.emplace(mid, Bytes{});
  const std::string group_id = g->group_id;
  const int32_t generation = g->generation;
  store_group(*g, assignment, [this, group_id, generation, assignment](ErrorCode err) {
    GroupMetadata* sg = find(group_id);
    // Someone may have joined (or the group moved away) while the store was in flight.
    if (!sg || sg->state != GroupState::kCompletingRebalance || sg->generation != generation) return;
    if (err != ErrorCode::NONE) {
      rt_.emit(ev::GroupStoreFailed{.group = group_id, .generation = generation, .error = protocol::error_name(err)});
      reset_and_propagate_assignment_error(*sg, store_error(err, StoreKind::kGroup));
      maybe_prepare_rebalance(*sg, "error storing the assignment");
      return;
    }
    set_and_propagate_assignment(*sg, assignment);
    transition(*sg, GroupState::kStable);
    rt_.emit(ev::GroupStable{.group = sg->group_id,
                             .generation = sg->generation,
                             .state = group_state_name(sg->state),
                             .members = member_list(*sg),
                             .leader = sg->leader_id.value_or(""),
                             .protocol = sg->protocol_name.value_or(""),
                             .assignment = assignment_summary(*sg, assignment)});
  });
}

// ---------------------------------------------------------------------------------------------
// Heartbeat, LeaveGroup, session expiry.

void GroupCoordinator::heartbeat(const protocol::HeartbeatRequest& req, std::function<void(ErrorCode)> respond) {
  if (req.group_id.empty()) return respond(ErrorCode::INVALID_GROUP_ID);
  ErrorCode status = coordinator_status(req.group_id);
  // While the group is loading there is nothing to check it against: Kafka lets it pass.
  if (status == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS) return respond(ErrorCode::NONE);
  if (status != ErrorCode::NONE) return respond(status);
  GroupMetadata* g = find(req.group_id);
  if (!g) return respond(ErrorCode::UNKNOWN_MEMBER_ID);
  switch (g->state) {
    case GroupState::kDead: return respond(ErrorCode::COORDINATOR_NOT_AVAILABLE);
    case GroupState::kEmpty: return respond(ErrorCode::UNKNOWN_MEMBER_ID);
    default: break;
  }
  if (g->is_static_member_fenced(req.group_instance_id, req.member_id)) return respond(ErrorCode::FENCED_INSTANCE_ID);
  auto it = g->members.find(req.member_id);
  if (it == g->members.end()) return respond(ErrorCode::UNKNOWN_MEMBER_ID);
  if (req.generation_id != g->generation) return respond(ErrorCode::ILLEGAL_GENERATION);
  schedule_heartbeat_expiry(*g, it->second);
  respond(g->state == GroupState::kPreparingRebalance ? ErrorCode::REBALANCE_IN_PROGRESS : ErrorCode::NONE);
}

void GroupCoordinator::leave_group(const protocol::LeaveGroupRequest& req, int16_t version,
                                   std::function<void(const protocol::LeaveGroupResponse&)> respond) {
  // Up to v2 one member leaves and the answer is one error; from v3 (KIP-345) a batch of members
  // leaves, each named by member id or by group.instance.id, and each gets its own error.
  std::vector<protocol::LeaveGroupRequest::MemberIdentity> leaving = req.members;
  if (version < 3) leaving = {{.member_id = req.member_id}};
  protocol::LeaveGroupResponse resp;
  auto answer = [&](ErrorCode top) {
    resp.error_code = top;
    if (version < 3) {
      if (top == ErrorCode::NONE && !resp.members.empty()) resp.error_code = resp.members.front().error_code;
      resp.members.clear();
    }
    respond(resp);
  };
  if (req.group_id.empty()) return answer(ErrorCode::INVALID_GROUP_ID);
  ErrorCode status = coordinator_status(req.group_id);
  if (status != ErrorCode::NONE) return answer(status);
  GroupMetadata* g = find(req.group_id);
  if (g && g->state == GroupState::kDead) return answer(ErrorCode::COORDINATOR_NOT_AVAILABLE);
  for (const auto& who : leaving) {
    ErrorCode code = ErrorCode::NONE;
    std::string member_id = who.member_id;
    if (!g) {
      code = ErrorCode::UNKNOWN_MEMBER_ID;
    } else if (member_id.empty() && who.group_instance_id) {
      auto it = g->static_members.find(*who.group_instance_id);
      if (it == g->static_members.end()) code = ErrorCode::UNKNOWN_MEMBER_ID;
      else member_id = it->second;
    } else if (g->is_static_member_fenced(who.group_instance_id, member_id)) {
      code = ErrorCode::FENCED_INSTANCE_ID;
    }
    if (code == ErrorCode::NONE) {
      if (g->pending_members.count(member_id)) {
        remove_pending_member(*g, member_id);
      } else if (!g->has(member_id)) {
        code = ErrorCode::UNKNOWN_MEMBER_ID;
      } else {
        remove_member_and_update_group(*g, member_id, who.reason ? "leave_group (" + *who.reason + ")" : "leave_group");
      }
    }
    resp.members.push_back({.member_id = who.member_id, .group_instance_id = who.group_instance_id, .error_code = code});
  }
  answer(ErrorCode::NONE);
}

void GroupCoordinator::schedule_heartbeat_expiry(GroupMetadata& g, MemberMetadata& m) {
  rt_.cancel(m.heartbeat_timer);
  const uint64_t epoch = ++m.heartbeat_epoch;
  const std::string group_id = g.group_id;
  const std::string member_id = m.member_id;
  m.heartbeat_timer = rt_.after(Duration::millis(m.session_timeout_ms),
                                [this, group_id, member_id, epoch] { on_heartbeat_expiry(group_id, member_id, epoch); });
}

void GroupCoordinator::on_heartbeat_expiry(const std::string& group_id, const std::string& member_id, uint64_t epoch) {
  GroupMetadata* g = find(group_id);
  if (!g) return;
  auto it = g->members.find(member_id);
  if (it == g->members.end() || it->second.heartbeat_epoch != epoch) return;
  // A member parked in JoinGroup or SyncGroup is alive: its session restarts when it is answered.
  if (it->second.awaiting_join || it->second.awaiting_sync) return;
  remove_member_and_update_group(*g, member_id, "session_timeout");
}

void GroupCoordinator::remove_member_and_update_group(GroupMetadata& g, const std::string& member_id, const std::string& reason) {
  auto it = g.members.find(member_id);
  if (it == g.members.end()) return;
  forget_static_member(g, member_id);
  rt_.cancel(it->second.heartbeat_timer);
  if (it->second.awaiting_join) it->second.awaiting_join(join_error(ErrorCode::UNKNOWN_MEMBER_ID, member_id));
  if (it->second.awaiting_sync) it->second.awaiting_sync(sync_result(ErrorCode::UNKNOWN_MEMBER_ID));
  g.members.erase(it);
  if (g.leader_id == member_id) {
    g.leader_id.reset();
    for (const auto& [mid, m] : g.members)
      if (m.awaiting_join) {
        g.leader_id = mid;
        break;
      }
    if (!g.leader_id && !g.members.empty()) g.leader_id = g.members.begin()->first;
  }
  rt_.emit(ev::MemberLeave{.group = g.group_id, .member = member_id, .generation = g.generation, .reason = reason});
  switch (g.state) {
    case GroupState::kDead:
    case GroupState::kEmpty: break;
    case GroupState::kStable:
    case GroupState::kCompletingRebalance: maybe_prepare_rebalance(g, "remove member " + member_id + " (" + reason + ")"); break;
    case GroupState::kPreparingRebalance: try_complete_join(g); break;
  }
}

void GroupCoordinator::forget_static_member(GroupMetadata& g, const std::string& member_id) {
  auto it = g.members.find(member_id);
  if (it == g.members.end() || !it->second.group_instance_id) return;
  auto s = g.static_members.find(*it->second.group_instance_id);
  if (s != g.static_members.end() && s->second == member_id) g.static_members.erase(s);
}

void GroupCoordinator::remove_pending_member(GroupMetadata& g, const std::string& member_id) {
  auto it = g.pending_members.find(member_id);
  if (it == g.pending_members.end()) return;
  rt_.cancel(it->second);
  g.pending_members.erase(it);
  if (g.state == GroupState::kPreparingRebalance) try_complete_join(g);
}

}  // namespace gregor::group
