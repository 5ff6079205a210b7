// Broker: a Kafka broker of the ZooKeeper era, as a Node (it runs unchanged in the simulator and
// on real sockets).
//
// At start it opens a zk session, registers the ephemeral /brokers/ids/N, and runs for controller.
// It answers Kafka requests from clients and other brokers: Produce, Fetch, ListOffsets, Metadata,
// CreateTopics, DeleteTopics, ApiVersions, OffsetForLeaderEpoch, and from the controller
// LeaderAndIsr, UpdateMetadata, StopReplica and ControlledShutdown. Requests on one connection are
// handled one at a time, in order, as Kafka mutes a channel until its response is sent.
//
// Produce with acks=all and Fetch with max_wait wait in purgatory (delayed operations) until the
// high watermark or the log moves, or their timeout passes.
//
// Files on its Disk: one directory per partition ("orders-0"; see engine/log) and
// replication-offset-checkpoint (the high watermarks).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "engine/broker/broker_config.h"
#include "engine/broker/controller.h"
#include "engine/broker/group_host.h"
#include "engine/broker/metadata_cache.h"
#include "engine/broker/partition.h"
#include "engine/broker/producer_id_manager.h"
#include "engine/broker/replica_fetcher.h"
#include "engine/protocol/network_client.h"
#include "engine/coord/zk_client.h"
#include "engine/group/group_coordinator.h"
#include "engine/protocol/fetch.h"
#include "engine/protocol/header.h"
#include "engine/protocol/produce.h"

namespace gregor::broker {

class Broker final : public Node, public PartitionOwner {
 public:
  Broker(Runtime& rt, BrokerConfig config);
  ~Broker() override;

  void start() override;
  void on_message(NodeId from, Bytes frame) override;
  void on_disconnect(NodeId peer) override;

  // Graceful stop: ControlledShutdown to the controller (leaderships move away), then done(true).
  // done(false) when the controller could not be reached after the retries.
  void controlled_shutdown(std::function<void(bool)> done);

  // kafka-configs --alter --entity-type topics --entity-name T: merges `changes` into
  // /config/topics/T (nullopt deletes a key) after validating the result, then writes the change
  // notification every broker applies. UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG or NONE.
  void alter_topic_config(const std::string& topic, const std::map<std::string, std::optional<std::string>>& changes,
                          std::function<void(protocol::ErrorCode, std::string)> done);
  // The general form (AlterConfigs replaces the overrides, IncrementalAlterConfigs edits them):
  // `edit` changes T's overrides as read from zk (a Status error becomes INVALID_CONFIG); the
  // result is validated, then written with the znode's version (re-read and re-edited when someone
  // else wrote meanwhile), unless validate_only.
  using TopicConfigEdit = std::function<Status(std::map<std::string, std::string>& overrides)>;
  void edit_topic_config(const std::string& topic, TopicConfigEdit edit, bool validate_only,
                         std::function<void(protocol::ErrorCode, std::string)> done);

  // Views for tests, checkers and the dashboard.
  int32_t id() const { return config_.broker_id; }
  const BrokerConfig& config() const { return config_; }
  const Controller& controller() const { return controller_; }
  Controller& controller() { return controller_; }
  const MetadataCache& metadata() const { return metadata_; }
  const std::map<TopicPartition, std::unique_ptr<Partition>>& partitions() const { return partitions_; }
  Partition* partition(const TopicPartition& tp);
  bool registered() const { return registered_; }
  // The cluster id from /cluster/id (Kafka's Uuid string); empty until read.
  const std::string& cluster_id() const { return cluster_id_; }
  coord::ZkClient& zk() { return zk_; }
  group::GroupCoordinator& group_coordinator() { return group_coordinator_; }
  const group::GroupCoordinator& group_coordinator() const { return group_coordinator_; }

  // PartitionOwner.
  void write_isr(Partition& p, const LeaderIsrState& new_state, int32_t expected_zk_version) override;
  void on_partition_progress(Partition& p) override;

  // Creates a topic by writing its assignment to zk (any broker may, as in ZooKeeper-era Kafka;
  // the controller's watch does the rest). Replicas are spread over the live brokers as Kafka's
  // AdminUtils does.
  void create_topic(const std::string& name, int32_t partitions, int32_t replication_factor,
                    const std::map<std::string, std::string>& configs,
                    std::function<void(protocol::ErrorCode, std::string)> done);
  // The same with the placement given by hand (kafka-topics --replica-assignment): partition ->
  // replica broker ids, the first of each the preferred leader. REQUIRES: partitions 0..n-1.
  void create_topic_with_assignment(const std::string& name, const std::map<int32_t, std::vector<int32_t>>& assignment,
                                    const std::map<std::string, std::string>& configs,
                                    std::function<void(protocol::ErrorCode, std::string)> done);

 private:
  struct Request {
    NodeId from;
    protocol::RequestHeader header;
    Bytes frame;
    size_t body_offset;
  };
  struct Connection {
    bool busy = false;
    std::deque<Bytes> queued;
  };
  struct DelayedProduce;
  struct DelayedFetch;

