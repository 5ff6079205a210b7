// gregor demo: the leader-failover story, built in: three brokers and a zk server, a topic with
// replication factor 3, a producer writing with acks=all; at 20 s the leader of orders-0 crashes,
// the controller elects an ISR follower, the producer carries on, and at 60 s the old leader comes
// back and rejoins the ISR. Prints the timeline, the checkers' verdicts and the fingerprint.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "app/commands.h"
#include "engine/client/producer_node.h"
#include "sim/check/checkers.h"
#include "sim/cluster.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

bool on_timeline(const TraceEvent& e) {
  static const char* kinds[] = {"node_crash", "node_restart", "controller_elected", "leader_change", "partition_offline",
                                "isr_change", "topic_created", "broker_change", "log_truncate", "power_loss"};
  for (const char* k : kinds)
    if (e.kind == k) return true;
  return false;
}

}  // namespace

int cmd_demo(const Args& args) {
  po::options_description desc("usage: gregor demo [--seed N]\n\nThe leader-failover story in the simulator.\n\noptions");
  uint64_t seed = 1;
  desc.add_options()("help,h", "show this help")("seed", po::value<uint64_t>(&seed)->default_value(seed), "the run's seed");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "gregor demo: " << e.what() << "\n" << desc << "\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  sim::Simulator simulator(seed);
  sim::CheckerSet checkers;
  int64_t acks = 0;
  simulator.add_listener([&](const TraceEvent& e) {
    checkers.on_event(e);
    if (e.kind == "produce_ack") acks++;
    if (!on_timeline(e)) return;
    std::string line = e.kind;
    for (const auto& f : e.fields)
      line += " " + f.key + "=" +
              (std::holds_alternative<int64_t>(f.value) ? std::to_string(std::get<int64_t>(f.value)) : std::get<std::string>(f.value));
    std::printf("%12s  %-8s %s\n", format_time(e.time).c_str(),
                e.node.value == 0 ? "world" : ("node " + std::to_string(e.node.value)).c_str(), line.c_str());
  });
  sim::ClusterSpec spec;
  spec.broker_config = {{"min.insync.replicas", "2"}, {"replica.lag.time.max.ms", "10000"},
                        {"zookeeper.session.timeout.ms", "6000"}, {"auto.leader.rebalance.enable", "false"}};
  sim::Cluster cluster(simulator, spec);
  std::printf("Leader failover: 3 brokers, topic orders (3 partitions, RF 3, min.insync.replicas=2), a producer with acks=all.\n"
              "At 20 s the leader of orders-0 crashes; an in-sync follower must take over and nothing acknowledged may be lost.\n\n");
  simulator.run_until_pred([&] { return cluster.ready(); }, Time{} + Duration::seconds(30));
  bool created = false;
  cluster.broker(*cluster.controller())->create_topic("orders", 3, 3, {}, [&](protocol::ErrorCode, std::string) { created = true; });
  simulator.run_until_pred([&] { return created && cluster.topic_ready("orders", 3); }, simulator.now() + Duration::seconds(30));
  client::ProducerConfig pc;
  pc.client_id = "producer-1";
  pc.bootstrap_servers = cluster.broker_ids();
  client::ProducerWorkload w;
  w.rate_per_sec = 200;
  simulator.add_node(NodeId{sim::kFirstClientNodeId}, "producer-1",
                     [&](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, w); });
  simulator.run_until(Time{} + Duration::seconds(20));
  auto leader = cluster.leader(broker::TopicPartition{"orders", 0});
  if (!leader || *leader < 0) {
    std::fprintf(stderr, "gregor demo: orders-0 has no leader at 20 s\n");
    return 1;
  }
  simulator.crash(NodeId{*leader});
  simulator.run_until(Time{} + Duration::seconds(60));
  simulator.restart(NodeId{*leader});
  simulator.run_until(Time{} + Duration::seconds(90));
  checkers.finish(simulator.now());
  auto* p = simulator.node_as<client::ProducerNode>(NodeId{sim::kFirstClientNodeId});
  std::printf("\nproducer: %lld records sent, %lld acknowledged, %lld failed (%lld acknowledged batches checked)\n",
              static_cast<long long>(p->sent()), static_cast<long long>(p->acked()), static_cast<long long>(p->failed()),
              static_cast<long long>(acks));
  std::printf("\nverdicts:\n");
  bool ok = true;
  for (const auto& c : checkers.checkers()) {
    if (c->violation()) {
      ok = false;
      std::printf("  FAIL  %-18s %s: %s\n", c->name(), format_time(c->violation()->time).c_str(), c->violation()->message.c_str());
    } else {
      std::printf("  pass  %-18s %s\n", c->name(), c->description());
    }
  }
  std::printf("\nfingerprint: %s\n", simulator.fingerprint().hex().c_str());
  return ok ? 0 : 1;
}

}  // namespace gregor::app
