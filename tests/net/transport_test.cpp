// The real TCP transport between AsioRuntimes on 127.0.0.1: framing, ordering, connection ids,
// malformed input, peer restarts, bounded queues. Every wait is bounded (AsioWorld::run_until).
#include <catch2/catch.hpp>

#include "net/echo_node.h"
#include "net/file_disk.h"
#include "net_test_util.h"

using namespace gregor;
using net::AsioWorld;
using test::RecorderLog;

namespace {
constexpr Duration kWait = Duration::seconds(10);  // an upper bound, never a pause
const NodeId kA{1}, kB{2}, kC{3};
}  // namespace

TEST_CASE("Transport: frames of varied sizes arrive whole and in order, and echo back in order") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  world.add_node(test::node_config(1, /*listen=*/false), test::recorder(a, false));
  world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();

  std::vector<Bytes> sent;
  const size_t sizes[] = {0, 1, 3, 4, 5, 64, 1000, 65535, 65536, 65537, 70000, 300000, 1 << 20};
  Rng rng(7);
  for (uint64_t i = 0; i < 400; i++) {
    size_t size = i < std::size(sizes) ? sizes[i] : (rng.chance(0.05) ? static_cast<size_t>(rng.range(65536, 200000))
                                                                       : static_cast<size_t>(rng.range(0, 2000)));
    sent.push_back(test::pattern_payload(i, size));
    REQUIRE(world.runtime(kA).send(kB, sent.back()));
  }
  REQUIRE(world.run_until([&] { return a->messages.size() == sent.size(); }, kWait));
  for (size_t i = 0; i < sent.size(); i++) {
    CHECK(a->messages[i].from == kB);  // the reply on A's outbound connection comes from B
    CHECK(a->messages[i].frame == sent[i]);
  }
  auto* echo = world.node_as<net::EchoNode>(kB);
  CHECK(echo->requests() == sent.size());
  CHECK(echo->echo_failures() == 0);
  REQUIRE(echo->clients().size() == 1);  // one connection carried everything
  CHECK(world.runtime(kA).stats().connections_opened == 1);
  CHECK(world.runtime(kB).stats().connections_accepted == 1);
}

