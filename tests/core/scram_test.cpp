// SCRAM (engine/core/scram.h) against RFC 7677's SCRAM-SHA-256 example, both ends, and the ways a
// server must refuse a client.
#include <catch2/catch.hpp>

#include "engine/core/scram.h"

using namespace gregor;
using namespace gregor::scram;

namespace {
// RFC 7677 section 3: user "user", password "pencil".
const std::string kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
const std::string kServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
const std::string kServerFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
const std::string kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
const std::string kServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

Credential rfc_credential(const std::string& password = "pencil") {
  return make_credential(Mechanism::kSha256, password, *base64_decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
}
}  // namespace

TEST_CASE("base64 round trips and refuses what is not base64", "[scram]") {
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("foo") == "Zm9v");
  CHECK(*base64_decode("Zm9vYg==") == "foob");
  CHECK_FALSE(base64_decode("Zm9").has_value());
  CHECK_FALSE(base64_decode("Zm=v").has_value());
  CHECK_FALSE(base64_decode("Zm9!").has_value());
}

TEST_CASE("SCRAM-SHA-256 server side reproduces RFC 7677's exchange", "[scram]") {
  Server server(Mechanism::kSha256);
  auto user = server.client_first(kClientFirst);
  REQUIRE(user.is_ok());
  CHECK(*user == "user");
  CHECK(server.server_first(rfc_credential(), kServerNonce) == kServerFirst);
  auto final_message = server.client_final(kClientFinal);
  REQUIRE(final_message.is_ok());
  CHECK(*final_message == kServerFinal);
}

TEST_CASE("SCRAM-SHA-256 client side reproduces RFC 7677's exchange", "[scram]") {
  Client client(Mechanism::kSha256, "user", "pencil");
  CHECK(client.client_first("rOprNGfwEbeRWgbNEkqO") == kClientFirst);
  auto final_message = client.client_final(kServerFirst);
  REQUIRE(final_message.is_ok());
  CHECK(*final_message == kClientFinal);
  CHECK(client.server_final(kServerFinal).is_ok());
  CHECK_FALSE(client.server_final("v=AAAA").is_ok());
}

TEST_CASE("a SCRAM server refuses a wrong password, a changed nonce and a malformed message", "[scram]") {
  SECTION("wrong password") {
    Server server(Mechanism::kSha256);
    REQUIRE(server.client_first(kClientFirst).is_ok());
    server.server_first(rfc_credential("not-pencil"), kServerNonce);
    auto r = server.client_final(kClientFinal);
    REQUIRE_FALSE(r.is_ok());
    CHECK(r.status().message() == "Invalid client credentials");
  }
  SECTION("nonce not the server's") {
    Server server(Mechanism::kSha256);
    REQUIRE(server.client_first(kClientFirst).is_ok());
    server.server_first(rfc_credential(), "other");
    CHECK_FALSE(server.client_final(kClientFinal).is_ok());
  }
  SECTION("malformed client-first") {
    CHECK_FALSE(Server(Mechanism::kSha256).client_first("n=user,r=abc").is_ok());
    CHECK_FALSE(Server(Mechanism::kSha256).client_first("p=tls,,n=user,r=abc").is_ok());
    CHECK_FALSE(Server(Mechanism::kSha256).client_first("n,,n=us=er,r=abc").is_ok());
    CHECK_FALSE(Server(Mechanism::kSha256).client_first("n,a=bob,n=alice,r=abc").is_ok());
  }
  SECTION("escaped user names") {
    Server server(Mechanism::kSha256);
    auto user = server.client_first("n,,n=a=2Cb=3Dc,r=xyz");
    REQUIRE(user.is_ok());
    CHECK(*user == "a,b=c");
  }
}

TEST_CASE("SCRAM-SHA-512 client and server agree, and the stored credential round trips", "[scram]") {
  const Credential cred = make_credential(Mechanism::kSha512, "s3cret", "0123456789abcdef", 4096);
  CHECK(cred.stored_key.size() == 64);
  auto parsed = credential_from_string(credential_to_string(cred));
  REQUIRE(parsed.is_ok());
  CHECK(*parsed == cred);
  CHECK(credential_to_string(cred).rfind("salt=MDEyMzQ1Njc4OWFiY2RlZg==,stored_key=", 0) == 0);
  CHECK_FALSE(credential_from_string("salt=MDEy,iterations=4096").is_ok());

  Client client(Mechanism::kSha512, "alice", "s3cret");
  Server server(Mechanism::kSha512);
  REQUIRE(server.client_first(client.client_first("clientnonce")).is_ok());
  auto cf = client.client_final(server.server_first(*parsed, "servernonce"));
  REQUIRE(cf.is_ok());
  auto sf = server.client_final(*cf);
  REQUIRE(sf.is_ok());
  CHECK(client.server_final(*sf).is_ok());
}
