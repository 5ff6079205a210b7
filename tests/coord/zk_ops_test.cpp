// The data model through a client: create / get / set / delete / exists / children / multi, Stat
// bookkeeping, sequential names, and every documented error for a bad request.
#include <catch2/catch.hpp>

#include "zk_harness.h"

using namespace gregor;
using namespace gregor::coord;
using namespace gregor::coord::testing;

TEST_CASE("zk: create get set delete and the Stat they maintain", "[zk]") {
  ZkWorld w(1);
  ZkTestClient* c = w.add_client(NodeId{2});
  REQUIRE(c->zk.session_id() != 0);

  std::string created;
  REQUIRE(w.create(c, "/brokers", "", CreateMode::kPersistent, &created) == ZkError::kOk);
  CHECK(created == "/brokers");
  REQUIRE(w.create(c, "/brokers/ids") == ZkError::kOk);
  REQUIRE(w.create(c, "/brokers/ids/1", "{\"host\":\"a\"}", CreateMode::kEphemeral) == ZkError::kOk);

  std::string data;
  Stat stat;
  REQUIRE(w.get(c, "/brokers/ids/1", &data, &stat) == ZkError::kOk);
  CHECK(data == "{\"host\":\"a\"}");
  CHECK(stat.version == 0);
  CHECK(stat.ephemeral_owner == c->zk.session_id());
  CHECK(stat.data_length == static_cast<int32_t>(data.size()));
  CHECK(stat.czxid == stat.mzxid);

  Stat parent;
  REQUIRE(w.get(c, "/brokers/ids", nullptr, &parent) == ZkError::kOk);
  CHECK(parent.num_children == 1);
  CHECK(parent.cversion == 1);
  CHECK(parent.pzxid == stat.czxid);

  Stat after;
  REQUIRE(w.set(c, "/brokers/ids/1", "x", 0, &after) == ZkError::kOk);
  CHECK(after.version == 1);
  CHECK(after.mzxid > stat.mzxid);
  CHECK(after.czxid == stat.czxid);
  REQUIRE(w.set(c, "/brokers/ids/1", "y", -1, &after) == ZkError::kOk);  // -1: any version
  CHECK(after.version == 2);

  std::optional<Stat> st;
  REQUIRE(w.exists(c, "/brokers/ids/1", false, &st) == ZkError::kOk);
  REQUIRE(st.has_value());
  CHECK(st->version == 2);
  CHECK(w.exists(c, "/nope", false, &st) == ZkError::kOk);
  CHECK_FALSE(st.has_value());

  REQUIRE(w.create(c, "/brokers/ids/3") == ZkError::kOk);
  REQUIRE(w.create(c, "/brokers/ids/2") == ZkError::kOk);
  std::vector<std::string> names;
  REQUIRE(w.children(c, "/brokers/ids", &names) == ZkError::kOk);
  CHECK(names == std::vector<std::string>{"1", "2", "3"});  // sorted

  REQUIRE(w.remove(c, "/brokers/ids/1", 2) == ZkError::kOk);
  CHECK(w.get(c, "/brokers/ids/1") == ZkError::kNoNode);
  REQUIRE(w.get(c, "/brokers/ids", nullptr, &parent) == ZkError::kOk);
  CHECK(parent.num_children == 2);
  CHECK(parent.cversion == 4);  // three creates, one delete

  // The server's tree is what the client saw.
  const Znode* node = w.server()->tree().find("/brokers/ids/2");
  REQUIRE(node != nullptr);
  CHECK(w.server()->tree().find("/brokers/ids")->children == std::set<std::string>{"2", "3"});
}

TEST_CASE("zk: sequential names count from the parent cversion in 10 digits", "[zk]") {
  ZkWorld w(2);
  ZkTestClient* c = w.add_client(NodeId{2});
  REQUIRE(w.create(c, "/isr_change_notification") == ZkError::kOk);
  std::string p1, p2, p3;
  REQUIRE(w.create(c, "/isr_change_notification/isr_change_", "", CreateMode::kPersistentSequential, &p1) == ZkError::kOk);
  REQUIRE(w.create(c, "/isr_change_notification/other") == ZkError::kOk);
  REQUIRE(w.create(c, "/isr_change_notification/isr_change_", "", CreateMode::kEphemeralSequential, &p2) == ZkError::kOk);
  REQUIRE(w.remove(c, p1) == ZkError::kOk);
  REQUIRE(w.create(c, "/isr_change_notification/isr_change_", "", CreateMode::kPersistentSequential, &p3) == ZkError::kOk);
  CHECK(p1 == "/isr_change_notification/isr_change_0000000000");
  CHECK(p2 == "/isr_change_notification/isr_change_0000000002");  // the plain create counted too
  CHECK(p3 == "/isr_change_notification/isr_change_0000000004");  // and so did the delete
  std::string p4;
  REQUIRE(w.create(c, "/", "", CreateMode::kPersistentSequential, &p4) == ZkError::kOk);
  CHECK(p4 == "/0000000001");

  // Several sequential creates in flight at once get distinct, increasing names.
  std::vector<std::string> names;
  for (int i = 0; i < 5; i++)
    c->zk.create("/isr_change_notification/n", {}, CreateMode::kPersistentSequential,
                 [&](ZkError e, std::string p) {
                   CHECK(e == ZkError::kOk);
                   names.push_back(p);
                 });
  REQUIRE(w.run_until([&] { return names.size() == 5; }));
  for (size_t i = 1; i < names.size(); i++) CHECK(names[i - 1] < names[i]);
}

