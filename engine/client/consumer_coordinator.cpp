#include "engine/client/consumer_coordinator.h"

#include <algorithm>

#include "engine/protocol/consumer_protocol.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/heartbeat.h"
#include "engine/protocol/join_group.h"
#include "engine/protocol/leave_group.h"
#include "engine/protocol/offset_commit.h"
#include "engine/protocol/offset_fetch.h"
#include "engine/protocol/sync_group.h"

namespace gregor::client {

using protocol::ErrorCode;

namespace {
constexpr int16_t kFindCoordinatorVersion = 2;
constexpr int16_t kJoinGroupVersion = 5;
constexpr int16_t kSyncGroupVersion = 3;
constexpr int16_t kHeartbeatVersion = 3;
constexpr int16_t kLeaveGroupVersion = 1;
constexpr int16_t kOffsetCommitVersion = 5;
constexpr int16_t kOffsetFetchVersion = 4;
// A read_committed consumer asks for stable offsets (v7+, KIP-447), as Kafka's consumer does: an
// offset a transaction has sent but not yet ended is answered UNSTABLE_OFFSET_COMMIT and asked again
// later, so a member taking over a partition cannot start from the offset before a transaction that
// is about to commit (and process its records a second time). Others keep v4, as before.
constexpr int16_t kOffsetFetchStableVersion = 7;

bool is_coordinator_error(ErrorCode e) {
  return e == ErrorCode::COORDINATOR_NOT_AVAILABLE || e == ErrorCode::NOT_COORDINATOR ||
         e == ErrorCode::NETWORK_EXCEPTION || e == ErrorCode::REQUEST_TIMED_OUT;
}

PartitionList partition_names(const std::vector<TopicPartition>& tps) {
  PartitionList out;
  out.reserve(tps.size());
  for (const auto& tp : tps) out.push_back({tp.topic, tp.partition});
  return out;
}
}  // namespace

struct PendingCommit {
  OffsetMap offsets;
  int32_t generation;
  std::string member_id;
  Time deadline;
  std::function<void(ErrorCode)> done;
};

ConsumerCoordinator::ConsumerCoordinator(Runtime& rt, const ConsumerConfig& config, NetworkClient& net,
                                         MetadataManager& metadata, Listener listener)
    : rt_(rt), config_(config), net_(net), metadata_(metadata), listener_(std::move(listener)) {
  for (const auto& name : config_.partition_assignment_strategy) {
    auto a = make_assignor(name);
    GREGOR_ASSERT_MSG(a != nullptr, "unknown assignor " + name);  // ConsumerConfig::apply validates names
    assignors_.push_back(std::move(a));
  }
  GREGOR_ASSERT(!assignors_.empty());
}

ConsumerCoordinator::~ConsumerCoordinator() {
  rt_.cancel(heartbeat_timer_);
  for (TimerId t : timers_) rt_.cancel(t);
}

RebalanceProtocol ConsumerCoordinator::rebalance_protocol() const {
  // Cooperative only when every configured assignor is (as the Java client decides).
  for (const auto& a : assignors_)
    if (a->protocol() != RebalanceProtocol::kCooperative) return RebalanceProtocol::kEager;
  return RebalanceProtocol::kCooperative;
}

void ConsumerCoordinator::retry_later(std::function<void()> fn) {
  // Bounded: stale entries are dropped as the list grows (a cancelled or fired timer is a no-op).
  if (timers_.size() > 64) timers_.erase(timers_.begin(), timers_.begin() + 32);
  timers_.push_back(rt_.after(Duration::millis(config_.retry_backoff_ms), std::move(fn)));
}

void ConsumerCoordinator::subscribe(std::vector<std::string> topics) {
  std::sort(topics.begin(), topics.end());
  topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
  topics_ = std::move(topics);
  for (const auto& t : topics_) metadata_.add_topic(t);
  request_rejoin("subscribe");
}

// ---------------------------------------------------------------------------------------------
// Discovery.

void ConsumerCoordinator::find_coordinator() {
  if (finding_ || rt_.now() < find_after_) return;
  finding_ = true;
  protocol::FindCoordinatorRequest req;
  req.key = config_.group_id;
  req.key_type = protocol::kCoordinatorKeyTypeGroup;
  net_.send(metadata_.any_broker(), req, kFindCoordinatorVersion, Duration::millis(config_.request_timeout_ms),
            [this](ErrorCode transport, ByteReader* body) {
              finding_ = false;
              std::optional<protocol::FindCoordinatorResponse> resp;
              if (transport == ErrorCode::NONE && body) {
                auto r = protocol::FindCoordinatorResponse::decode(*body, kFindCoordinatorVersion);
                if (r) resp = *r;
              }
              if (!resp || resp->error_code != ErrorCode::NONE || resp->node_id < 0) {
                find_after_ = rt_.now() + Duration::millis(config_.retry_backoff_ms);
                retry_later([this] { if (listener_.wakeup) listener_.wakeup(); });
                return;
              }
              coordinator_ = resp->node_id;
              last_heartbeat_ok_ = rt_.now();
              rt_.learn_address(NodeId{resp->node_id}, resp->host, resp->port);
              rt_.emit(ev::ConsumerCoordinator{.group = config_.group_id, .coordinator = resp->node_id});
              if (listener_.wakeup) listener_.wakeup();
            });
}

void ConsumerCoordinator::coordinator_unknown(const char* why) {
  if (!coordinator_) return;
  rt_.emit(ev::ConsumerCoordinatorLost{.group = config_.group_id, .coordinator = *coordinator_, .reason = why});
  coordinator_.reset();
  find_after_ = rt_.now() + Duration::millis(config_.retry_backoff_ms);
  retry_later([this] { if (listener_.wakeup) listener_.wakeup(); });
}

// ---------------------------------------------------------------------------------------------
// poll: where joins happen.

void ConsumerCoordinator::poll() {
  last_poll_ = rt_.now();
  if (topics_.empty()) return;
  if (left_for_poll_timeout_) {
    left_for_poll_timeout_ = false;
    request_rejoin("poll after max.poll.interval.ms");
  }
  if (!coordinator_) return find_coordinator();
  if (!rejoin_needed_ || rt_.now() < join_after_) return;
  if (state_ == State::kJoining || state_ == State::kSyncing) return;
  // The leader needs partition counts: wait for metadata of every subscribed topic.
  for (const auto& t : topics_)
    if (!metadata_.partitions(t)) return metadata_.request_update();
  // Eager: give everything up before rejoining (the Java client's onJoinPrepare).
  if (rebalance_protocol() == RebalanceProtocol::kEager && !owned_.empty()) revoke(owned_list(), "rejoin");
  send_join();
}

void ConsumerCoordinator::request_rejoin(const char* why) {
  if (!rejoin_needed_) rt_.emit(ev::ConsumerRejoinNeeded{.group = config_.group_id, .member = member_id_, .reason = why});
  rejoin_needed_ = true;
  if (listener_.wakeup) listener_.wakeup();
}

void ConsumerCoordinator::revoke(const std::vector<TopicPartition>& partitions, const char* reason) {
  if (partitions.empty()) return;
  rt_.emit(ev::ConsumerRevoke{.group = config_.group_id,
                              .member = member_id_,
                              .generation = generation_,
                              .partitions = partition_names(partitions),
                              .reason = reason});
  // The listener may commit; the partitions are still ours (and the generation current) while it runs.
  if (listener_.on_revoked) listener_.on_revoked(partitions);
  for (const auto& tp : partitions) owned_.erase(tp);
}

void ConsumerCoordinator::reset_generation(bool reset_member_id, const char* why) {
  rt_.emit(ev::ConsumerGenerationReset{.group = config_.group_id, .member = member_id_, .generation = generation_, .reason = why});
  generation_ = -1;
  protocol_name_.clear();
  if (reset_member_id) member_id_.clear();
  state_ = State::kUnjoined;
  heartbeat_epoch_++;
  rt_.cancel(heartbeat_timer_);
  if (!owned_.empty()) {
    auto lost = owned_list();
    owned_.clear();
    rt_.emit(ev::ConsumerRevoke{.group = config_.group_id,
                                .member = member_id_,
                                .generation = generation_,
                                .partitions = partition_names(lost),
                                .reason = "lost"});
    if (listener_.on_lost) listener_.on_lost(lost);
  }
  request_rejoin(why);
}

void ConsumerCoordinator::handle_group_error(ErrorCode code, const char* api) {
  rt_.emit(ev::ConsumerGroupError{.group = config_.group_id, .member = member_id_, .api = api, .error = protocol::error_name(code)});
  switch (code) {
    case ErrorCode::UNKNOWN_MEMBER_ID: return reset_generation(true, "UNKNOWN_MEMBER_ID");
    case ErrorCode::ILLEGAL_GENERATION: return reset_generation(false, "ILLEGAL_GENERATION");
    case ErrorCode::REBALANCE_IN_PROGRESS: return request_rejoin("REBALANCE_IN_PROGRESS");
    default:
      if (is_coordinator_error(code)) coordinator_unknown(protocol::error_name(code));
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// JoinGroup and SyncGroup.

void ConsumerCoordinator::send_join() {
  GREGOR_ASSERT(coordinator_.has_value());
  state_ = State::kJoining;
  rejoin_needed_ = false;
  heartbeat_epoch_++;  // no heartbeats while rebalancing
  rt_.cancel(heartbeat_timer_);
  protocol::JoinGroupRequest req;
  req.group_id = config_.group_id;
  req.session_timeout_ms = static_cast<int32_t>(config_.session_timeout_ms);
  req.rebalance_timeout_ms = static_cast<int32_t>(config_.max_poll_interval_ms);
  req.member_id = member_id_;
  req.protocol_type = protocol::kConsumerProtocolType;
  for (const auto& a : assignors_) {
    Subscription s;
    s.topics = topics_;
    s.user_data = a->subscription_user_data(generation_);
    for (const auto& tp : owned_) s.owned_partitions[tp.topic].push_back(tp.partition);
    req.protocols.push_back({a->name(), protocol::encode_subscription(s)});
  }
  // A join waits for the whole rebalance: its timeout is the rebalance timeout plus a margin.
  const int64_t timeout_ms = std::max(config_.request_timeout_ms, config_.max_poll_interval_ms + 5000);
  net_.send(NodeId{*coordinator_}, req, kJoinGroupVersion, Duration::millis(timeout_ms),
            [this](ErrorCode transport, ByteReader* body) { on_join_response(body, transport); });
}

void ConsumerCoordinator::on_join_response(ByteReader* body, ErrorCode transport) {
  if (state_ != State::kJoining) return;
  std::optional<protocol::JoinGroupResponse> resp;
  if (transport == ErrorCode::NONE && body) {
    auto r = protocol::JoinGroupResponse::decode(*body, kJoinGroupVersion);
    if (r) resp = std::move(*r);
  }
  const ErrorCode code = resp ? resp->error_code : (transport == ErrorCode::NONE ? ErrorCode::NETWORK_EXCEPTION : transport);
  if (code != ErrorCode::NONE) {
    state_ = State::kUnjoined;
    rejoin_needed_ = true;
    if (code == ErrorCode::MEMBER_ID_REQUIRED) {
      member_id_ = resp->member_id;  // rejoin at once with the id the coordinator handed out
      if (listener_.wakeup) listener_.wakeup();
      return;
    }
    join_after_ = rt_.now() + Duration::millis(config_.retry_backoff_ms);
    retry_later([this] { if (listener_.wakeup) listener_.wakeup(); });
    if (code == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS) return;
    if (code == ErrorCode::UNKNOWN_MEMBER_ID || code == ErrorCode::ILLEGAL_GENERATION || is_coordinator_error(code) ||
        code == ErrorCode::REBALANCE_IN_PROGRESS)
      return handle_group_error(code, "JoinGroup");
    // INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT, ...: a configuration problem. Keep
    // trying (slowly) and say so.
    rt_.emit(ev::ConsumerGroupError{
        .group = config_.group_id, .member = member_id_, .api = "JoinGroup", .error = protocol::error_name(code)});
    join_after_ = rt_.now() + Duration::seconds(1);
    return;
  }
  generation_ = resp->generation_id;
  member_id_ = resp->member_id;
  protocol_name_ = resp->protocol_name.value_or("");
  const bool leader = resp->leader == resp->member_id;
  rt_.emit(ev::ConsumerJoin{.group = config_.group_id,
                            .member = member_id_,
                            .generation = generation_,
                            .leader = resp->leader,
                            .protocol = protocol_name_,
                            .is_leader = leader});
  std::vector<protocol::SyncGroupRequest::SyncGroupRequestAssignment> assignments;
  if (leader) assignments = assign(resp->members);
  send_sync(assignments);
}

std::vector<protocol::SyncGroupRequest::SyncGroupRequestAssignment> ConsumerCoordinator::assign(
    const std::vector<protocol::JoinGroupResponse::JoinGroupResponseMember>& members) {
  const Assignor* assignor = nullptr;
  for (const auto& a : assignors_)
    if (protocol_name_ == a->name()) assignor = a.get();
  std::vector<protocol::SyncGroupRequest::SyncGroupRequestAssignment> out;
  if (!assignor) {
    rt_.emit(ev::ConsumerGroupError{.group = config_.group_id, .member = std::nullopt, .api = "assign", .error = "unknown assignor " + protocol_name_});
    return out;
  }
  std::map<std::string, Subscription> subscriptions;
  std::set<std::string> topics;
  for (const auto& m : members) {
    auto s = protocol::decode_subscription(as_view(m.metadata));
    subscriptions[m.member_id] = s ? *s : Subscription{};
    if (s) topics.insert(s->topics.begin(), s->topics.end());
  }
  std::map<std::string, int32_t> counts;
  for (const auto& t : topics) {
    const auto* parts = metadata_.partitions(t);
    if (parts) counts[t] = static_cast<int32_t>(parts->size());
    else metadata_.add_topic(t);  // another member's topic: known by the next rebalance
  }
  for (const auto& [member, assignment] : assignor->assign(counts, subscriptions))
    out.push_back({member, protocol::encode_assignment(assignment)});
  return out;
}

void ConsumerCoordinator::send_sync(const std::vector<protocol::SyncGroupRequest::SyncGroupRequestAssignment>& assignments) {
  state_ = State::kSyncing;
  protocol::SyncGroupRequest req;
  req.group_id = config_.group_id;
  req.generation_id = generation_;
  req.member_id = member_id_;
  req.assignments = assignments;
  const int64_t timeout_ms = std::max(config_.request_timeout_ms, config_.max_poll_interval_ms + 5000);
  net_.send(NodeId{*coordinator_}, req, kSyncGroupVersion, Duration::millis(timeout_ms),
            [this](ErrorCode transport, ByteReader* body) { on_sync_response(body, transport); });
}

void ConsumerCoordinator::on_sync_response(ByteReader* body, ErrorCode transport) {
  if (state_ != State::kSyncing) return;
  std::optional<protocol::SyncGroupResponse> resp;
  if (transport == ErrorCode::NONE && body) {
    auto r = protocol::SyncGroupResponse::decode(*body, kSyncGroupVersion);
    if (r) resp = std::move(*r);
  }
  const ErrorCode code = resp ? resp->error_code : (transport == ErrorCode::NONE ? ErrorCode::NETWORK_EXCEPTION : transport);
  std::optional<Assignment> assignment;
  if (code == ErrorCode::NONE) {
    auto a = protocol::decode_assignment(as_view(resp->assignment));
    if (a) assignment = std::move(*a);
  }
  if (!assignment) {
    state_ = State::kUnjoined;
    rejoin_needed_ = true;
    join_after_ = rt_.now() + Duration::millis(config_.retry_backoff_ms);
    retry_later([this] { if (listener_.wakeup) listener_.wakeup(); });
    handle_group_error(code == ErrorCode::NONE ? ErrorCode::INVALID_REQUEST : code, "SyncGroup");
    return;
  }
  std::set<TopicPartition> next;
  for (const auto& [topic, parts] : assignment->partitions)
    for (int32_t p : parts) next.insert(TopicPartition{topic, p});
  std::vector<TopicPartition> added, revoked;
  for (const auto& tp : next)
    if (!owned_.count(tp)) added.push_back(tp);
  for (const auto& tp : owned_)
    if (!next.count(tp)) revoked.push_back(tp);
  state_ = State::kStable;
  last_heartbeat_ok_ = rt_.now();
  rt_.emit(ev::ConsumerAssignment{.group = config_.group_id,
                                  .member = member_id_,
                                  .generation = generation_,
                                  .protocol = protocol_name_,
                                  .partitions = partition_names({next.begin(), next.end()}),
                                  .added = partition_names(added),
                                  .revoked = partition_names(revoked)});
  // Cooperative: give up what moved away, then rejoin so it can be handed over.
  if (!revoked.empty()) {
    revoke(revoked, "cooperative");
    request_rejoin("revoked partitions");
  }
  for (const auto& tp : added) owned_.insert(tp);
  if (!added.empty() && listener_.on_assigned) listener_.on_assigned(added);
  const uint64_t epoch = ++heartbeat_epoch_;
  heartbeat_timer_ = rt_.after(Duration::millis(config_.heartbeat_interval_ms), [this, epoch] { heartbeat_tick(epoch); });
}

// ---------------------------------------------------------------------------------------------
// Heartbeats (the Java client's heartbeat thread).

void ConsumerCoordinator::heartbeat_tick(uint64_t epoch) {
  if (epoch != heartbeat_epoch_ || state_ != State::kStable) return;
  heartbeat_timer_ = rt_.after(Duration::millis(config_.heartbeat_interval_ms), [this, epoch] { heartbeat_tick(epoch); });
  const Time now = rt_.now();
  if (now - last_poll_ > Duration::millis(config_.max_poll_interval_ms)) {
    // The application stopped polling: leave, so the group does not wait for it.
    rt_.emit(ev::ConsumerPollTimeout{.group = config_.group_id, .member = member_id_, .generation = generation_});
    left_for_poll_timeout_ = true;
    leave("max.poll.interval.ms", [] {});
    return;
  }
  if (!coordinator_) return;
  if (now - last_heartbeat_ok_ > Duration::millis(config_.session_timeout_ms)) {
    coordinator_unknown("session timeout without heartbeat responses");
    return;
  }
  if (heartbeat_in_flight_) return;
  heartbeat_in_flight_ = true;
  protocol::HeartbeatRequest req;
  req.group_id = config_.group_id;
  req.generation_id = generation_;
  req.member_id = member_id_;
  const int32_t generation = generation_;
  net_.send(NodeId{*coordinator_}, req, kHeartbeatVersion, Duration::millis(config_.request_timeout_ms),
            [this, generation](ErrorCode transport, ByteReader* body) {
              heartbeat_in_flight_ = false;
              if (generation != generation_) return;  // an answer about a generation we left
              ErrorCode code = transport;
              if (transport == ErrorCode::NONE) {
                auto r = body ? protocol::HeartbeatResponse::decode(*body, kHeartbeatVersion)
                              : Result<protocol::HeartbeatResponse>(Status::error(StatusCode::kCorruption, "empty"));
                code = r ? r->error_code : ErrorCode::NETWORK_EXCEPTION;
              }
              on_heartbeat_response(code);
            });
}

void ConsumerCoordinator::on_heartbeat_response(ErrorCode code) {
  if (code == ErrorCode::NONE) {
    last_heartbeat_ok_ = rt_.now();
    return;
  }
  if (state_ != State::kStable) return;
  handle_group_error(code, "Heartbeat");
}

void ConsumerCoordinator::leave(const std::string& reason, std::function<void()> done) {
  if (member_id_.empty() || !coordinator_) {
    reset_generation(true, "leave");
    return done();
  }
  protocol::LeaveGroupRequest req;
  req.group_id = config_.group_id;
  req.member_id = member_id_;
  rt_.emit(ev::ConsumerLeave{.group = config_.group_id, .member = member_id_, .generation = generation_, .reason = reason});
  net_.send(NodeId{*coordinator_}, req, kLeaveGroupVersion, Duration::millis(config_.request_timeout_ms),
            [done](ErrorCode, ByteReader*) { done(); });
  reset_generation(true, "leave");
}

// ---------------------------------------------------------------------------------------------
// Offsets.

void ConsumerCoordinator::commit(const OffsetMap& offsets, std::function<void(ErrorCode)> done) {
  auto later = [this](std::function<void(ErrorCode)> cb, ErrorCode code) {
    rt_.after(Duration{0}, [cb = std::move(cb), code] { cb(code); });
  };
  if (offsets.empty()) return later(std::move(done), ErrorCode::NONE);
  if (state_ != State::kStable) {
    rt_.emit(ev::CommitFailed{
        .group = config_.group_id, .member = member_id_, .generation = generation_, .error = "REBALANCE_IN_PROGRESS"});
    return later(std::move(done), ErrorCode::REBALANCE_IN_PROGRESS);
  }
  auto c = std::make_shared<PendingCommit>(PendingCommit{offsets, generation_, member_id_,
                                                         rt_.now() + Duration::millis(config_.default_api_timeout_ms),
                                                         std::move(done)});
  commit_attempt(c);
}

void ConsumerCoordinator::commit_async(const OffsetMap& offsets, std::function<void(ErrorCode)> done) {
  // The deadline is now: commit_attempt makes one attempt and reports its error without a retry.
  if (offsets.empty() || state_ != State::kStable) return commit(offsets, std::move(done));
  auto c = std::make_shared<PendingCommit>(PendingCommit{offsets, generation_, member_id_, rt_.now(), std::move(done)});
  commit_attempt(c);
}

void ConsumerCoordinator::commit_attempt(std::shared_ptr<PendingCommit> c) {
  auto fail = [this, c](ErrorCode code) {
    rt_.emit(ev::CommitFailed{
        .group = config_.group_id, .member = c->member_id, .generation = c->generation, .error = protocol::error_name(code)});
    c->done(code);
  };
  if (!coordinator_) {
    if (rt_.now() >= c->deadline) return fail(ErrorCode::COORDINATOR_NOT_AVAILABLE);
    find_coordinator();
    return retry_later([this, c] { commit_attempt(c); });
  }
  protocol::OffsetCommitRequest req;
  req.group_id = config_.group_id;
  req.generation_id = c->generation;
  req.member_id = c->member_id;
  for (const auto& [tp, offset] : c->offsets) {
    if (req.topics.empty() || req.topics.back().name != tp.topic) req.topics.push_back({tp.topic, {}});
    req.topics.back().partitions.push_back(
        {.partition_index = tp.partition, .committed_offset = offset, .committed_metadata = std::string()});
  }
  net_.send(NodeId{*coordinator_}, req, kOffsetCommitVersion, Duration::millis(config_.request_timeout_ms),
            [this, c, fail](ErrorCode transport, ByteReader* body) {
              ErrorCode code = transport;
              if (transport == ErrorCode::NONE) {
                code = ErrorCode::NETWORK_EXCEPTION;
                if (body) {
                  auto r = protocol::OffsetCommitResponse::decode(*body, kOffsetCommitVersion);
                  if (r) {
                    code = ErrorCode::NONE;
                    for (const auto& t : r->topics)
                      for (const auto& p : t.partitions)
                        if (p.error_code != ErrorCode::NONE && code == ErrorCode::NONE) code = p.error_code;
                  }
                }
              }
              if (code == ErrorCode::NONE) {
                for (const auto& [tp, offset] : c->offsets)
                  rt_.emit(ev::Commit{.group = config_.group_id,
                                      .member = c->member_id,
                                      .generation = c->generation,
                                      .topic = tp.topic,
                                      .partition = tp.partition,
                                      .offset = offset});
                return c->done(ErrorCode::NONE);
              }
              const bool retriable = is_coordinator_error(code) || code == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS;
              if (retriable && rt_.now() < c->deadline) {
                if (is_coordinator_error(code)) coordinator_unknown(protocol::error_name(code));
                return retry_later([this, c] { commit_attempt(c); });
              }
              // UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS: the Java client's
              // CommitFailedException. The member has to rejoin; its partitions may have moved on.
              if (c->generation == generation_) handle_group_error(code, "OffsetCommit");
              fail(code);
            });
}

void ConsumerCoordinator::fetch_committed(const std::vector<TopicPartition>& partitions,
                                          std::function<void(ErrorCode, const OffsetMap&)> done) {
  if (!coordinator_) {
    find_coordinator();
    rt_.after(Duration{0}, [done] { done(ErrorCode::COORDINATOR_NOT_AVAILABLE, {}); });
    return;
  }
  protocol::OffsetFetchRequest req;
  req.group_id = config_.group_id;
  std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic> topics;
  for (const auto& tp : partitions) {
    if (topics.empty() || topics.back().name != tp.topic) topics.push_back({tp.topic, {}});
    topics.back().partition_indexes.push_back(tp.partition);
  }
  req.topics = topics;
  const bool stable = config_.read_committed();
  req.require_stable = stable;
  const int16_t version = stable ? kOffsetFetchStableVersion : kOffsetFetchVersion;
  net_.send(NodeId{*coordinator_}, req, version, Duration::millis(config_.request_timeout_ms),
            [this, done, version](ErrorCode transport, ByteReader* body) {
              std::optional<protocol::OffsetFetchResponse> resp;
              if (transport == ErrorCode::NONE && body) {
                auto r = protocol::OffsetFetchResponse::decode(*body, version);
                if (r) resp = std::move(*r);
              }
              ErrorCode code = resp ? resp->error_code : (transport == ErrorCode::NONE ? ErrorCode::NETWORK_EXCEPTION : transport);
              OffsetMap out;
              if (resp && code == ErrorCode::NONE)
                for (const auto& t : resp->topics)
                  for (const auto& p : t.partitions) {
                    if (p.error_code != ErrorCode::NONE && code == ErrorCode::NONE) code = p.error_code;
                    out[TopicPartition{t.name, p.partition_index}] = p.committed_offset;
                  }
              if (is_coordinator_error(code)) coordinator_unknown(protocol::error_name(code));
              done(code, code == ErrorCode::NONE ? out : OffsetMap{});
            });
}

}  // namespace gregor::client
