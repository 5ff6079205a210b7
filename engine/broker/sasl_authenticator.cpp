#include "engine/broker/sasl_authenticator.h"

#include "engine/broker/zk_data.h"
#include "engine/protocol/dispatch.h"
#include "engine/protocol/protocol.h"

namespace gregor::broker {

using protocol::ErrorCode;

namespace {

std::vector<std::string> split_list(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t at = text.find(sep, start);
    if (at == std::string::npos) at = text.size();
    std::string item = text.substr(start, at - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    start = at + 1;
  }
  return out;
}

std::string as_string(const Bytes& b) { return std::string(b.begin(), b.end()); }
Bytes as_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

// Kafka's message for a mechanism's failure that is not its own SaslAuthenticationException.
std::string generic_failure(const std::string& mechanism) {
  return "Authentication failed during authentication due to invalid credentials with SASL mechanism " + mechanism;
}

}  // namespace

SaslAuthenticator::SaslAuthenticator(Runtime& rt, const BrokerConfig& config, RequestChannel& channel, coord::ZkClient& zk)
    : rt_(rt), config_(config), channel_(channel), zk_(zk) {
  // The broker's configuration is static: which listeners need SASL is decided once, not per request.
  for (const auto& e : config_.bind_endpoints())
    if (e.security_protocol == "SASL_PLAINTEXT") sasl_listeners_.insert(e.name);
}

std::string SaslAuthenticator::user_config_path(const std::string& user) {
  // Kafka's Sanitizer: URL encoding (UTF-8), '*' as %2A and ' ' as %20.
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = "/config/users/";
  for (unsigned char ch : user) {
    if (std::isalnum(ch) || ch == '.' || ch == '-' || ch == '_') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += kHex[ch >> 4];
      out += kHex[ch & 15];
    }
  }
  return out;
}

std::vector<std::string> SaslAuthenticator::enabled_mechanisms() const {
  return split_list(config_.sasl_enabled_mechanisms, ',');
}

bool SaslAuthenticator::is_sasl_listener(NodeId from) const {
  if (sasl_listeners_.empty()) return false;  // the default, and the simulator: no SASL
  return sasl_listeners_.count(rt_.listener_name(from)) > 0;
}

bool SaslAuthenticator::intercepts(NodeId from, ByteView frame) {
  if (!is_inbound_connection(from)) return false;
  auto it = connections_.find(from.value);
  if (it == connections_.end()) {
    if (!is_sasl_listener(from)) return false;
    it = connections_.emplace(from.value, Connection{}).first;
  }
  if (it->second.state == State::kComplete) return false;
  // ApiVersions before the handshake is served as usual (clients ask it first, KIP-35/KIP-511).
  if (it->second.state == State::kHandshakeOrVersions) {
    const protocol::InboundRequest in = protocol::parse_request(frame);
    if (in.action != protocol::RequestAction::kCloseConnection && in.header.api_key == protocol::ApiKey::API_VERSIONS)
      return false;
  }
  return true;
}

std::string SaslAuthenticator::principal(NodeId peer) const {
  auto it = connections_.find(peer.value);
  if (it == connections_.end() || it->second.state != State::kComplete) return "User:ANONYMOUS";
  return "User:" + it->second.user;
}

void SaslAuthenticator::on_frame(NodeId from, Bytes frame) {
  auto it = connections_.find(from.value);
  GREGOR_ASSERT(it != connections_.end());
  Connection& c = it->second;
  switch (c.state) {
    case State::kFailed: return channel_.close(from, "SASL authentication failed");
    case State::kRawToken: return on_raw_token(from, std::move(frame));
    case State::kComplete: GREGOR_ASSERT_MSG(false, "an authenticated connection's frame reached SASL");
    case State::kHandshakeOrVersions:
    case State::kAuthenticate: break;
  }
  protocol::InboundRequest in = protocol::parse_request(as_view(frame));
  if (in.action == protocol::RequestAction::kCloseConnection) return channel_.close(from, in.error);
  if (in.action == protocol::RequestAction::kReplyUnsupportedApiVersions)
    return channel_.respond_frame(from, protocol::unsupported_api_versions_reply(in.header.correlation_id));
  const Request req{from, in.header};
  const protocol::ApiKey key = in.header.api_key;
  if (c.state == State::kHandshakeOrVersions && key == protocol::ApiKey::SASL_HANDSHAKE)
    return on_handshake(from, c, req, in.body_reader());
  if (c.state == State::kAuthenticate && key == protocol::ApiKey::SASL_AUTHENTICATE)
    return on_authenticate(from, req, in.body_reader());
  // Kafka's IllegalSaslStateException: the connection closes without an answer.
  channel_.close(from, std::string("unexpected ") + protocol::api_name(key) + " request during SASL " +
                           (c.state == State::kHandshakeOrVersions ? "handshake" : "authentication"));
}

