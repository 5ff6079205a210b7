// Malformed and hostile frames: the server answers what it can with the documented error
// (MarshallingError for a readable header with a bad body, Unimplemented for an op it does not
// serve), closes a connection whose first frame is not a ConnectRequest, answers a session it
// cannot resume with ZooKeeper's expired ConnectResponse, never crashes, and keeps serving others.
#include <catch2/catch.hpp>

#include "zk_harness.h"

using namespace gregor;
using namespace gregor::coord;
using namespace gregor::coord::testing;

namespace {

constexpr NodeId kRaw{9};

RawPeer* add_raw(ZkWorld& w) {
  w.sim.add_node(kRaw, "raw", [](Runtime& rt) { return std::make_unique<RawPeer>(rt); });
  return w.sim.node_as<RawPeer>(kRaw);
}

wire::ReplyHeader last_header(RawPeer* p) {
  wire::ReplyHeader h;
  REQUIRE_FALSE(p->received.empty());
  REQUIRE(wire::decode_reply_header(as_view(p->received.back()), &h));
  return h;
}

Bytes connect_frame() {
  wire::ConnectRequest q;
  q.timeout_ms = 6000;
  q.password = Bytes(wire::kPasswordBytes, 0);
  return wire::encode_connect_request(q);
}

wire::ConnectResponse last_connect_response(RawPeer* p) {
  wire::ConnectResponse c;
  REQUIRE_FALSE(p->received.empty());
  REQUIRE(wire::decode_connect_response(as_view(p->received.back()), &c));
  return c;
}

}  // namespace

TEST_CASE("zk: a readable header with a bad body gets MarshallingError", "[zk][frames]") {
  ZkWorld w(70);
  RawPeer* raw = add_raw(w);
  REQUIRE(raw->send(ZkWorld::kServer, connect_frame()));
  REQUIRE(w.run_until([&] { return raw->received.size() == 1; }, Duration::seconds(1)));
  CHECK(last_connect_response(raw).timeout_ms == 6000);
  CHECK(last_connect_response(raw).session_id != 0);

  // A create whose body stops in the middle of the path.
  ByteWriter bw;
  bw.i32(2);
  bw.i32(static_cast<int32_t>(wire::OpCode::kCreate));
  bw.i32(40);
  bw.raw(std::string_view("/short"));
  REQUIRE(raw->send(ZkWorld::kServer, bw.take()));
  REQUIRE(w.run_until([&] { return raw->received.size() == 2; }, Duration::seconds(1)));
  CHECK(last_header(raw).xid == 2);
  CHECK(last_header(raw).err == ZkError::kMarshallingError);

  // An unknown op code, and one ZooKeeper has but this server does not serve.
  ByteWriter unknown;
  unknown.i32(3);
  unknown.i32(999);
  REQUIRE(raw->send(ZkWorld::kServer, unknown.take()));
  REQUIRE(w.run_until([&] { return raw->received.size() == 3; }, Duration::seconds(1)));
  CHECK(last_header(raw).xid == 3);
  CHECK(last_header(raw).err == ZkError::kUnimplemented);
  ByteWriter add_watch;
  add_watch.i32(33);
  add_watch.i32(static_cast<int32_t>(wire::OpCode::kAddWatch));
  wire::jute::put_string(add_watch, "/");
  add_watch.i32(1);
  REQUIRE(raw->send(ZkWorld::kServer, add_watch.take()));
  REQUIRE(w.run_until([&] { return raw->received.size() == 4; }, Duration::seconds(1)));
  CHECK(last_header(raw).xid == 33);
  CHECK(last_header(raw).err == ZkError::kUnimplemented);

  // Trailing garbage after a valid body.
  wire::Request q;
  q.xid = 4;
  q.op = wire::OpCode::kGetData;
  q.args.path = "/";
  Bytes frame = wire::encode_request(q);
  frame.push_back(0x42);
  REQUIRE(raw->send(ZkWorld::kServer, frame));
  REQUIRE(w.run_until([&] { return raw->received.size() == 5; }, Duration::seconds(1)));
  CHECK(last_header(raw).err == ZkError::kMarshallingError);

  // The connection still works for a good request.
  frame.pop_back();
  REQUIRE(raw->send(ZkWorld::kServer, frame));
  REQUIRE(w.run_until([&] { return raw->received.size() == 6; }, Duration::seconds(1)));
  CHECK(last_header(raw).err == ZkError::kOk);
}

