// The `gregor` command: one executable, subcommands in the style of git and Kafka's CLIs.
//
// Each subcommand is a function taking its own arguments (argv after the subcommand name) and
// returning the process exit code: 0 success, 1 a failed expectation or check, 2 bad input.
#pragma once

#include <string>
#include <vector>

namespace gregor::app {

int main(int argc, char** argv);

using Args = std::vector<std::string>;
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

// Registered subcommands, in the order `gregor --help` lists them.
const std::vector<Command>& commands();

int cmd_bench(const Args& args);
int cmd_gui(const Args& args);
int cmd_run(const Args& args);
int cmd_check_determinism(const Args& args);
int cmd_swarm(const Args& args);
// Real-socket mode (app/node_commands.cpp, cluster_up.cpp, topics.cpp, configs.cpp, produce_consume.cpp, groups.cpp).
int cmd_zk(const Args& args);
int cmd_broker(const Args& args);
int cmd_cluster(const Args& args);
int cmd_topics(const Args& args);
int cmd_produce(const Args& args);
int cmd_consume(const Args& args);
int cmd_groups(const Args& args);
int cmd_transactions(const Args& args);  // app/transactions.cpp
int cmd_configs(const Args& args);
// kafka-acls (app/acls.cpp).
int cmd_acls(const Args& args);
// kafka-delete-records, kafka-leader-election, kafka-reassign-partitions (app/admin_commands.cpp).
int cmd_delete_records(const Args& args);
int cmd_leader_election(const Args& args);
int cmd_reassign_partitions(const Args& args);
// gregor bench produce (app/bench_produce.cpp): a producer against a real-socket cluster.
int bench_produce(const Args& args);
// gregor bench consume / latency (app/bench_consume.cpp): a consumer, and produce -> consume.
int bench_consume(const Args& args);
int bench_latency(const Args& args);
// The malloc this process runs on: "mimalloc" or "glibc malloc" (app/allocator.cpp).
const char* allocator_name();
// What a simulator benchmark measured, for gregor bench sim-speed (which prints them itself).
struct BenchFigures {
  double simulated_per_wall = 0;    // simulated seconds per wall second
  double loop_events_per_wall = 0;  // event-loop events per wall second
  double records_per_wall = 0;      // acknowledged (cluster) or consumed end to end (e2e) records per wall second
};
// gregor bench cluster (app/bench_cluster.cpp). With figures, it prints nothing and fills them in.
int bench_cluster(double simulated_seconds, double rate, bool with_checkers, double* simulated_per_wall = nullptr,
                  BenchFigures* figures = nullptr);
// gregor bench e2e (app/bench_e2e.cpp): produce -> replicate -> consume through a 2-member group.
int bench_e2e(double simulated_seconds, double rate, bool with_checkers, BenchFigures* figures = nullptr);
// gregor bench sim-speed (app/bench_sim_speed.cpp): the simulator's speed figures as ratios.
int bench_sim_speed(double simulated_seconds, uint64_t loop_events, int swarm_seeds, const std::string& scenario_file);
// The bare event loop's events per wall second (the yardstick of bench sim-loop and sim-speed).
double bare_loop_events_per_second(uint64_t events);
// gregor bench log (app/bench_log.cpp): the partition log against plain POSIX I/O.
int bench_log();
// gregor bench zk (app/bench_zk.cpp): conditional writes per second, simulated disk and real files.
int bench_zk();

}  // namespace gregor::app
