// gregor bench zk: conditional writes per second through the coordination service.
//
// A client does set_data with the expected version in a loop (each write waits for the previous
// one's ack, as a controller updating partition state does), first alone, then sixteen clients at
// once (group commit: one fsync covers the writes that arrive together). Twice:
//   - in the simulator (SimDisk, in memory): the wall-clock cost of the zk code and the simulated
//     network per write;
//   - on real files (FileDisk with fdatasync under a temporary directory), driven by a minimal
//     single-threaded runtime below that passes frames in memory: the cost of real durability.
// Plain append + fdatasync of a log-entry-sized record on the same directory is printed as the
// baseline the real-file figure is bounded by.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>

#include "app/commands.h"
#include "engine/coord/zk_client.h"
#include "engine/coord/zk_server.h"
#include "net/file_disk.h"
#include "sim/sim_disk.h"
#include "sim/simulator.h"

namespace gregor::app {
namespace {

using coord::ZkClient;
using coord::ZkError;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

constexpr NodeId kServerId{1};
const Bytes kPayload(100, 'p');  // about a partition-state znode

// A client node that writes its znode with the expected version, one write at a time.
class ConditionalWriter final : public Node {
 public:
  ConditionalWriter(Runtime& rt, std::string path, uint64_t writes, uint64_t* total_done)
      : zk_(rt, config()), path_(std::move(path)), writes_(writes), total_done_(total_done) {}

  void start() override {
    zk_.set_session_listener([this](coord::SessionState s) {
      if (s != coord::SessionState::kConnected || started_) return;
      started_ = true;
      zk_.create(path_, kPayload, coord::CreateMode::kPersistent, [this](ZkError e, std::string) {
        if (e != ZkError::kOk && e != ZkError::kNodeExists) return fail(e);
        write();
      });
    });
    zk_.start();
  }
  void on_message(NodeId from, Bytes frame) override {
    if (zk_.owns_peer(from)) zk_.on_message(from, std::move(frame));
  }
  void on_disconnect(NodeId peer) override {
    if (zk_.owns_peer(peer)) zk_.on_disconnect(peer);
  }
  bool failed() const { return failed_; }

 private:
  static coord::ZkClientConfig config() {
    coord::ZkClientConfig c;
    c.servers = {kServerId};
    return c;
  }
  void write() {
    if (done_ == writes_) return;
    zk_.set_data(path_, kPayload, version_, [this](ZkError e, coord::Stat stat) {
      if (e != ZkError::kOk) return fail(e);
      version_ = stat.version;
      done_++;
      (*total_done_)++;
      write();
    });
  }
  void fail(ZkError e) {
    failed_ = true;
    std::fprintf(stderr, "bench zk: %s failed: %s\n", path_.c_str(), coord::zk_error_name(e));
  }