TEST_CASE("Transport: with socket buffers of 64 KiB (socket.send/receive.buffer.bytes) large frames still arrive whole") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  net::NodeConfig ca = test::node_config(1, /*listen=*/false);
  net::NodeConfig cb = test::node_config(2);
  for (net::NodeConfig* c : {&ca, &cb}) {
    REQUIRE(c->transport.set("socket.send.buffer.bytes", "65536").is_ok());
    REQUIRE(c->transport.set("socket.receive.buffer.bytes", "65536").is_ok());
  }
  world.add_node(ca, test::recorder(a, false));
  world.add_node(cb, [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  std::vector<Bytes> sent;
  for (uint64_t i = 0; i < 6; i++) {
    sent.push_back(test::pattern_payload(i, i % 2 ? 1000 : 700000));
    REQUIRE(world.runtime(kA).send(kB, sent.back()));
  }
  REQUIRE(world.run_until([&] { return a->messages.size() == sent.size(); }, kWait));
  for (size_t i = 0; i < sent.size(); i++) CHECK(a->messages[i].frame == sent[i]);
}

TEST_CASE("Transport: writes cut anywhere (tiny send buffers) resume inside the frame they stopped in") {
  // A connection hands the kernel everything queued in one gathering write and keeps the position
  // of a write that stopped short: inside a size prefix, a head or a body, of a tiny frame or a
  // large one. Send buffers of 4 KiB make nearly every write stop short. (The receive buffers stay
  // the OS's: a receive window below the segment size stalls loopback TCP for its persist timer.)
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  net::NodeConfig ca = test::node_config(1, /*listen=*/false);
  net::NodeConfig cb = test::node_config(2);
  for (net::NodeConfig* c : {&ca, &cb}) REQUIRE(c->transport.set("socket.send.buffer.bytes", "4096").is_ok());
  world.add_node(ca, test::recorder(a, false));
  world.add_node(cb, [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  std::vector<Bytes> expected;
  Rng rng(22);
  for (uint64_t i = 0; i < 300; i++) {
    const bool large = rng.chance(0.1);
    Bytes head = test::pattern_payload(i, static_cast<size_t>(rng.range(0, 7)));
    Bytes body = test::pattern_payload(5000 + i, large ? static_cast<size_t>(rng.range(20000, 300000)) : static_cast<size_t>(rng.range(0, 9)));
    Bytes joined = head;
    joined.insert(joined.end(), body.begin(), body.end());
    expected.push_back(joined);
    if (i % 2 == 0)
      REQUIRE(world.runtime(kA).send(kB, joined));
    else
      REQUIRE(world.runtime(kA).send_gather(kB, std::move(head), std::move(body)));
  }
  const bool all = world.run_until([&] { return a->messages.size() == expected.size(); }, kWait);
  INFO("echoed " << a->messages.size() << " of " << expected.size() << ", connections opened " << world.runtime(kA).stats().connections_opened << " closed " << world.runtime(kA).stats().connections_closed);
  REQUIRE(all);
  for (size_t i = 0; i < expected.size(); i++) CHECK(a->messages[i].frame == expected[i]);
  CHECK(world.runtime(kA).stats().connections_opened == 1);
}

TEST_CASE("Transport: send_gather is one frame, head then body, in order with plain sends; also to self") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  world.add_node(test::node_config(1, /*listen=*/false), test::recorder(a, false));
  world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  std::vector<Bytes> expected;
  Rng rng(11);
  for (uint64_t i = 0; i < 60; i++) {
    Bytes head = test::pattern_payload(i, static_cast<size_t>(rng.range(0, 40)));
    Bytes body = test::pattern_payload(1000 + i, i % 7 == 0 ? 0 : static_cast<size_t>(rng.range(0, 300000)));
    Bytes joined = head;
    joined.insert(joined.end(), body.begin(), body.end());
    expected.push_back(joined);
    if (i % 3 == 0)
      REQUIRE(world.runtime(kA).send(kB, joined));
    else
      REQUIRE(world.runtime(kA).send_gather(kB, std::move(head), std::move(body)));
  }
  // To self: the loopback connection joins them.
  REQUIRE(world.runtime(kA).send_gather(kA, to_bytes("he"), to_bytes("llo")));
  REQUIRE(world.run_until([&] { return a->messages.size() == expected.size() + 1; }, kWait));
  size_t echoed = 0;
  for (const auto& m : a->messages) {
    if (m.from == kB) {
      REQUIRE(echoed < expected.size());
      CHECK(m.frame == expected[echoed++]);
    } else {
      CHECK(m.from == NodeId{-1});
      CHECK(m.frame == to_bytes("hello"));
    }
  }
  CHECK(echoed == expected.size());
}

TEST_CASE("Transport: file slices go out from their files in place of their holes, cut anywhere; to self they are read") {
  // A Fetch response's records as ranges of segment files (send_with_files): the connection writes
  // the bytes before a slice, then the slice with sendfile, resuming either inside a slice or
  // between pieces when the socket is full (send buffers of 64 KiB make most slices' writes stop
  // short). Not 4 KiB as in the test of cut writes above: with a 4 KiB send buffer on this side only
  // and frames of up to 1.2 MB, loopback TCP stalled here (the peer had the bytes, the sender never
  // saw them acknowledged), with sendfile and also with the slices read into plain frames.
  test::TempDir dir;
  net::FileDisk disk(dir.path() + "/files");
  const Bytes content = test::pattern_payload(99, 3 << 20);
  REQUIRE(disk.create("segment.log").is_ok());
  REQUIRE(disk.append("segment.log", as_view(content)).is_ok());
  auto file = disk.open_shared("segment.log");
  REQUIRE(file.is_ok());
  REQUIRE(*file != nullptr);

  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  net::NodeConfig ca = test::node_config(1, /*listen=*/false);
  REQUIRE(ca.transport.set("socket.send.buffer.bytes", "65536").is_ok());
  world.add_node(ca, test::recorder(a, false));
  world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  std::vector<Bytes> expected;
  uint64_t in_files = 0;
  Rng rng(5);
  for (uint64_t i = 0; i < 120; i++) {
    Bytes head = test::pattern_payload(i, static_cast<size_t>(rng.range(0, 12)));
    Bytes body = test::pattern_payload(7000 + i, static_cast<size_t>(rng.range(0, 40)));
    std::vector<FrameHole> holes;
    size_t position = 0;
    for (int64_t h = rng.range(0, 3); h > 0; h--) {
      position = static_cast<size_t>(rng.range(static_cast<int64_t>(position), static_cast<int64_t>(body.size())));
      const size_t length = static_cast<size_t>(rng.chance(0.2) ? rng.range(0, 3) : rng.range(1, 400000));
      const uint64_t offset = static_cast<uint64_t>(rng.range(0, static_cast<int64_t>(content.size() - length)));
      holes.push_back(FrameHole{position, FileSlice{*file, offset, length}});
    }
    Bytes joined = head;
    auto filled = fill_holes(body, holes);
    REQUIRE(filled.is_ok());
    joined.insert(joined.end(), filled->begin(), filled->end());
    expected.push_back(joined);
    if (i % 5 == 0) {
      REQUIRE(world.runtime(kA).send(kB, joined));
    } else {
      in_files += hole_bytes(holes);
      REQUIRE(world.runtime(kA).send_with_files(kB, std::move(head), std::move(body), std::move(holes)));
    }
  }
  REQUIRE(world.runtime(kA).send_with_files(kA, to_bytes("he"), to_bytes("o"), {FrameHole{0, FileSlice{*file, 10, 3}}}));
  Bytes to_self = to_bytes("he");
  to_self.insert(to_self.end(), content.begin() + 10, content.begin() + 13);
  to_self.push_back('o');
  const bool all = world.run_until([&] { return a->messages.size() == expected.size() + 1; }, kWait);
  INFO("echoed " << a->messages.size() << " of " << expected.size() + 1 << "; B received " << world.node_as<net::EchoNode>(kB)->requests() << "; A queued " << world.runtime(kA).stats().frames_sent);
  REQUIRE(all);
  size_t echoed = 0;
  for (const auto& m : a->messages) {
    if (m.from == kB) {
      REQUIRE(echoed < expected.size());
      CHECK(m.frame == expected[echoed++]);
    } else {
      CHECK(m.frame == to_self);
    }
  }
  CHECK(world.runtime(kA).stats().file_slice_bytes == in_files);
  CHECK(world.runtime(kA).stats().connections_opened == 1);

  // A slice its file no longer holds (truncated under it): the frame's size is on the wire, so the
  // connection closes, and the peer is told.
  REQUIRE(disk.truncate("segment.log", 100).is_ok());
  REQUIRE(world.runtime(kA).send_with_files(kB, to_bytes("x"), {}, {FrameHole{0, FileSlice{*file, 50, 5000}}}));
  REQUIRE(world.run_until([&] { return a->disconnects_of(kB) == 1; }, kWait));
  CHECK(world.logged("ended before them"));
}

TEST_CASE("Transport: an inbound connection has a negative id of its own, and replies go back on it") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  auto b = std::make_shared<RecorderLog>();
  auto c = std::make_shared<RecorderLog>();
  world.add_node(test::node_config(1, false), test::recorder(a, false));
  world.add_node(test::node_config(2), test::recorder(b, false));
  world.add_node(test::node_config(3, false), test::recorder(c, false));
  world.start_all();

  REQUIRE(world.runtime(kA).send(kB, to_bytes("from a")));
  REQUIRE(world.runtime(kC).send(kB, to_bytes("from c")));
  REQUIRE(world.run_until([&] { return b->messages.size() == 2; }, kWait));
  NodeId from_a{0}, from_c{0};
  for (const auto& m : b->messages) (m.frame == to_bytes("from a") ? from_a : from_c) = m.from;
  CHECK(is_inbound_connection(from_a));
  CHECK(is_inbound_connection(from_c));
  CHECK(from_a != from_c);
  CHECK(from_a.value <= net::kFirstInboundConnectionId);  // not -1 or -3: it names a connection, not a node
  CHECK(from_c.value <= net::kFirstInboundConnectionId);

  // B answers each on the connection it came from; each client sees the answer from B.
  REQUIRE(world.runtime(kB).send(from_a, to_bytes("to a")));
  REQUIRE(world.runtime(kB).send(from_c, to_bytes("to c")));
  REQUIRE(world.run_until([&] { return a->messages.size() == 1 && c->messages.size() == 1; }, kWait));
  CHECK(a->messages[0].from == kB);
  CHECK(a->messages[0].frame == to_bytes("to a"));
  CHECK(c->messages[0].from == kB);
  CHECK(c->messages[0].frame == to_bytes("to c"));

  // Nothing is sent to ids that name no connection and no known node.
  CHECK_FALSE(world.runtime(kB).send(NodeId{-1}, to_bytes("x")));
  CHECK_FALSE(world.runtime(kB).send(NodeId{42}, to_bytes("x")));
  CHECK_FALSE(world.runtime(kA).send(kC, to_bytes("x")));  // C does not listen: not a known peer

  // A goes away: B hears of that connection (by its id), and can no longer send on it.
  world.stop(kA);
  REQUIRE(world.run_until([&] { return b->disconnects_of(from_a) == 1; }, kWait));
  CHECK(b->disconnects_of(from_c) == 0);
  CHECK_FALSE(world.runtime(kB).send(from_a, to_bytes("late")));
  REQUIRE(world.runtime(kB).send(from_c, to_bytes("still here")));
  REQUIRE(world.run_until([&] { return c->messages.size() == 2; }, kWait));
}

TEST_CASE("Transport: send to self is a loopback connection, as in the simulator") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  world.add_node(test::node_config(1), test::recorder(a, /*echo=*/true));
  world.start_all();
  REQUIRE(world.runtime(kA).send(kA, to_bytes("ping")));
  // The request arrives from -1, the echo (send(-1)) from 1.
  REQUIRE(world.run_until([&] { return a->messages.size() == 2; }, kWait));
  CHECK(a->messages[0].from == NodeId{-1});
  CHECK(a->messages[1].from == kA);
  CHECK(a->messages[1].frame == to_bytes("ping"));
}

