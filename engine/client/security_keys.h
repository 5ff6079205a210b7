// The client keys of SASL sign-in (security.protocol, sasl.mechanism, sasl.jaas.config and
// librdkafka's sasl.username / sasl.password), defined once for every client config that holds a
// protocol::ClientSecurityKeys named `security` (the producer's and the consumer's).
#pragma once

#include <string>

#include "engine/core/config_def.h"
#include "engine/protocol/sasl_client.h"

namespace gregor::client {

template <typename Config>
void define_security_keys(ConfigDef<Config>& d) {
  auto key = [&d](const char* name, std::string protocol::ClientSecurityKeys::*field, const char* doc) {
    d.define_custom(
        name, ConfigType::kString, "any", doc, ConfigUpdate::kStatic,
        [field](Config& c, const std::string&, const std::string& value) {
          c.security.*field = value;
          return Status::ok();
        },
        [field](const Config& c) { return c.security.*field; });
  };
  key("security.protocol", &protocol::ClientSecurityKeys::security_protocol,
      "PLAINTEXT (default) or SASL_PLAINTEXT: whether connections authenticate with SASL.");
  key("sasl.mechanism", &protocol::ClientSecurityKeys::sasl_mechanism,
      "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (Kafka's default GSSAPI is refused).");
  key("sasl.jaas.config", &protocol::ClientSecurityKeys::sasl_jaas_config,
      "The login module with username=\"...\" password=\"...\" (Kafka's PlainLoginModule or ScramLoginModule). Sensitive.");
  key("sasl.username", &protocol::ClientSecurityKeys::sasl_username, "librdkafka's SASL user name (instead of sasl.jaas.config).");
  key("sasl.password", &protocol::ClientSecurityKeys::sasl_password, "librdkafka's SASL password. Sensitive.");
}

}  // namespace gregor::client
