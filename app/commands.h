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
int cmd_configs(const Args& args);
// gregor bench produce (app/bench_produce.cpp): a producer against a real-socket cluster.
int bench_produce(const Args& args);
// gregor bench consume / latency (app/bench_consume.cpp): a consumer, and produce -> consume.
int bench_consume(const Args& args);
int bench_latency(const Args& args);
int bench_cluster(double simulated_seconds, double rate, bool with_checkers, double* simulated_per_wall = nullptr);
// gregor bench e2e (app/bench_e2e.cpp): produce -> replicate -> consume through a 2-member group.
int bench_e2e(double simulated_seconds, double rate, bool with_checkers);
// gregor bench log (app/bench_log.cpp): the partition log against plain POSIX I/O.
int bench_log();
// gregor bench zk (app/bench_zk.cpp): conditional writes per second, simulated disk and real files.
int bench_zk();

}  // namespace gregor::app