TEST_CASE("Transport: a malformed frame closes only its own connection") {
  struct Case {
    const char* name;
    Bytes bytes;
    const char* logged;
  };
  Bytes negative = {0xff, 0xff, 0xff, 0xfb, 1, 2, 3};
  Bytes oversized = {0x06, 0x40, 0x00, 0x01};  // 104857601: one over socket.request.max.bytes
  Bytes garbage = to_bytes("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
  Bytes cut = {0x00, 0x00, 0x00, 0x10, 'a', 'b'};  // 16 bytes announced, 2 sent, then end of stream
  const Case cases[] = {{"negative size", negative, "negative size -5"},
                        {"oversized", oversized, "larger than socket.request.max.bytes=104857600"},
                        {"garbage", garbage, "larger than socket.request.max.bytes"},
                        {"cut short", cut, "in the middle of a frame"}};
  for (const Case& k : cases) {
    DYNAMIC_SECTION(k.name) {
      test::TempDir dir;
      AsioWorld world(dir.path());
      world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
      world.start_all();
      auto* echo = world.node_as<net::EchoNode>(kB);

      test::RawClient good(world.io(), world.port(kB));
      good.start_reading();
      good.write_frame(to_bytes("before"));
      REQUIRE(world.run_until([&] { return good.frames().size() == 1; }, kWait));
      REQUIRE(echo->clients().size() == 1);
      const NodeId good_id = echo->clients()[0];

      test::RawClient bad(world.io(), world.port(kB));
      bad.start_reading();
      bad.write_raw(k.bytes);
      if (Bytes(k.bytes) == cut) bad.shutdown_send();
      REQUIRE(world.run_until([&] { return bad.closed() && echo->disconnects().size() == 1; }, kWait));
      CHECK(echo->disconnects()[0] != good_id);
      CHECK(is_inbound_connection(echo->disconnects()[0]));
      CHECK(bad.frames().empty());
      CHECK(world.logged(k.logged));

      // The well-behaved client is still served, on the same connection.
      good.write_frame(to_bytes("after"));
      REQUIRE(world.run_until([&] { return good.frames().size() == 2; }, kWait));
      CHECK(good.frames()[1] == to_bytes("after"));
      CHECK_FALSE(good.closed());
      CHECK(echo->clients().size() == 1);
      CHECK(world.runtime(kB).stats().protocol_errors == (Bytes(k.bytes) == cut ? 0u : 1u));
    }
  }
}

TEST_CASE("Transport: a raw client's zero-length and back-to-back frames are served in order") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  test::RawClient client(world.io(), world.port(kB));
  client.start_reading();
  // Three frames in one write: the server must cut them apart.
  Bytes burst;
  for (const char* s : {"", "x", "yz"}) {
    Bytes p = to_bytes(s);
    burst.push_back(0);
    burst.push_back(0);
    burst.push_back(0);
    burst.push_back(static_cast<uint8_t>(p.size()));
    burst.insert(burst.end(), p.begin(), p.end());
  }
  client.write_raw(burst);
  REQUIRE(world.run_until([&] { return client.frames().size() == 3; }, kWait));
  CHECK(client.frames()[0].empty());
  CHECK(client.frames()[1] == to_bytes("x"));
  CHECK(client.frames()[2] == to_bytes("yz"));
}

