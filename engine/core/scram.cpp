#include "engine/core/scram.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <vector>

#include "engine/core/assert.h"

namespace gregor::scram {

namespace {

const EVP_MD* digest(Mechanism m) { return m == Mechanism::kSha256 ? EVP_sha256() : EVP_sha512(); }

std::string hmac(Mechanism m, std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int len = 0;
  const unsigned char* r = HMAC(digest(m), key.data(), static_cast<int>(key.size()),
                                reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &len);
  GREGOR_ASSERT_MSG(r != nullptr, "HMAC failed");
  return std::string(reinterpret_cast<const char*>(out.data()), len);
}

std::string hash(Mechanism m, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int len = 0;
  const int ok = EVP_Digest(data.data(), data.size(), out.data(), &len, digest(m), nullptr);
  GREGOR_ASSERT_MSG(ok == 1, "digest failed");
  return std::string(reinterpret_cast<const char*>(out.data()), len);
}

std::string xor_bytes(std::string_view a, std::string_view b) {
  GREGOR_ASSERT(a.size() == b.size());
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); i++) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

// Constant-time comparison: a proof check must not tell how many bytes matched.
bool equal_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); i++) diff = static_cast<unsigned char>(diff | (a[i] ^ b[i]));
  return diff == 0;
}

Status bad(std::string why) { return Status::error(StatusCode::kInvalidArgument, std::move(why)); }

// "a=b" attribute at the start of part, or nullopt.
std::optional<std::string_view> attribute(std::string_view part, char name) {
  if (part.size() < 2 || part[0] != name || part[1] != '=') return std::nullopt;
  return part.substr(2);
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

// RFC 5802 saslname: ',' is "=2C" and '=' is "=3D"; any other '=' is malformed.
std::optional<std::string> unescape_name(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] != '=') {
      out += s[i];
      continue;
    }
    if (s.substr(i, 3) == "=2C") out += ',';
    else if (s.substr(i, 3) == "=3D") out += '=';
    else return std::nullopt;
    i += 2;
  }
  return out;
}

std::string escape_name(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == ',') out += "=2C";
    else if (ch == '=') out += "=3D";
    else out += ch;
  }
  return out;
}

bool printable_nonce(std::string_view nonce) {
  if (nonce.empty()) return false;
  for (char ch : nonce)
    if (ch < 0x21 || ch > 0x7e || ch == ',') return false;
  return true;
}

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::optional<Mechanism> mechanism_from_name(std::string_view name) {
  if (name == "SCRAM-SHA-256") return Mechanism::kSha256;
  if (name == "SCRAM-SHA-512") return Mechanism::kSha512;
  return std::nullopt;
}
const char* mechanism_name(Mechanism m) { return m == Mechanism::kSha256 ? "SCRAM-SHA-256" : "SCRAM-SHA-512"; }
int8_t mechanism_id(Mechanism m) { return m == Mechanism::kSha256 ? 1 : 2; }

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64[v & 63] : '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  auto value = [](char ch) -> int {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; k++) {
      const char ch = text[i + static_cast<size_t>(k)];
      if (ch == '=' && last && k >= 2) {
        pad++;
        v[k] = 0;
        continue;
      }
      if (pad > 0) return std::nullopt;  // data after padding
      v[k] = value(ch);
      if (v[k] < 0) return std::nullopt;
    }
    const uint32_t n = static_cast<uint32_t>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
    out += static_cast<char>((n >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((n >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(n & 0xff);
  }
  return out;
}

std::string credential_to_string(const Credential& c) {
  return "salt=" + base64_encode(c.salt) + ",stored_key=" + base64_encode(c.stored_key) +
         ",server_key=" + base64_encode(c.server_key) + ",iterations=" + std::to_string(c.iterations);
}

Result<Credential> credential_from_string(std::string_view text) {
  Credential c;
  bool salt = false, stored = false, server = false, iterations = false;
  for (std::string_view part : split(text, ',')) {
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) return bad("SCRAM credential part '" + std::string(part) + "' is not key=value");
    const std::string_view key = part.substr(0, eq), value = part.substr(eq + 1);
    if (key == "iterations") {
      int64_t n = 0;
      if (value.empty() || value.size() > 9) return bad("SCRAM credential iterations '" + std::string(value) + "'");
      for (char ch : value) {
        if (ch < '0' || ch > '9') return bad("SCRAM credential iterations '" + std::string(value) + "'");
        n = n * 10 + (ch - '0');
      }
      c.iterations = static_cast<int32_t>(n);
      iterations = true;
      continue;
    }
    auto decoded = base64_decode(value);
    if (!decoded) return bad("SCRAM credential " + std::string(key) + " is not base64");
    if (key == "salt") c.salt = *decoded, salt = true;
    else if (key == "stored_key") c.stored_key = *decoded, stored = true;
    else if (key == "server_key") c.server_key = *decoded, server = true;
    else return bad("SCRAM credential has an unknown part '" + std::string(key) + "'");
  }
  if (!salt || !stored || !server || !iterations) return bad("SCRAM credential lacks salt, stored_key, server_key or iterations");
  return c;
}

std::string salted_password(Mechanism m, std::string_view password, std::string_view salt, int32_t iterations) {
  GREGOR_ASSERT(iterations > 0);
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  const int len = EVP_MD_get_size(digest(m));
  const int ok = PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                                   reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()),
                                   iterations, digest(m), len, out.data());
  GREGOR_ASSERT_MSG(ok == 1, "PBKDF2 failed");
  return std::string(reinterpret_cast<const char*>(out.data()), static_cast<size_t>(len));
}

