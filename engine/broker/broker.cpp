#include "engine/broker/broker.h"
#include "engine/broker/delayed_operations.h"

#include <algorithm>

#include "engine/broker/async_steps.h"
#include "engine/broker/hw_checkpoint.h"
#include "engine/core/json.h"
#include "engine/protocol/api_versions.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/protocol/controlled_shutdown.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;
using protocol::ApiKey;
using protocol::ErrorCode;

namespace {
constexpr int kControlledShutdownMaxRetries = 3;            // controlled.shutdown.max.retries
constexpr int64_t kControlledShutdownRetryBackoffMs = 5000;  // controlled.shutdown.retry.backoff.ms
constexpr int64_t kRetentionCheckIntervalMs = 300000;        // log.retention.check.interval.ms
constexpr size_t kMaxQueuedRequestsPerConnection = 1000;

coord::ZkClientConfig zk_config(const BrokerConfig& c) {
  coord::ZkClientConfig z;
  z.servers = c.zookeeper_servers;
  z.chroot = c.zookeeper_chroot;
  z.session_timeout = Duration::millis(c.zookeeper_session_timeout_ms);
  return z;
}
}  // namespace

Broker::Broker(Runtime& rt, BrokerConfig config)
    : rt_(rt),
      config_(std::move(config)),
      zk_(rt, zk_config(config_)),
      net_(rt, "broker-" + std::to_string(config_.broker_id)),
      controller_(rt, config_, zk_, net_),
      fetcher_(rt, config_, net_, [this](const TopicPartition& tp) { return partition(tp); }),
      producer_ids_(rt, config_.broker_id, zk_),
      group_host_(rt, metadata_, [this](const TopicPartition& tp) { return partition(tp); },
                  [this](int32_t partitions, int32_t rf, std::function<void(ErrorCode)> done) {
                    create_offsets_topic(partitions, rf, std::move(done));
                  }),
      group_coordinator_(rt, config_, group_host_) {}

Broker::~Broker() = default;

Partition* Broker::partition(const TopicPartition& tp) {
  auto it = partitions_.find(tp);
  return it == partitions_.end() ? nullptr : it->second.get();
}

// ---------------------------------------------------------------------------------------------
// Startup, zk session, registration.

void Broker::start() {
  auto hws = read_hw_checkpoint(rt_.disk());
  if (hws)
    checkpointed_hw_ = *hws;
  else
    rt_.log("ignoring " + std::string(kHwCheckpointFile) + ": " + hws.status().to_string());
  zk_.set_session_listener([this](coord::SessionState s) { on_session_state(s); });
  zk_.set_watch_listener([this](const coord::WatchEvent& e) { on_watch(e); });
  zk_.start();
  rt_.after(Duration::millis(config_.replica_high_watermark_checkpoint_interval_ms), [this] { checkpoint_high_watermarks(); });
  rt_.after(Duration::millis(std::max<int64_t>(1, config_.replica_lag_time_max_ms / 2)), [this] { shrink_isr_tick(); });
  rt_.after(Duration::millis(kRetentionCheckIntervalMs), [this] { retention_tick(); });
  rt_.emit("broker_start", {{"broker", config_.broker_id}});
}

void Broker::on_session_state(coord::SessionState s) {
  if (s == coord::SessionState::kConnected && !registered_) {
    prepare_zk([this] { register_broker(); });
  } else if (s == coord::SessionState::kExpired) {
    // Our ephemerals are gone: this broker is dead to the cluster until it registers again.
    registered_ = false;
    controller_.resign("zk session expired");
    rt_.emit("broker_session_expired", {{"broker", config_.broker_id}});
    zk_.start();
  }
}

void Broker::prepare_zk(std::function<void()> next) {
  // As a Kafka broker starting up: the chroot of zookeeper.connect (a broker creates it, outside
  // the chroot), the persistent top-level paths (whoever starts first creates them; NodeExists is
  // fine), then the cluster id.
  auto top_level = [this, next] {
    for (const auto& path : zk_paths::persistent_roots())
      zk_.create(path, std::nullopt, CreateMode::kPersistent, [](ZkError, std::string) {});
    ensure_cluster_id(next, 2);
  };
  if (config_.zookeeper_chroot.empty()) return top_level();
  zk_.create_chroot([this, top_level, next](ZkError err) {
    if (err == ZkError::kOk) return top_level();
    rt_.log("cannot create the zookeeper.connect chroot " + config_.zookeeper_chroot + ": " + coord::zk_error_name(err));
    next();  // registering fails (NoNode) and is retried, and so is this
  });
}

