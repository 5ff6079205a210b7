// Sessions: timeouts negotiated within ZooKeeper's bounds, heartbeats keeping a session alive,
// ephemerals vanishing on expiry (and only then), a partitioned client learning of its expiry only
// after it reconnects, resuming a session after a short disconnect, close(), and a fresh session
// after expiry.
#include <catch2/catch.hpp>

#include "zk_harness.h"

using namespace gregor;
using namespace gregor::coord;
using namespace gregor::coord::testing;

namespace {

bool has(ZkWorld& w, const std::string& path) { return w.server()->tree().exists(path); }

}  // namespace

TEST_CASE("zk: session timeouts are bounded by 2 and 20 ticks", "[zk][session]") {
  ZkWorld w(10);  // tickTime 2000 ms: [4000, 40000]
  ZkTestClient* small = w.add_client(NodeId{2}, w.client_config(Duration::millis(1000)));
  ZkTestClient* large = w.add_client(NodeId{3}, w.client_config(Duration::millis(100000)));
  ZkTestClient* kafka = w.add_client(NodeId{4}, w.client_config(Duration::millis(18000)));
  CHECK(small->zk.negotiated_timeout() == Duration::millis(4000));
  CHECK(large->zk.negotiated_timeout() == Duration::millis(40000));
  CHECK(kafka->zk.negotiated_timeout() == Duration::millis(18000));
  CHECK(w.server()->session_count() == 3);
}

TEST_CASE("zk: heartbeats keep a session and its ephemerals alive", "[zk][session]") {
  ZkWorld w(11);
  ZkTestClient* c = w.add_client(NodeId{2});
  const int64_t session = c->zk.session_id();
  REQUIRE(w.create(c, "/brokers") == ZkError::kOk);
  REQUIRE(w.create(c, "/brokers/1", "", CreateMode::kEphemeral) == ZkError::kOk);
  // Ten session timeouts of doing nothing but pinging.
  w.sim.run_for(Duration::seconds(60));
  CHECK(has(w, "/brokers/1"));
  CHECK(c->zk.state() == SessionState::kConnected);
  CHECK(c->zk.session_id() == session);
  CHECK(c->states == std::vector<SessionState>{SessionState::kConnected});
  CHECK(w.server()->has_session(session));
}

TEST_CASE("zk: ephemerals vanish when their session expires and only then", "[zk][session]") {
  for (uint64_t seed = 20; seed < 30; seed++) {
    ZkWorld w(seed);
    ZkTestClient* owner = w.add_client(NodeId{2});
    ZkTestClient* other = w.add_client(NodeId{3});
    REQUIRE(w.create(owner, "/brokers") == ZkError::kOk);
    REQUIRE(w.create(owner, "/brokers/1", "", CreateMode::kEphemeral) == ZkError::kOk);
    std::string seq;
    REQUIRE(w.create(owner, "/brokers/s-", "", CreateMode::kEphemeralSequential, &seq) == ZkError::kOk);
    REQUIRE(w.create(other, "/brokers/2", "", CreateMode::kEphemeral) == ZkError::kOk);
    REQUIRE(w.create(owner, "/persistent") == ZkError::kOk);
    const int64_t session = owner->zk.session_id();
    const Duration timeout = owner->zk.negotiated_timeout();

    // The owner dies silently (no close): its session lives on until the timeout.
    const Time died = w.sim.now();
    w.sim.crash(NodeId{2});
    REQUIRE(w.run_until([&] { return has(w, "/brokers/1") == false; }, Duration::seconds(60)));
    const Duration after = w.sim.now() - died;
    // Not before the timeout; at most two ticks after it (expiry is checked on tick boundaries).
    CHECK(after >= timeout);
    CHECK(after <= timeout + Duration::millis(4000));
    CHECK_FALSE(has(w, seq));
    CHECK(has(w, "/brokers/2"));    // another session's ephemeral stays
    CHECK(has(w, "/persistent"));  // persistent nodes stay
    CHECK_FALSE(w.server()->has_session(session));
    CHECK(w.server()->tree().ephemerals(session).empty());
  }
}