  ZkClient zk_;
  std::string path_;
  uint64_t writes_;
  uint64_t* total_done_;
  uint64_t done_ = 0;
  int32_t version_ = 0;
  bool started_ = false;
  bool failed_ = false;
};

struct Figures {
  double writes_per_s = 0;
  uint64_t writes = 0;
  uint64_t fsyncs = 0;
  double wall_s = 0;
};

void print(const char* what, const Figures& f) {
  std::printf("  %-34s %9.0f writes/s  (%llu writes in %.3f s, %.2f writes per fsync)\n", what, f.writes_per_s,
              static_cast<unsigned long long>(f.writes), f.wall_s,
              f.fsyncs ? static_cast<double>(f.writes) / static_cast<double>(f.fsyncs) : 0.0);
}

// ---- In the simulator -------------------------------------------------------------------------

Figures run_simulated(int clients, uint64_t writes_each) {
  sim::Simulator simulator(1);
  simulator.add_node(kServerId, "zk", [](Runtime& rt) { return std::make_unique<coord::ZkServer>(rt, coord::ZkServerConfig{}); });
  uint64_t done = 0;
  for (int i = 0; i < clients; i++)
    simulator.add_node(NodeId{2 + i}, "writer-" + std::to_string(i), [i, writes_each, &done](Runtime& rt) {
      return std::make_unique<ConditionalWriter>(rt, "/bench-" + std::to_string(i), writes_each, &done);
    });
  const uint64_t target = writes_each * static_cast<uint64_t>(clients);
  const uint64_t fsyncs_before = simulator.disk(kServerId).stats().fsyncs;
  auto t0 = Clock::now();
  simulator.run_until_pred([&] { return done == target; }, Time{Duration::seconds(3600).us});
  Figures f;
  f.wall_s = seconds_since(t0);
  f.writes = done;
  f.fsyncs = simulator.disk(kServerId).stats().fsyncs - fsyncs_before;
  f.writes_per_s = static_cast<double>(done) / f.wall_s;
  return f;
}

// ---- On real files: a minimal runtime ---------------------------------------------------------

// One thread, one queue of ready work (frames and zero-delay timers, FIFO) and a map of timers by
// due time on the steady clock. Frames between the nodes are passed in memory with the connection
// ids of engine/core/runtime.h (a request arrives from -sender, a reply from the server's id).
class MiniLoop {
 public:
  void add(NodeId id, std::unique_ptr<Node> node) { nodes_[id.value] = std::move(node); }
  Node* node(NodeId id) { return nodes_.at(id.value).get(); }
  // Destroys the nodes (before the runtimes they use go away).
  void clear() {
    nodes_.clear();
    ready_.clear();
    timers_.clear();
  }
  void post(std::function<void()> fn) { ready_.push_back(std::move(fn)); }
  uint64_t schedule(Duration d, std::function<void()> fn) {
    const uint64_t id = next_timer_++;
    if (d.us <= 0) {
      ready_.push_back([this, id, fn = std::move(fn)] {
        if (!cancelled_.erase(id)) fn();
      });
    } else {
      timers_.emplace(std::make_pair(now() + d, id), std::move(fn));
    }
    return id;
  }
  void cancel(uint64_t id) {
    for (auto it = timers_.begin(); it != timers_.end(); ++it)
      if (it->first.second == id) return (void)timers_.erase(it);
    cancelled_.insert(id);  // a zero-delay timer still in the ready queue
  }
  Time now() const { return Time{std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_).count()}; }
  // Runs until pred holds (checked after each step) or the deadline passes.
  void run(const std::function<bool()>& pred, double max_seconds) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(max_seconds);
    while (!pred() && Clock::now() < deadline) {
      if (!ready_.empty()) {
        auto fn = std::move(ready_.front());
        ready_.pop_front();
        fn();
        continue;
      }
      if (timers_.empty()) return;
      auto it = timers_.begin();
      if (it->first.first > now()) {
        std::this_thread::sleep_for(std::chrono::microseconds(it->first.first.us - now().us));
        continue;
      }
      auto fn = std::move(it->second);
      timers_.erase(it);
      fn();
    }
  }

 private:
  Clock::time_point start_ = Clock::now();
  std::map<int32_t, std::unique_ptr<Node>> nodes_;
  std::deque<std::function<void()>> ready_;
  std::map<std::pair<Time, uint64_t>, std::function<void()>> timers_;
  std::set<uint64_t> cancelled_;
  uint64_t next_timer_ = 1;
};

class MiniRuntime final : public Runtime {
 public:
  MiniRuntime(MiniLoop& loop, NodeId self, Disk& disk) : loop_(loop), self_(self), disk_(disk), rng_(self.value) {}
  NodeId self() const override { return self_; }
  Time now() const override { return loop_.now(); }
  TimerId after(Duration d, std::function<void()> fn) override { return TimerId{loop_.schedule(d, std::move(fn))}; }
  void cancel(TimerId id) override { loop_.cancel(id.value); }
  bool send(NodeId to, Bytes frame) override {
    const bool reply = to.value < 0;
    const NodeId target{reply ? -to.value : to.value};
    const NodeId seen_from{reply ? self_.value : -self_.value};
    loop_.post([this, target, seen_from, frame = std::move(frame)]() mutable {
      loop_.node(target)->on_message(seen_from, std::move(frame));
    });
    return true;
  }
  Disk& disk() override { return disk_; }
  Rng& rng() override { return rng_; }
  void emit(TraceBody) override {}
  void log(const std::string& line) override { std::fprintf(stderr, "%s\n", line.c_str()); }
  // Only zk servers run here, and a zk server halts by ceasing to serve (ZkServer::halt).
  void halt(const std::string& reason) override { GREGOR_ASSERT_MSG(false, "bench zk: a node halted: " + reason); }

 private:
  MiniLoop& loop_;
  NodeId self_;
  Disk& disk_;
  Rng rng_;
};

