// What a connect string gives a client: a chroot (every path under it, and paths coming back made
// relative to it again, as ZooKeeper's client does), several servers to fail over between, and a
// session that moves between connections with its id and password.
#include <catch2/catch.hpp>

#include "net/zookeeper_connect.h"
#include "zk_harness.h"

using namespace gregor;
using namespace gregor::coord;
using namespace gregor::coord::testing;

TEST_CASE("zk: a chroot puts every path under it and takes it off what comes back", "[zk][chroot]") {
  ZkWorld w(90);
  ZkTestClient* plain = w.add_client(NodeId{2});
  ZkClientConfig config = w.client_config();
  config.chroot = "/kafka/prod";
  ZkTestClient* c = w.add_client(NodeId{3}, config);

  // Before the chroot exists, a create under it has no parent.
  CHECK(w.create(c, "/a") == ZkError::kNoNode);
  std::optional<ZkError> made;
  c->zk.create_chroot([&](ZkError e) { made = e; });
  REQUIRE(w.run_until([&] { return made.has_value(); }));
  CHECK(*made == ZkError::kOk);
  std::string data;
  Stat stat;
  REQUIRE(w.get(plain, "/kafka", &data, &stat) == ZkError::kOk);
  CHECK(w.server()->tree().find("/kafka")->null_data);  // as Kafka creates it: null data
  // Creating it again (a second broker) is fine too.
  made.reset();
  c->zk.create_chroot([&](ZkError e) { made = e; });
  REQUIRE(w.run_until([&] { return made.has_value(); }));
  CHECK(*made == ZkError::kOk);

  std::string created;
  REQUIRE(w.create(c, "/a", "x", CreateMode::kPersistent, &created) == ZkError::kOk);
  CHECK(created == "/a");
  CHECK(w.server()->tree().exists("/kafka/prod/a"));
  REQUIRE(w.create(c, "/a/s-", "", CreateMode::kEphemeralSequential, &created) == ZkError::kOk);
  CHECK(created == "/a/s-0000000000");
  std::vector<std::string> names;
  REQUIRE(w.children(c, "/", &names) == ZkError::kOk);
  CHECK(names == std::vector<std::string>{"a"});
  REQUIRE(w.get(c, "/", &data) == ZkError::kOk);  // "/" is the chroot itself

  // Multi results and watch events come back relative to the chroot.
  std::vector<ZkOpResult> results;
  REQUIRE(w.multi(c, {ZkOp::create("/m", to_bytes("1"), CreateMode::kPersistent), ZkOp::check("/a", 0)}, &results) ==
          ZkError::kOk);
  CHECK(results.at(0).created_path == "/m");
  REQUIRE(w.get(c, "/m", nullptr, nullptr, true) == ZkError::kOk);
  REQUIRE(w.set(plain, "/kafka/prod/m", "2") == ZkError::kOk);
  REQUIRE(w.run_until([&] { return !c->events.empty(); }));
  CHECK(c->events.back() == WatchEvent{WatchType::kNodeDataChanged, "/m"});
  // A watch re-registered after a reconnect is re-registered under the chroot.
  REQUIRE(w.exists(c, "/later", true) == ZkError::kOk);
  w.sim.partition({NodeId{3}}, {ZkWorld::kServer}, true);
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kDisconnected; }));
  REQUIRE(w.create(plain, "/kafka/prod/later") == ZkError::kOk);
  w.sim.heal_all();
  REQUIRE(w.run_until([&] { return c->events.size() == 2; }));
  CHECK(c->events.back() == WatchEvent{WatchType::kNodeCreated, "/later"});
}

TEST_CASE("zk: a client fails over to the next server of its list", "[zk][failover]") {
  for (uint64_t seed = 91; seed < 99; seed++) {
    ZkWorld w(seed);
    ZkClientConfig config = w.client_config();
    // Server 7 does not exist (nothing listens there); the client tries the list in a shuffled
    // order and must end on server 1 whatever the order.
    config.servers = {NodeId{7}, ZkWorld::kServer};
    ZkTestClient* c = w.add_client(NodeId{3}, config);
    CHECK(c->zk.server() == ZkWorld::kServer);
    CHECK(w.create(c, "/ok") == ZkError::kOk);
  }
}