namespace {
// Sends a numbered frame to B every 5 ms and keeps count of what happened.
struct PingerLog {
  uint64_t sent_ok = 0, refused = 0, echoes = 0, disconnects = 0;
};
class Pinger final : public Node {
 public:
  Pinger(Runtime& rt, std::shared_ptr<PingerLog> log) : rt_(rt), log_(std::move(log)) {}
  void start() override { tick(); }
  void on_message(NodeId from, Bytes) override {
    if (from == kB) log_->echoes++;
  }
  void on_disconnect(NodeId peer) override {
    if (peer == kB) log_->disconnects++;
  }

 private:
  void tick() {
    (rt_.send(kB, to_bytes("ping " + std::to_string(n_++))) ? log_->sent_ok : log_->refused)++;
    rt_.after(Duration::millis(5), [this] { tick(); });
  }
  Runtime& rt_;
  std::shared_ptr<PingerLog> log_;
  uint64_t n_ = 0;
};
}  // namespace

TEST_CASE("Transport: a peer that stops is reported, refused while down, and reached again after restart") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto pings = std::make_shared<PingerLog>();
  net::NodeConfig a = test::node_config(1, false);
  a.transport.reconnect_backoff_ms = 10;
  a.transport.reconnect_backoff_max_ms = 40;
  world.add_node(a, [pings](Runtime& rt) { return std::make_unique<Pinger>(rt, pings); });
  world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  const uint16_t port_b = world.port(kB);
  REQUIRE(world.run_until([&] { return pings->echoes >= 5; }, kWait));
  CHECK(pings->disconnects == 0);

  world.stop(kB);
  REQUIRE(world.run_until([&] { return pings->disconnects >= 1; }, kWait));
  // Once A has heard of the break there is no connection to B, so nothing more can arrive from it,
  // while A's sends are refused (backoff) or fail to connect (reported again).
  const uint64_t echoes_down = pings->echoes;
  const uint64_t refused_before = pings->refused;
  REQUIRE(world.run_until([&] { return pings->refused >= refused_before + 5 && pings->disconnects >= 3; }, kWait));
  CHECK(pings->echoes == echoes_down);
  CHECK(world.runtime(kA).stats().connect_failures >= 2);

  REQUIRE(world.restart(kB).is_ok());
  CHECK(world.runtime(kB).bound_port() == port_b);
  REQUIRE(world.run_until([&] { return pings->echoes >= echoes_down + 5; }, kWait));
  CHECK(world.node_as<net::EchoNode>(kB)->requests() >= 5);
}

