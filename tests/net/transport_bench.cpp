// Loopback throughput of the real transport, for the record (hidden: run with `test_net [.bench]`).
// It measures; it asserts only that everything arrived.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>

#include "net/echo_node.h"
#include "net_test_util.h"

using namespace gregor;

namespace {
class Counter final : public Node {
 public:
  explicit Counter(uint64_t& received) : received_(received) {}
  void start() override {}
  void on_message(NodeId, Bytes) override { received_++; }

 private:
  uint64_t& received_;
};

void echo_round_trips(uint64_t frames, size_t frame_bytes, uint64_t window) {
  test::TempDir dir;
  net::AsioWorld world(dir.path());
  uint64_t received = 0;
  world.add_node(test::node_config(1, false), [&](Runtime&) { return std::make_unique<Counter>(received); });
  world.add_node(test::node_config(2), [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
  world.start_all();
  Runtime& rt = world.runtime(NodeId{1});
  const Bytes payload = test::pattern_payload(1, frame_bytes);
  // Warm up: the connection is open before the clock starts.
  REQUIRE(rt.send(NodeId{2}, payload));
  REQUIRE(world.run_until([&] { return received == 1; }, Duration::seconds(10)));
  received = 0;
  uint64_t sent = 0;
  auto start = std::chrono::steady_clock::now();
  // Keep `window` frames in flight: send more as echoes come back.
  while (received < frames) {
    while (sent < frames && sent - received < window) {
      REQUIRE(rt.send(NodeId{2}, payload));
      sent++;
    }
    uint64_t have = received;
    REQUIRE(world.run_until([&] { return received > have; }, Duration::seconds(30)));
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("echo %llu frames of %zu bytes, window %llu: %.3f s, %.0f round trips/s, %.1f MB/s each way\n",
              static_cast<unsigned long long>(frames), frame_bytes, static_cast<unsigned long long>(window), seconds,
              static_cast<double>(frames) / seconds, static_cast<double>(frames * frame_bytes) / seconds / 1e6);
}
}  // namespace

TEST_CASE("Transport benchmark: echo round trips over loopback", "[.bench]") {
  echo_round_trips(20000, 100, 1);
  echo_round_trips(200000, 100, 1000);
  echo_round_trips(2000, 1 << 20, 16);
}