TEST_CASE("zk: every bad request gets its documented error", "[zk]") {
  ZkWorld w(3);
  ZkTestClient* c = w.add_client(NodeId{2});
  REQUIRE(w.create(c, "/a", "v") == ZkError::kOk);
  REQUIRE(w.create(c, "/a/child") == ZkError::kOk);
  REQUIRE(w.create(c, "/e", "", CreateMode::kEphemeral) == ZkError::kOk);

  CHECK(w.create(c, "/missing/child") == ZkError::kNoNode);
  CHECK(w.create(c, "/a") == ZkError::kNodeExists);
  CHECK(w.create(c, "/e/child") == ZkError::kNoChildrenForEphemerals);
  CHECK(w.set(c, "/a", "w", 7) == ZkError::kBadVersion);
  CHECK(w.set(c, "/missing", "w") == ZkError::kNoNode);
  CHECK(w.remove(c, "/a") == ZkError::kNotEmpty);
  CHECK(w.remove(c, "/a/child", 3) == ZkError::kBadVersion);
  CHECK(w.remove(c, "/missing") == ZkError::kNoNode);
  CHECK(w.get(c, "/missing") == ZkError::kNoNode);
  CHECK(w.children(c, "/missing") == ZkError::kNoNode);

  // Invalid paths: relative, trailing slash, empty component, dot components, control chars, root.
  for (const char* bad : {"a", "", "/a/", "/a//b", "/a/./b", "/a/..", "/x\x01y"})
    CHECK(w.create(c, bad) == ZkError::kBadArguments);
  CHECK(w.create(c, "/") == ZkError::kBadArguments);
  CHECK(w.remove(c, "/") == ZkError::kBadArguments);
  CHECK(w.get(c, "no-slash") == ZkError::kBadArguments);
  CHECK(w.set(c, "/a/", "x") == ZkError::kBadArguments);
  CHECK(w.create(c, "/" + std::string(ZkLimits::kMaxPathBytes, 'p')) == ZkError::kBadArguments);

  // Data: jute.maxbuffer's 1048575 bytes is the most a znode holds.
  const std::string biggest(ZkLimits::kMaxDataBytes, 'd');
  CHECK(w.create(c, "/big", biggest) == ZkError::kOk);
  CHECK(w.set(c, "/big", biggest + "d") == ZkError::kBadArguments);
  CHECK(w.create(c, "/big2", biggest + "d") == ZkError::kBadArguments);
  std::string data;
  REQUIRE(w.get(c, "/big", &data) == ZkError::kOk);
  CHECK(data.size() == ZkLimits::kMaxDataBytes);

  // Nothing above changed the tree beyond the successful creates.
  // "/", "/a", "/a/child", "/e", "/big", and ZooKeeper's /zookeeper, /zookeeper/quota, /zookeeper/config.
  CHECK(w.server()->tree().node_count() == 8);
  CHECK(w.server()->serving());

  // After close(), requests fail at once with SessionExpired.
  c->zk.close();
  w.run_until([&] { return c->zk.state() == SessionState::kExpired; });
  CHECK(w.create(c, "/after-close") == ZkError::kSessionExpired);
  CHECK(w.get(c, "/a") == ZkError::kSessionExpired);
}

