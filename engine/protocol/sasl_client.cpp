#include "engine/protocol/sasl_client.h"

#include <cctype>

namespace gregor::protocol {

namespace {

Status bad(const std::string& key, const std::string& why) {
  return Status::error(StatusCode::kInvalidArgument, key + ": " + why);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

constexpr std::string_view kPlainModule = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr std::string_view kScramModule = "org.apache.kafka.common.security.scram.ScramLoginModule";

}  // namespace

Result<JaasConfig> parse_jaas_config(std::string_view text) {
  const std::string key = "sasl.jaas.config";
  // Bounded: a JAAS value is a line of a properties file, not a document.
  if (text.size() > 64 * 1024) return bad(key, "longer than 65536 characters");
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && is_space(text[i])) i++;
  };
  auto word = [&] {
    size_t start = i;
    while (i < text.size() && !is_space(text[i]) && text[i] != '=' && text[i] != ';' && text[i] != '"') i++;
    return std::string(text.substr(start, i - start));
  };
  JaasConfig out;
  skip();
  out.login_module = word();
  if (out.login_module.empty()) return bad(key, "expected a login module class name");
  skip();
  out.flag = word();
  if (out.flag != "required" && out.flag != "requisite" && out.flag != "sufficient" && out.flag != "optional")
    return bad(key, "expected a control flag (required, requisite, sufficient or optional) after " + out.login_module);
  while (true) {
    skip();
    if (i >= text.size()) return bad(key, "expected ';' at the end of the login module's options");
    if (text[i] == ';') {
      i++;
      skip();
      if (i != text.size()) return bad(key, "one login module expected; text follows ';'");
      return out;
    }
    const std::string name = word();
    if (name.empty()) return bad(key, std::string("unexpected '") + text[i] + "' in the options");
    skip();
    if (i >= text.size() || text[i] != '=') return bad(key, "option " + name + " has no '=value'");
    i++;
    skip();
    std::string value;
    if (i < text.size() && text[i] == '"') {
      i++;
      bool closed = false;
      while (i < text.size()) {
        char c = text[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\' && i < text.size()) c = text[i++];
        value += c;
      }
      if (!closed) return bad(key, "option " + name + ": unterminated quoted value");
    } else {
      value = word();
      if (value.empty()) return bad(key, "option " + name + " has an empty value");
    }
    out.options[name] = value;
  }
}

bool ClientSecurityKeys::take_from(std::map<std::string, std::string>& properties) {
  bool found = false;
  auto take = [&](const char* name, std::string& field) {
    auto it = properties.find(name);
    if (it == properties.end()) return;
    field = it->second;
    properties.erase(it);
    found = true;
  };
  take("security.protocol", security_protocol);
  take("sasl.mechanism", sasl_mechanism);
  take("sasl.jaas.config", sasl_jaas_config);
  take("sasl.username", sasl_username);
  take("sasl.password", sasl_password);
  return found;
}

Result<std::optional<SaslCredentials>> sasl_credentials_from(const ClientSecurityKeys& keys) {
  std::string protocol = keys.security_protocol.empty() ? "PLAINTEXT" : keys.security_protocol;
  for (char& c : protocol) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (protocol == "PLAINTEXT") return std::optional<SaslCredentials>{};
  if (protocol == "SSL" || protocol == "SASL_SSL")
    return bad("security.protocol", protocol + " is not supported: Gregor has no TLS (use PLAINTEXT or SASL_PLAINTEXT)");
  if (protocol != "SASL_PLAINTEXT")
    return bad("security.protocol", "expected PLAINTEXT or SASL_PLAINTEXT, got '" + keys.security_protocol + "'");
  SaslCredentials c;
  // Kafka's default mechanism is GSSAPI (Kerberos), which Gregor does not speak.
  c.mechanism = keys.sasl_mechanism.empty() ? "GSSAPI" : keys.sasl_mechanism;
  if (c.mechanism != "PLAIN" && !scram::mechanism_from_name(c.mechanism))
    return bad("sasl.mechanism", "'" + c.mechanism +
                                     "' is not supported (use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; GSSAPI, Kafka's "
                                     "default, and OAUTHBEARER are not implemented)");
  if (!keys.sasl_jaas_config.empty()) {
    auto jaas = parse_jaas_config(keys.sasl_jaas_config);
    if (!jaas) return jaas.status();
    const std::string_view want = c.mechanism == "PLAIN" ? kPlainModule : kScramModule;
    if (jaas->login_module != want)
      return bad("sasl.jaas.config", "sasl.mechanism " + c.mechanism + " needs " + std::string(want) + ", got " +
                                         jaas->login_module);
    auto user = jaas->options.find("username");
    auto password = jaas->options.find("password");
    if (user == jaas->options.end() || password == jaas->options.end())
      return bad("sasl.jaas.config", "needs username=\"...\" and password=\"...\"");
    c.username = user->second;
    c.password = password->second;
  } else {
    c.username = keys.sasl_username;
    c.password = keys.sasl_password;
  }
  if (c.username.empty() || c.password.empty())
    return bad("sasl.jaas.config",
               "SASL_PLAINTEXT needs a user name and password (sasl.jaas.config, or sasl.username and sasl.password)");
  return std::optional<SaslCredentials>{c};
}

SaslSession::SaslSession(SaslCredentials credentials, std::string nonce)
    : credentials_(std::move(credentials)), nonce_(std::move(nonce)) {
  if (auto m = scram::mechanism_from_name(credentials_.mechanism)) {
    scram_ = std::make_unique<scram::Client>(*m, credentials_.username, credentials_.password);
  } else {
    GREGOR_ASSERT_MSG(credentials_.mechanism == "PLAIN", "SASL mechanism " + credentials_.mechanism);
  }
}

SaslSession::Outcome SaslSession::on_api_versions(int16_t handshake_max, int16_t authenticate_max) {
  // Kafka's client needs the v1 handshake, with the exchange in SaslAuthenticate requests.
  if (handshake_max < 1 || authenticate_max < 0)
    return {ErrorCode::ILLEGAL_SASL_STATE, "the broker does not support SaslHandshake v1 and SaslAuthenticate"};
  authenticate_version_ = std::min<int16_t>(authenticate_max, 2);
  return {};
}

SaslSession::Outcome SaslSession::on_handshake(ErrorCode error, const std::vector<std::string>& mechanisms) {
  if (error == ErrorCode::NONE) return {};
  if (error == ErrorCode::UNSUPPORTED_SASL_MECHANISM) {
    std::string list;
    for (const auto& m : mechanisms) list += (list.empty() ? "" : ", ") + m;
    return {error, "Client SASL mechanism '" + credentials_.mechanism +
                       "' not enabled in the server, enabled mechanisms are [" + list + "]"};
  }
  return {error, std::string("SaslHandshake failed: ") + error_name(error)};
}

Bytes SaslSession::first_token() {
  std::string token;
  if (scram_) {
    token = scram_->client_first(nonce_);
    scram_step_ = 1;
  } else {
    token = std::string(1, '\0') + credentials_.username + '\0' + credentials_.password;
  }
  return Bytes(token.begin(), token.end());
}

SaslSession::Outcome SaslSession::on_authenticate(ErrorCode error, const std::optional<std::string>& message,
                                                  const Bytes& token, std::optional<Bytes>* next) {
  next->reset();
  if (error != ErrorCode::NONE) {
    std::string text = message && !message->empty() ? *message : std::string(error_name(error));
    return {error, text};
  }
  const std::string received(token.begin(), token.end());
  if (!scram_) {
    ready_ = true;  // PLAIN is one round trip
    return {};
  }
  if (scram_step_ == 1) {
    auto final_message = scram_->client_final(received);
    if (!final_message) return {ErrorCode::SASL_AUTHENTICATION_FAILED, final_message.status().message()};
    scram_step_ = 2;
    *next = Bytes(final_message->begin(), final_message->end());
    return {};
  }
  // server-final: the server proves it knows the credential; a wrong signature fails the exchange.
  Status verified = scram_->server_final(received);
  if (!verified.is_ok()) return {ErrorCode::SASL_AUTHENTICATION_FAILED, verified.message()};
  ready_ = true;
  return {};
}

}  // namespace gregor::protocol
