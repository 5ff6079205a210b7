// BrokerConfig: a broker's configuration, with Kafka's keys and Kafka's defaults.
//
// Scenario files, `gregor broker --config k=v` and tests all set configuration as Kafka spells it;
// apply rejects unknown keys and malformed values with a message naming the key, so a typo in
// a scenario is an error, not a silently ignored setting. Topic-level overrides (min.insync.replicas,
// unclean.leader.election.enable, segment.bytes, retention.ms, ...) use the same keys
// (engine/broker/topic_config.h).
//
// Gregor's own switches, for teaching, are prefixed as Kafka's are not:
//   replication.truncation = leader-epoch (default; KIP-101 with KIP-279's epoch lookup, Kafka 2.0+)
//   | leader-epoch-kip101 (KIP-101 alone, Kafka 0.11-1.1: a follower truncates to the leader's end
//   offset for its epoch, ignoring the epoch the leader answers with, so a fast double failover can
//   leave logs diverged) | high-watermark (before KIP-101: a follower truncates to its own high
//   watermark when it becomes a follower).
//   gregor.kafka7164.truncate.on.leader.change.only = false (default: a follower truncates on every
//   leader epoch change, as Kafka 2.1+ does) | true (Kafka 1.1 to 2.0, KAFKA-7164: a follower whose
//   leader stays the same broker across an epoch change keeps fetching without truncating, so a
//   replica that missed an epoch in between can keep a diverged log).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/broker/topic_config.h"
#include "engine/core/config_def.h"
#include "engine/core/status.h"
#include "engine/core/types.h"
#include "engine/group/group_config.h"

namespace gregor::broker {

enum class TruncationMode { kLeaderEpoch, kLeaderEpochKip101, kHighWatermark };

// The group coordinator's settings (offsets.topic.*, group.*) are broker configs too: they live in
// group::GroupConfig so that engine/group reads them without knowing the broker.
struct BrokerConfig : group::GroupConfig {
  int32_t broker_id = 1;
  std::vector<NodeId> zookeeper_servers;  // zk server node ids (zookeeper.connect's host:port list)
  std::string zookeeper_chroot;           // zookeeper.connect's chroot suffix ("/kafka"), or 
  std::string advertised_host = "127.0.0.1";
  int32_t advertised_port = 9092;
  // Where this broker's partitions live, as DescribeLogDirs names it (Kafka's log.dirs, one
  // directory): the real runtime's --data-dir; the simulator names one per broker.
  std::string log_dir = "/var/lib/gregor";

  TopicConfig topic_defaults;  // log.* / broker-level defaults of topic configs
  int32_t num_partitions = 1;
  int32_t default_replication_factor = 1;
  bool auto_create_topics_enable = true;
  int64_t replica_lag_time_max_ms = 30000;
  int64_t replica_fetch_wait_max_ms = 500;
  int32_t replica_fetch_min_bytes = 1;
  int32_t replica_fetch_max_bytes = 1048576;
  int64_t replica_fetch_backoff_ms = 1000;
  int64_t replica_socket_timeout_ms = 30000;
  int64_t replica_high_watermark_checkpoint_interval_ms = 5000;
  int64_t zookeeper_session_timeout_ms = 18000;
  int64_t controller_socket_timeout_ms = 30000;
  bool controlled_shutdown_enable = true;
  bool auto_leader_rebalance_enable = true;
  int64_t leader_imbalance_check_interval_seconds = 300;
  int64_t transactional_id_expiration_ms = 604800000;
  int32_t socket_request_max_bytes = 104857600;
  TruncationMode replication_truncation = TruncationMode::kLeaderEpoch;
  bool truncate_on_leader_change_only = false;  // gregor.kafka7164.truncate.on.leader.change.only

  // Applies k=v pairs with Kafka's keys; an unknown key or bad value is an error naming it.
  // Topic-level keys set the topic defaults, under their broker names (log.segment.bytes) or
  // their topic names (segment.bytes).
  Status apply(const std::map<std::string, std::string>& settings);
  // Every broker config Gregor knows with its value, topic defaults under their broker names
  // (log.segment.bytes, ...): what DescribeConfigs answers for a BROKER resource.
  std::map<std::string, std::string> to_map() const;
};

// The broker's own keys, declared once (engine/core/config_def.h). Broker configs are static in
// Gregor: a broker reads them at start.
const ConfigDef<BrokerConfig>& broker_config_def();
// --help text: the broker's keys, then the topic defaults under their broker names.
std::string broker_config_help();

}  // namespace gregor::broker
