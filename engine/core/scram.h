// SCRAM (RFC 5802, with SHA-256 per RFC 7677 and SHA-512) as Kafka's SCRAM-SHA-256 and
// SCRAM-SHA-512 SASL mechanisms use it, and the base64 they are written in.
//
// The exchange, with the messages' text exactly as on the wire (no channel binding: "n,,"):
//   client-first  n,,n=<user>,r=<client nonce>
//   server-first  r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>
//   client-final  c=biws,r=<nonce>,p=<base64 ClientKey XOR HMAC(StoredKey, AuthMessage)>
//   server-final  v=<base64 HMAC(ServerKey, AuthMessage)>   or   e=<error>
// The server keeps, per user, only salt, StoredKey = H(HMAC(SaltedPassword, "Client Key")),
// ServerKey = HMAC(SaltedPassword, "Server Key") and the iteration count (Kafka writes them to zk
// /config/users/<name> as "salt=...,stored_key=...,server_key=...,iterations=4096", base64).
//
// The hashes, HMAC and PBKDF2 come from OpenSSL's libcrypto: computation on memory only, so the
// engine's rule (no outside world) holds. Nonces are the caller's: the broker draws them from its
// Runtime's RNG, so a simulated run stays deterministic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/status.h"

namespace gregor::scram {

enum class Mechanism { kSha256, kSha512 };
// "SCRAM-SHA-256" / "SCRAM-SHA-512"; nullopt for another name.
std::optional<Mechanism> mechanism_from_name(std::string_view name);
const char* mechanism_name(Mechanism m);
// Kafka's ScramMechanism ids (AlterUserScramCredentials): 1 = SHA-256, 2 = SHA-512.
int8_t mechanism_id(Mechanism m);
// Kafka refuses fewer iterations than this (ScramMechanism.minIterations) and more than 16384.
constexpr int32_t kIterationsMin = 4096;
constexpr int32_t kIterationsMax = 16384;

std::string base64_encode(std::string_view bytes);
// nullopt for text that is not standard base64 (with padding).
std::optional<std::string> base64_decode(std::string_view text);

// What a server stores for one user and mechanism.
struct Credential {
  std::string salt;  // raw bytes
  std::string stored_key;
  std::string server_key;
  int32_t iterations = kIterationsMin;
  bool operator==(const Credential&) const = default;
};
// Kafka's ScramCredentialUtils text: "salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=N".
std::string credential_to_string(const Credential& c);
Result<Credential> credential_from_string(std::string_view text);
// PBKDF2 (RFC 5802's Hi) of the password: SaltedPassword.
std::string salted_password(Mechanism m, std::string_view password, std::string_view salt, int32_t iterations);
// The stored credential from a salted password (what AlterUserScramCredentials carries).
Credential credential_from_salted(Mechanism m, std::string_view salted, std::string_view salt, int32_t iterations);
Credential make_credential(Mechanism m, std::string_view password, std::string_view salt, int32_t iterations);

// The server side of one exchange. REQUIRES: the calls in order, each at most once.
class Server {
 public:
  explicit Server(Mechanism m) : mechanism_(m) {}
  // Parses client-first; the user it names (its "=2C"/"=3D" escapes undone), or an error.
  Result<std::string> client_first(std::string_view message);
  // server-first for the user's credential and the server's part of the nonce.
  std::string server_first(const Credential& credential, std::string_view server_nonce);
  // Checks client-final: server-final on success, an error when the proof or nonce is wrong.
  Result<std::string> client_final(std::string_view message);
  const std::string& user() const { return user_; }

 private:
  Mechanism mechanism_;
  std::string user_;
  std::string client_first_bare_;
  std::string client_nonce_;
  std::string server_first_;
  std::string nonce_;
  Credential credential_;
};

// The client side (gregor's own clients and the tests).
class Client {
 public:
  Client(Mechanism m, std::string user, std::string password)
      : mechanism_(m), user_(std::move(user)), password_(std::move(password)) {}
  std::string client_first(std::string_view client_nonce);
  // client-final for server-first, or an error (a nonce that does not extend ours, too few iterations).
  Result<std::string> client_final(std::string_view server_first);
  // Checks the server's signature in server-final.
  Status server_final(std::string_view message);

 private:
  Mechanism mechanism_;
  std::string user_;
  std::string password_;
  std::string client_nonce_;
  std::string client_first_bare_;
  std::string auth_message_;
  std::string salted_;
};

}  // namespace gregor::scram
