// The wire format against the real thing: frames captured on loopback between ZooKeeper's own
// clients (zkCli.sh of Debian's zookeeper 3.8.0, kazoo 2.8.0) and an Apache ZooKeeper 3.8.0
// server, byte for byte. Gregor's encoders must write what those clients write, its decoders must
// read what that server answers, and its server must answer those clients' frames.
#include <catch2/catch.hpp>

#include "zk_harness.h"

using namespace gregor;
using namespace gregor::coord;
using namespace gregor::coord::testing;

namespace {

Bytes from_hex(std::string_view h) {
  REQUIRE(h.size() % 2 == 0);
  auto nibble = [](char c) -> uint8_t {
    if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
    return static_cast<uint8_t>(c - 'a' + 10);
  };
  Bytes out;
  for (size_t i = 0; i < h.size(); i += 2) out.push_back(static_cast<uint8_t>(nibble(h[i]) << 4 | nibble(h[i + 1])));
  return out;
}

// zkCli.sh (the Java client) opening a session: protocol 0, lastZxidSeen 0, timeout 30000, no
// session, 16 zero bytes of password, readOnly false.
constexpr std::string_view kJavaConnect = "000000000000000000000000000075300000000000000000000000100000000000000000000000000000000000";
// Apache ZooKeeper's answer: timeout 30000, session 0x0100001fa4030000, a password, readOnly false.
constexpr std::string_view kServerConnect = "00000000000075300100001fa4030000000000105f3d7a3300ad5880d57430754965976e00";

wire::Request make(int32_t xid, wire::OpCode op, ZkOp args = {}, bool watch = false) {
  wire::Request q;
  q.xid = xid;
  q.op = op;
  q.args = std::move(args);
  q.watch = watch;
  return q;
}

ZkOp path_only(std::string path) {
  ZkOp op;
  op.path = std::move(path);
  return op;
}

}  // namespace

TEST_CASE("zk jute: Gregor's client writes what ZooKeeper's clients write", "[zk][jute]") {
  wire::ConnectRequest c;
  c.timeout_ms = 30000;
  c.password = Bytes(wire::kPasswordBytes, 0);
  CHECK(hex(as_view(wire::encode_connect_request(c))) == kJavaConnect);

  // zkCli: ls / (getChildren2), create /cli-p hello, create -e /cli-e (null data), get -s,
  // set, stat of a missing node, delete, sync.
  CHECK(hex(as_view(wire::encode_request(make(1, wire::OpCode::kGetChildren2, path_only("/"))))) ==
        "000000010000000c000000012f00");
  CHECK(hex(as_view(wire::encode_request(
            make(1, wire::OpCode::kCreate, ZkOp::create("/cli-p", to_bytes("hello"), CreateMode::kPersistent))))) ==
        "0000000100000001000000062f636c692d700000000568656c6c6f000000010000001f00000005776f726c6400000006616e796f6e6500"
        "000000");
  CHECK(hex(as_view(wire::encode_request(
            make(1, wire::OpCode::kCreate, ZkOp::create("/cli-e", std::nullopt, CreateMode::kEphemeral))))) ==
        "0000000100000001000000062f636c692d65ffffffff000000010000001f00000005776f726c6400000006616e796f6e6500000001");
  CHECK(hex(as_view(wire::encode_request(make(1, wire::OpCode::kGetData, path_only("/cli-p")))))
        == "0000000100000004000000062f636c692d7000");
  CHECK(hex(as_view(wire::encode_request(make(1, wire::OpCode::kSetData, ZkOp::set_data("/cli-p", to_bytes("world"), -1)))))
        == "0000000100000005000000062f636c692d7000000005776f726c64ffffffff");
  CHECK(hex(as_view(wire::encode_request(make(1, wire::OpCode::kExists, path_only("/nope"))))) ==
        "0000000100000003000000052f6e6f706500");
  CHECK(hex(as_view(wire::encode_request(make(1, wire::OpCode::kDelete, ZkOp::remove("/cli-p", -1))))) ==
        "0000000100000002000000062f636c692d70ffffffff");
  CHECK(hex(as_view(wire::encode_request(make(1, wire::OpCode::kSync, path_only("/"))))) == "0000000100000009000000012f");

  // kazoo: a get with a watch, a transaction, and close.
  CHECK(hex(as_view(wire::encode_request(make(6, wire::OpCode::kGetData, path_only("/kz/a"), true)))) ==
        "0000000600000004000000052f6b7a2f6101");
  wire::Request multi = make(7, wire::OpCode::kMulti);
  ZkOp create = ZkOp::create("/kz/b", to_bytes("x"), CreateMode::kPersistent);
  multi.ops = {ZkOp::check("/kz/a", 0), create, ZkOp::set_data("/kz/a", to_bytes("y"), -1), ZkOp::remove("/kz/b", -1)};
  CHECK(hex(as_view(wire::encode_request(multi))) ==
        "000000070000000e0000000d00ffffffff000000052f6b7a2f61000000000000000100ffffffff000000052f6b7a2f6200000001780000"
        "00010000001f00000005776f726c6400000006616e796f6e65000000000000000500ffffffff000000052f6b7a2f610000000179ffffff"
        "ff0000000200ffffffff000000052f6b7a2f62ffffffffffffffff01ffffffff");
  CHECK(hex(as_view(wire::encode_request(make(9, wire::OpCode::kCloseSession)))) == "00000009fffffff5");
}

