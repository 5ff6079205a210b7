// SaslAuthenticator: SASL authentication of the connections that arrive on a SASL_PLAINTEXT
// listener, as Kafka's SaslServerAuthenticator does it, and the principal of every connection.
//
// A connection on a SASL_PLAINTEXT listener must authenticate before any other request:
//   ApiVersions      allowed (clients ask it first), answered as usual;
//   SaslHandshake    names a mechanism of sasl.enabled.mechanisms (PLAIN, SCRAM-SHA-256,
//                    SCRAM-SHA-512); another is answered UNSUPPORTED_SASL_MECHANISM (33) with the
//                    enabled list and the connection closes. v1: the exchange follows in
//                    SaslAuthenticate requests; v0 (older clients): as raw size-prefixed tokens,
//                    each answered by a raw size-prefixed token;
//   SaslAuthenticate the mechanism's tokens (v0-2). A failure is answered SASL_AUTHENTICATION_FAILED
//                    (58) with Kafka's message, and the connection closes
//                    connection.failed.authentication.delay.ms later (or at the client's next frame);
//   anything else    closes the connection (Kafka's IllegalSaslStateException).
// Users: PLAIN's from sasl.plain.users (user:password,...), SCRAM's credentials from zk
// /config/users/<name> as Kafka stores them ({"version":1,"config":{"SCRAM-SHA-256":
// "salt=...,stored_key=...,server_key=...,iterations=4096"}}), read at each authentication. The
// SCRAM server nonce comes from the Runtime's RNG.
//
// The principal is User:<name> once authenticated, User:ANONYMOUS on a PLAINTEXT listener (and in
// the simulator, whose connections have no listener).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "engine/broker/broker_config.h"
#include "engine/broker/request_channel.h"
#include "engine/coord/zk_client.h"
#include "engine/core/runtime.h"
#include "engine/core/scram.h"

namespace gregor::broker {

class SaslAuthenticator {
 public:
  SaslAuthenticator(Runtime& rt, const BrokerConfig& config, RequestChannel& channel, coord::ZkClient& zk);

  // Whether a frame from this inbound connection belongs to authentication (it must then go to
  // on_frame, not to the request handlers): its listener is SASL_PLAINTEXT, it has not
  // authenticated yet, and the frame is not an ApiVersions request before the handshake.
  bool intercepts(NodeId from, ByteView frame);
  // Serves one frame of the exchange; answers or closes through the channel.
  void on_frame(NodeId from, Bytes frame);
  void on_disconnect(NodeId peer) { connections_.erase(peer.value); }

  // "User:alice" for a connection that authenticated as alice; "User:ANONYMOUS" otherwise.
  std::string principal(NodeId peer) const;
  // The SASL_PLAINTEXT listener's mechanisms (sasl.enabled.mechanisms).
  std::vector<std::string> enabled_mechanisms() const;

  // Sets (credential) or removes (nullopt) one user's credential for one mechanism in zk
  // /config/users/<name>, keeping the user's others; done(ok, missing): missing when a removal
  // found nothing to remove. The next authentication reads the new credential.
  void alter_scram_credential(const std::string& user, scram::Mechanism mechanism,
                              std::optional<scram::Credential> credential, std::function<void(bool ok, bool missing)> done);

  // The znode of a user's SCRAM credentials: /config/users/<name>, the name URL-encoded as
  // Kafka's Sanitizer does.
  static std::string user_config_path(const std::string& user);

 private:
  enum class State { kHandshakeOrVersions, kAuthenticate, kRawToken, kComplete, kFailed };
  struct Connection {
    State state = State::kHandshakeOrVersions;
    std::string mechanism;
    std::unique_ptr<scram::Server> scram;  // SCRAM's exchange between its two steps
    int scram_step = 0;
    std::string user;
  };
  // The outcome of one token: the bytes to answer, or a failure message for the client.
  struct TokenResult {
    bool failed = false;
    std::string message;  // for a failure
    std::string reply;
    bool complete = false;
  };
  static TokenResult failure_result(std::string message) {
    TokenResult r;
    r.failed = true;
    r.message = std::move(message);
    return r;
  }
  static TokenResult reply_result(std::string reply, bool complete) {
    TokenResult r;
    r.reply = std::move(reply);
    r.complete = complete;
    return r;
  }
  using TokenDone = std::function<void(TokenResult)>;

  bool is_sasl_listener(NodeId from) const;
  void on_handshake(NodeId from, Connection& c, const Request& req, ByteReader body);
  void on_authenticate(NodeId from, const Request& req, ByteReader body);
  void on_raw_token(NodeId from, Bytes frame);
  void handle_token(NodeId from, const std::string& token, TokenDone done);
  void plain_token(const std::string& token, TokenDone done);
  void scram_token(NodeId from, Connection& c, const std::string& token, TokenDone done);
  void complete(NodeId from, Connection& c);
  void fail(NodeId from, const std::string& why);
  std::string server_nonce();

  Runtime& rt_;
  const BrokerConfig& config_;
  RequestChannel& channel_;
  coord::ZkClient& zk_;
  std::set<std::string> sasl_listeners_;       // names of the SASL_PLAINTEXT listeners (read once)
  std::map<int32_t, Connection> connections_;  // inbound connections on SASL listeners
};

}  // namespace gregor::broker