  // Startup and zk.
  void on_session_state(coord::SessionState s);
  // The chroot, the top-level paths and the cluster id, then next.
  void prepare_zk(std::function<void()> next);
  void ensure_cluster_id(std::function<void()> next, int attempts_left);
  void register_broker();
  void on_watch(const coord::WatchEvent& e);
  void watch_config_changes();
  void reload_topic_config(const std::string& topic, std::function<void()> done);

  // Requests.
  void enqueue_request(NodeId from, Bytes frame);
  void dispatch(NodeId from, Bytes frame);
  void finish(NodeId from);  // the connection may take its next request
  // A request that cannot be parsed or answered (a malformed header or body, an unsupported api
  // or version other than ApiVersions): log it and close that connection, as Kafka does; other
  // connections are not affected.
  void close_bad_request(NodeId from, const std::string& why);
  template <typename Response>
  void respond(const Request& req, const Response& response);
  void respond_raw(const Request& req, Bytes body, int16_t header_version);

  void handle_api_versions(const Request& req, ByteReader& r);
  void handle_produce(const Request& req, ByteReader& r);
  void handle_fetch(const Request& req, ByteReader& r);
  void handle_list_offsets(const Request& req, ByteReader& r);
  void handle_metadata(const Request& req, ByteReader& r);
  void handle_create_topics(const Request& req, ByteReader& r);
  void handle_delete_topics(const Request& req, ByteReader& r);
  void handle_leader_and_isr(const Request& req, ByteReader& r);
  void handle_update_metadata(const Request& req, ByteReader& r);
  void handle_stop_replica(const Request& req, ByteReader& r);
  void handle_controlled_shutdown(const Request& req, ByteReader& r);
  void handle_offset_for_leader_epoch(const Request& req, ByteReader& r);
  // Consumer groups and producer ids (broker_groups.cpp; the logic is in engine/group/).
  void handle_find_coordinator(const Request& req, ByteReader& r);
  void handle_join_group(const Request& req, ByteReader& r);
  void handle_sync_group(const Request& req, ByteReader& r);
  void handle_heartbeat(const Request& req, ByteReader& r);
  void handle_leave_group(const Request& req, ByteReader& r);
  void handle_offset_commit(const Request& req, ByteReader& r);
  void handle_offset_fetch(const Request& req, ByteReader& r);
  void handle_describe_groups(const Request& req, ByteReader& r);
  void handle_list_groups(const Request& req, ByteReader& r);
  void handle_init_producer_id(const Request& req, ByteReader& r);
  // Topic and broker configs (broker_configs.cpp).
  void handle_describe_configs(const Request& req, ByteReader& r);
  void handle_alter_configs(const Request& req, ByteReader& r);
  void handle_incremental_alter_configs(const Request& req, ByteReader& r);
  void create_offsets_topic(int32_t partitions, int32_t replication_factor, std::function<void(ErrorCode)> done);

  // Purgatory.
  void schedule_delayed_check();
  void check_delayed();
  bool try_complete_produce(DelayedProduce& d, bool expired);
  bool try_complete_fetch(DelayedFetch& d, bool expired);
  // Calls done(false) once ready() holds after an UpdateMetadata (or at once), or done(true) when
  // timeout passes first: CreateTopics answers when this broker's metadata has the new topic's
  // leaders, as Kafka's DelayedCreatePartitions does.
  void when_metadata(std::function<bool()> ready, Duration timeout, std::function<void(bool timed_out)> done);
  void check_metadata_waits();
  protocol::FetchResponse read_fetch(const protocol::FetchRequest& req, int32_t& bytes, bool& has_error);

  // Partitions.
  Partition* get_or_create_partition(const TopicPartition& tp);
  void checkpoint_high_watermarks();
  void shrink_isr_tick();
  void retention_tick();

  Runtime& rt_;
  BrokerConfig config_;
  coord::ZkClient zk_;
  protocol::NetworkClient net_;
  Controller controller_;
  MetadataCache metadata_;
  ReplicaFetcher fetcher_;
  std::map<TopicPartition, std::unique_ptr<Partition>> partitions_;
  std::map<std::string, TopicConfig> topic_configs_;  // broker defaults + /config/topics/T
  std::map<TopicPartition, int64_t> checkpointed_hw_;
  std::map<int32_t, Connection> connections_;
  std::map<uint64_t, std::unique_ptr<DelayedProduce>> delayed_produce_;
  std::map<uint64_t, std::unique_ptr<DelayedFetch>> delayed_fetch_;
  struct MetadataWait {
    std::function<bool()> ready;
    std::function<void(bool)> done;
    TimerId timer;
  };
  std::map<uint64_t, MetadataWait> metadata_waits_;
  uint64_t next_delayed_id_ = 1;
  bool delayed_check_scheduled_ = false;
  bool registered_ = false;
  std::string cluster_id_;
  int64_t last_config_change_ = -1;     // the newest /config/changes notification processed
  bool config_changes_listed_ = false;  // the first listing only sets last_config_change_
  bool shutting_down_ = false;
  int32_t highest_controller_epoch_ = 0;
  ProducerIdManager producer_ids_;
  GroupHost group_host_;
  group::GroupCoordinator group_coordinator_;
};

template <typename Response>
void Broker::respond(const Request& req, const Response& response) {
  ByteWriter body;
  response.encode(body, req.header.api_version);
  respond_raw(req, body.take(), protocol::response_header_version(req.header.api_key, req.header.api_version));
}

}  // namespace gregor::broker