void Broker::ensure_cluster_id(std::function<void()> next, int attempts_left) {
  // Kafka's getOrGenerateClusterId: the first broker writes a random id; everyone reads it.
  zk_.get_data(zk_paths::cluster_id(), false, [this, next, attempts_left](ZkError err, Bytes data, coord::Stat) {
    if (err == ZkError::kOk) {
      auto id = decode_cluster_id(as_view(data));
      if (id) {
        cluster_id_ = *id;
      } else {
        rt_.log(id.status().to_string());
      }
      return next();
    }
    if (err != ZkError::kNoNode || attempts_left == 0) return next();
    const std::string proposed = random_uuid(rt_.rng());
    zk_.create(zk_paths::cluster(), std::nullopt, CreateMode::kPersistent, [](ZkError, std::string) {});
    zk_.create(zk_paths::cluster_id(), encode_cluster_id(proposed), CreateMode::kPersistent,
               [this, next, attempts_left](ZkError, std::string) {
                 // Created, or someone else's is there: read back whichever won.
                 ensure_cluster_id(next, attempts_left - 1);
               });
  });
}

void Broker::register_broker() {
  BrokerRegistration reg;
  reg.id = config_.broker_id;
  reg.host = config_.advertised_host;
  reg.port = config_.advertised_port;
  reg.timestamp_ms = rt_.wall_time_ms();
  zk_.create(zk_paths::broker(config_.broker_id), reg.encode(), CreateMode::kEphemeral, [this](ZkError err, std::string) {
    if (err == ZkError::kOk) {
      registered_ = true;
      rt_.emit("broker_register", {{"broker", config_.broker_id}});
      controller_.elect();
      watch_config_changes();
      return;
    }
    // NodeExists: our previous session's registration has not expired yet. Try again shortly.
    rt_.after(Duration::millis(err == ZkError::kNodeExists ? 1000 : 200), [this] {
      if (!registered_ && zk_.state() == coord::SessionState::kConnected) prepare_zk([this] { register_broker(); });
    });
  });
}

void Broker::on_watch(const coord::WatchEvent& e) {
  if (e.path == zk_paths::config_changes() && e.type == coord::WatchType::kNodeChildrenChanged) return watch_config_changes();
  controller_.on_watch(e);
}

// ---------------------------------------------------------------------------------------------
// Dynamic topic configs (Kafka's ZkNodeChangeNotificationListener): whoever alters a topic's config
// writes /config/topics/T and then a sequential /config/changes/config_change_N naming it; every
// broker watches /config/changes, re-reads the topics named by notifications newer than the last
// one it processed and applies them to its partitions (and, on the controller, to elections).

void Broker::watch_config_changes() {
  zk_.get_children(zk_paths::config_changes(), true, [this](ZkError err, std::vector<std::string> kids) {
    if (err != ZkError::kOk) return;
    std::sort(kids.begin(), kids.end());
    std::vector<std::string> fresh;
    int64_t newest = last_config_change_;
    for (const auto& k : kids) {
      const int64_t seq = sequence_of(k);
      if (seq < 0) continue;
      // The first listing only marks where we are: topics this broker hosts later are read whole
      // when it first hears of them (LeaderAndIsr).
      if (config_changes_listed_ && seq > last_config_change_) fresh.push_back(k);
      newest = std::max(newest, seq);
    }
    last_config_change_ = newest;
    config_changes_listed_ = true;
    sequentially<std::string>(
        fresh,
        [this](const std::string& k, std::function<void()> next) {
          zk_.get_data(zk_paths::config_changes() + "/" + k, false, [this, next](ZkError e2, Bytes data, coord::Stat) {
            if (e2 != ZkError::kOk) return next();
            auto entity = decode_config_change(as_view(data));
            const std::string prefix = "topics/";
            if (!entity || entity->rfind(prefix, 0) != 0) return next();
            reload_topic_config(entity->substr(prefix.size()), next);
          });
        },
        [] {});
  });
}

