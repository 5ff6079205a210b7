// The client side of SASL, as Kafka's SaslClientAuthenticator does it: what a client configures
// (Kafka's client keys) and the exchange one connection goes through before its first request.
//
// Client keys (Kafka's; the last two are librdkafka's, accepted as a shorter form):
//   security.protocol   PLAINTEXT (default) or SASL_PLAINTEXT; SSL and SASL_SSL are refused
//   sasl.mechanism      PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (Kafka's default GSSAPI is refused)
//   sasl.jaas.config    org.apache.kafka.common.security.plain.PlainLoginModule required
//                         username="u" password="p";   (or ...scram.ScramLoginModule for SCRAM)
//   sasl.username / sasl.password   the same credentials without JAAS
//
// The exchange on one connection (SaslSession; the NetworkClient drives it):
//   ApiVersions (v3)       the broker must list SaslHandshake v1 and SaslAuthenticate;
//   SaslHandshake v1       the mechanism; UNSUPPORTED_SASL_MECHANISM (33) names the enabled ones;
//   SaslAuthenticate v2    PLAIN: one token "\0user\0password"; SCRAM: client-first, then
//                          client-final for the server-first, then the server-final's signature is
//                          checked (a wrong one fails: a server that does not know the password);
// A failure is SASL_AUTHENTICATION_FAILED (58) with the server's message (or the client's, for a
// bad server signature), UNSUPPORTED_SASL_MECHANISM, or ILLEGAL_SASL_STATE for a broker that does
// not serve SASL v1.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/bytes.h"
#include "engine/core/scram.h"
#include "engine/core/status.h"
#include "engine/protocol/errors.h"

namespace gregor::protocol {

// One client's credentials for one mechanism.
struct SaslCredentials {
  std::string mechanism;  // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
  std::string username;
  std::string password;
  bool operator==(const SaslCredentials&) const = default;
};

// The login module and options of a sasl.jaas.config value.
struct JaasConfig {
  std::string login_module;  // e.g. org.apache.kafka.common.security.plain.PlainLoginModule
  std::string flag;          // required, requisite, sufficient or optional
  std::map<std::string, std::string> options;
};
// Parses Kafka's JAAS text: `<LoginModule> <flag> key="value" key2=value2;` (one module, the
// trailing ';' required, values quoted with \" and \\ escapes or bare words).
Result<JaasConfig> parse_jaas_config(std::string_view text);

// The client security keys (above) as given; unset keys empty.
struct ClientSecurityKeys {
  std::string security_protocol;
  std::string sasl_mechanism;
  std::string sasl_jaas_config;
  std::string sasl_username;
  std::string sasl_password;
  // Takes the keys above out of a client's properties (others stay); true when any was found.
  bool take_from(std::map<std::string, std::string>& properties);
};
// nullopt for PLAINTEXT; the credentials for SASL_PLAINTEXT; an error naming the key otherwise
// (an unknown protocol or mechanism, GSSAPI, no credentials, a JAAS module of another mechanism).
Result<std::optional<SaslCredentials>> sasl_credentials_from(const ClientSecurityKeys& keys);

// Where one connection's exchange stands. The NetworkClient sends what next_request() says and
// feeds each response to on_*; the session is done when ready() or failed().
class SaslSession {
 public:
  // REQUIRES: credentials.mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512. nonce: SCRAM's client
  // nonce (printable, no ','); the caller draws it from its Runtime's RNG.
  SaslSession(SaslCredentials credentials, std::string nonce);

  struct Outcome {
    ErrorCode error = ErrorCode::NONE;  // NONE: go on (or done, see ready())
    std::string message;
  };
  // ApiVersions' answer: the broker's range for SaslHandshake and SaslAuthenticate (-1: absent).
  Outcome on_api_versions(int16_t handshake_max, int16_t authenticate_max);
  // The handshake's answer: its error and the broker's enabled mechanisms.
  Outcome on_handshake(ErrorCode error, const std::vector<std::string>& mechanisms);
  // The first token to send after the handshake.
  Bytes first_token();
  // A SaslAuthenticate answer; *next is the token to send next when the exchange goes on.
  Outcome on_authenticate(ErrorCode error, const std::optional<std::string>& message, const Bytes& token,
                          std::optional<Bytes>* next);
  bool ready() const { return ready_; }
  const std::string& mechanism() const { return credentials_.mechanism; }
  int16_t authenticate_version() const { return authenticate_version_; }

 private:
  SaslCredentials credentials_;
  std::string nonce_;
  std::unique_ptr<scram::Client> scram_;
  int scram_step_ = 0;
  int16_t authenticate_version_ = 2;
  bool ready_ = false;
};

}  // namespace gregor::protocol