TEST_CASE("zk jute: Gregor's client reads what Apache ZooKeeper answers", "[zk][jute]") {
  wire::ConnectResponse c;
  REQUIRE(wire::decode_connect_response(as_view(from_hex(kServerConnect)), &c));
  CHECK(c.timeout_ms == 30000);
  CHECK(c.session_id == 0x0100001fa4030000);
  CHECK(c.password.size() == wire::kPasswordBytes);
  CHECK(c.has_read_only);
  CHECK_FALSE(c.read_only);

  wire::Reply r;
  // getChildren2 of / on a fresh server: the system znode, and the root's stat.
  REQUIRE(wire::decode_reply(
      as_view(from_hex("0000000100000000000000010000000000000001000000097a6f6f6b65657065720000000000000000000000000000000000"
                       "00000000000000000000000000000000000000ffffffff00000000000000000000000000000000000000010000000000000000")),
      wire::OpCode::kGetChildren2, &r));
  CHECK(r.header.xid == 1);
  CHECK(r.header.zxid == 1);
  CHECK(r.children == std::vector<std::string>{"zookeeper"});
  CHECK(r.stat.num_children == 1);
  CHECK(r.stat.cversion == -1);

  // getData of a znode created with "hello": its Stat field by field.
  r = {};
  REQUIRE(wire::decode_reply(
      as_view(from_hex("000000010000000000000006000000000000000568656c6c6f00000000000000030000000000000003000001a23bb7e72100"
                       "0001a23bb7e721000000000000000000000000000000000000000000000005000000000000000000000003")),
      wire::OpCode::kGetData, &r));
  CHECK(to_string(as_view(r.data)) == "hello");
  CHECK_FALSE(r.null_data);
  CHECK(r.stat == Stat{3, 3, 0x1a23bb7e721, 0x1a23bb7e721, 0, 0, 0, 0, 5, 0, 3});

  // getData of a znode created with null data.
  r = {};
  REQUIRE(wire::decode_reply(
      as_view(from_hex("00000002000000000000000600000000ffffffff00000000000000060000000000000006000001a23bae5ab9000001a23bae5a"
                       "b9000000000000000000000000000000000000000000000000000000000000000000000006")),
      wire::OpCode::kGetData, &r));
  CHECK(r.null_data);
  CHECK(r.data.empty());

  // exists of a missing node: NoNode in the header, no record.
  r = {};
  REQUIRE(wire::decode_reply(as_view(from_hex("000000010000000000000009ffffff9b")), wire::OpCode::kExists, &r));
  CHECK(r.header.err == ZkError::kNoNode);

  // kazoo's transaction above, committed: check, create, setData (with its Stat), delete.
  r = {};
  REQUIRE(wire::decode_reply(
      as_view(from_hex("000000070000000000000011000000000000000d0000000000000000010000000000000000052f6b7a2f6200000005000000"
                       "000000000000000000100000000000000011000001a23bb81a0a000001a23bb81a1800000001000000000000000000000000"
                       "0000000000000001000000000000000000000010000000020000000000ffffffff01ffffffff")),
      wire::OpCode::kMulti, &r));
  REQUIRE(r.results.size() == 4);
  CHECK(r.results[0].type == ZkOpType::kCheck);
  CHECK(r.results[1].type == ZkOpType::kCreate);
  CHECK(r.results[1].created_path == "/kz/b");
  CHECK(r.results[2].type == ZkOpType::kSetData);
  CHECK(r.results[2].stat.version == 1);
  CHECK(r.results[2].stat.mzxid == 0x11);
  CHECK(r.results[3].type == ZkOpType::kDelete);

  // A failed transaction (create, then a check on the wrong version): Ok in the header, every op
  // an ErrorResult: Ok (rolled back), then BadVersion.
  r = {};
  REQUIRE(wire::decode_reply(
      as_view(from_hex("00000008000000000000001200000000ffffffff000000000000000000ffffffff00ffffff99ffffff99ffffffff01ffffffff")),
      wire::OpCode::kMulti, &r));
  CHECK(r.header.err == ZkError::kOk);
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[0].error == ZkError::kOk);
  CHECK(r.results[1].error == ZkError::kBadVersion);

  // A watch notification: zxid -1, NodeDataChanged, SyncConnected.
  r = {};
  REQUIRE(wire::decode_notification(as_view(from_hex("ffffffffffffffffffffffff000000000000000300000003000000052f6b7a2f61")), &r));
  CHECK(r.event == WatchEvent{WatchType::kNodeDataChanged, "/kz/a"});
  CHECK(r.header.zxid == -1);

  // getACL: the open ACL and the Stat.
  r = {};
  REQUIRE(wire::decode_reply(
      as_view(from_hex("0000000a000000000000000a00000000000000010000001f00000005776f726c6400000006616e796f6e650000000000000006"
                       "0000000000000009000001a23bae5ab9000001a23bae5ad300000001000000000000000000000000000000000000000100000000"
                       "0000000000000006")),
      wire::OpCode::kGetAcl, &r));
  CHECK(r.acl == open_acl_unsafe());
  CHECK(r.stat.version == 1);
}