TEST_CASE("Transport: a connect that fails is reported, and the peer is refused during the backoff") {
  test::TempDir dir;
  // A port where nothing listens: bind one, note it, close it.
  uint16_t dead_port = 0;
  {
    net::asio::io_context io;
    net::tcp::acceptor probe(io, net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), 0));
    dead_port = probe.local_endpoint().port();
  }
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  net::NodeConfig config = test::node_config(1, false);
  config.peers[NodeId{9}] = net::PeerAddress{"127.0.0.1", dead_port};
  config.transport.reconnect_backoff_ms = 10000;  // long enough that the test sees it
  config.transport.reconnect_backoff_max_ms = 10000;
  world.add_node(config, test::recorder(a, false));
  world.start_all();
  CHECK(world.runtime(kA).send(NodeId{9}, to_bytes("into the void")));  // queued while connecting
  REQUIRE(world.run_until([&] { return a->disconnects_of(NodeId{9}) == 1; }, kWait));
  CHECK_FALSE(world.runtime(kA).send(NodeId{9}, to_bytes("again")));  // known down
  CHECK(world.runtime(kA).stats().connect_failures == 1);
  CHECK(world.logged("connect to 127.0.0.1:" + std::to_string(dead_port) + " failed"));
}

TEST_CASE("Transport: learn_address makes a node reachable") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto c = std::make_shared<RecorderLog>();
  world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.add_node(test::node_config(3, false), test::recorder(c, false));
  world.start_all();
  Runtime& rt = world.runtime(kC);
  rt.learn_address(NodeId{7}, "127.0.0.1", world.port(kB));  // node 7 is B's listener, as Metadata says
  rt.learn_address(NodeId{8}, "127.0.0.1", 70000);            // ignored: no such port
  REQUIRE(rt.send(NodeId{7}, to_bytes("hello")));
  REQUIRE(world.run_until([&] { return c->messages.size() == 1; }, kWait));
  CHECK(c->messages[0].from == NodeId{7});
  CHECK_FALSE(rt.send(NodeId{8}, to_bytes("x")));
  CHECK(world.logged("ignoring the address 127.0.0.1:70000"));
}