TEST_CASE("zk: close deletes the session's ephemerals at once", "[zk][session]") {
  ZkWorld w(12);
  ZkTestClient* c = w.add_client(NodeId{2});
  ZkTestClient* watcher = w.add_client(NodeId{3});
  REQUIRE(w.create(c, "/controller", "1", CreateMode::kEphemeral) == ZkError::kOk);
  REQUIRE(w.exists(watcher, "/controller", true) == ZkError::kOk);
  const Time t0 = w.sim.now();
  c->zk.close();
  REQUIRE(w.run_until([&] { return !has(w, "/controller"); }, Duration::seconds(1)));
  CHECK(w.sim.now() - t0 < Duration::millis(100));
  REQUIRE(w.run_until([&] { return !watcher->events.empty(); }, Duration::seconds(1)));
  CHECK(watcher->events[0] == WatchEvent{WatchType::kNodeDeleted, "/controller"});
  // c hears the close's reply on its own link, which may be slower than the watcher's.
  CHECK(w.run_until([&] { return c->zk.state() == SessionState::kExpired; }, Duration::seconds(1)));
  CHECK(w.server()->session_count() == 1);
}

TEST_CASE("zk: a partitioned client learns of its expiry only after reconnecting", "[zk][session]") {
  for (uint64_t seed = 30; seed < 36; seed++) {
    ZkWorld w(seed);
    ZkTestClient* c = w.add_client(NodeId{2});
    ZkTestClient* observer = w.add_client(NodeId{3});
    REQUIRE(w.create(c, "/brokers") == ZkError::kOk);
    REQUIRE(w.create(c, "/brokers/1", "", CreateMode::kEphemeral) == ZkError::kOk);
    std::vector<std::string> kids;
    REQUIRE(w.children(observer, "/brokers", &kids, true) == ZkError::kOk);
    const int64_t session = c->zk.session_id();

    w.sim.partition({NodeId{2}}, {ZkWorld::kServer});
    // The client notices the broken connection and says Disconnected (not Expired).
    REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kDisconnected; }, Duration::seconds(5)));
    // A write issued while cut off fails with ConnectionLoss.
    CHECK(w.create(c, "/while-cut") == ZkError::kConnectionLoss);

    // The server expires the session after its timeout: the ephemeral goes, the observer hears it.
    REQUIRE(w.run_until([&] { return !has(w, "/brokers/1"); }, Duration::seconds(30)));
    REQUIRE(w.run_until([&] { return !observer->events.empty(); }, Duration::seconds(1)));
    CHECK(observer->events[0] == WatchEvent{WatchType::kNodeChildrenChanged, "/brokers"});
    // The client, still cut off, knows nothing of it.
    w.sim.run_for(Duration::seconds(20));
    CHECK(c->zk.state() == SessionState::kDisconnected);
    CHECK(c->zk.session_id() == session);

    // Healed, it reconnects and the server tells it the session expired.
    w.sim.heal({NodeId{2}}, {ZkWorld::kServer});
    REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kExpired; }, Duration::seconds(10)));
    CHECK(c->states == std::vector<SessionState>{SessionState::kConnected, SessionState::kDisconnected,
                                                  SessionState::kExpired});
    CHECK(w.create(c, "/after-expiry") == ZkError::kSessionExpired);

    // It can open a new session and register again.
    c->zk.start();
    REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(10)));
    CHECK(c->zk.session_id() != session);
    CHECK(w.create(c, "/brokers/1", "", CreateMode::kEphemeral) == ZkError::kOk);
  }
}

TEST_CASE("zk: a short disconnect resumes the same session and keeps its ephemerals", "[zk][session]") {
  ZkWorld w(13);
  ZkTestClient* c = w.add_client(NodeId{2});  // 6 s timeout
  REQUIRE(w.create(c, "/e", "", CreateMode::kEphemeral) == ZkError::kOk);
  const int64_t session = c->zk.session_id();
  w.sim.partition({NodeId{2}}, {ZkWorld::kServer});
  w.sim.run_for(Duration::seconds(2));
  CHECK(c->zk.state() == SessionState::kDisconnected);
  w.sim.heal({NodeId{2}}, {ZkWorld::kServer});
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(5)));
  CHECK(c->zk.session_id() == session);
  w.sim.run_for(Duration::seconds(30));
  CHECK(has(w, "/e"));
  CHECK(w.set(c, "/e", "still mine") == ZkError::kOk);
}

