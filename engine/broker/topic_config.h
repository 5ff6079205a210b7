// TopicConfig: the settings a topic may override (Kafka's topic-level configs), with Kafka's keys
// and defaults. The log's own keys (segment.bytes, retention.ms, max.message.bytes, ...) come from
// engine/log/log_config.h; the topic adds replication's: min.insync.replicas and
// unclean.leader.election.enable, and cleanup.policy (delete only: Gregor's logs are not compacted).
//
// Every key is declared once (topic_config_def) with its broker-level synonym, which sets its
// default for the whole broker (log.segment.bytes for segment.bytes). All topic keys are dynamic:
// kafka-configs --alter changes them on a running cluster.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "engine/core/config_def.h"
#include "engine/core/status.h"
#include "engine/log/log_config.h"

namespace gregor::broker {

struct TopicConfig : log::LogConfig {
  int32_t min_insync_replicas = 1;
  bool unclean_leader_election_enable = false;

  // Applies k=v pairs (topic-level keys) on top of this.
  Status apply(const std::map<std::string, std::string>& overrides);
  // The non-default settings, as kafka-topics --describe prints them in "Configs:".
  std::map<std::string, std::string> non_defaults() const;
  // Every topic-level key with its value (DescribeConfigs lists them all).
  std::map<std::string, std::string> to_map() const;
  // The settings of the topic's log.
  const log::LogConfig& log_config() const { return *this; }
  // The broker config that sets a topic key's default (Kafka's synonym: segment.bytes <-
  // log.segment.bytes); empty for a key Gregor does not know.
  static std::string broker_synonym(const std::string& topic_key);
  // The topic key a broker config sets the default of (log.segment.bytes -> segment.bytes), or "".
  static std::string topic_key_of(const std::string& broker_key);
  // Keys whose value is a comma-separated list (IncrementalAlterConfigs APPEND / SUBTRACT).
  static bool is_list_key(const std::string& topic_key);
};

const ConfigDef<TopicConfig>& topic_config_def();

}  // namespace gregor::broker