TEST_CASE("Transport: a lane given an address of its own connects there and the others follow the node") {
  // The controller's lane to a control-plane listener: node 7 is B's listener, its controller lane
  // is D's (another port); the marker lane, given none, follows the node to B.
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto b = std::make_shared<RecorderLog>();
  auto c = std::make_shared<RecorderLog>();
  auto d = std::make_shared<RecorderLog>();
  world.add_node(test::node_config(2), test::recorder(b, true));
  world.add_node(test::node_config(3, false), test::recorder(c, false));
  world.add_node(test::node_config(4), test::recorder(d, true));
  world.start_all();
  Runtime& rt = world.runtime(kC);
  const NodeId seven{7};
  rt.learn_address(seven, "127.0.0.1", world.port(kB));
  rt.learn_address(lane_connection(seven, Lane::kController), "127.0.0.1", world.port(NodeId{4}));
  REQUIRE(rt.send(seven, to_bytes("main")));
  REQUIRE(rt.send(lane_connection(seven, Lane::kController), to_bytes("control")));
  REQUIRE(rt.send(lane_connection(seven, Lane::kTxnMarkers), to_bytes("markers")));
  REQUIRE(world.run_until([&] { return c->messages.size() == 3; }, kWait));
  REQUIRE(b->messages.size() == 2);
  REQUIRE(d->messages.size() == 1);
  CHECK(to_string(d->messages[0].frame) == "control");
  // Each answer comes back from the id its request went to.
  CHECK(c->count_from(seven) == 1);
  CHECK(c->count_from(lane_connection(seven, Lane::kController)) == 1);
  CHECK(c->count_from(lane_connection(seven, Lane::kTxnMarkers)) == 1);
}

TEST_CASE("Transport: a send queue over its bound closes the connection and reports it") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  net::NodeConfig config = test::node_config(1, false);
  config.transport.send_queue_frames_max = 10;
  world.add_node(config, test::recorder(a, false));
  world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  // Nothing is written before the loop runs (the connect is still under way), so the queue fills.
  for (int i = 0; i < 10; i++) REQUIRE(world.runtime(kA).send(kB, to_bytes("f")));
  CHECK_FALSE(world.runtime(kA).send(kB, to_bytes("one too many")));
  REQUIRE(world.run_until([&] { return a->disconnects_of(kB) == 1; }, kWait));
  CHECK(a->messages.empty());  // the queued frames were dropped with the connection
  CHECK(world.logged("send queue full"));
}

TEST_CASE("Transport: stopping a runtime closes its connections, and peers hear of it") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  auto a = std::make_shared<RecorderLog>();
  auto b = std::make_shared<RecorderLog>();
  world.add_node(test::node_config(1), test::recorder(a, true));
  world.add_node(test::node_config(2), test::recorder(b, true));
  world.start_all();
  // Both directions: A -> B and B -> A, two connections.
  REQUIRE(world.runtime(kA).send(kB, to_bytes("a to b")));
  REQUIRE(world.runtime(kB).send(kA, to_bytes("b to a")));
  REQUIRE(world.run_until([&] { return a->count_from(kB) == 1 && b->count_from(kA) == 1; }, kWait));
  CHECK(world.runtime(kA).connection_count() == 2);
  world.stop(kA);
  CHECK(a->destroyed == 1);
  // B loses both: its outbound connection to A (id 1) and A's connection into it (a negative id).
  REQUIRE(world.run_until([&] { return b->disconnects.size() == 2; }, kWait));
  CHECK(b->disconnects_of(kA) == 1);
  CHECK(a->disconnects.empty());  // a stopped node is told nothing
}