Credential credential_from_salted(Mechanism m, std::string_view salted, std::string_view salt, int32_t iterations) {
  Credential c;
  c.salt = std::string(salt);
  c.iterations = iterations;
  c.stored_key = hash(m, hmac(m, salted, "Client Key"));
  c.server_key = hmac(m, salted, "Server Key");
  return c;
}

Credential make_credential(Mechanism m, std::string_view password, std::string_view salt, int32_t iterations) {
  return credential_from_salted(m, salted_password(m, password, salt, iterations), salt, iterations);
}

// ---- Server ----------------------------------------------------------------------------------

Result<std::string> Server::client_first(std::string_view message) {
  // gs2-header: "n" or "y" (no channel binding), an optional authzid, then the bare message.
  auto parts = split(message, ',');
  if (parts.size() < 4 || (parts[0] != "n" && parts[0] != "y"))
    return bad("Invalid SCRAM client first message");
  if (!parts[1].empty() && !attribute(parts[1], 'a')) return bad("Invalid SCRAM client first message");
  auto name = attribute(parts[2], 'n');
  auto nonce = attribute(parts[3], 'r');
  if (!name || !nonce || !printable_nonce(*nonce)) return bad("Invalid SCRAM client first message");
  auto user = unescape_name(*name);
  if (!user || user->empty()) return bad("Invalid SCRAM client first message");
  if (!parts[1].empty()) {
    auto authzid = unescape_name(*attribute(parts[1], 'a'));
    if (!authzid || (!authzid->empty() && *authzid != *user))
      return bad("Authentication failed: Client requested an authorization id that is different from username");
  }
  user_ = *user;
  client_nonce_ = std::string(*nonce);
  client_first_bare_ = std::string(message.substr(parts[0].size() + parts[1].size() + 2));
  return user_;
}

std::string Server::server_first(const Credential& credential, std::string_view server_nonce) {
  GREGOR_ASSERT(!client_nonce_.empty());
  credential_ = credential;
  nonce_ = client_nonce_ + std::string(server_nonce);
  server_first_ = "r=" + nonce_ + ",s=" + base64_encode(credential.salt) + ",i=" + std::to_string(credential.iterations);
  return server_first_;
}