TEST_CASE("zk: a connection whose first frame is not a ConnectRequest is closed", "[zk][frames]") {
  ZkWorld w(71);
  RawPeer* raw = add_raw(w);
  wire::Request q;
  q.xid = 1;
  q.op = wire::OpCode::kCreate;
  q.args = ZkOp::create("/sneaky", {}, CreateMode::kPersistent);
  REQUIRE(raw->send(ZkWorld::kServer, wire::encode_request(q)));
  w.sim.run_for(Duration::seconds(1));
  CHECK(raw->received.empty());
  CHECK(raw->disconnects == 1);
  CHECK_FALSE(w.server()->tree().exists("/sneaky"));

  // Resuming a session with a wrong password gets ZooKeeper's answer for an expired session, even
  // with a request sent right behind it (as the Java client sends SetWatches), and the
  // connection is served nothing after it.
  ZkTestClient* c = w.add_client(NodeId{2});
  wire::ConnectRequest resume;
  resume.timeout_ms = 6000;
  resume.session_id = c->zk.session_id();
  resume.password = Bytes(wire::kPasswordBytes, 0);
  REQUIRE(raw->send(ZkWorld::kServer, wire::encode_connect_request(resume)));
  REQUIRE(raw->send(ZkWorld::kServer, wire::encode_request(q)));
  REQUIRE(w.run_until([&] { return raw->received.size() == 1; }, Duration::seconds(1)));
  CHECK(last_connect_response(raw).timeout_ms == 0);
  CHECK(last_connect_response(raw).session_id == 0);
  CHECK(last_connect_response(raw).password == Bytes(wire::kPasswordBytes, 0));
  REQUIRE(raw->send(ZkWorld::kServer, wire::encode_request(q)));
  w.sim.run_for(Duration::seconds(1));
  CHECK(raw->received.size() == 1);
  CHECK_FALSE(w.server()->tree().exists("/sneaky"));
  CHECK(c->zk.state() == SessionState::kConnected);  // the real owner is undisturbed
}

TEST_CASE("zk: a client that saw a newer zxid than the server is turned away", "[zk][frames]") {
  ZkWorld w(74);
  RawPeer* raw = add_raw(w);
  wire::ConnectRequest q;
  q.timeout_ms = 6000;
  q.last_zxid_seen = make_zxid(1, 1000);  // the server has a handful of txns, in epoch 1
  REQUIRE(raw->send(ZkWorld::kServer, wire::encode_connect_request(q)));
  REQUIRE(w.run_until([&] { return raw->disconnects == 1; }, Duration::seconds(1)));
  CHECK(raw->received.empty());
  CHECK(w.server()->session_count() == 0);
}

TEST_CASE("zk: random and truncated frames never crash the server", "[zk][frames]") {
  ZkWorld w(72);
  ZkTestClient* good = w.add_client(NodeId{2});
  REQUIRE(w.create(good, "/keep", "safe") == ZkError::kOk);
  RawPeer* raw = add_raw(w);
  Rng rng = w.sim.stream("fuzz");
  // Valid frames of every op, then mutated: truncated, bit-flipped, or random bytes.
  std::vector<Bytes> seeds;
  auto add = [&](wire::Request q) { seeds.push_back(wire::encode_request(q)); };
  seeds.push_back(connect_frame());
  {
    wire::Request q;
    q.xid = 1;
    q.op = wire::OpCode::kCreate;
    q.args = ZkOp::create("/f", to_bytes("data"), CreateMode::kEphemeralSequential);
    add(q);
    q.op = wire::OpCode::kSetData;
    // Not /keep: an unmutated copy of this frame is a legitimate write from the raw peer's own
    // session, and three flipped bits cannot turn "/zzzz" into "/keep".
    q.args = ZkOp::set_data("/zzzz", to_bytes("x"), 0);
    add(q);
    q.op = wire::OpCode::kMulti;
    q.ops = {ZkOp::check("/keep", 0), ZkOp::create("/f/g", {}, CreateMode::kPersistent), ZkOp::remove("/f", -1)};
    add(q);
    q.op = wire::OpCode::kSetWatches;
    q.set_watches.data_watches = {"/keep", "bad"};
    add(q);
    q.op = wire::OpCode::kGetChildren;
    q.args.path = "/";
    add(q);
  }
  for (int i = 0; i < 3000; i++) {
    Bytes f = seeds[rng.uniform(seeds.size())];
    switch (rng.uniform(3)) {
      case 0: f.resize(rng.uniform(f.size() + 1)); break;
      case 1:
        for (int k = 0; k < 3; k++) f[rng.uniform(f.size())] ^= static_cast<uint8_t>(1u << rng.uniform(8));
        break;
      default:
        f.resize(rng.uniform(64));
        for (auto& b : f) b = static_cast<uint8_t>(rng.next_u64());
    }
    raw->send(ZkWorld::kServer, f);
    if (i % 50 == 0) w.sim.run_for(Duration::millis(5));
  }
  w.sim.run_for(Duration::seconds(1));
  REQUIRE(w.server()->serving());
  // The honest client is unaffected.
  std::string data;
  CHECK(w.get(good, "/keep", &data) == ZkError::kOk);
  CHECK(data == "safe");
  CHECK(w.create(good, "/after-fuzz") == ZkError::kOk);
}

