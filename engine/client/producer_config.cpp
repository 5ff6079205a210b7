#include "engine/client/producer_config.h"

#include "engine/client/security_keys.h"

namespace gregor::client {

const ConfigDef<ProducerConfig>& producer_config_def() {
  static const ConfigDef<ProducerConfig> def = [] {
    constexpr ConfigUpdate kDynamic = ConfigUpdate::kDynamic;
    ConfigDef<ProducerConfig> d("producer");
    d.define_custom(
        "acks", ConfigType::kString, "one of: all, -1, 0, 1",
        "How many replicas must have a write before it is acknowledged: 0 none (no response), 1 the leader, all "
        "(-1) every in-sync replica.",
        kDynamic,
        [](ProducerConfig& c, const std::string& key, const std::string& value) {
          if (value == "all" || value == "-1") c.acks = -1;
          else if (value == "1") c.acks = 1;
          else if (value == "0") c.acks = 0;
          else return Status::error(StatusCode::kInvalidArgument, key + ": expected all, -1, 0 or 1, got '" + value + "'");
          return Status::ok();
        },
        [](const ProducerConfig& c) { return c.acks == -1 ? std::string("all") : std::to_string(c.acks); });
    d.define("batch.size", &ProducerConfig::batch_size, at_least(0),
             "A partition's batch is sent once it holds this many bytes of records.", kDynamic);
    define_security_keys(d);
    d.define("client.id", &ProducerConfig::client_id, {}, "The producer's name in requests and traces.");
    d.define("compression.type", &ProducerConfig::compression_type, {"none", "gzip", "snappy", "lz4", "zstd"},
             "The codec a batch's records are compressed with (the broker decompresses and checks them on append).",
             kDynamic);
    d.define("delivery.timeout.ms", &ProducerConfig::delivery_timeout_ms, at_least(1),
             "A record fails when it is not acknowledged this long after send(), retries included.", kDynamic);
    d.define("enable.idempotence", &ProducerConfig::enable_idempotence,
             "Take a producer id and number every batch, so that a retried batch is never written twice (KIP-98); "
             "forces acks=all.");
    d.define("linger.ms", &ProducerConfig::linger_ms, at_least(0),
             "How long a batch waits for more records before it is sent.", kDynamic);
    d.define("max.in.flight.requests.per.connection", &ProducerConfig::max_in_flight_requests_per_connection,
             at_least(1), "The most unanswered Produce requests to one broker.");
    d.define("metadata.max.age.ms", &ProducerConfig::metadata_max_age_ms, at_least(1),
             "Metadata is refreshed at least this often, even without errors.");
    d.define("request.timeout.ms", &ProducerConfig::request_timeout_ms, at_least(1),
             "How long the producer waits for a broker's answer before it retries.", kDynamic);
    d.define("retries", &ProducerConfig::retries, at_least(0), "How often a failed batch is sent again.");
    d.define("retry.backoff.ms", &ProducerConfig::retry_backoff_ms, at_least(0),
             "How long a failed batch waits before it is sent again.", kDynamic);
    d.define("transaction.timeout.ms", &ProducerConfig::transaction_timeout_ms, between(1, INT32_MAX),
             "How long the transaction coordinator waits for a transaction to end before it aborts it.");
    d.define("transactional.id", &ProducerConfig::transactional_id, {},
             "Makes the producer transactional (and idempotent): the id names it across restarts, so a new "
             "instance fences the old one and ends what it left open.");
    return d;
  }();
  return def;
}

Status ProducerConfig::apply(const std::map<std::string, std::string>& settings) {
  GREGOR_RETURN_IF_ERROR(producer_config_def().apply(*this, settings));
  return protocol::sasl_credentials_from(security).status();
}

std::optional<protocol::SaslCredentials> ProducerConfig::sasl() const {
  auto credentials = protocol::sasl_credentials_from(security);
  GREGOR_ASSERT_MSG(credentials.is_ok(), credentials.status().message());
  return *credentials;
}

}  // namespace gregor::client
