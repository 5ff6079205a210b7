// run_node: one node as a process, stopped by SIGTERM or a run-time limit; its exit codes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "net/process_memory.h"
#include "net/run_node.h"
#include "net_test_util.h"

using namespace gregor;

namespace {
struct Lifecycle {
  bool started = false;
  bool destroyed = false;
  bool wrote = false;
};

// Writes a file at start, then asks its own process to stop, as an operator's kill would.
class SelfTerminating final : public Node {
 public:
  SelfTerminating(Runtime& rt, Lifecycle& life) : rt_(rt), life_(life) {}
  ~SelfTerminating() override { life_.destroyed = true; }
  void start() override {
    life_.started = true;
    life_.wrote = rt_.disk().write_file_atomic("started", as_view(std::string_view("yes"))).is_ok();
    rt_.after(Duration::millis(10), [] { std::raise(SIGTERM); });
  }
  void on_message(NodeId, Bytes) override {}

 private:
  Runtime& rt_;
  Lifecycle& life_;
};

net::NodeConfig quiet_config(const std::string& dir) {
  net::NodeConfig config = test::node_config(1);
  config.data_dir = dir + "/node-1";
  config.log_to_stderr = false;
  config.seed = 1;
  return config;
}
}  // namespace

TEST_CASE("run_node: serves until SIGTERM, then stops cleanly and returns 0") {
  test::TempDir dir;
  Lifecycle life;
  net::RunOptions options;
  options.max_run_time = Duration::seconds(20);  // a bound in case the signal were lost
  std::vector<std::string> lines;
  net::NodeConfig config = quiet_config(dir.path());
  config.log_sink = [&](const std::string& line) { lines.push_back(line); };
  int rc = net::run_node(config, [&](Runtime& rt) { return std::make_unique<SelfTerminating>(rt, life); }, options);
  CHECK(rc == 0);
  CHECK(life.started);
  CHECK(life.wrote);
  CHECK(life.destroyed);
  CHECK(std::filesystem::exists(dir.path() + "/node-1/started"));
  bool saw_sigterm = false;
  for (const auto& l : lines) saw_sigterm = saw_sigterm || l.find("stopping: SIGTERM") != std::string::npos;
  CHECK(saw_sigterm);
}

TEST_CASE("run_node: a run-time limit stops it like a signal") {
  test::TempDir dir;
  net::RunOptions options;
  options.max_run_time = Duration::millis(20);
  auto log = std::make_shared<test::RecorderLog>();
  CHECK(net::run_node(quiet_config(dir.path()), test::recorder(log, false), options) == 0);
  CHECK(log->started == 1);
  CHECK(log->destroyed == 1);
}

TEST_CASE("run_node: exit code 2 for a bad config, 1 when the port is taken") {
  test::TempDir dir;
  auto log = std::make_shared<test::RecorderLog>();
  net::NodeConfig bad = quiet_config(dir.path());
  bad.id = NodeId{0};
  CHECK(net::run_node(bad, test::recorder(log, false)) == 2);
  bad = quiet_config(dir.path());
  bad.transport.reconnect_backoff_max_ms = 1;  // below reconnect.backoff.ms
  CHECK(net::run_node(bad, test::recorder(log, false)) == 2);

  net::asio::io_context io;
  net::tcp::acceptor taken(io, net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), 0));
  net::NodeConfig busy = quiet_config(dir.path());
  busy.listen_port = taken.local_endpoint().port();
  CHECK(net::run_node(busy, test::recorder(log, false)) == 1);
  CHECK(log->started == 0);  // the node was never built
}

// Regression: the settings were once compiled out (the glibc test came before any glibc header),
// and brokers went on trimming their heap and faulting its pages back in on every large request.
TEST_CASE("keep_freed_memory: large buffers come from the heap and stay with the process after free") {
#if defined(__GLIBC__)
  REQUIRE(net::keep_freed_memory());
  void* small = std::malloc(64);
  constexpr size_t kLarge = 8 << 20;  // above glibc's default mmap threshold (128 KiB .. 32 MiB)
  auto* large = static_cast<char*>(std::malloc(kLarge));
  REQUIRE(large != nullptr);
  for (size_t i = 0; i < kLarge; i += 4096) large[i] = 1;
  char* top_before = static_cast<char*>(::sbrk(0));
  // From the brk heap (between a small heap block and the break), not a mapping of its own.
  CHECK(large > static_cast<char*>(small));
  CHECK(large + kLarge <= top_before);
  std::free(large);
  CHECK(static_cast<char*>(::sbrk(0)) == top_before);  // not trimmed
  std::free(small);
#else
  WARN("not glibc: keep_freed_memory does nothing here");
  CHECK_FALSE(net::keep_freed_memory());
#endif
}