TEST_CASE("zk: a client ignores garbage from its server by dropping the connection", "[zk][frames]") {
  ZkWorld w(73);
  ZkTestClient* c = w.add_client(NodeId{2});
  const int64_t session = c->zk.session_id();
  // Feed the client frames as if from its server: malformed ones cost a reconnect, nothing more.
  c->zk.on_message(ZkWorld::kServer, Bytes{1, 2, 3});
  CHECK(c->zk.state() == SessionState::kDisconnected);
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(5)));
  CHECK(c->zk.session_id() == session);
  c->zk.on_message(ZkWorld::kServer, wire::encode_error_reply(12345, 0, ZkError::kOk));  // an unknown xid
  CHECK(c->zk.state() == SessionState::kDisconnected);
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(5)));
  // A notification of an event type this client never asks for is ignored, not a broken frame.
  c->zk.on_message(ZkWorld::kServer, wire::encode_notification(-1, WatchEvent{static_cast<WatchType>(7), "/x"}));
  CHECK(c->zk.state() == SessionState::kConnected);
  Bytes cut = wire::encode_notification(-1, WatchEvent{WatchType::kNodeCreated, "/x"});
  cut.pop_back();
  c->zk.on_message(ZkWorld::kServer, cut);
  CHECK(c->zk.state() == SessionState::kDisconnected);
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(5)));
  CHECK(w.create(c, "/fine") == ZkError::kOk);
}

TEST_CASE("zk: jute.maxbuffer bounds a request (beyond 1024 + 8 KiB refused at jute.maxbuffer=1024, a full znode served at the default)",
          "[zk][frames]") {
  auto create_of = [](size_t bytes) {
    wire::Request q;
    q.xid = 1;
    q.op = wire::OpCode::kCreate;
    q.args = ZkOp::create("/big", Bytes(bytes, 7), CreateMode::kPersistent);
    return wire::encode_request(q);
  };
  {
    ZkServerConfig small;
    small.jute_maxbuffer = 1024;
    REQUIRE(small.max_request_bytes() == 1024 + ZkLimits::kRequestOverheadBytes);
    ZkWorld w(72, small);
    RawPeer* raw = add_raw(w);
    REQUIRE(raw->send(ZkWorld::kServer, connect_frame()));
    REQUIRE(w.run_until([&] { return raw->received.size() == 1; }, Duration::seconds(1)));
    // Just within the limit: served.
    const Bytes fits = create_of(1024 + ZkLimits::kRequestOverheadBytes - 128);
    REQUIRE(fits.size() <= small.max_request_bytes());
    REQUIRE(raw->send(ZkWorld::kServer, fits));
    REQUIRE(w.run_until([&] { return raw->received.size() == 2; }, Duration::seconds(1)));
    CHECK(last_header(raw).err == ZkError::kOk);
    // Beyond it: the connection is closed and nothing is created.
    REQUIRE(raw->send(ZkWorld::kServer, create_of(small.max_request_bytes())));
    w.sim.run_for(Duration::seconds(1));
    CHECK(raw->disconnects == 1);
    CHECK(raw->received.size() == 2);
  }
  {
    ZkServerConfig defaults;
    CHECK(defaults.jute_maxbuffer == 0xfffff);
    ZkWorld w(73, defaults);
    RawPeer* raw = add_raw(w);
    REQUIRE(raw->send(ZkWorld::kServer, connect_frame()));
    REQUIRE(w.run_until([&] { return raw->received.size() == 1; }, Duration::seconds(1)));
    REQUIRE(raw->send(ZkWorld::kServer, create_of(ZkLimits::kMaxDataBytes)));  // a full znode fits
    REQUIRE(w.run_until([&] { return raw->received.size() == 2; }, Duration::seconds(1)));
    CHECK(last_header(raw).err == ZkError::kOk);
    CHECK(w.server()->tree().exists("/big"));
  }
}