Result<std::string> Server::client_final(std::string_view message) {
  GREGOR_ASSERT(!server_first_.empty());
  const size_t proof_at = message.rfind(",p=");
  if (proof_at == std::string_view::npos) return bad("Invalid SCRAM client final message");
  const std::string_view without_proof = message.substr(0, proof_at);
  auto parts = split(without_proof, ',');
  if (parts.size() < 2) return bad("Invalid SCRAM client final message");
  auto channel = attribute(parts[0], 'c');
  auto nonce = attribute(parts[1], 'r');
  if (!channel || !nonce) return bad("Invalid SCRAM client final message");
  auto channel_bytes = base64_decode(*channel);
  if (!channel_bytes || (channel_bytes->rfind("n,", 0) != 0 && channel_bytes->rfind("y,", 0) != 0))
    return bad("Invalid SCRAM client final message");
  // Kafka's ScramSaslServer checks only that the nonce ends with the server's part, and librdkafka
  // (2.0) relies on it: its final nonce is the client nonce followed by the server's whole one.
  const std::string_view server_part = std::string_view(nonce_).substr(client_nonce_.size());
  if (nonce->size() < server_part.size() || nonce->substr(nonce->size() - server_part.size()) != server_part)
    return bad("Invalid client nonce in the final client message.");
  auto proof = base64_decode(message.substr(proof_at + 3));
  if (!proof) return bad("Invalid SCRAM client final message");
  const std::string auth_message = client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  const std::string client_signature = hmac(mechanism_, credential_.stored_key, auth_message);
  if (proof->size() != client_signature.size()) return bad("Invalid client credentials");
  const std::string client_key = xor_bytes(*proof, client_signature);
  if (!equal_secret(hash(mechanism_, client_key), credential_.stored_key)) return bad("Invalid client credentials");
  return "v=" + base64_encode(hmac(mechanism_, credential_.server_key, auth_message));
}

// ---- Client ----------------------------------------------------------------------------------

std::string Client::client_first(std::string_view client_nonce) {
  client_nonce_ = std::string(client_nonce);
  client_first_bare_ = "n=" + escape_name(user_) + ",r=" + client_nonce_;
  return "n,," + client_first_bare_;
}

Result<std::string> Client::client_final(std::string_view server_first) {
  auto parts = split(server_first, ',');
  if (parts.size() < 3) return bad("Invalid SCRAM server first message");
  auto nonce = attribute(parts[0], 'r');
  auto salt_text = attribute(parts[1], 's');
  auto iterations_text = attribute(parts[2], 'i');
  if (!nonce || !salt_text || !iterations_text) return bad("Invalid SCRAM server first message");
  if (nonce->size() <= client_nonce_.size() || nonce->substr(0, client_nonce_.size()) != client_nonce_)
    return bad("Invalid server nonce: does not start with client nonce");
  auto salt = base64_decode(*salt_text);
  if (!salt) return bad("Invalid SCRAM server first message: salt is not base64");
  int64_t iterations = 0;
  for (char ch : *iterations_text) {
    if (ch < '0' || ch > '9' || iterations > kIterationsMax) return bad("Invalid SCRAM server first message: iterations");
    iterations = iterations * 10 + (ch - '0');
  }
  if (iterations < kIterationsMin || iterations > kIterationsMax)
    return bad("Requested iterations " + std::to_string(iterations) + " is outside " + std::to_string(kIterationsMin) +
               ".." + std::to_string(kIterationsMax));
  salted_ = salted_password(mechanism_, password_, *salt, static_cast<int32_t>(iterations));
  const std::string without_proof = "c=biws,r=" + std::string(*nonce);
  auth_message_ = client_first_bare_ + "," + std::string(server_first) + "," + without_proof;
  const std::string client_key = hmac(mechanism_, salted_, "Client Key");
  const std::string stored_key = hash(mechanism_, client_key);
  const std::string proof = xor_bytes(client_key, hmac(mechanism_, stored_key, auth_message_));
  return without_proof + ",p=" + base64_encode(proof);
}

Status Client::server_final(std::string_view message) {
  if (auto error = attribute(message, 'e')) return bad("SCRAM server error: " + std::string(*error));
  auto signature = attribute(message, 'v');
  if (!signature) return bad("Invalid SCRAM server final message");
  const std::string expected = hmac(mechanism_, hmac(mechanism_, salted_, "Server Key"), auth_message_);
  auto got = base64_decode(*signature);
  if (!got || !equal_secret(*got, expected)) return bad("Invalid server signature in server final message");
  return Status::ok();
}

}  // namespace gregor::scram
