// gregor bench sim-speed: the simulator's speed, every figure as a ratio to a yardstick measured in
// the same process, so that two builds (or two machines' worth of noise) compare in one run:
//   - the bare event loop's events per wall second (the yardstick of the loop figures);
//   - bench cluster and a scenario (leader-failover by default): simulated seconds per wall second,
//     and their loop events per wall second as a share of the bare loop's;
//   - bench e2e: records produced, acknowledged and consumed per wall second;
//   - the swarm: seeds per minute, run one after the other in this process (the `gregor swarm`
//     command runs them in --jobs processes).
// bench/sim-speed.sh runs two gregor binaries' commands in turn and prints the new/old ratios.
#include <chrono>
#include <cstdio>

#include "app/commands.h"
#include "app/scenario_cli.h"
#include "sim/scenario/swarm.h"

namespace gregor::app {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int bench_sim_speed(double simulated_seconds, uint64_t loop_events, int swarm_seeds, const std::string& scenario_file) {
  const double bare = bare_loop_events_per_second(loop_events);
  std::printf("allocator:        %s\n", allocator_name());
  std::printf("bare loop:        %12.0f events per wall s (the yardstick of the loop figures)\n", bare);

  BenchFigures cluster;
  if (bench_cluster(simulated_seconds, 5000, false, nullptr, &cluster) != 0) return 1;
  std::printf("bench cluster:    %12.1f simulated s per wall s   loop %10.0f events/s = %.4f of the bare loop\n",
              cluster.simulated_per_wall, cluster.loop_events_per_wall, cluster.loop_events_per_wall / bare);

  auto scenario = load_scenario_or_report("bench sim-speed", scenario_file, "");
  if (!scenario) return 2;
  {
    sim::ScenarioRun run(*scenario, scenario->seed);
    const uint64_t events0 = run.sim().loop().events_run();
    const auto t0 = std::chrono::steady_clock::now();
    run.run_to_end();
    const double wall = seconds_since(t0);
    const double sim_s = static_cast<double>(run.now().us) / 1e6;
    const double loop_per_s = static_cast<double>(run.sim().loop().events_run() - events0) / wall;
    std::printf("%-16s  %12.1f simulated s per wall s   loop %10.0f events/s = %.4f of the bare loop\n",
                (scenario->name + ":").c_str(), sim_s / wall, loop_per_s, loop_per_s / bare);
  }

  BenchFigures e2e;
  if (bench_e2e(simulated_seconds, 5000, false, &e2e) != 0) return 1;
  std::printf("bench e2e:        %12.0f records per wall s        (%.1f simulated s per wall s)\n", e2e.records_per_wall,
              e2e.simulated_per_wall);

  if (swarm_seeds > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    int failed = 0;
    for (int i = 0; i < swarm_seeds; i++) {
      const uint64_t seed = static_cast<uint64_t>(i) + 1;
      failed += sim::run_seed(sim::generate_swarm_scenario("safe", seed), seed).ok ? 0 : 1;
    }
    const double wall = seconds_since(t0);
    std::printf("swarm (safe):     %12.0f seeds per wall min        (%d seeds, 1 process, %d failed)\n",
                swarm_seeds / wall * 60, swarm_seeds, failed);
  }
  return 0;
}

}  // namespace gregor::app