void Broker::reload_topic_config(const std::string& topic, std::function<void()> done) {
  zk_.get_data(zk_paths::topic_config(topic), false, [this, topic, done](ZkError err, Bytes data, coord::Stat) {
    if (err != ZkError::kOk) return done();
    auto overrides = decode_topic_config(as_view(data));
    TopicConfig tc = config_.topic_defaults;
    Status s = overrides ? tc.apply(*overrides) : overrides.status();
    if (!s.is_ok()) {
      rt_.log("topic " + topic + ": ignoring a config change: " + s.to_string());
      return done();
    }
    controller_.on_topic_config(topic, tc);
    if (topic_configs_.count(topic)) {
      topic_configs_[topic] = tc;
      for (auto& [tp, p] : partitions_) {
        if (tp.topic != topic) continue;
        Status u = p->update_config(tc, tc.log_config());
        if (!u.is_ok()) rt_.log("topic " + topic + ": " + u.to_string());
      }
      std::string text;
      for (const auto& [k, v] : *overrides) text += (text.empty() ? "" : ",") + k + "=" + v;
      rt_.emit("topic_config_change", {{"broker", config_.broker_id}, {"topic", topic}, {"config", text}});
      schedule_delayed_check();  // produces waiting under the old min.insync.replicas decide again
    }
    done();
  });
}

// ---------------------------------------------------------------------------------------------
// Frames.

void Broker::on_message(NodeId from, Bytes frame) {
  if (zk_.owns_peer(from)) return zk_.on_message(from, std::move(frame));
  if (!is_inbound_connection(from)) return net_.on_message(from, frame);
  enqueue_request(from, std::move(frame));
}

void Broker::on_disconnect(NodeId peer) {
  if (zk_.owns_peer(peer)) zk_.on_disconnect(peer);
  if (!is_inbound_connection(peer)) {
    net_.on_disconnect(peer);
    return;
  }
  connections_.erase(peer.value);
}

void Broker::enqueue_request(NodeId from, Bytes frame) {
  Connection& c = connections_[from.value];
  if (c.busy) {
    if (c.queued.size() >= kMaxQueuedRequestsPerConnection) {
      rt_.log("dropping a request: too many queued on one connection");
      return;
    }
    c.queued.push_back(std::move(frame));
    return;
  }
  c.busy = true;
  dispatch(from, std::move(frame));
}

void Broker::finish(NodeId from) {
  auto it = connections_.find(from.value);
  if (it == connections_.end()) return;
  it->second.busy = false;
  if (it->second.queued.empty()) return;
  // The next request runs on a fresh stack.
  rt_.after(Duration{0}, [this, from] {
    auto it2 = connections_.find(from.value);
    if (it2 == connections_.end() || it2->second.busy || it2->second.queued.empty()) return;
    Bytes next = std::move(it2->second.queued.front());
    it2->second.queued.pop_front();
    it2->second.busy = true;
    dispatch(from, std::move(next));
  });
}

void Broker::close_bad_request(NodeId from, const std::string& why) {
  if (!is_inbound_connection(from)) {  // a response on a connection of ours: nothing to close
    rt_.log(why);
    return;
  }
  rt_.log("closing connection " + std::to_string(from.value) + ": " + why);
  connections_.erase(from.value);  // its queued requests go with it
  rt_.close_connection(from);
}

