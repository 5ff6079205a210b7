#include "engine/broker/broker.h"

#include <algorithm>

#include "engine/group/offsets_topic.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/protocol/controlled_shutdown.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;

namespace {

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
      replicas_(rt, config_, zk_, net_),
      admin_(rt, config_, zk_, controller_, metadata_),
      config_changes_(rt, config_, zk_,
                      [this](const std::string& topic, const TopicConfig& tc, const std::map<std::string, std::string>& overrides) {
                        on_topic_config(topic, tc, overrides);
                      }),
      producer_ids_(rt, config_.broker_id, zk_),
      group_host_(rt, metadata_, replicas_, admin_),
      group_coordinator_(rt, config_, group_host_),
      txn_host_(rt, config_, group_host_, replicas_, admin_, producer_ids_, net_),
      txn_coordinator_(rt, config_, txn_host_),
      channel_(rt, [this](NodeId from, Bytes frame) { dispatch_request(handlers_, from, std::move(frame)); }),
      sasl_(rt, config_, channel_, zk_),
      authorizer_(rt, config_, zk_),
      handlers_{rt,     config_,      channel_, replicas_,          metadata_, controller_,
                admin_, group_coordinator_, producer_ids_, cluster_id_, sasl_, authorizer_,
                txn_coordinator_} {
  // Broker-to-broker requests authenticate when the inter-broker listener is SASL_PLAINTEXT. A
  // config that came through apply() has been checked; a default-constructed one is PLAINTEXT.
  auto inter_broker_sasl = config_.inter_broker_sasl();
  GREGOR_ASSERT_MSG(inter_broker_sasl.is_ok(), inter_broker_sasl.status().message());
  net_.set_sasl(*inter_broker_sasl);
  // The controller's requests (and ControlledShutdown to it) go to the control-plane listener when
  // there is one, which is PLAINTEXT (BrokerConfig::validate).
  if (!config_.control_plane_listener_name.empty()) net_.set_plaintext_lane(Lane::kController);
  // A transaction marker committed in __consumer_offsets makes the producer's pending transactional
  // offsets visible (commit) or drops them (abort), as Kafka's GroupCoordinator.scheduleHandleTxnCompletion.
  replicas_.set_txn_marker_listener(
      [this](const TopicPartition& tp, int64_t producer_id, int16_t producer_epoch, bool committed) {
        if (tp.topic == group::kOffsetsTopic)
          group_coordinator_.complete_txn_offsets(tp.partition, producer_id, producer_epoch, committed);
      });
  replicas_.set_progress_listener([this](const TopicPartition& tp) {
    group_coordinator_.on_partition_progress(tp);  // offset commits wait for the HW too
    txn_coordinator_.on_partition_progress(tp);    // so do transaction state writes
  });
  replicas_.log_dir().set_listener([this](const Status& status, const std::string& operation, const std::string& path) {
    on_log_dir_failure(status, operation, path);
  });
  replicas_.set_broker_epoch_source([this] { return registered_ ? controller_.broker_epoch() : int64_t{-1}; });
  replicas_.set_damage_listener([this] {
    // A replica is no longer damaged: a later controller must not read it in our registration.
    if (registered_) zk_.set_data(zk_paths::broker(config_.broker_id), registration().encode(), -1, [](ZkError, coord::Stat) {});
  });
}

Broker::~Broker() = default;

// ---------------------------------------------------------------------------------------------
// Startup, zk session, registration.

void Broker::start() {
  replicas_.load_checkpoint();
  replicas_.check_logs();
  zk_.set_session_listener([this](coord::SessionState s) { on_session_state(s); });
  zk_.set_watch_listener([this](const coord::WatchEvent& e) { on_watch(e); });
  zk_.start();
  replicas_.start_ticks();
  txn_coordinator_.start();
  rt_.emit(ev::BrokerStart{.broker = config_.broker_id});
}

void Broker::on_session_state(coord::SessionState s) {
  if (s == coord::SessionState::kConnected && !registered_) {
    prepare_zk([this] { register_broker(); });
  } else if (s == coord::SessionState::kExpired) {
    // Our ephemerals are gone: this broker is dead to the cluster until it registers again.
    registered_ = false;
    controller_.resign("zk session expired");
    rt_.emit(ev::BrokerSessionExpired{.broker = config_.broker_id});
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

BrokerRegistration Broker::registration() const {
  BrokerRegistration reg;
  reg.id = config_.broker_id;
  reg.host = config_.advertised_host;
  reg.port = config_.advertised_port;
  reg.endpoints = config_.advertised_endpoints();
  reg.timestamp_ms = registration_time_ms_;
  reg.damaged_replicas = replicas_.damaged_replicas();
  return reg;
}

void Broker::register_broker() {
  registration_time_ms_ = rt_.wall_time_ms();
  // create2, so that the answer carries the znode's czxid: this broker's epoch (KIP-380).
  zk_.create2(zk_paths::broker(config_.broker_id), registration().encode(), CreateMode::kEphemeral,
              [this](ZkError err, std::string, coord::Stat stat) {
    if (err == ZkError::kOk) {
      registered_ = true;
      controller_.set_broker_epoch(stat.czxid);
      rt_.emit(ev::BrokerRegister{.broker = config_.broker_id});
      controller_.elect();
      config_changes_.on_change();
      authorizer_.start();
      return;
    }
    // NodeExists: our previous session's registration has not expired yet. Try again shortly.
    rt_.after(Duration::millis(err == ZkError::kNodeExists ? 1000 : 200), [this] {
      if (!registered_ && zk_.state() == coord::SessionState::kConnected) prepare_zk([this] { register_broker(); });
    });
  });
}

void Broker::on_watch(const coord::WatchEvent& e) {
  if (e.path == zk_paths::config_changes() && e.type == coord::WatchType::kNodeChildrenChanged) return config_changes_.on_change();
  if (authorizer_.on_watch(e)) return;
  controller_.on_watch(e);
}

void Broker::on_topic_config(const std::string& topic, const TopicConfig& tc, const std::map<std::string, std::string>& overrides) {
  controller_.on_topic_config(topic, tc);
  if (!replicas_.update_topic_config(topic, tc)) return;
  std::string text;
  for (const auto& [k, v] : overrides) text += (text.empty() ? "" : ",") + k + "=" + v;
  rt_.emit(ev::TopicConfigChange{.broker = config_.broker_id, .topic = topic, .config = text});
  replicas_.recheck_all_waiting();  // produces waiting under the old min.insync.replicas decide again
}

// ---------------------------------------------------------------------------------------------
// Frames.

void Broker::on_message(NodeId from, Bytes frame) {
  if (zk_.owns_peer(from)) return zk_.on_message(from, std::move(frame));
  if (!is_inbound_connection(from)) return net_.on_message(from, std::move(frame));
  channel_.enqueue(from, std::move(frame));
}

void Broker::on_disconnect(NodeId peer) {
  if (zk_.owns_peer(peer)) zk_.on_disconnect(peer);
  if (!is_inbound_connection(peer)) {
    net_.on_disconnect(peer);
    return;
  }
  sasl_.on_disconnect(peer);
  channel_.on_disconnect(peer);
}

void Broker::on_clean_stop() { replicas_.flush_all(); }

// ---------------------------------------------------------------------------------------------
// Log directory failure (Kafka's LogDirFailureHandler, and LogManager's halt once no log directory
// is left).

void Broker::on_log_dir_failure(const Status& status, const std::string& operation, const std::string& path) {
  // Called from inside the failing disk operation: only what is safe there happens now; the rest on
  // a fresh event.
  const std::string why = "all log dirs in " + config_.log_dir + " have failed: " + status.to_string();
  rt_.emit(ev::LogDirFailure{.broker = config_.broker_id,
                             .log_dir = config_.log_dir,
                             .operation = operation,
                             .path = path,
                             .error = status.to_string()});
  rt_.log("Shutdown broker because " + why);
  shutting_down_ = true;
  rt_.after(Duration{0}, [this, why] {
    registered_ = false;
    controller_.resign("log dir failure");
    zk_.close([this, why] { rt_.halt(why); });
  });
}

// ---------------------------------------------------------------------------------------------
// Controlled shutdown (the broker side).

void Broker::controlled_shutdown(std::function<void(bool)> done) {
  shutting_down_ = true;
  auto attempt = std::make_shared<std::function<void(int)>>();
  std::weak_ptr<std::function<void(int)>> weak = attempt;
  // The end of every way out: the session closed, then the caller told.
  auto finish = [this, done](bool ok) {
    replicas_.flush_all();
    controller_.resign("controlled shutdown");
    zk_.close([done, ok] { done(ok); });
  };
  *attempt = [this, finish, weak](int tries_left) {
    auto self = weak.lock();
    int32_t controller = metadata_.controller_id();
    if (controller < 0 || tries_left == 0) {
      rt_.log(controller < 0 ? "controlled shutdown skipped: no controller is known"
                             : "controlled shutdown failed: the controller did not confirm it; stopping anyway");
      return finish(false);
    }
    protocol::ControlledShutdownRequest req;
    req.broker_id = config_.broker_id;
    req.broker_epoch = controller_.broker_epoch();
    // To the controller's control-plane listener when there is one (Kafka's controlledShutdown).
    net_.send(lane_connection(NodeId{controller}, Lane::kController), req, protocol::kControlledShutdownVersion,
              Duration::millis(config_.controller_socket_timeout_ms),
              [this, finish, self, tries_left](ErrorCode transport, ByteReader* body) {
                bool ok = false;
                if (transport == ErrorCode::NONE && body) {
                  auto resp = protocol::ControlledShutdownResponse::decode(*body, protocol::kControlledShutdownVersion);
                  ok = resp && resp->error_code == ErrorCode::NONE && resp->remaining_partitions.empty();
                }
                if (ok) {
                  rt_.log("controlled shutdown succeeded: the controller moved this broker's leaderships away");
                  rt_.emit(ev::ControlledShutdownComplete{.broker = config_.broker_id});
                  return finish(true);
                }
                if (tries_left <= 1) return (*self)(0);  // that was the last attempt: no wait before giving up
                rt_.log("controlled shutdown: the controller did not confirm it; retrying (" + std::to_string(tries_left - 1) +
                        " attempts left)");
                rt_.after(Duration::millis(config_.controlled_shutdown_retry_backoff_ms), [self, tries_left] { (*self)(tries_left - 1); });
              });
  };
  (*attempt)(config_.controlled_shutdown_max_retries);
}

}  // namespace gregor::broker
