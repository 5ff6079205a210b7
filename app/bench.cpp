// gregor bench: Gregor measuring itself. Figures are printed with the baseline they should be
// compared against, measured in the same run, because the machines are shared and noisy.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "sim/simulator.h"

namespace po = boost::program_options;

namespace gregor::app {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A node that answers every frame with a frame of the same size: the network path, end to end.
class PingPong final : public Node {
 public:
  PingPong(Runtime& rt, NodeId peer, int in_flight, size_t frame_bytes)
      : rt_(rt), peer_(peer), in_flight_(in_flight), frame_bytes_(frame_bytes) {}
  void start() override {
    for (int i = 0; i < in_flight_; i++) rt_.send(peer_, Bytes(frame_bytes_, 7));
  }
  void on_message(NodeId from, Bytes frame) override { rt_.send(from, std::move(frame)); }

 private:
  Runtime& rt_;
  NodeId peer_;
  int in_flight_;
  size_t frame_bytes_;
};

int bench_sim_loop(uint64_t events) {
  {
    auto t0 = std::chrono::steady_clock::now();
    const double per_s = bare_loop_events_per_second(events);
    std::printf("event loop:   %10.0f events/s  (%llu events in %.3f s)\n", per_s,
                static_cast<unsigned long long>(events), seconds_since(t0));
  }
  // Network path: two nodes bounce 100-byte frames, 16 in flight; each delivery is one send and
  // one delivery through the simulated network with latency and jitter.
  {
    sim::Simulator simulator(1);
    simulator.add_node(NodeId{1}, "a", [](Runtime& rt) { return std::make_unique<PingPong>(rt, NodeId{2}, 16, 100); }, false);
    simulator.add_node(NodeId{2}, "b", [](Runtime& rt) { return std::make_unique<PingPong>(rt, NodeId{1}, 0, 100); }, false);
    simulator.start(NodeId{2});
    simulator.start(NodeId{1});
    auto t0 = std::chrono::steady_clock::now();
    while (simulator.frames_delivered() < events / 2 && simulator.loop().step()) {
    }
    double s = seconds_since(t0);
    double per_s = static_cast<double>(simulator.frames_delivered()) / s;
    std::printf("network path: %10.0f messages/s (send + deliver; %llu messages in %.3f s, %.1f simulated s)\n",
                per_s, static_cast<unsigned long long>(simulator.frames_delivered()), s,
                static_cast<double>(simulator.now().us) / 1e6);
  }
  return 0;
}

}  // namespace

double bare_loop_events_per_second(uint64_t events) {
  // Bare event loop: each event schedules the next one a random small delay later, with 64 chains
  // interleaved so the heap holds a realistic number of entries.
  sim::EventLoop loop;
  Rng rng(1);
  uint64_t remaining = events;
  std::function<void()> tick = [&] {
    if (remaining == 0) return;
    remaining--;
    loop.schedule_after(Duration::micros(1 + static_cast<int64_t>(rng.uniform(1000))), tick);
  };
  for (int i = 0; i < 64; i++) loop.schedule_after(Duration::micros(i), tick);
  auto t0 = std::chrono::steady_clock::now();
  while (loop.step()) {
  }
  return static_cast<double>(loop.events_run()) / seconds_since(t0);
}

int cmd_bench(const Args& args) {
  // The real-socket benchmarks talk to a cluster and have options of their own.
  if (!args.empty() && args[0] == "produce") return bench_produce(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "consume") return bench_consume(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "latency") return bench_latency(Args(args.begin() + 1, args.end()));
  po::options_description desc(
      "usage: gregor bench WHAT [options]\n\n"
      "WHAT:\n"
      "  sim-loop   events/s of the bare event loop and messages/s of the simulated network path\n"
      "  cluster    simulated seconds per wall second: 3 brokers, 6 partitions RF 3, 5,000 records/s acks=all\n"
      "  log        partition log append/read MiB/s (1 KiB records, 16 KiB batches) vs plain write()/read()\n"
      "  zk         conditional writes/s through the zk server: simulated disk, and real files with fdatasync\n"
      "  e2e        records per wall s through produce -> replicate -> consume: the cluster workload + a 2-member group\n"
      "  produce    a real-socket cluster: records/s, MB/s, latency per record and per batch (bench produce --help)\n"
      "  consume    a real-socket cluster: records/s and MB/s read from a topic (bench consume --help)\n"
      "  latency    a real-socket cluster: end-to-end latency, send to poll, at a rate (bench latency --help)\n"
      "  sim-speed  the simulator's speed as ratios: simulated s per wall s of bench cluster and of a\n"
      "             scenario (--scenario), their loop events/s per bare-loop events/s, e2e records per\n"
      "             wall s, swarm seeds/min (bench/sim-speed.sh compares two builds run for run)\n\n"
      "options");
  std::string what;
  uint64_t events = 2'000'000;
  double seconds = 60;
  double rate = 5000;
  bool with_checkers = false;
  int swarm_seeds = 20;
  std::string scenario_file = "scenarios/leader-failover.yaml";
  desc.add_options()("help,h", "show this help")("events", po::value<uint64_t>(&events)->default_value(events),
                                                  "events (sim-loop)")(
      "seconds", po::value<double>(&seconds)->default_value(seconds), "simulated seconds (cluster, e2e)")(
      "rate", po::value<double>(&rate)->default_value(rate), "records per second (cluster, e2e)")(
      "checkers", po::bool_switch(&with_checkers), "run the invariant checkers too (cluster, e2e)")(
      "swarm-seeds", po::value<int>(&swarm_seeds)->default_value(swarm_seeds), "swarm seeds, run one after the other (sim-speed)")(
      "scenario", po::value<std::string>(&scenario_file)->default_value(scenario_file), "the scenario file (sim-speed)");
  po::options_description hidden;
  hidden.add_options()("what", po::value<std::string>(&what));
  po::positional_options_description pos;
  pos.add("what", 1);
  po::variables_map vm;
  if (auto done = parse_command_line("bench", args, desc, vm, &hidden, &pos)) return *done;
  // Bounds, so that a typo neither hangs (--events 1e19) nor measures nothing (--seconds 0).
  constexpr uint64_t kEventsMax = 10'000'000'000ull;
  constexpr double kSecondsMax = 86400, kRateMax = 1e6;
  auto bad = [&](const std::string& message) {
    std::cerr << "gregor bench: " << message << "\n";
    return 2;
  };
  if (events < 1 || events > kEventsMax) return bad("--events must be in 1.." + std::to_string(kEventsMax));
  if (!(seconds > 0 && seconds <= kSecondsMax))
    return bad("--seconds must be more than 0 and at most " + std::to_string(static_cast<int>(kSecondsMax)) + " (simulated seconds)");
  if (!(rate > 0 && rate <= kRateMax)) return bad("--rate must be more than 0 and at most 1000000 records per second");
  if (what == "sim-loop") return bench_sim_loop(events);
  if (what == "cluster") return bench_cluster(seconds, rate, with_checkers);
  if (what == "log") return bench_log();
  if (what == "zk") return bench_zk();
  if (what == "e2e") return bench_e2e(seconds, rate, with_checkers);
  if (what == "sim-speed") return bench_sim_speed(seconds, events, swarm_seeds, scenario_file);
  std::cerr << "gregor bench: unknown benchmark '" << what << "'\n" << desc << "\n";
  return 2;
}

}  // namespace gregor::app