TEST_CASE("zk: a session resumed on another connection closes the one it had", "[zk][session]") {
  ZkWorld w(99);
  ZkTestClient* c = w.add_client(NodeId{2});
  w.sim.add_node(NodeId{9}, "thief", [](Runtime& rt) { return std::make_unique<RawPeer>(rt); });
  RawPeer* other = w.sim.node_as<RawPeer>(NodeId{9});
  // Another connection presents the session's id and password (what a client does when it moves
  // to another server, or here, to another connection of the same one).
  wire::ConnectRequest resume;
  resume.timeout_ms = 6000;
  resume.session_id = c->zk.session_id();
  // The password is the client's own; the harness reads it from the server's session table.
  resume.password = w.server()->database().sessions().at(c->zk.session_id()).password;
  REQUIRE(other->send(ZkWorld::kServer, wire::encode_connect_request(resume)));
  REQUIRE(w.run_until([&] { return !other->received.empty(); }, Duration::seconds(1)));
  wire::ConnectResponse answer;
  REQUIRE(wire::decode_connect_response(as_view(other->received.back()), &answer));
  CHECK(answer.session_id == c->zk.session_id());
  CHECK(answer.timeout_ms == 6000);
  // The client's own connection was closed: it hears Disconnected, then resumes its session.
  REQUIRE(w.run_until([&] { return !c->states.empty() && c->states.back() == SessionState::kDisconnected; },
                      Duration::seconds(1)));
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(10)));
  CHECK(c->zk.session_id() == resume.session_id);
  CHECK(w.create(c, "/still-mine", "", CreateMode::kEphemeral) == ZkError::kOk);
  CHECK(w.server()->tree().find("/still-mine")->stat.ephemeral_owner == resume.session_id);
}

TEST_CASE("zk: znode times are the wall clock of the txn that made them", "[zk]") {
  ZkWorld w(100);
  ZkTestClient* c = w.add_client(NodeId{2});
  w.sim.run_for(Duration::seconds(5));
  REQUIRE(w.create(c, "/t", "a") == ZkError::kOk);
  Stat created;
  REQUIRE(w.get(c, "/t", nullptr, &created) == ZkError::kOk);
  CHECK(created.ctime == created.mtime);
  CHECK(created.ctime >= Runtime::kSimulatedEpochMs + 5000);
  w.sim.run_for(Duration::seconds(3));
  Stat changed;
  REQUIRE(w.set(c, "/t", "b", 0, &changed) == ZkError::kOk);
  CHECK(changed.ctime == created.ctime);
  CHECK(changed.mtime >= created.mtime + 3000);
  CHECK(changed.mzxid > created.mzxid);
}

TEST_CASE("zk: ZooKeeper's system znodes are there and protected", "[zk]") {
  ZkWorld w(101);
  ZkTestClient* c = w.add_client(NodeId{2});
  std::vector<std::string> names;
  REQUIRE(w.children(c, "/zookeeper", &names) == ZkError::kOk);
  CHECK(names == std::vector<std::string>{"config", "quota"});
  CHECK(w.remove(c, "/zookeeper/quota") == ZkError::kBadArguments);
  CHECK(w.set(c, "/zookeeper/config", "x") == ZkError::kNoAuth);
  CHECK(w.create(c, "/zookeeper/quota/mine") == ZkError::kOk);  // as on ZooKeeper
  CHECK(w.create(c, "/bad-acl") == ZkError::kOk);
  // A create whose ACL list is empty is InvalidACL; unknown create flags are BadArguments.
  ZkOp empty_acl = ZkOp::create("/x", to_bytes("d"), CreateMode::kPersistent);
  empty_acl.acl.clear();
  CHECK(w.multi(c, {empty_acl}) == ZkError::kInvalidAcl);
  ZkOp container = ZkOp::create("/y", to_bytes("d"), static_cast<CreateMode>(4));
  CHECK(w.multi(c, {container}) == ZkError::kBadArguments);
  CHECK_FALSE(w.server()->tree().exists("/x"));
  CHECK_FALSE(w.server()->tree().exists("/y"));
}

TEST_CASE("zookeeper.connect strings parse as ZooKeeper's ConnectStringParser reads them", "[zk][connect]") {
  auto c = net::parse_zookeeper_connect("127.0.0.1:2181,zk2:2182,zk3/kafka/prod");
  REQUIRE(c.is_ok());
  REQUIRE(c->servers.size() == 3);
  CHECK(c->servers[0].to_string() == "127.0.0.1:2181");
  CHECK(c->servers[1].to_string() == "zk2:2182");
  CHECK(c->servers[2].to_string() == "zk3:2181");  // the default client port
  CHECK(c->chroot == "/kafka/prod");
  auto v6 = net::parse_zookeeper_connect("[::1]:3000,[::1]/");
  REQUIRE(v6.is_ok());
  CHECK(v6->servers.size() == 2);
  CHECK(v6->servers[1].port == 2181);
  CHECK(v6->chroot.empty());  // "/" is no chroot
  for (const char* bad : {"", "/kafka", "h:1,,h:2", "h:0", "h:99999", "h:1/kafka/", "h:1/a//b", "h:x"}) {
    INFO(bad);
    CHECK_FALSE(net::parse_zookeeper_connect(bad).is_ok());
  }
}
