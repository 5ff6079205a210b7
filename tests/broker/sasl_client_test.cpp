// The client side of SASL (engine/protocol/sasl_client.h, NetworkClient::set_sasl) against brokers
// in the simulator whose every listener is SASL_PLAINTEXT: the brokers themselves authenticate to
// each other (inter-broker SASL), and a client authenticates with PLAIN or SCRAM, or fails with
// Kafka's errors.
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/core/scram.h"
#include "engine/protocol/alter_user_scram_credentials.h"
#include "engine/protocol/metadata.h"
#include "engine/protocol/sasl_client.h"

namespace gregor::test {
namespace {

using protocol::ErrorCode;

// A node whose NetworkClient authenticates with the given credentials.
class SaslTestClient final : public Node {
 public:
  SaslTestClient(Runtime& rt, std::optional<protocol::SaslCredentials> credentials) : rt_(rt), net_(rt, "sasl-test") {
    net_.set_sasl(std::move(credentials));
  }
  void start() override {}
  void on_message(NodeId from, Bytes frame) override { net_.on_message(from, frame); }
  void on_disconnect(NodeId peer) override { net_.on_disconnect(peer); }
  protocol::NetworkClient& net() { return net_; }
  Runtime& rt() { return rt_; }

 private:
  Runtime& rt_;
  protocol::NetworkClient net_;
};

struct Answer {
  bool done = false;
  ErrorCode error = ErrorCode::NONE;
  std::optional<protocol::MetadataResponse> metadata;
  Time at{0};
};

// Three brokers with one SASL_PLAINTEXT listener, which is also the inter-broker one.
std::map<std::string, std::string> sasl_cluster_config(const std::string& mechanisms = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512") {
  return {
      {"listeners", "SASL_PLAINTEXT://0.0.0.0:9092"},
      {"security.inter.broker.protocol", "SASL_PLAINTEXT"},
      {"sasl.enabled.mechanisms", mechanisms},
      {"sasl.mechanism.inter.broker.protocol", "PLAIN"},
      {"sasl.plain.users", "broker:broker-secret,alice:alice-secret"},
      {"listener.name.sasl_plaintext.plain.sasl.jaas.config",
       "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" password=\"broker-secret\";"},
  };
}

struct SaslCluster {
  ClusterFixture f;
  explicit SaslCluster(uint64_t seed, const std::string& mechanisms = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512")
      : f(seed, sasl_cluster_config(mechanisms)) {
    for (NodeId b : f.cluster.broker_ids()) f.sim.set_listener_name(b, "SASL_PLAINTEXT");
  }
  SaslTestClient& add_client(int index, std::optional<protocol::SaslCredentials> credentials) {
    const NodeId id{sim::kFirstClientNodeId + index};
    f.sim.add_node(id, "sasl-client-" + std::to_string(index),
                   [credentials](Runtime& rt) { return std::make_unique<SaslTestClient>(rt, credentials); });
    return *f.sim.node_as<SaslTestClient>(id);
  }
  Answer metadata(SaslTestClient& c, int32_t broker) {
    auto answer = std::make_shared<Answer>();
    protocol::MetadataRequest req;
    c.net().send(NodeId{broker}, req, 4, Duration::seconds(30), [answer, &c](ErrorCode err, ByteReader* body) {
      answer->done = true;
      answer->error = err;
      answer->at = c.rt().now();
      if (err == ErrorCode::NONE && body) {
        auto r = protocol::MetadataResponse::decode(*body, 4);
        if (r) answer->metadata = std::move(*r);
      }
    });
    REQUIRE(f.run_until([&] { return answer->done; }));
    return *answer;
  }
};

protocol::SaslCredentials creds(std::string mechanism, std::string user, std::string password) {
  return protocol::SaslCredentials{std::move(mechanism), std::move(user), std::move(password)};
}

}  // namespace

TEST_CASE("SASL brokers authenticate to each other and a PLAIN client with the right password is served") {
  SaslCluster s(7);
  REQUIRE(s.f.run_until([&] { return s.f.cluster.ready(); }));
  auto& client = s.add_client(1, creds("PLAIN", "alice", "alice-secret"));
  // Replication across the SASL listener: the controller's LeaderAndIsr and the followers' fetches
  // all authenticate, or the topic never gets its leaders and in-sync followers.
  protocol::CreateTopicsRequest create;
  create.topics.push_back({.name = "orders", .num_partitions = 3, .replication_factor = 3});
  auto created = std::make_shared<bool>(false);
  client.net().send(NodeId{*s.f.cluster.controller()}, create, 3, Duration::seconds(30),
                    [created](ErrorCode err, ByteReader* body) {
                      REQUIRE(err == ErrorCode::NONE);
                      auto r = protocol::CreateTopicsResponse::decode(*body, 3);
                      REQUIRE(r);
                      CHECK(r->topics.at(0).error_code == ErrorCode::NONE);
                      *created = true;
                    });
  REQUIRE(s.f.run_until([&] { return *created && s.f.cluster.topic_ready("orders", 3); }));
  REQUIRE(s.f.run_until([&] {
    for (int p = 0; p < 3; p++) {
      auto l = s.f.cluster.leader(TopicPartition{"orders", p});
      if (!l || *l < 0 || s.f.cluster.broker(*l)->partition(TopicPartition{"orders", p})->isr().size() != 3) return false;
    }
    return true;
  }));
  const Answer a = s.metadata(client, 2);
  REQUIRE(a.error == ErrorCode::NONE);
  REQUIRE(a.metadata);
  CHECK(a.metadata->brokers.size() == 3);
  CHECK(!client.net().authentication_failure());
  // The authenticator knows the connection as User:alice.
  CHECK(s.f.cluster.broker(2)->sasl().principal(NodeId{-(sim::kFirstClientNodeId + 1)}) == "User:alice");
}

TEST_CASE("SASL client with a wrong PLAIN password fails with SASL_AUTHENTICATION_FAILED and does not retry at once") {
  SaslCluster s(8);
  REQUIRE(s.f.run_until([&] { return s.f.cluster.ready(); }));
  auto& client = s.add_client(1, creds("PLAIN", "alice", "wrong"));
  const Answer a = s.metadata(client, 1);
  CHECK(a.error == ErrorCode::SASL_AUTHENTICATION_FAILED);
  REQUIRE(client.net().authentication_failure());
  CHECK(client.net().authentication_failure()->error == ErrorCode::SASL_AUTHENTICATION_FAILED);
  CHECK(client.net().authentication_failure()->message == "Authentication failed: Invalid username or password");
  // Within the backoff a new request fails without a round trip to the broker.
  const uint64_t frames = s.f.sim.frames_sent();
  const Answer again = s.metadata(client, 1);
  CHECK(again.error == ErrorCode::SASL_AUTHENTICATION_FAILED);
  CHECK(again.at == a.at);
  CHECK(s.f.sim.frames_sent() - frames < 5);  // only the brokers' own traffic, if any
  // After it, the client tries again (and fails again: the password is still wrong).
  s.f.sim.run_for(protocol::NetworkClient::kAuthenticationRetryBackoff + Duration::millis(1));
  const Answer later = s.metadata(client, 1);
  CHECK(later.error == ErrorCode::SASL_AUTHENTICATION_FAILED);
  CHECK(later.at > a.at);
}

TEST_CASE("SASL client with a mechanism the broker does not enable gets UNSUPPORTED_SASL_MECHANISM") {
  SaslCluster s(9, "PLAIN");
  REQUIRE(s.f.run_until([&] { return s.f.cluster.ready(); }));
  auto& client = s.add_client(1, creds("SCRAM-SHA-256", "alice", "alice-secret"));
  const Answer a = s.metadata(client, 1);
  CHECK(a.error == ErrorCode::UNSUPPORTED_SASL_MECHANISM);
  REQUIRE(client.net().authentication_failure());
  CHECK(client.net().authentication_failure()->message ==
        "Client SASL mechanism 'SCRAM-SHA-256' not enabled in the server, enabled mechanisms are [PLAIN]");
}

TEST_CASE("SASL client SCRAM-SHA-256 and SCRAM-SHA-512 authenticate with the right password and fail with a wrong one") {
  SaslCluster s(10);
  REQUIRE(s.f.run_until([&] { return s.f.cluster.ready(); }));
  // alice's SCRAM credentials, set through AlterUserScramCredentials by a PLAIN-authenticated admin.
  auto& admin = s.add_client(1, creds("PLAIN", "alice", "alice-secret"));
  protocol::AlterUserScramCredentialsRequest alter;
  for (auto m : {scram::Mechanism::kSha256, scram::Mechanism::kSha512}) {
    const std::string salt = "0123456789abcdef";
    const std::string salted = scram::salted_password(m, "scram-secret", salt, 4096);
    alter.upsertions.push_back({.name = "bob",
                                .mechanism = scram::mechanism_id(m),
                                .iterations = 4096,
                                .salt = Bytes(salt.begin(), salt.end()),
                                .salted_password = Bytes(salted.begin(), salted.end())});
  }
  auto altered = std::make_shared<bool>(false);
  admin.net().send(NodeId{1}, alter, 0, Duration::seconds(30), [altered](ErrorCode err, ByteReader* body) {
    REQUIRE(err == ErrorCode::NONE);
    auto r = protocol::AlterUserScramCredentialsResponse::decode(*body, 0);
    REQUIRE(r);
    for (const auto& result : r->results) CHECK(result.error_code == ErrorCode::NONE);
    *altered = true;
  });
  REQUIRE(s.f.run_until([&] { return *altered; }));

  auto& sha256 = s.add_client(2, creds("SCRAM-SHA-256", "bob", "scram-secret"));
  auto& sha512 = s.add_client(3, creds("SCRAM-SHA-512", "bob", "scram-secret"));
  auto& wrong = s.add_client(4, creds("SCRAM-SHA-256", "bob", "not-it"));
  CHECK(s.metadata(sha256, 2).error == ErrorCode::NONE);
  CHECK(s.metadata(sha512, 3).error == ErrorCode::NONE);
  CHECK(s.f.cluster.broker(3)->sasl().principal(NodeId{-(sim::kFirstClientNodeId + 3)}) == "User:bob");
  const Answer bad = s.metadata(wrong, 2);
  CHECK(bad.error == ErrorCode::SASL_AUTHENTICATION_FAILED);
  REQUIRE(wrong.net().authentication_failure());
  CHECK(wrong.net().authentication_failure()->message ==
        "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256");
}

TEST_CASE("SASL session rejects a SCRAM server-final whose signature does not match") {
  const auto mechanism = scram::Mechanism::kSha256;
  const scram::Credential credential = scram::make_credential(mechanism, "pw", "salt-salt-salt", 4096);
  protocol::SaslSession session(creds("SCRAM-SHA-256", "carol", "pw"), "clientnonce");
  REQUIRE(session.on_api_versions(1, 2).error == ErrorCode::NONE);
  REQUIRE(session.on_handshake(ErrorCode::NONE, {"SCRAM-SHA-256"}).error == ErrorCode::NONE);
  const Bytes first = session.first_token();
  scram::Server server(mechanism);
  REQUIRE(server.client_first(std::string(first.begin(), first.end())).is_ok());
  const std::string server_first = server.server_first(credential, "servernonce");
  std::optional<Bytes> next;
  auto step = session.on_authenticate(ErrorCode::NONE, std::nullopt, Bytes(server_first.begin(), server_first.end()), &next);
  REQUIRE(step.error == ErrorCode::NONE);
  REQUIRE(next);
  auto server_final = server.client_final(std::string(next->begin(), next->end()));
  REQUIRE(server_final.is_ok());

  SECTION("the true signature completes the exchange") {
    step = session.on_authenticate(ErrorCode::NONE, std::nullopt, Bytes(server_final->begin(), server_final->end()), &next);
    CHECK(step.error == ErrorCode::NONE);
    CHECK(session.ready());
  }
  SECTION("a forged one fails it") {
    // A server that does not know the password cannot sign: one changed byte of the signature.
    std::string forged = *server_final;
    forged[2] = forged[2] == 'A' ? 'B' : 'A';
    step = session.on_authenticate(ErrorCode::NONE, std::nullopt, Bytes(forged.begin(), forged.end()), &next);
    CHECK(step.error == ErrorCode::SASL_AUTHENTICATION_FAILED);
    CHECK(step.message == "Invalid server signature in server final message");
    CHECK(!session.ready());
  }
}

TEST_CASE("SASL client keys: JAAS login modules and librdkafka's username and password") {
  protocol::ClientSecurityKeys keys;
  auto none = protocol::sasl_credentials_from(keys);
  REQUIRE(none.is_ok());
  CHECK(!*none);

  keys.security_protocol = "SASL_PLAINTEXT";
  keys.sasl_mechanism = "SCRAM-SHA-512";
  keys.sasl_jaas_config =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\\\"b\" password=\"p w\";";
  auto scram_creds = protocol::sasl_credentials_from(keys);
  REQUIRE(scram_creds.is_ok());
  CHECK(**scram_creds == creds("SCRAM-SHA-512", "a\"b", "p w"));

  keys.sasl_mechanism = "PLAIN";  // a SCRAM login module for PLAIN
  CHECK(!protocol::sasl_credentials_from(keys).is_ok());

  keys.sasl_jaas_config.clear();
  keys.sasl_username = "u";
  keys.sasl_password = "p";
  auto plain = protocol::sasl_credentials_from(keys);
  REQUIRE(plain.is_ok());
  CHECK(**plain == creds("PLAIN", "u", "p"));

  keys.sasl_mechanism.clear();  // Kafka's default, GSSAPI: refused
  auto gssapi = protocol::sasl_credentials_from(keys);
  REQUIRE(!gssapi.is_ok());
  CHECK(gssapi.status().message().find("GSSAPI") != std::string::npos);

  keys.sasl_mechanism = "PLAIN";
  keys.security_protocol = "SASL_SSL";
  CHECK(!protocol::sasl_credentials_from(keys).is_ok());

  CHECK(!protocol::parse_jaas_config("org.x.Module required username=\"u\"").is_ok());  // no ';'
  CHECK(!protocol::parse_jaas_config("org.x.Module maybe username=\"u\";").is_ok());    // bad flag
  CHECK(!protocol::parse_jaas_config("org.x.Module required username=\"u;").is_ok());   // unterminated
  auto bare = protocol::parse_jaas_config("org.x.Module required username=u password=p ;");
  REQUIRE(bare.is_ok());
  CHECK(bare->options.at("username") == "u");
}

TEST_CASE("SASL inter-broker config needs the listener's JAAS key and refuses GSSAPI") {
  broker::BrokerConfig c;
  auto settings = sasl_cluster_config();
  settings.erase("listener.name.sasl_plaintext.plain.sasl.jaas.config");
  Status missing = c.apply(settings);
  REQUIRE(!missing.is_ok());
  CHECK(missing.message().find("listener.name.sasl_plaintext.plain.sasl.jaas.config") != std::string::npos);

  broker::BrokerConfig g;
  settings = sasl_cluster_config();
  settings["sasl.mechanism.inter.broker.protocol"] = "GSSAPI";
  CHECK(!g.apply(settings).is_ok());

  broker::BrokerConfig ok;
  REQUIRE(ok.apply(sasl_cluster_config()).is_ok());
  auto credentials = ok.inter_broker_sasl();
  REQUIRE(credentials.is_ok());
  REQUIRE(*credentials);
  CHECK(**credentials == creds("PLAIN", "broker", "broker-secret"));
  CHECK(ok.inter_broker_listener() == "SASL_PLAINTEXT");
}

}  // namespace gregor::test