void Broker::dispatch(NodeId from, Bytes frame) {
  ByteReader r(as_view(frame));
  auto header = protocol::RequestHeader::decode(r);
  if (!header) {
    return close_bad_request(from, "malformed request header: " + header.status().to_string());
  }
  Request req{from, *header, {}, r.position()};
  if (!protocol::is_version_supported(header->api_key, header->api_version)) {
    if (header->api_key == ApiKey::API_VERSIONS) {
      // KIP-511: answer with a v0 body so that any client can read it, then it retries lower.
      ByteWriter w;
      protocol::make_unsupported_api_versions_response().encode(w, protocol::kUnsupportedApiVersionsReplyVersion);
      return respond_raw(req, w.take(), 0);
    }
    return close_bad_request(from, "unsupported request: api key " + std::to_string(static_cast<int>(header->api_key)) +
                                       " v" + std::to_string(header->api_version));
  }
  switch (header->api_key) {
    case ApiKey::API_VERSIONS: return handle_api_versions(req, r);
    case ApiKey::PRODUCE: return handle_produce(req, r);
    case ApiKey::FETCH: return handle_fetch(req, r);
    case ApiKey::LIST_OFFSETS: return handle_list_offsets(req, r);
    case ApiKey::METADATA: return handle_metadata(req, r);
    case ApiKey::CREATE_TOPICS: return handle_create_topics(req, r);
    case ApiKey::DELETE_TOPICS: return handle_delete_topics(req, r);
    case ApiKey::LEADER_AND_ISR: return handle_leader_and_isr(req, r);
    case ApiKey::UPDATE_METADATA: return handle_update_metadata(req, r);
    case ApiKey::STOP_REPLICA: return handle_stop_replica(req, r);
    case ApiKey::CONTROLLED_SHUTDOWN: return handle_controlled_shutdown(req, r);
    case ApiKey::OFFSET_FOR_LEADER_EPOCH: return handle_offset_for_leader_epoch(req, r);
    case ApiKey::FIND_COORDINATOR: return handle_find_coordinator(req, r);
    case ApiKey::JOIN_GROUP: return handle_join_group(req, r);
    case ApiKey::SYNC_GROUP: return handle_sync_group(req, r);
    case ApiKey::HEARTBEAT: return handle_heartbeat(req, r);
    case ApiKey::LEAVE_GROUP: return handle_leave_group(req, r);
    case ApiKey::OFFSET_COMMIT: return handle_offset_commit(req, r);
    case ApiKey::OFFSET_FETCH: return handle_offset_fetch(req, r);
    case ApiKey::DESCRIBE_GROUPS: return handle_describe_groups(req, r);
    case ApiKey::LIST_GROUPS: return handle_list_groups(req, r);
    case ApiKey::INIT_PRODUCER_ID: return handle_init_producer_id(req, r);
    case ApiKey::DESCRIBE_CONFIGS: return handle_describe_configs(req, r);
    case ApiKey::ALTER_CONFIGS: return handle_alter_configs(req, r);
    case ApiKey::INCREMENTAL_ALTER_CONFIGS: return handle_incremental_alter_configs(req, r);
    default:
      return close_bad_request(from, "no handler for api key " + std::to_string(static_cast<int>(header->api_key)));
  }
}

void Broker::respond_raw(const Request& req, Bytes body, int16_t header_version) {
  ByteWriter w;
  protocol::ResponseHeader h{req.header.correlation_id};
  h.encode(w, header_version);
  rt_.send_gather(req.from, w.take(), std::move(body));  // the body is not copied behind the header
  finish(req.from);
}


// ---------------------------------------------------------------------------------------------
// Partitions, ISR writes, checkpoints.

Partition* Broker::get_or_create_partition(const TopicPartition& tp) {
  if (Partition* p = partition(tp)) return p;
  TopicConfig tc = config_.topic_defaults;
  auto cit = topic_configs_.find(tp.topic);
  if (cit != topic_configs_.end()) tc = cit->second;
  const log::LogConfig lc = tc.log_config();
  log::RecoveryReport report;
  auto lg = log::Log::load(rt_.disk(), tp.str(), lc, rt_.now(), &report);
  if (!lg) {
    rt_.log("cannot open log " + tp.str() + ": " + lg.status().to_string());
    rt_.emit("log_error", {{"topic", tp.topic}, {"partition", tp.partition}, {"error", lg.status().to_string()}});
    return nullptr;
  }
  auto p = std::make_unique<Partition>(rt_, *this, tp, config_.broker_id, std::move(*lg), tc, config_);
  auto hw = checkpointed_hw_.find(tp);
  if (hw != checkpointed_hw_.end()) p->restore_high_watermark(Offset{hw->second});
  Partition* raw = p.get();
  partitions_[tp] = std::move(p);
  return raw;
}

