#include "engine/client/zk_group_consumer.h"

#include <algorithm>
#include <charconv>

#include "engine/core/json.h"

namespace gregor::client {

using coord::CreateMode;
using coord::SessionState;
using coord::ZkError;

namespace {

Bytes text_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string bytes_text(const Bytes& b) { return std::string(b.begin(), b.end()); }

std::optional<int64_t> parse_decimal(const std::string& s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

Status parse_int_key(const std::string& key, const std::string& value, int64_t lo, int64_t hi, int64_t& out) {
  auto v = value.empty() || value[0] == '-' ? std::optional<int64_t>{} : parse_decimal(value);
  if (!v || *v < lo || *v > hi)
    return Status::error(StatusCode::kInvalidArgument, key + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + value + "'");
  out = *v;
  return Status::ok();
}

// A countdown shared by parallel zk requests: `done` runs once, after the last reply.
struct Join {
  size_t left = 0;
  bool failed = false;
  std::string why;
  std::function<void(bool ok, const std::string& why)> done;
  void fail(const std::string& w) {
    if (!failed) why = w;
    failed = true;
  }
  void one_done() {
    GREGOR_ASSERT(left > 0);
    if (--left == 0) done(!failed, why);
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Settings.

bool ZkConsumerSettings::is_zk_key(const std::string& key) {
  return key == "zookeeper.session.timeout.ms" || key == "rebalance.max.retries" || key == "rebalance.backoff.ms" ||
         key == "auto.commit.enable" || key == "auto.commit.interval.ms";
}

Status ZkConsumerSettings::apply(const std::map<std::string, std::string>& settings) {
  for (const auto& [k, v] : settings) {
    int64_t n = 0;
    if (k == "zookeeper.session.timeout.ms") {
      if (Status s = parse_int_key(k, v, 1, 3600000, n); !s.is_ok()) return s;
      zookeeper_session_timeout_ms = n;
    } else if (k == "rebalance.max.retries") {
      if (Status s = parse_int_key(k, v, 1, kZkRebalanceRetriesMax, n); !s.is_ok()) return s;
      rebalance_max_retries = static_cast<int32_t>(n);
    } else if (k == "rebalance.backoff.ms") {
      if (Status s = parse_int_key(k, v, 0, 3600000, n); !s.is_ok()) return s;
      rebalance_backoff_ms = n;
    } else if (k == "auto.commit.interval.ms") {
      if (Status s = parse_int_key(k, v, 1, 3600000, n); !s.is_ok()) return s;
      auto_commit_interval_ms = n;
    } else if (k == "auto.commit.enable") {
      if (v != "true" && v != "false") return Status::error(StatusCode::kInvalidArgument, k + ": expected true or false, got '" + v + "'");
      auto_commit_enable = v == "true";
    }
  }
  return Status::ok();
}

std::map<std::string, std::string> without_zk_consumer_keys(const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : settings)
    if (!ZkConsumerSettings::is_zk_key(k)) out[k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Paths and the range assignment.

std::string ZkGroupConsumerNode::owner_path(const std::string& group, const TopicPartition& tp) {
  return "/consumers/" + group + "/owners/" + tp.topic + "/" + std::to_string(tp.partition);
}

std::string ZkGroupConsumerNode::offset_path(const std::string& group, const TopicPartition& tp) {
  return "/consumers/" + group + "/offsets/" + tp.topic + "/" + std::to_string(tp.partition);
}

std::vector<int32_t> ZkGroupConsumerNode::range_share(int32_t partitions, std::vector<std::string> members, const std::string& member) {
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  auto it = std::find(members.begin(), members.end(), member);
  std::vector<int32_t> out;
  if (it == members.end() || partitions <= 0) return out;
  const int32_t n = static_cast<int32_t>(members.size());
  const int32_t i = static_cast<int32_t>(it - members.begin());
  const int32_t per = partitions / n, extra = partitions % n;
  const int32_t start = per * i + std::min(i, extra);
  const int32_t count = per + (i + 1 > extra ? 0 : 1);
  for (int32_t p = start; p < start + count; p++) out.push_back(p);
  return out;
}

// What one attempt read: members (sorted) with their topics, and each topic's partition count.
struct ZkGroupConsumerNode::View {
  std::vector<std::string> members;
  std::map<std::string, std::set<std::string>> consumers_per_topic;
  std::map<std::string, int32_t> partitions;
  std::vector<TopicPartition> share;
  std::map<TopicPartition, int64_t> offsets;
  std::vector<TopicPartition> released;  // what this attempt's release gave up
};

// ---------------------------------------------------------------------------------------------
// Lifecycle.

namespace {
ConsumerConfig without_group(ConsumerConfig c) {
  c.group_id.clear();  // the Consumer joins no broker group: zk coordinates this one
  c.enable_auto_commit = false;
  return c;
}
coord::ZkClientConfig with_timeout(coord::ZkClientConfig zk, int64_t timeout_ms) {
  zk.session_timeout = Duration::millis(timeout_ms);
  return zk;
}
}  // namespace

ZkGroupConsumerNode::ZkGroupConsumerNode(Runtime& rt, ConsumerConfig config, ZkConsumerSettings settings,
                                         coord::ZkClientConfig zk, ConsumerWorkload workload)
    : rt_(rt),
      workload_(std::move(workload)),
      settings_(settings),
      group_(config.group_id),
      member_(config.client_id),
      consumer_(rt, without_group(std::move(config))),
      zk_(rt, with_timeout(std::move(zk), settings.zookeeper_session_timeout_ms)) {
  GREGOR_ASSERT_MSG(!group_.empty(), "a zk group needs group.id");
  GREGOR_ASSERT_MSG(workload_.mode != DeliveryMode::kExactlyOnce, "a zk group is at-most-once or at-least-once");
}

ZkGroupConsumerNode::~ZkGroupConsumerNode() = default;

void ZkGroupConsumerNode::start() {
  consumer_.start();
  consumer_.set_wakeup([this] {
    if (!busy_) schedule_poll(Duration{0});
  });
  zk_.set_session_listener([this](SessionState s) { on_session(s); });
  zk_.set_watch_listener([this](const coord::WatchEvent& e) { on_watch(e); });
  rt_.emit(ev::ConsumerStart{.group = group_,
                             .client_id = member_,
                             .mode = delivery_mode_name(workload_.mode),
                             .behaviour = delivery_mode_name(workload_.behaviour.value_or(workload_.mode)),
                             .topics = workload_.topics,
                             .isolation = consumer_.config().isolation_level});
  if (workload_.start_at > rt_.now())
    rt_.after(workload_.start_at - rt_.now(), [this] { begin(); });
  else
    begin();
}

void ZkGroupConsumerNode::begin() {
  started_ = true;
  zk_.start();
  schedule_poll(Duration{0});
}

void ZkGroupConsumerNode::on_message(NodeId from, Bytes frame) {
  if (zk_.owns_peer(from)) return zk_.on_message(from, std::move(frame));
  consumer_.on_message(from, frame);
}

void ZkGroupConsumerNode::on_disconnect(NodeId peer) {
  if (zk_.owns_peer(peer)) return zk_.on_disconnect(peer);
  consumer_.on_disconnect(peer);
}

void ZkGroupConsumerNode::on_session(SessionState s) {
  if (s == SessionState::kConnected && zk_.session_id() != registered_session_) return register_member();
  if (s != SessionState::kExpired) return;
  // The server deleted our ephemerals: the registration and the owner znodes are gone, and others
  // may own our partitions already. The fetchers go on until the next rebalance releases them
  // (0.8's ZKSessionExpireListener re-registers, then rebalances), which is where the duplicates
  // of this design come from.
  registered_session_ = 0;
  registering_ = false;
  owned_.clear();
  epoch_++;
  after_batch_ = nullptr;
  rebalancing_ = false;
  rebalance_pending_ = false;
  rt_.emit(ev::ConsumerRejoinNeeded{.group = group_, .member = member_, .reason = "zk session expired"});
  rt_.after(Duration{0}, [this] { zk_.start(); });
}

void ZkGroupConsumerNode::on_watch(const coord::WatchEvent& e) {
  if (e.path == ids_path(group_)) return request_rebalance("members changed");
  for (const auto& t : workload_.topics)
    if (e.path == "/brokers/topics/" + t) return request_rebalance("topic " + t + " changed");
}

void ZkGroupConsumerNode::register_member() {
  if (registering_) return;
  registering_ = true;
  const uint64_t epoch = epoch_;
  const int64_t session = zk_.session_id();
  // The group's persistent directories (a create of an existing one answers NodeExists: fine).
  // Requests are answered in order, so each parent exists before its child's create is served.
  const std::string dir = "/consumers/" + group_;
  std::vector<std::string> dirs = {"/consumers", dir, dir + "/ids", dir + "/owners", dir + "/offsets"};
  for (const auto& t : workload_.topics) {
    dirs.push_back(dir + "/owners/" + t);
    dirs.push_back(dir + "/offsets/" + t);
  }
  for (const auto& d : dirs) zk_.create(d, std::nullopt, CreateMode::kPersistent, [](ZkError, std::string) {});
  Json::Object subscription;
  for (const auto& t : workload_.topics) subscription[t] = Json(1);
  Json::Object reg;
  reg["version"] = Json(1);
  reg["subscription"] = Json(std::move(subscription));
  reg["pattern"] = Json("static");
  reg["timestamp"] = Json(std::to_string(rt_.wall_time_ms()));  // as 0.8: milliseconds since the epoch
  zk_.create(ids_path(group_) + "/" + member_, text_bytes(Json(std::move(reg)).dump()), CreateMode::kEphemeral,
             [this, epoch, session](ZkError err, std::string) {
               if (epoch != epoch_) return;
               registering_ = false;
               if (err == ZkError::kOk) {
                 registered_session_ = session;
                 return request_rebalance("registered");
               }
               // NodeExists: an earlier session's registration not yet expired; anything else: the
               // connection. Either way, try again after the backoff.
               rt_.emit(ev::ConsumerGroupError{.group = group_, .member = member_, .api = "register", .error = coord::zk_error_name(err)});
               rt_.after(Duration::millis(settings_.rebalance_backoff_ms), [this, epoch] {
                 if (epoch == epoch_ && zk_.state() == SessionState::kConnected && registered_session_ != zk_.session_id()) register_member();
               });
             });
}

// ---------------------------------------------------------------------------------------------
// Rebalance.

void ZkGroupConsumerNode::request_rebalance(const std::string& reason) {
  if (registered_session_ == 0) return;  // the registration rebalances when it is done
  if (rebalancing_) {
    rebalance_pending_ = true;
    return;
  }
  rebalancing_ = true;
  attempt_ = 0;
  rt_.emit(ev::ConsumerRejoinNeeded{.group = group_, .member = member_, .reason = reason});
  attempt();
}

void ZkGroupConsumerNode::attempt() {
  attempt_++;
  const uint64_t epoch = ++epoch_;
  auto view = std::make_shared<View>();
  zk_.get_children(ids_path(group_), true, [this, epoch, view](ZkError err, std::vector<std::string> children) {
    if (epoch != epoch_) return;
    if (err != ZkError::kOk) return attempt_failed(epoch, std::string("ids: ") + coord::zk_error_name(err));
    std::sort(children.begin(), children.end());
    view->members = std::move(children);
    read_subscriptions(epoch, view);
  });
}

void ZkGroupConsumerNode::read_subscriptions(uint64_t epoch, std::shared_ptr<View> view) {
  if (view->members.empty()) return read_topics(epoch, view);
  auto join = std::make_shared<Join>();
  join->left = view->members.size();
  join->done = [this, epoch, view](bool ok, const std::string& why) {
    if (epoch != epoch_) return;
    if (!ok) return attempt_failed(epoch, why);
    read_topics(epoch, view);
  };
  for (const auto& m : view->members)
    zk_.get_data(ids_path(group_) + "/" + m, false, [this, epoch, view, join, m](ZkError err, Bytes data, coord::Stat) {
      if (epoch != epoch_) return;
      if (err == ZkError::kOk) {
        auto j = Json::parse(bytes_text(data));
        if (j)
          for (const auto& [topic, streams] : (*j)["subscription"].as_object()) view->consumers_per_topic[topic].insert(m);
      } else if (err != ZkError::kNoNode) {  // a member gone meanwhile just is not counted
        join->fail(std::string("member ") + m + ": " + coord::zk_error_name(err));
      }
      join->one_done();
    });
}

void ZkGroupConsumerNode::read_topics(uint64_t epoch, std::shared_ptr<View> view) {
  auto join = std::make_shared<Join>();
  join->left = workload_.topics.size();
  join->done = [this, epoch, view](bool ok, const std::string& why) {
    if (epoch != epoch_) return;
    if (!ok) return attempt_failed(epoch, why);
    // The batch being processed finishes (and commits) before its partitions are released.
    if (busy_) {
      after_batch_ = [this, epoch, view] { release(epoch, view); };
      return;
    }
    release(epoch, view);
  };
  if (workload_.topics.empty()) return join->done(true, "");
  for (const auto& t : workload_.topics)
    zk_.get_data("/brokers/topics/" + t, true, [this, epoch, view, join, t](ZkError err, Bytes data, coord::Stat) {
      if (epoch != epoch_) return;
      int32_t n = 0;
      if (err == ZkError::kOk) {
        auto j = Json::parse(bytes_text(data));
        if (j) n = static_cast<int32_t>((*j)["partitions"].as_object().size());
      } else if (err == ZkError::kNoNode) {
        // No topic yet: a read leaves no watch on a missing znode, exists does (its creation fires it).
        zk_.exists("/brokers/topics/" + t, true, [](ZkError, std::optional<coord::Stat>) {});
      } else {
        join->fail("topic " + t + ": " + coord::zk_error_name(err));
      }
      view->partitions[t] = n;
      join->one_done();
    });
}

void ZkGroupConsumerNode::release(uint64_t epoch, std::shared_ptr<View> view) {
  // Stop fetching: what is buffered is dropped, to be fetched again by the next owner.
  consumer_.assign({});
  auto delete_owners = [this, epoch, view] {
    if (epoch != epoch_) return;
    std::vector<TopicPartition> released(owned_.begin(), owned_.end());
    view->released = released;
    owned_.clear();
    if (!released.empty()) {
      PartitionList names;
      for (const auto& tp : released) names.push_back(PartitionName{tp.topic, tp.partition});
      rt_.emit(ev::ConsumerRevoke{.group = group_, .member = member_, .generation = -1, .partitions = names, .reason = "rebalance"});
    }
    auto join = std::make_shared<Join>();
    join->left = released.size();
    join->done = [this, epoch, view](bool ok, const std::string& why) {
      if (epoch != epoch_) return;
      if (!ok) return attempt_failed(epoch, why);
      read_offsets(epoch, view);
    };
    if (released.empty()) return join->done(true, "");
    for (const auto& tp : released)
      zk_.remove(owner_path(group_, tp), -1, [this, epoch, join, tp](ZkError err) {
        if (epoch != epoch_) return;
        if (err != ZkError::kOk && err != ZkError::kNoNode) join->fail("release " + tp.topic + "-" + std::to_string(tp.partition) + ": " + coord::zk_error_name(err));
        join->one_done();
      });
  };
  // 0.8's closeFetchers commits the consumed positions when auto.commit.enable is on.
  const OffsetMap pending = uncommitted_processed();
  if (settings_.auto_commit_enable && workload_.mode == DeliveryMode::kAtLeastOnce && !pending.empty())
    return commit_to_zk(pending, [delete_owners](bool) { delete_owners(); });
  delete_owners();
}

void ZkGroupConsumerNode::read_offsets(uint64_t epoch, std::shared_ptr<View> view) {
  for (const auto& [topic, n] : view->partitions) {
    const auto& consumers = view->consumers_per_topic[topic];
    for (int32_t p : range_share(n, std::vector<std::string>(consumers.begin(), consumers.end()), member_))
      view->share.push_back(TopicPartition{topic, p});
  }
  auto join = std::make_shared<Join>();
  join->left = view->share.size();
  join->done = [this, epoch, view](bool ok, const std::string& why) {
    if (epoch != epoch_) return;
    if (!ok) return attempt_failed(epoch, why);
    claim(epoch, view);
  };
  if (view->share.empty()) return join->done(true, "");
  for (const auto& tp : view->share)
    zk_.get_data(offset_path(group_, tp), false, [this, epoch, view, join, tp](ZkError err, Bytes data, coord::Stat) {
      if (epoch != epoch_) return;
      if (err == ZkError::kOk) {
        if (auto o = parse_decimal(bytes_text(data))) view->offsets[tp] = *o;
      } else if (err != ZkError::kNoNode) {
        join->fail("offset: " + std::string(coord::zk_error_name(err)));
      }
      join->one_done();
    });
}

void ZkGroupConsumerNode::claim(uint64_t epoch, std::shared_ptr<View> view) {
  auto claimed = std::make_shared<std::vector<TopicPartition>>();
  auto join = std::make_shared<Join>();
  join->left = view->share.size();
  join->done = [this, epoch, view, claimed](bool ok, const std::string& why) {
    if (epoch != epoch_) return;
    if (!ok) {
      // 0.8 deletes the claims it made and tries the whole rebalance again.
      for (const auto& tp : *claimed) zk_.remove(owner_path(group_, tp), -1, [](ZkError) {});
      return attempt_failed(epoch, why);
    }
    owned_.insert(view->share.begin(), view->share.end());
    consumer_.assign(view->share);
    for (const auto& tp : view->share) {
      auto o = view->offsets.find(tp);
      if (o != view->offsets.end()) {
        consumer_.seek(tp, o->second);
        processed_next_[tp] = o->second;
        committed_[tp] = o->second;
      } else {
        processed_next_.erase(tp);
        committed_.erase(tp);
      }
      // The position as the group sees it (the Consumer's own events carry no group name): an
      // order check starts over here.
      rt_.emit(ev::ConsumerPosition{.group = group_,
                                    .member = member_,
                                    .generation = -1,
                                    .topic = tp.topic,
                                    .partition = tp.partition,
                                    .offset = o != view->offsets.end() ? o->second : -1,
                                    .reason = o != view->offsets.end() ? "committed" : consumer_.config().auto_offset_reset});
    }
    rt_.emit(ev::ConsumerJoin{.group = group_, .member = member_, .generation = attempt_, .leader = "", .protocol = "zookeeper-range", .is_leader = false});
    // What it now owns, as a coordinator group's member announces its assignment, so that the
    // cluster model, the checkers and the dashboard see both kinds of group the same way. There is
    // no generation (-1); added and revoked are relative to what this attempt released (a retry
    // released nothing: its whole share is added).
    PartitionList partitions, added, revoked;
    const std::set<TopicPartition> released(view->released.begin(), view->released.end());
    for (const auto& tp : view->share) {
      partitions.push_back(PartitionName{tp.topic, tp.partition});
      if (!released.count(tp)) added.push_back(PartitionName{tp.topic, tp.partition});
    }
    for (const auto& tp : view->released)
      if (!owned_.count(tp)) revoked.push_back(PartitionName{tp.topic, tp.partition});
    rt_.emit(ev::ConsumerAssignment{.group = group_,
                                    .member = member_,
                                    .generation = -1,
                                    .protocol = "zookeeper-range",
                                    .partitions = partitions,
                                    .added = added,
                                    .revoked = revoked});
    rebalances_done_++;
    rebalance_over();
  };
  if (view->share.empty()) return join->done(true, "");
  for (const auto& tp : view->share)
    zk_.create(owner_path(group_, tp), text_bytes(member_), CreateMode::kEphemeral,
               [this, epoch, join, claimed, tp](ZkError err, std::string) {
                 if (epoch != epoch_) return;
                 if (err == ZkError::kOk) {
                   claimed->push_back(tp);
                 } else {
                   if (err == ZkError::kNodeExists) claim_conflicts_++;
                   join->fail("claim " + tp.topic + "-" + std::to_string(tp.partition) + ": " + coord::zk_error_name(err));
                 }
                 join->one_done();
               });
}

void ZkGroupConsumerNode::attempt_failed(uint64_t epoch, const std::string& why) {
  if (epoch != epoch_) return;
  if (attempt_ >= settings_.rebalance_max_retries) {
    rebalances_failed_++;
    rt_.emit(ev::ConsumerGroupError{.group = group_, .member = member_, .api = "rebalance", .error = "ConsumerRebalanceFailedException"});
    (void)why;
    return rebalance_over();
  }
  rt_.after(Duration::millis(settings_.rebalance_backoff_ms), [this, epoch] {
    if (epoch == epoch_) attempt();
  });
}

void ZkGroupConsumerNode::rebalance_over() {
  rebalancing_ = false;
  if (rebalance_pending_) {
    rebalance_pending_ = false;
    request_rebalance("changed during the rebalance");
  }
}

// ---------------------------------------------------------------------------------------------
// Offsets in zk.

OffsetMap ZkGroupConsumerNode::uncommitted_processed() const {
  OffsetMap out;
  for (const auto& [tp, next] : processed_next_) {
    auto c = committed_.find(tp);
    if (c == committed_.end() || c->second != next) out[tp] = next;
  }
  return out;
}

void ZkGroupConsumerNode::commit_to_zk(const OffsetMap& offsets, std::function<void(bool)> done) {
  auto join = std::make_shared<Join>();
  join->left = offsets.size();
  join->done = [done](bool ok, const std::string&) { done(ok); };
  if (offsets.empty()) return join->done(true, "");
  for (const auto& [tp, offset] : offsets) {
    auto written = [this, join, tp = tp, offset = offset](ZkError err) {
      if (err == ZkError::kOk) {
        committed_[tp] = offset;
        rt_.emit(ev::Commit{.group = group_, .member = member_, .generation = -1, .topic = tp.topic, .partition = tp.partition, .offset = offset});
        rt_.emit(ev::OffsetCommit{.group = group_, .member = member_, .generation = -1, .topic = tp.topic, .partition = tp.partition, .offset = offset});
      } else {
        join->fail(coord::zk_error_name(err));
      }
      join->one_done();
    };
    const std::string path = offset_path(group_, tp);
    const Bytes data = text_bytes(std::to_string(offset));
    zk_.set_data(path, data, -1, [this, path, data, written](ZkError err, coord::Stat) {
      if (err != ZkError::kNoNode) return written(err);
      // The first commit of the partition creates its znode (0.8's updatePersistentPath).
      zk_.create(path, data, CreateMode::kPersistent, [this, path, data, written](ZkError e, std::string) {
        if (e != ZkError::kNodeExists) return written(e);
        zk_.set_data(path, data, -1, [written](ZkError e2, coord::Stat) { written(e2); });
      });
    });
  }
}

void ZkGroupConsumerNode::maybe_auto_commit() {
  if (!settings_.auto_commit_enable || workload_.mode != DeliveryMode::kAtLeastOnce || auto_commit_in_flight_) return;
  if (rt_.now() < next_auto_commit_) return;
  next_auto_commit_ = rt_.now() + Duration::millis(settings_.auto_commit_interval_ms);
  OffsetMap pending;
  for (const auto& [tp, next] : uncommitted_processed())
    if (owned_.count(tp)) pending[tp] = next;
  if (pending.empty()) return;
  auto_commit_in_flight_ = true;
  commit_to_zk(pending, [this](bool) { auto_commit_in_flight_ = false; });
}

// ---------------------------------------------------------------------------------------------
// The poll loop (as ConsumerNode's).

void ZkGroupConsumerNode::schedule_poll(Duration d) {
  if (!started_) return;
  const Time at = rt_.now() + d;
  if (poll_scheduled_ && poll_at_ <= at) return;
  if (poll_scheduled_) rt_.cancel(poll_timer_);  // replaced by an earlier poll: it would fire for nothing
  poll_scheduled_ = true;
  poll_at_ = at;
  poll_timer_ = rt_.after(d, [this] {
    poll_scheduled_ = false;
    poll_loop();
  });
}

void ZkGroupConsumerNode::close(std::function<void()> done) {
  stopped_ = true;
  consumer_.assign({});
  commit_to_zk(uncommitted_processed(), [this, done](bool) { zk_.close(done); });
}

void ZkGroupConsumerNode::poll_loop() {
  if (busy_ || stopped_ || limit_reached()) return;
  maybe_auto_commit();
  std::vector<ConsumerRecord> records = consumer_.poll();
  if (records.empty()) return schedule_poll(workload_.poll_idle);
  handle(std::move(records));
}

void ZkGroupConsumerNode::process(const std::vector<ConsumerRecord>& records) {
  for (const auto& r : records) {
    processed_++;
    auto& next = processed_next_[TopicPartition{r.topic, r.partition}];
    next = std::max(next, r.offset + 1);
    if (record_handler_) record_handler_(r);
    rt_.emit(ev::Consume{.group = group_,
                         .member = member_,
                         .generation = -1,
                         .mode = delivery_mode_name(workload_.mode),
                         .topic = r.topic,
                         .partition = r.partition,
                         .offset = r.offset,
                         .value = record_id(r.value)});
  }
}

void ZkGroupConsumerNode::finish_batch() {
  busy_ = false;
  if (after_batch_) {
    auto next = std::move(after_batch_);
    after_batch_ = nullptr;
    next();
  }
  schedule_poll(Duration{0});
}

void ZkGroupConsumerNode::handle(std::vector<ConsumerRecord> records) {
  busy_ = true;
  if (max_records_ >= 0 && static_cast<int64_t>(records.size()) > max_records_ - processed_)
    records.resize(static_cast<size_t>(std::max<int64_t>(0, max_records_ - processed_)));
  auto recs = std::make_shared<std::vector<ConsumerRecord>>(std::move(records));
  OffsetMap offsets;
  for (const auto& r : *recs) {
    auto& o = offsets[TopicPartition{r.topic, r.partition}];
    o = std::max(o, r.offset + 1);
  }
  const DeliveryMode behaviour = workload_.behaviour.value_or(workload_.mode);
  if (behaviour == DeliveryMode::kAtMostOnce) {
    // The offsets are in zk before the batch is processed; a batch whose write failed is dropped.
    commit_to_zk(offsets, [this, recs](bool ok) {
      if (!ok) {
        rt_.emit(ev::ConsumeDropped{.group = group_, .member = member_, .count = static_cast<int64_t>(recs->size()), .error = "zk commit failed"});
        return finish_batch();
      }
      rt_.after(workload_.processing_time, [this, recs] {
        process(*recs);
        finish_batch();
      });
    });
    return;
  }
  rt_.after(workload_.processing_time, [this, recs, offsets] {
    process(*recs);
    if (settings_.auto_commit_enable) return finish_batch();
    commit_to_zk(offsets, [this](bool) { finish_batch(); });
  });
}

}  // namespace gregor::client
