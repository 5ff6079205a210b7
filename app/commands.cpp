#include "app/commands.h"

#include <cstdio>
#include <cstring>
#include <iostream>

namespace gregor::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"bench", "measure Gregor's own speed (sim-loop, ...)", cmd_bench},
      {"gui", "the dashboard: a scenario live (click to inject faults) or a trace replayed", cmd_gui},
      {"run", "run a scenario file: timeline, checker verdicts, fingerprint", cmd_run},
      {"check-determinism", "run each seed of a scenario twice and compare the runs", cmd_check_determinism},
      {"swarm", "random clusters and fault schedules over many seeds, with checkers and a shrinker", cmd_swarm},
      {"zk", "real sockets: run one coordination server (ZooKeeper's role) as this process", cmd_zk},
      {"broker", "real sockets: run one Kafka broker as this process", cmd_broker},
      {"cluster", "real sockets: `cluster up` starts zk and brokers as child processes", cmd_cluster},
      {"topics", "create, list, describe, alter and delete topics of a real-socket cluster (kafka-topics)", cmd_topics},
      {"produce", "produce lines from stdin to a topic (kafka-console-producer)", cmd_produce},
      {"consume", "consume a topic to stdout (kafka-console-consumer)", cmd_consume},
      {"configs", "describe and change topic configs of a real-socket cluster (kafka-configs)", cmd_configs},
      {"acls", "add, remove and list ACLs of a real-socket cluster with an authorizer (kafka-acls)", cmd_acls},
      {"groups", "describe a consumer group's offsets and lag (kafka-consumer-groups)", cmd_groups},
      {"transactions", "list and describe transactions (kafka-transactions)", cmd_transactions},
      {"delete-records", "delete a partition's records below an offset (kafka-delete-records)", cmd_delete_records},
      {"leader-election", "preferred or unclean leader election (kafka-leader-election)", cmd_leader_election},
      {"reassign-partitions", "move partitions' replicas to other brokers (kafka-reassign-partitions)", cmd_reassign_partitions},
  };
  return list;
}

static void usage() {
  std::cout << "gregor: a deterministic simulation and teaching testbed of Kafka's core design\n\n"
               "usage: gregor <command> [options]   (gregor <command> --help for its options)\n\n"
               "commands:\n";
  for (const auto& c : commands()) std::printf("  %-20s %s\n", c.name, c.summary);
}

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  std::string name = argv[1];
  Args args(argv + 2, argv + argc);
  for (const auto& c : commands())
    if (name == c.name) return c.run(args);
  std::cerr << "gregor: unknown command '" << name << "' (gregor --help lists them)\n";
  return 2;
}

}  // namespace gregor::app