TEST_CASE("zk jute: Gregor's server answers the Java client's frames as ZooKeeper does", "[zk][jute]") {
  ZkWorld w(80);
  w.sim.add_node(NodeId{9}, "java", [](Runtime& rt) { return std::make_unique<RawPeer>(rt); });
  RawPeer* java = w.sim.node_as<RawPeer>(NodeId{9});
  auto exchange = [&](std::string_view request_hex) -> Bytes {
    const size_t before = java->received.size();
    REQUIRE(java->send(ZkWorld::kServer, from_hex(request_hex)));
    REQUIRE(w.run_until([&] { return java->received.size() > before; }, Duration::seconds(1)));
    return java->received.back();
  };
  // The handshake: the same shape as ZooKeeper's answer (37 bytes, readOnly echoed).
  Bytes connect = exchange(kJavaConnect);
  CHECK(connect.size() == from_hex(kServerConnect).size());
  wire::ConnectResponse c;
  REQUIRE(wire::decode_connect_response(as_view(connect), &c));
  CHECK(c.timeout_ms == 30000);
  CHECK(c.session_id != 0);
  CHECK(c.has_read_only);

  // create /cli-p hello: the reply is ZooKeeper's but for the zxid.
  Bytes created = exchange(
      "0000000100000001000000062f636c692d700000000568656c6c6f000000010000001f00000005776f726c6400000006616e796f6e6500000000");
  wire::ReplyHeader h;
  REQUIRE(wire::decode_reply_header(as_view(created), &h));
  CHECK(hex(as_view(created)).substr(0, 8) == "00000001");
  CHECK(hex(as_view(created)).substr(24) == "00000000000000062f636c692d70");
  // get -s /cli-p: data, and a Stat whose ctime is the simulated wall clock.
  wire::Reply r;
  REQUIRE(wire::decode_reply(as_view(exchange("0000000200000004000000062f636c692d7000")), wire::OpCode::kGetData, &r));
  CHECK(to_string(as_view(r.data)) == "hello");
  CHECK(r.stat.czxid == h.zxid);
  CHECK(r.stat.ctime >= Runtime::kSimulatedEpochMs);
  CHECK(r.stat.mtime == r.stat.ctime);
  CHECK(r.stat.data_length == 5);
  // ls / (getChildren2): the system znode is there, as on ZooKeeper.
  r = {};
  REQUIRE(wire::decode_reply(as_view(exchange("000000030000000c000000012f00")), wire::OpCode::kGetChildren2, &r));
  CHECK(r.children == std::vector<std::string>{"cli-p", "zookeeper"});
  CHECK(r.stat.num_children == 2);
  // create -e with null data, then getData answers null.
  exchange("0000000400000001000000062f636c692d65ffffffff000000010000001f00000005776f726c6400000006616e796f6e6500000001");
  r = {};
  REQUIRE(wire::decode_reply(as_view(exchange("0000000500000004000000062f636c692d6500")), wire::OpCode::kGetData, &r));
  CHECK(r.null_data);
  CHECK(r.stat.ephemeral_owner == c.session_id);
  // stat of a missing node: exactly ZooKeeper's 16 bytes, NoNode.
  Bytes missing = exchange("0000000600000003000000052f6e6f706500");
  CHECK(missing.size() == 16);
  REQUIRE(wire::decode_reply_header(as_view(missing), &h));
  CHECK(h.err == ZkError::kNoNode);
  // kazoo's failed transaction shape: header Ok, ErrorResults (Ok, BadVersion), the end marker.
  wire::Request multi = make(7, wire::OpCode::kMulti);
  multi.ops = {ZkOp::create("/kz-c", to_bytes("x"), CreateMode::kPersistent), ZkOp::check("/cli-p", 5)};
  Bytes failed = exchange(hex(as_view(wire::encode_request(multi))));
  CHECK(hex(as_view(failed)).substr(24) == "00000000ffffffff000000000000000000ffffffff00ffffff99ffffff99ffffffff01ffffffff");
  CHECK_FALSE(w.server()->tree().exists("/kz-c"));
  // sync and closeSession: their replies carry the path, then nothing.
  r = {};
  REQUIRE(wire::decode_reply(as_view(exchange("0000000800000009000000012f")), wire::OpCode::kSync, &r));
  CHECK(r.path == "/");
  Bytes closed = exchange("00000009fffffff5");
  REQUIRE(wire::decode_reply_header(as_view(closed), &h));
  CHECK(h.xid == 9);
  CHECK(h.err == ZkError::kOk);
  CHECK(closed.size() == 16);
  CHECK_FALSE(w.server()->tree().exists("/cli-e"));  // the ephemeral went with the session
}
