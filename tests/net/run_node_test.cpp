// run_node: one node as a process, stopped by SIGTERM or a run-time limit; its exit codes.
#include <catch2/catch.hpp>

#include <csignal>

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