TEST_CASE("zk: bad requests inside a multi get their documented error and change nothing", "[zk]") {
  ZkWorld w(5);
  ZkTestClient* c = w.add_client(NodeId{2});
  REQUIRE(w.create(c, "/a", "v") == ZkError::kOk);
  const std::string before = w.server()->tree().dump();
  std::vector<ZkOpResult> results;
  auto expect = [&](std::vector<ZkOp> ops, ZkError error, size_t failing) {
    INFO("expected " << zk_error_name(error) << " at op " << failing);
    REQUIRE(w.multi(c, std::move(ops), &results) == error);
    REQUIRE(results.size() > failing);
    for (size_t i = 0; i < results.size(); i++)
      CHECK(results[i].error == (i < failing ? ZkError::kOk : i == failing ? error : ZkError::kRuntimeInconsistency));
    CHECK(w.server()->tree().dump() == before);
  };
  const std::string too_big(ZkLimits::kMaxDataBytes + 1, 'd');
  // Data above the stated limit, in a create and in a set.
  expect({ZkOp::set_data("/a", to_bytes("w"), 0), ZkOp::create("/b", to_bytes(too_big), CreateMode::kPersistent)},
         ZkError::kBadArguments, 1);
  expect({ZkOp::set_data("/a", to_bytes(too_big), -1), ZkOp::check("/a", 0)}, ZkError::kBadArguments, 0);
  // A missing parent; a wrong version; a version below -1 is no wildcard.
  expect({ZkOp::create("/b", {}, CreateMode::kPersistent), ZkOp::create("/missing/c", {}, CreateMode::kPersistent)},
         ZkError::kNoNode, 1);
  expect({ZkOp::check("/a", 0), ZkOp::set_data("/a", to_bytes("w"), 1)}, ZkError::kBadVersion, 1);
  expect({ZkOp::set_data("/a", to_bytes("w"), -2)}, ZkError::kBadVersion, 0);
  expect({ZkOp::remove("/a", 5)}, ZkError::kBadVersion, 0);
  expect({ZkOp::create("/a", {}, CreateMode::kPersistent)}, ZkError::kNodeExists, 0);
  expect({ZkOp::create("bad-path", {}, CreateMode::kPersistent)}, ZkError::kBadArguments, 0);
  // More ops than a multi may hold: refused by the client before anything is sent.
  std::vector<ZkOp> many(ZkLimits::kMaxOpsPerMulti + 1, ZkOp::check("/a", -1));
  CHECK(w.multi(c, many, &results) == ZkError::kBadArguments);
  // The same bad single requests: the version below -1 and the data above the limit.
  CHECK(w.set(c, "/a", "w", -2) == ZkError::kBadVersion);
  CHECK(w.set(c, "/a", too_big) == ZkError::kBadArguments);
  CHECK(w.remove(c, "/a", -7) == ZkError::kBadVersion);
  CHECK(w.server()->tree().dump() == before);
  CHECK(w.server()->serving());
  CHECK(c->zk.state() == SessionState::kConnected);
}

TEST_CASE("zk: multi applies all or nothing with per-op results", "[zk]") {
  ZkWorld w(4);
  ZkTestClient* c = w.add_client(NodeId{2});
  REQUIRE(w.create(c, "/controller_epoch", "1") == ZkError::kOk);
  REQUIRE(w.create(c, "/t") == ZkError::kOk);

  std::vector<ZkOpResult> results;
  // A controller's conditional write: check its epoch's version, then change partition state.
  REQUIRE(w.multi(c,
                  {ZkOp::check("/controller_epoch", 0), ZkOp::create("/t/p", to_bytes("s0"), CreateMode::kPersistent),
                   ZkOp::create("/t/p/state", to_bytes("leader=1"), CreateMode::kPersistent),
                   ZkOp::set_data("/t", to_bytes("v1"), 0)},
                  &results) == ZkError::kOk);
  REQUIRE(results.size() == 4);
  CHECK(results[0].error == ZkError::kOk);
  CHECK(results[1].created_path == "/t/p");
  CHECK(results[2].created_path == "/t/p/state");
  CHECK(results[3].stat.version == 1);
  CHECK(w.server()->tree().exists("/t/p/state"));

  // A stale epoch: nothing happens, the failing op names its error.
  const std::string before = w.server()->tree().dump();
  REQUIRE(w.multi(c,
                  {ZkOp::set_data("/t/p/state", to_bytes("leader=2"), 0), ZkOp::check("/controller_epoch", 5),
                   ZkOp::remove("/t/p/state", -1)},
                  &results) == ZkError::kBadVersion);
  REQUIRE(results.size() == 3);
  CHECK(results[0].error == ZkError::kOk);
  CHECK(results[1].error == ZkError::kBadVersion);
  CHECK(results[2].error == ZkError::kRuntimeInconsistency);
  CHECK(w.server()->tree().dump() == before);

  // A multi sees its own earlier ops: create then delete the same node is fine.
  REQUIRE(w.multi(c, {ZkOp::create("/tmp", {}, CreateMode::kPersistent), ZkOp::remove("/tmp", 0)}, &results) ==
          ZkError::kOk);
  CHECK_FALSE(w.server()->tree().exists("/tmp"));
  // Deleting a parent before its child fails the whole multi.
  CHECK(w.multi(c, {ZkOp::remove("/t/p", -1), ZkOp::remove("/t/p/state", -1)}, &results) == ZkError::kNotEmpty);
  CHECK(w.server()->tree().exists("/t/p/state"));
  // An empty multi and a multi of checks only.
  CHECK(w.multi(c, {}, &results) == ZkError::kOk);
  CHECK(results.empty());
  CHECK(w.multi(c, {ZkOp::check("/t", 1)}, &results) == ZkError::kOk);
}