void SaslAuthenticator::on_handshake(NodeId from, Connection& c, const Request& req, ByteReader body) {
  auto decoded = protocol::SaslHandshakeRequest::decode(body, req.header.api_version);
  if (!decoded) return channel_.close(from, "malformed SaslHandshake: " + decoded.status().to_string());
  protocol::SaslHandshakeResponse resp;
  resp.mechanisms = enabled_mechanisms();
  bool enabled = false;
  for (const auto& m : resp.mechanisms) enabled = enabled || m == decoded->mechanism;
  if (!enabled) {
    rt_.log("SASL: unsupported mechanism " + decoded->mechanism + " from connection " + std::to_string(from.value));
    resp.error_code = ErrorCode::UNSUPPORTED_SASL_MECHANISM;
    channel_.respond(req, resp);
    return fail(from, "Unsupported SASL mechanism " + decoded->mechanism);
  }
  c.mechanism = decoded->mechanism;
  c.state = req.header.api_version == 0 ? State::kRawToken : State::kAuthenticate;
  resp.error_code = ErrorCode::NONE;
  channel_.respond(req, resp);
}

void SaslAuthenticator::on_authenticate(NodeId from, const Request& req, ByteReader body) {
  auto decoded = protocol::SaslAuthenticateRequest::decode(body, req.header.api_version);
  if (!decoded) return channel_.close(from, "malformed SaslAuthenticate: " + decoded.status().to_string());
  handle_token(from, as_string(decoded->auth_bytes), [this, from, req](TokenResult r) {
    protocol::SaslAuthenticateResponse resp;
    if (r.failed) {
      resp.error_code = ErrorCode::SASL_AUTHENTICATION_FAILED;
      resp.error_message = r.message;
      channel_.respond(req, resp);
      return fail(from, r.message);
    }
    resp.error_code = ErrorCode::NONE;
    resp.auth_bytes = as_bytes(r.reply);
    resp.session_lifetime_ms = 0;  // no re-authentication (connections.max.reauth.ms unset)
    channel_.respond(req, resp);
  });
}

void SaslAuthenticator::on_raw_token(NodeId from, Bytes frame) {
  handle_token(from, as_string(frame), [this, from](TokenResult r) {
    if (r.failed) {
      // The v0 exchange has no error field: Kafka closes the connection.
      fail(from, r.message);
      return channel_.close(from, "SASL authentication failed: " + r.message);
    }
    channel_.respond_frame(from, as_bytes(r.reply));
  });
}

void SaslAuthenticator::handle_token(NodeId from, const std::string& token, TokenDone done) {
  auto it = connections_.find(from.value);
  GREGOR_ASSERT(it != connections_.end());
  Connection& c = it->second;
  // Completion is recorded before the answer goes out, so the client's next request (sent once it
  // reads the answer) is served as authenticated.
  auto finish = [this, from, done = std::move(done)](TokenResult r) {
    auto it2 = connections_.find(from.value);
    if (it2 == connections_.end()) return;  // closed while the credentials were read
    if (r.complete && !r.failed) complete(from, it2->second);
    done(std::move(r));
  };
  if (c.mechanism == "PLAIN") {
    plain_token(token, [this, from, finish](TokenResult r) {
      if (!r.failed) {
        auto it2 = connections_.find(from.value);
        if (it2 != connections_.end()) it2->second.user = r.reply;
        r.reply.clear();
        r.complete = true;
      }
      finish(std::move(r));
    });
    return;
  }
  scram_token(from, c, token, finish);
}

