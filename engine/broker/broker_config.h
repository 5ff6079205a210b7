// BrokerConfig: a broker's configuration, with Kafka's keys and Kafka's defaults.
//
// Scenario files, `gregor broker --config k=v` and tests all set configuration as Kafka spells it;
// from_map rejects unknown keys and malformed values with a message naming the key, so a typo in
// a scenario is an error, not a silently ignored setting. Topic-level overrides (min.insync.replicas,
// unclean.leader.election.enable, segment.bytes, retention.ms, ...) use the same keys.
//
// Gregor's own switches, for teaching, are prefixed as Kafka's are not:
//   replication.truncation = leader-epoch (default; KIP-101 with KIP-279's epoch lookup, Kafka 2.0+)
//   | leader-epoch-kip101 (KIP-101 alone, Kafka 0.11-1.1: a follower truncates to the leader's end
//   offset for its epoch, ignoring the epoch the leader answers with, so a fast double failover can
//   leave logs diverged) | high-watermark (before KIP-101: a follower truncates to its own high
//   watermark when it becomes a follower).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/types.h"

namespace gregor::broker {

enum class TruncationMode { kLeaderEpoch, kLeaderEpochKip101, kHighWatermark };

// Settings that a topic may override (Kafka's topic-level configs).
struct TopicConfig {
  int32_t min_insync_replicas = 1;
  bool unclean_leader_election_enable = false;
  int64_t segment_bytes = 1073741824;
  int64_t segment_ms = 604800000;
  int64_t retention_ms = 604800000;
  int64_t retention_bytes = -1;
  int64_t flush_messages = INT64_MAX;
  int64_t flush_ms = INT64_MAX;
  int32_t index_interval_bytes = 4096;
  int32_t max_message_bytes = 1048588;

  // Applies k=v pairs (topic-level keys) on top of this.
  Status apply(const std::map<std::string, std::string>& overrides);
  // The non-default settings, as kafka-topics --describe prints them in "Configs:".
  std::map<std::string, std::string> non_defaults() const;
  // Every topic-level key with its value (DescribeConfigs lists them all).
  std::map<std::string, std::string> to_map() const;
  // The broker config that sets a topic key's default (Kafka's synonym: segment.bytes <-
  // log.segment.bytes); empty for a key Gregor does not know.
  static std::string broker_synonym(const std::string& topic_key);
  // The topic key a broker config sets the default of (log.segment.bytes -> segment.bytes), or "".
  static std::string topic_key_of(const std::string& broker_key);
  // Keys whose value is a comma-separated list (IncrementalAlterConfigs APPEND / SUBTRACT).
  static bool is_list_key(const std::string& topic_key) { return topic_key == "cleanup.policy"; }
};

struct BrokerConfig {
  int32_t broker_id = 1;
  std::vector<NodeId> zookeeper_servers;  // zk server node ids (zookeeper.connect's host:port list)
  std::string zookeeper_chroot;           // zookeeper.connect's chroot suffix ("/kafka"), or 
  std::string advertised_host = "127.0.0.1";
  int32_t advertised_port = 9092;

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
  int32_t offsets_topic_num_partitions = 50;
  int16_t offsets_topic_replication_factor = 3;
  int64_t group_initial_rebalance_delay_ms = 3000;
  int64_t group_min_session_timeout_ms = 6000;
  int64_t group_max_session_timeout_ms = 1800000;
  int64_t offsets_retention_minutes = 10080;
  int64_t transactional_id_expiration_ms = 604800000;
  int32_t socket_request_max_bytes = 104857600;
  TruncationMode replication_truncation = TruncationMode::kLeaderEpoch;

  // Applies k=v pairs with Kafka's keys; an unknown key or bad value is an error naming it.
  Status apply(const std::map<std::string, std::string>& settings);
  static bool is_topic_key(const std::string& key);
  // Every broker config Gregor knows with its value, topic defaults under their broker names
  // (log.segment.bytes, ...): what DescribeConfigs answers for a BROKER resource.
  std::map<std::string, std::string> to_map() const;
};

// A list config's value ("compact,delete") as items and back; empty items are dropped.
std::vector<std::string> split_config_list(const std::string& value);
std::string join_config_list(const std::vector<std::string>& items);

// Parsing helpers shared with client configs.
Result<int64_t> parse_long(const std::string& key, const std::string& value);
Result<bool> parse_bool(const std::string& key, const std::string& value);

}  // namespace gregor::broker