TEST_CASE("zk: a client that hears nothing for 2/3 of its timeout declares itself disconnected", "[zk][session]") {
  ZkWorld w(14);
  ZkTestClient* c = w.add_client(NodeId{2});  // 6 s timeout: read timeout 4 s
  const int64_t session = c->zk.session_id();
  REQUIRE(w.create(c, "/e", "", CreateMode::kEphemeral) == ZkError::kOk);
  // The server's frames to the client are held (the connection stays up); the client's pings
  // still reach the server, so the session itself stays alive.
  const Time t0 = w.sim.now();
  w.sim.clog(ZkWorld::kServer, NodeId{2}, Duration::seconds(5));
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kDisconnected; }, Duration::seconds(10)));
  // 4 s after the last frame heard, which came at most one ping interval (2 s) before the clog.
  CHECK(w.sim.now() - t0 >= Duration::millis(1900));
  CHECK(w.sim.now() - t0 <= Duration::millis(4100));
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(10)));
  CHECK(c->zk.session_id() == session);
  CHECK(has(w, "/e"));
}

TEST_CASE("zk: a session expires on a server that stops hearing pings even while connected", "[zk][session]") {
  ZkWorld w(15);
  ZkTestClient* c = w.add_client(NodeId{2});
  REQUIRE(w.create(c, "/e", "", CreateMode::kEphemeral) == ZkError::kOk);
  // Hold the client's frames to the server beyond the session timeout.
  w.sim.clog(NodeId{2}, ZkWorld::kServer, Duration::seconds(12));
  REQUIRE(w.run_until([&] { return !has(w, "/e"); }, Duration::seconds(12)));
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kExpired; }, Duration::seconds(20)));
  CHECK(c->states.back() == SessionState::kExpired);
}

TEST_CASE("zk: requests made before the session is connected wait for it", "[zk][session]") {
  ZkWorld w(16);
  ZkTestClient* c = w.add_client(NodeId{2}, w.client_config(), false);
  std::vector<std::string> order;
  c->zk.create("/a", {}, CreateMode::kPersistent, [&](ZkError e, std::string) {
    CHECK(e == ZkError::kOk);
    order.push_back("create");
  });
  c->zk.get_data("/a", false, [&](ZkError e, Bytes, Stat) {
    CHECK(e == ZkError::kOk);
    order.push_back("get");
  });
  REQUIRE(w.run_until([&] { return order.size() == 2; }, Duration::seconds(5)));
  CHECK(order == std::vector<std::string>{"create", "get"});
}

TEST_CASE("zk: a client keeps retrying while the server is down and resumes its session", "[zk][session]") {
  ZkWorld w(17);
  ZkTestClient* c = w.add_client(NodeId{2}, w.client_config(Duration::millis(18000)));
  REQUIRE(w.create(c, "/brokers") == ZkError::kOk);
  REQUIRE(w.create(c, "/brokers/1", "", CreateMode::kEphemeral) == ZkError::kOk);
  const int64_t session = c->zk.session_id();
  w.sim.crash(ZkWorld::kServer);
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kDisconnected; }, Duration::seconds(1)));
  w.sim.run_for(Duration::seconds(10));
  w.sim.restart(ZkWorld::kServer);
  // The restored session gets a fresh window; the client resumes it.
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(5)));
  CHECK(c->zk.session_id() == session);
  w.sim.run_for(Duration::seconds(60));
  CHECK(has(w, "/brokers/1"));
  CHECK(w.server()->has_session(session));
}

TEST_CASE("zk: a restored session whose client is gone expires after a fresh timeout", "[zk][session]") {
  ZkWorld w(18);
  ZkTestClient* c = w.add_client(NodeId{2}, w.client_config(Duration::millis(10000)));
  REQUIRE(w.create(c, "/e", "", CreateMode::kEphemeral) == ZkError::kOk);
  w.sim.crash(NodeId{2});
  w.sim.crash(ZkWorld::kServer);
  w.sim.run_for(Duration::seconds(60));
  w.sim.restart(ZkWorld::kServer);
  const Time restarted = w.sim.now();
  REQUIRE(has(w, "/e"));
  REQUIRE(w.run_until([&] { return !has(w, "/e"); }, Duration::seconds(30)));
  CHECK(w.sim.now() - restarted >= Duration::millis(10000));
}
