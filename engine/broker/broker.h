// Broker: a Kafka broker of the ZooKeeper era, as a Node (it runs unchanged in the simulator and
// on real sockets).
//
// At start it opens a zk session, registers the ephemeral /brokers/ids/N, and runs for controller.
// It answers Kafka requests from clients and other brokers, one handler per API
// (engine/broker/request_handler.h and handlers/): Produce, Fetch, ListOffsets, Metadata,
// CreateTopics, DeleteTopics, ApiVersions, OffsetForLeaderEpoch, the configs and group APIs,
// InitProducerId, and from the controller LeaderAndIsr, UpdateMetadata, StopReplica and
// ControlledShutdown. Requests on one connection are handled one at a time, in order
// (engine/broker/request_channel.h).
//
// Its parts, each a class of its own: the replicas and their purgatories (ReplicaManager), the
// controller (when this broker wins /controller), the metadata cache, topic administration through
// zk (AdminManager), dynamic topic configs (ConfigChangeListener), the group coordinator, the
// transaction coordinator (engine/txn, hosted through TxnHostImpl) and the producer id manager.
//
// Files on its Disk: one directory per partition ("orders-0"; see engine/log) and
// replication-offset-checkpoint (the high watermarks).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/broker/admin_manager.h"
#include "engine/broker/authorizer.h"
#include "engine/broker/broker_config.h"
#include "engine/broker/config_change_listener.h"
#include "engine/broker/controller.h"
#include "engine/broker/group_host.h"
#include "engine/broker/metadata_cache.h"
#include "engine/broker/producer_id_manager.h"
#include "engine/broker/replica_manager.h"
#include "engine/broker/request_channel.h"
#include "engine/broker/request_handler.h"
#include "engine/broker/txn_host.h"
#include "engine/coord/zk_client.h"
#include "engine/group/group_coordinator.h"
#include "engine/protocol/network_client.h"

namespace gregor::broker {

class Broker final : public Node {
 public:
  Broker(Runtime& rt, BrokerConfig config);
  ~Broker() override;

  void start() override;
  void on_message(NodeId from, Bytes frame) override;
  void on_disconnect(NodeId peer) override;
  // Every log flushed and the high watermarks checkpointed (ReplicaManager::flush_all).
  void on_clean_stop() override;

  // Graceful stop, as KafkaServer.shutdown: ControlledShutdown to the controller (leaderships move
  // away), then the controller part resigns and the zk session is closed (closeSession), so that
  // /brokers/ids/N (and /controller, if this broker held it) go at once instead of at the session's
  // expiry; then done(true), or done(false) when the controller could not be reached after the
  // retries (the session is closed all the same). The process may stop when done runs.
  void controlled_shutdown(std::function<void(bool)> done);

  // The replicas (tests, and the group coordinator's transaction marker listener).
  ReplicaManager& replica_manager() { return replicas_; }

  // Topic administration (engine/broker/admin_manager.h), as any broker may do it.
  AdminManager& admin() { return admin_; }
  void alter_topic_config(const std::string& topic, const std::map<std::string, std::optional<std::string>>& changes,
                          AdminManager::Done done) {
    admin_.alter_topic_config(topic, changes, std::move(done));
  }
  void create_topic(const std::string& name, int32_t partitions, int32_t replication_factor,
                    const std::map<std::string, std::string>& configs, AdminManager::Done done) {
    admin_.create_topic(name, partitions, replication_factor, configs, std::move(done));
  }
  void create_topic_with_assignment(const std::string& name, const std::map<int32_t, std::vector<int32_t>>& assignment,
                                    const std::map<std::string, std::string>& configs, AdminManager::Done done) {
    admin_.create_topic_with_assignment(name, assignment, configs, std::move(done));
  }

  // Views for tests, checkers and the dashboard.
  int32_t id() const { return config_.broker_id; }
  const BrokerConfig& config() const { return config_; }
  const Controller& controller() const { return controller_; }
  Controller& controller() { return controller_; }
  const MetadataCache& metadata() const { return metadata_; }
  const std::map<TopicPartition, std::unique_ptr<Partition>>& partitions() const { return replicas_.partitions(); }
  Partition* partition(const TopicPartition& tp) { return replicas_.partition(tp); }
  bool registered() const { return registered_; }
  // The cluster id from /cluster/id (Kafka's Uuid string); empty until read.
  const std::string& cluster_id() const { return cluster_id_; }
  const SaslAuthenticator& sasl() const { return sasl_; }
  coord::ZkClient& zk() { return zk_; }
  const Authorizer& authorizer() const { return authorizer_; }
  group::GroupCoordinator& group_coordinator() { return group_coordinator_; }
  const group::GroupCoordinator& group_coordinator() const { return group_coordinator_; }
  txn::TransactionCoordinator& txn_coordinator() { return txn_coordinator_; }
  const txn::TransactionCoordinator& txn_coordinator() const { return txn_coordinator_; }

 private:
  // Startup and zk.
  void on_session_state(coord::SessionState s);
  // The chroot, the top-level paths and the cluster id, then next.
  void prepare_zk(std::function<void()> next);
  void ensure_cluster_id(std::function<void()> next, int attempts_left);
  void register_broker();
  // What /brokers/ids/N holds (the damaged replicas change while it lives).
  BrokerRegistration registration() const;
  void on_watch(const coord::WatchEvent& e);
  void on_topic_config(const std::string& topic, const TopicConfig& config,
                       const std::map<std::string, std::string>& overrides);
  // The log directory failed (ReplicaManager::log_dir): Kafka halts a broker whose last log
  // directory is offline. Traced and logged at once; then the controller part resigns and the zk
  // session is closed (so /brokers/ids/N goes now, not at the session's expiry, and the controller
  // moves this broker's leaderships at once), and the process halts (Runtime::halt).
  void on_log_dir_failure(const Status& status, const std::string& operation, const std::string& path);
  void create_offsets_topic(int32_t partitions, int32_t replication_factor, std::function<void(ErrorCode)> done);

  Runtime& rt_;
  BrokerConfig config_;
  coord::ZkClient zk_;
  protocol::NetworkClient net_;
  Controller controller_;
  MetadataCache metadata_;
  ReplicaManager replicas_;
  AdminManager admin_;
  ConfigChangeListener config_changes_;
  ProducerIdManager producer_ids_;
  GroupHost group_host_;
  group::GroupCoordinator group_coordinator_;
  TxnHostImpl txn_host_;
  txn::TransactionCoordinator txn_coordinator_;
  std::string cluster_id_;
  RequestChannel channel_;
  SaslAuthenticator sasl_;
  Authorizer authorizer_;
  HandlerContext handlers_;
  bool registered_ = false;
  int64_t registration_time_ms_ = 0;
  bool shutting_down_ = false;
};

}  // namespace gregor::broker