void SaslAuthenticator::plain_token(const std::string& token, TokenDone done) {
  // authzid NUL authcid NUL password (RFC 4616); on success the reply carries the user name.
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t nul = token.find('\0', start);
    parts.push_back(token.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  TokenResult r;
  r.failed = true;
  if (parts.size() != 3) {
    r.message = generic_failure("PLAIN");
  } else if (parts[1].empty()) {
    r.message = "Authentication failed: username not specified";
  } else if (parts[2].empty()) {
    r.message = "Authentication failed: password not specified";
  } else if (!parts[0].empty() && parts[0] != parts[1]) {
    r.message = "Authentication failed: Client requested an authorization id that is different from username";
  } else {
    bool ok = false;
    for (const std::string& entry : split_list(config_.sasl_plain_users, ',')) {
      const size_t colon = entry.find(':');
      if (colon != std::string::npos && entry.substr(0, colon) == parts[1] && entry.substr(colon + 1) == parts[2]) ok = true;
    }
    if (ok) {
      r.failed = false;
      r.reply = parts[1];
    } else {
      r.message = "Authentication failed: Invalid username or password";
    }
  }
  done(std::move(r));
}

void SaslAuthenticator::scram_token(NodeId from, Connection& c, const std::string& token, TokenDone done) {
  auto mechanism = scram::mechanism_from_name(c.mechanism);
  GREGOR_ASSERT(mechanism.has_value());
  const std::string failure = generic_failure(c.mechanism);
  if (c.scram_step == 0) {
    c.scram = std::make_unique<scram::Server>(*mechanism);
    auto user = c.scram->client_first(token);
    if (!user) {
      rt_.log("SASL " + c.mechanism + ": " + user.status().message());
      return done(failure_result(failure));
    }
    c.scram_step = 1;
    c.user = *user;
    const std::string name = c.mechanism;
    zk_.get_data(user_config_path(*user), false, [this, from, name, failure, done](coord::ZkError err, Bytes data, coord::Stat) {
      auto it = connections_.find(from.value);
      if (it == connections_.end() || !it->second.scram) return;  // closed while zk answered
      std::optional<scram::Credential> credential;
      if (err == coord::ZkError::kOk) {
        auto config = decode_topic_config(as_view(data));
        if (config) {
          auto entry = config->find(name);
          if (entry != config->end()) {
            auto parsed = scram::credential_from_string(entry->second);
            if (parsed && parsed->iterations >= scram::kIterationsMin) credential = *parsed;
          }
        }
      }
      if (!credential) {
        rt_.log("SASL " + name + ": no credentials for user " + it->second.user);
        return done(failure_result(failure));
      }
      done(reply_result(it->second.scram->server_first(*credential, server_nonce()), false));
    });
    return;
  }
  if (c.scram_step == 1) {
    c.scram_step = 2;
    auto final_message = c.scram->client_final(token);
    if (!final_message) {
      rt_.log("SASL " + c.mechanism + " for " + c.user + ": " + final_message.status().message());
      return done(failure_result(failure));
    }
    return done(reply_result(*final_message, true));
  }
  done(failure_result(failure));
}

void SaslAuthenticator::complete(NodeId from, Connection& c) {
  c.state = State::kComplete;
  c.scram.reset();
  rt_.log("SASL: connection " + std::to_string(from.value) + " authenticated as User:" + c.user + " (" + c.mechanism + ")");
}

void SaslAuthenticator::fail(NodeId from, const std::string& why) {
  auto it = connections_.find(from.value);
  if (it == connections_.end()) return;
  it->second.state = State::kFailed;
  it->second.scram.reset();
  rt_.log("SASL: connection " + std::to_string(from.value) + " failed authentication: " + why);
  // The answer is on its way; the connection closes a little later, as Kafka's
  // connection.failed.authentication.delay.ms, or at the client's next frame.
  rt_.after(Duration::millis(config_.connection_failed_authentication_delay_ms), [this, from] {
    auto it2 = connections_.find(from.value);
    if (it2 != connections_.end() && it2->second.state == State::kFailed) channel_.close(from, "SASL authentication failed");
  });
}

void SaslAuthenticator::alter_scram_credential(const std::string& user, scram::Mechanism mechanism,
                                               std::optional<scram::Credential> credential,
                                               std::function<void(bool, bool)> done) {
  const std::string path = user_config_path(user);
  const std::string key = scram::mechanism_name(mechanism);
  auto write = [this, path, key, credential, done](std::map<std::string, std::string> config, std::optional<int32_t> version) {
    if (credential) {
      config[key] = scram::credential_to_string(*credential);
    } else if (!config.erase(key)) {
      return done(false, true);
    }
    Bytes data = encode_topic_config(config);
    if (version) {
      zk_.set_data(path, std::move(data), *version, [done](coord::ZkError err, coord::Stat) { done(err == coord::ZkError::kOk, false); });
      return;
    }
    zk_.create("/config/users", std::nullopt, coord::CreateMode::kPersistent, [](coord::ZkError, std::string) {});
    zk_.create(path, std::move(data), coord::CreateMode::kPersistent,
               [done](coord::ZkError err, std::string) { done(err == coord::ZkError::kOk, false); });
  };
  zk_.get_data(path, false, [path, write, done](coord::ZkError err, Bytes data, coord::Stat stat) {
    if (err == coord::ZkError::kNoNode) return write({}, std::nullopt);
    if (err != coord::ZkError::kOk) return done(false, false);
    auto config = decode_topic_config(as_view(data));
    if (!config) return done(false, false);
    write(*config, stat.version);
  });
}

std::string SaslAuthenticator::server_nonce() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string nonce;
  for (int i = 0; i < 32; i++) nonce += kAlphabet[rt_.rng().uniform(sizeof(kAlphabet) - 1)];
  return nonce;
}

}  // namespace gregor::broker