void Broker::write_isr(Partition& p, const LeaderIsrState& new_state, int32_t expected_zk_version) {
  const TopicPartition tp = p.tp();
  zk_.set_data(zk_paths::partition_state(tp.topic, tp.partition), new_state.encode(), expected_zk_version,
               [this, tp, new_state](ZkError err, coord::Stat st) {
                 Partition* part = partition(tp);
                 if (!part) return;
                 part->on_isr_write_result(err == ZkError::kOk, new_state, st.version);
                 if (err != ZkError::kOk) return;
                 // Tell the controller, which propagates the new ISR with UpdateMetadata.
                 Json::Object entry;
                 entry["topic"] = Json(tp.topic);
                 entry["partition"] = Json(tp.partition);
                 Json::Object note;
                 note["version"] = Json(1);
                 note["partitions"] = Json(Json::Array{Json(std::move(entry))});
                 zk_.create(zk_paths::isr_change_prefix(), to_bytes(Json(std::move(note)).dump()),
                            CreateMode::kPersistentSequential, [](ZkError, std::string) {});
               });
}

void Broker::on_partition_progress(Partition& p) {
  schedule_delayed_check();
  group_coordinator_.on_partition_progress(p.tp());  // offset commits wait for the HW too
}

void Broker::checkpoint_high_watermarks() {
  std::map<TopicPartition, int64_t> hws = checkpointed_hw_;
  for (const auto& [tp, p] : partitions_) hws[tp] = p->high_watermark().value;
  Status s = write_hw_checkpoint(rt_.disk(), hws);
  if (s.is_ok())
    checkpointed_hw_ = std::move(hws);
  else
    rt_.log("high watermark checkpoint failed: " + s.to_string());
  rt_.after(Duration::millis(config_.replica_high_watermark_checkpoint_interval_ms), [this] { checkpoint_high_watermarks(); });
}

void Broker::retention_tick() {
  for (auto& [tp, p] : partitions_) {
    auto deleted = p->log().apply_retention(rt_.now());
    if (deleted && *deleted > 0)
      rt_.emit("log_retention", {{"topic", tp.topic}, {"partition", tp.partition}, {"segments_deleted", *deleted},
                                 {"log_start", p->log_start_offset().value}});
  }
  rt_.after(Duration::millis(kRetentionCheckIntervalMs), [this] { retention_tick(); });
}

void Broker::shrink_isr_tick() {
  for (auto& [tp, p] : partitions_) p->maybe_shrink_isr(rt_.now());
  rt_.after(Duration::millis(std::max<int64_t>(1, config_.replica_lag_time_max_ms / 2)), [this] { shrink_isr_tick(); });
}

// ---------------------------------------------------------------------------------------------
// Controlled shutdown (the broker side).

void Broker::controlled_shutdown(std::function<void(bool)> done) {
  shutting_down_ = true;
  auto attempt = std::make_shared<std::function<void(int)>>();
  std::weak_ptr<std::function<void(int)>> weak = attempt;
  *attempt = [this, done, weak](int tries_left) {
    auto self = weak.lock();
    int32_t controller = metadata_.controller_id();
    if (controller < 0 || tries_left == 0) return done(false);
    protocol::ControlledShutdownRequest req;
    req.broker_id = config_.broker_id;
    net_.send(NodeId{controller}, req, protocol::kControlledShutdownVersion,
              Duration::millis(config_.controller_socket_timeout_ms),
              [this, done, self, tries_left](ErrorCode transport, ByteReader* body) {
                bool ok = false;
                if (transport == ErrorCode::NONE && body) {
                  auto resp = protocol::ControlledShutdownResponse::decode(*body, protocol::kControlledShutdownVersion);
                  ok = resp && resp->error_code == ErrorCode::NONE && resp->remaining_partitions.empty();
                }
                if (ok) {
                  rt_.emit("controlled_shutdown_complete", {{"broker", config_.broker_id}});
                  return done(true);
                }
                rt_.after(Duration::millis(kControlledShutdownRetryBackoffMs), [self, tries_left] { (*self)(tries_left - 1); });
              });
  };
  (*attempt)(kControlledShutdownMaxRetries);
}

}  // namespace gregor::broker
