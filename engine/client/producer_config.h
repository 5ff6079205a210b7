// ProducerConfig: a producer's settings, with Kafka's keys and the Java client's defaults, each
// declared once (producer_config_def). The dynamic ones may change in a running producer
// (Producer::reconfigure: a scenario's set-config, the dashboard).
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

struct ProducerConfig {
  std::string client_id = "producer";
  std::vector<NodeId> bootstrap_servers;
  int16_t acks = -1;  // "all"
  int32_t batch_size = 16384;
  int64_t linger_ms = 5;
  int64_t request_timeout_ms = 30000;
  int64_t delivery_timeout_ms = 120000;
  int64_t retry_backoff_ms = 100;
  int32_t retries = INT32_MAX;
  int32_t max_in_flight_requests_per_connection = 5;
  bool enable_idempotence = false;
  std::string compression_type = "none";  // none, gzip, snappy, lz4 or zstd
  int64_t metadata_max_age_ms = 300000;
  // Transactions (KIP-98): a non-empty transactional.id makes the producer transactional (and
  // idempotent); transaction.timeout.ms is how long the coordinator lets a transaction stay open.
  std::string transactional_id;  // "" is Kafka's null
  int64_t transaction_timeout_ms = 60000;

  // Kafka's client security keys (engine/protocol/sasl_client.h): security.protocol,
  // sasl.mechanism, sasl.jaas.config (sensitive), and librdkafka's sasl.username / sasl.password.
  protocol::ClientSecurityKeys security;
  // The credentials every connection authenticates with; nullopt for PLAINTEXT. REQUIRES: apply
  // succeeded (or the keys were never set).
  std::optional<protocol::SaslCredentials> sasl() const;

  // Applies k=v pairs with Kafka's keys; an unknown key or bad value is an error naming it.
  Status apply(const std::map<std::string, std::string>& settings);
};

const ConfigDef<ProducerConfig>& producer_config_def();

}  // namespace gregor::client