Figures run_on_files(const std::string& dir, int clients, uint64_t writes_each, double max_seconds) {
  MiniLoop loop;
  net::FileDisk server_disk(dir);
  sim::SimDisk client_disk;  // the clients write nothing
  std::vector<std::unique_ptr<MiniRuntime>> runtimes;
  runtimes.push_back(std::make_unique<MiniRuntime>(loop, kServerId, server_disk));
  auto server = std::make_unique<coord::ZkServer>(*runtimes.back(), coord::ZkServerConfig{});
  coord::ZkServer* server_ptr = server.get();
  loop.add(kServerId, std::move(server));
  uint64_t done = 0;
  std::vector<ConditionalWriter*> writers;
  for (int i = 0; i < clients; i++) {
    const NodeId id{2 + i};
    runtimes.push_back(std::make_unique<MiniRuntime>(loop, id, client_disk));
    auto w = std::make_unique<ConditionalWriter>(*runtimes.back(), "/bench-" + std::to_string(i), writes_each, &done);
    writers.push_back(w.get());
    loop.add(id, std::move(w));
  }
  loop.post([&] { loop.node(kServerId)->start(); });
  for (int i = 0; i < clients; i++) loop.post([&loop, i] { loop.node(NodeId{2 + i})->start(); });
  const uint64_t target = writes_each * static_cast<uint64_t>(clients);
  auto t0 = Clock::now();
  loop.run([&] { return done == target || std::any_of(writers.begin(), writers.end(), [](auto* w) { return w->failed(); }); },
           max_seconds);
  Figures f;
  f.wall_s = seconds_since(t0);
  f.writes = done;
  f.fsyncs = server_ptr->flushes();
  f.writes_per_s = static_cast<double>(done) / f.wall_s;
  loop.clear();
  return f;
}

// The floor under the real-file figure: append one log-entry-sized record, fdatasync, repeat.
Figures raw_append_fsync(const std::string& dir, double max_seconds) {
  net::FileDisk disk(dir);
  const std::string file = "raw.log";
  Figures f;
  if (!disk.create(file).is_ok()) return f;
  const Bytes record(150, 'r');
  auto t0 = Clock::now();
  while (seconds_since(t0) < max_seconds && f.writes < 100000) {
    if (!disk.append(file, as_view(record)).is_ok() || !disk.fsync(file).is_ok()) break;
    f.writes++;
    f.fsyncs++;
  }
  f.wall_s = seconds_since(t0);
  f.writes_per_s = static_cast<double>(f.writes) / f.wall_s;
  return f;
}

}  // namespace

int bench_zk() {
  std::printf("conditional writes (set_data with the expected version, 100-byte data), each waiting for its ack\n");
  std::printf("simulated disk (SimDisk, in memory; wall-clock rate of the simulation):\n");
  const Figures sim_one = run_simulated(1, 50000);
  const Figures sim_sixteen = run_simulated(16, 5000);
  print("1 client", sim_one);
  print("16 clients", sim_sixteen);

  std::string base = std::filesystem::temp_directory_path().string() + "/gregor-bench-zk-XXXXXX";
  std::vector<char> tmpl(base.begin(), base.end());
  tmpl.push_back('\0');
  if (!::mkdtemp(tmpl.data())) {
    std::perror("bench zk: mkdtemp");
    return 1;
  }
  const std::string dir = tmpl.data();
  std::printf("real files (FileDisk, fdatasync per commit, under %s):\n", dir.c_str());
  print("plain append + fdatasync (baseline)", raw_append_fsync(dir + "/raw", 2.0));
  const Figures real_one = run_on_files(dir + "/one", 1, 1000000, 3.0);
  const Figures real_sixteen = run_on_files(dir + "/sixteen", 16, 1000000, 3.0);
  print("1 client", real_one);
  print("16 clients", real_sixteen);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  // How much faster the simulation runs the same workload than real durability allows: the
  // speed-up a simulated test gets, and how much of a real write's cost is the fsync.
  auto ratio = [](const Figures& simulated, const Figures& real) {
    return real.writes_per_s > 0 ? simulated.writes_per_s / real.writes_per_s : 0.0;
  };
  std::printf("ratio simulated / real files:\n");
  std::printf("  %-34s %9.1fx\n", "1 client", ratio(sim_one, real_one));
  std::printf("  %-34s %9.1fx\n", "16 clients", ratio(sim_sixteen, real_sixteen));
  const bool complete = sim_one.writes == 50000 && sim_sixteen.writes == 80000 && real_one.writes > 0 &&
                        real_sixteen.writes > 0;
  if (!complete) std::fprintf(stderr, "bench zk: a run did not complete its writes\n");
  return complete ? 0 : 1;
}

}  // namespace gregor::app
