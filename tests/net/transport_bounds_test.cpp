// The transport's bounds (issue 17): queued.max.request.bytes (a pool that mutes connections whose
// next request does not fit), max.connections.per.ip, connections.max.idle.ms, and the data
// directory lock. Every wait is bounded (AsioWorld::run_until).
#include <catch2/catch.hpp>

#include <fstream>

#include "net/echo_node.h"
#include "net/request_memory_pool.h"
#include "net_test_util.h"

using namespace gregor;
using net::AsioWorld;

namespace {
constexpr Duration kWait = Duration::seconds(10);  // an upper bound, never a pause
const NodeId kB{2};

Bytes size_prefix(uint32_t n) {
  return {static_cast<uint8_t>(n >> 24), static_cast<uint8_t>(n >> 16), static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
}
}  // namespace

TEST_CASE("RequestMemoryPool: all or nothing, first come first served, freed memory goes to the line") {
  net::RequestMemoryPool pool(100);
  CHECK(pool.try_reserve(60));
  CHECK_FALSE(pool.try_reserve(50));
  std::vector<int> woken;
  bool second_fits = false;
  pool.wait([&] {
    if (!pool.try_reserve(50)) return false;
    woken.push_back(1);
    return true;
  });
  pool.wait([&] {
    if (!second_fits && !pool.try_reserve(40)) return false;
    woken.push_back(2);
    return true;
  });
  CHECK_FALSE(pool.try_reserve(10));  // nobody jumps the line, though 10 would fit
  pool.release(20);                   // 40 in use: the first waiter (50) fits now, then not the second (40)
  CHECK(woken == std::vector<int>{1});
  CHECK(pool.waiting() == 1);
  pool.release(90);
  CHECK(woken == std::vector<int>{1, 2});
  CHECK(pool.reserved_bytes() == 40);
  CHECK(pool.peak_bytes() == 90);
  net::RequestMemoryPool unbounded(-1);
  CHECK(unbounded.try_reserve(uint64_t{1} << 40));
}

TEST_CASE("Transport: queued.max.request.bytes mutes a connection until the request ahead is served") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  net::NodeConfig config = test::node_config(kB.value);
  config.transport.socket_request_max_bytes = 1 << 20;
  config.transport.queued_max_request_bytes = 1 << 20;
  world.add_node(config, [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  const net::AsioRuntime& rt = world.runtime(kB);

  // A declares 700 KB and sends half; B then declares 700 KB: both cannot fit in 1 MiB.
  test::RawClient a(world.io(), world.port(kB)), b(world.io(), world.port(kB));
  a.start_reading();
  b.start_reading();
  const uint32_t size = 700 * 1024;
  Bytes a_head = size_prefix(size);
  a_head.resize(4 + size / 2, 1);
  a.write_raw(a_head);
  REQUIRE(world.run_until([&] { return rt.request_pool().reserved_bytes() == size; }, kWait));
  Bytes b_frame = size_prefix(size);
  b_frame.resize(4 + 1000, 2);  // only the start: the rest follows once B is read again
  b.write_raw(b_frame);
  REQUIRE(world.run_until([&] { return rt.request_pool().waiting() == 1; }, kWait));
  CHECK(rt.request_pool().reserved_bytes() == size);  // B reserved nothing

  // A's request completes and is served; its memory goes to B, whose request then completes.
  a.write_raw(Bytes(size / 2, 1));
  REQUIRE(world.run_until([&] { return a.frames().size() == 1; }, kWait));
  REQUIRE(world.run_until([&] { return rt.request_pool().waiting() == 0 && rt.request_pool().reserved_bytes() == size; }, kWait));
  b.write_raw(Bytes(size - 1000, 2));
  REQUIRE(world.run_until([&] { return b.frames().size() == 1; }, kWait));
  CHECK(b.frames()[0].size() == size);
  CHECK(rt.request_pool().reserved_bytes() == 0);
  CHECK(rt.request_pool().peak_bytes() == size);
}

TEST_CASE("Transport: queued.max.request.bytes below socket.request.max.bytes is a configuration error") {
  net::TransportConfig t;
  REQUIRE(t.set("socket.request.max.bytes", "1000").is_ok());
  REQUIRE(t.set("queued.max.request.bytes", "999").is_ok());
  CHECK_FALSE(t.validate().is_ok());
  REQUIRE(t.set("queued.max.request.bytes", "1000").is_ok());
  CHECK(t.validate().is_ok());
  t.connections_max_idle_ms = 0;
  CHECK_FALSE(t.validate().is_ok());
}

TEST_CASE("Transport: a size prefix alone costs a read chunk, not the size it announces") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  world.add_node(test::node_config(kB.value), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  std::vector<std::unique_ptr<test::RawClient>> clients;
  for (int i = 0; i < 20; i++) {
    clients.push_back(std::make_unique<test::RawClient>(world.io(), world.port(kB)));
    clients.back()->write_raw(size_prefix(100'000'000));
  }
  REQUIRE(world.run_until([&] { return world.runtime(kB).connection_count() == 20; }, kWait));
  world.run_for(Duration::millis(50));
  // 20 x 100 MB announced; what the buffers hold is a few read chunks each.
  CHECK(world.runtime(kB).receive_buffer_bytes() <= 20 * (net::FrameReader::kBufferBytesMax + 2 * net::FrameReader::kReadChunkBytes));
}

TEST_CASE("Transport: max.connections.per.ip refuses connections beyond it from one address") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  net::NodeConfig config = test::node_config(kB.value);
  config.transport.max_connections_per_ip = 3;
  world.add_node(config, [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  std::vector<std::unique_ptr<test::RawClient>> clients;
  for (int i = 0; i < 5; i++) {
    clients.push_back(std::make_unique<test::RawClient>(world.io(), world.port(kB)));
    clients.back()->start_reading();
  }
  REQUIRE(world.run_until([&] { return clients[3]->closed() && clients[4]->closed(); }, kWait));
  CHECK(world.runtime(kB).connection_count() == 3);
  CHECK(world.runtime(kB).stats().connections_refused == 2);
  CHECK(world.logged("max.connections.per.ip=3 reached"));
  // One closes: a new one is accepted in its place.
  clients[0]->shutdown_send();
  REQUIRE(world.run_until([&] { return world.runtime(kB).connection_count() == 2; }, kWait));
  test::RawClient late(world.io(), world.port(kB));
  late.start_reading();
  late.write_frame(to_bytes("hello"));
  REQUIRE(world.run_until([&] { return late.frames().size() == 1; }, kWait));
}

TEST_CASE("Transport: connections.max.idle.ms closes a silent connection and spares a talking one") {
  test::TempDir dir;
  AsioWorld world(dir.path());
  net::NodeConfig config = test::node_config(kB.value);
  config.transport.connections_max_idle_ms = 300;
  world.add_node(config, [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  test::RawClient silent(world.io(), world.port(kB)), talking(world.io(), world.port(kB));
  silent.start_reading();
  talking.start_reading();
  silent.write_raw(size_prefix(1000));  // a request that never completes (slowloris): no more bytes
  size_t sent = 0;
  // The talking one sends a frame every 100 ms for a second; the silent one is closed meanwhile.
  for (int i = 0; i < 10; i++) {
    talking.write_frame(to_bytes("ping"));
    sent++;
    world.run_for(Duration::millis(100));
  }
  CHECK(silent.closed());
  CHECK_FALSE(talking.closed());
  REQUIRE(world.run_until([&] { return talking.frames().size() == sent; }, kWait));
  CHECK(world.runtime(kB).stats().idle_connections_closed == 1);
}

TEST_CASE("Data directory: a second runtime cannot lock it; a file in its place is refused; stop releases it") {
  test::TempDir dir;
  net::asio::io_context io;
  net::NodeConfig config = test::node_config(kB.value);
  config.data_dir = dir.path() + "/node";
  {
    net::AsioRuntime first(io, config);
    REQUIRE(first.open().is_ok());
    net::AsioRuntime second(io, config);
    Status s = second.open();
    CHECK(s.code() == StatusCode::kIoError);
    CHECK(s.message().find("in use by another process") != std::string::npos);
    first.stop();
    net::AsioRuntime third(io, config);
    CHECK(third.open().is_ok());  // the stopped one let go
  }
  std::ofstream(dir.path() + "/file") << "x";
  config.data_dir = dir.path() + "/file";
  net::AsioRuntime on_file(io, config);
  Status s = on_file.open();
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("is not a directory") != std::string::npos);
}
