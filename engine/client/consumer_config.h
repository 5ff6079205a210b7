// ConsumerConfig: a consumer's settings, with Kafka's keys and the Java client's defaults, each
// declared once (consumer_config_def).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/config_def.h"
#include "engine/core/status.h"
#include "engine/core/types.h"
#include "engine/protocol/sasl_client.h"

namespace gregor::client {

struct ConsumerConfig {
  std::string client_id = "consumer";
  std::vector<NodeId> bootstrap_servers;
  std::string group_id;  // empty: no group (assign() only, no commits)
  int64_t session_timeout_ms = 45000;
  int64_t heartbeat_interval_ms = 3000;
  int64_t max_poll_interval_ms = 300000;  // also the rebalance timeout sent in JoinGroup
  std::string auto_offset_reset = "latest";  // earliest, latest, none
  bool enable_auto_commit = true;
  int64_t auto_commit_interval_ms = 5000;
  int32_t fetch_min_bytes = 1;
  int32_t fetch_max_bytes = 52428800;
  int64_t fetch_max_wait_ms = 500;
  int32_t max_partition_fetch_bytes = 1048576;
  int32_t max_poll_records = 500;
  int64_t request_timeout_ms = 30000;
  int64_t default_api_timeout_ms = 60000;  // how long a commit keeps retrying
  int64_t retry_backoff_ms = 100;
  int64_t metadata_max_age_ms = 300000;
  bool check_crcs = true;
  // read_uncommitted (Kafka's default): everything below the high watermark. read_committed: only
  // below the last stable offset, without the records of aborted transactions (KIP-98).
  std::string isolation_level = "read_uncommitted";
  bool read_committed() const { return isolation_level == "read_committed"; }
  // In preference order; the coordinator picks one every member supports.
  std::vector<std::string> partition_assignment_strategy = {"range", "cooperative-sticky"};

  // Kafka's client security keys (engine/protocol/sasl_client.h): security.protocol,
  // sasl.mechanism, sasl.jaas.config (sensitive), and librdkafka's sasl.username / sasl.password.
  protocol::ClientSecurityKeys security;
  // The credentials every connection authenticates with; nullopt for PLAINTEXT. REQUIRES: apply
  // succeeded (or the keys were never set).
  std::optional<protocol::SaslCredentials> sasl() const;

  // Applies k=v pairs with Kafka's keys; an unknown key or bad value is an error naming it, and
  // heartbeat.interval.ms must stay below session.timeout.ms.
  Status apply(const std::map<std::string, std::string>& settings);
};

const ConfigDef<ConsumerConfig>& consumer_config_def();

}  // namespace gregor::client
