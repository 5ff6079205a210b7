// gregor bench cluster: the reference workload of the brokers issue in the simulator: 3 brokers,
// one topic of 6 partitions with replication factor 3, a producer at 5,000 records/s of 100 bytes
// with acks=all. Reports simulated seconds per wall second and the events behind them.
#include <chrono>
#include <cstdio>

#include "app/commands.h"
#include "engine/client/producer_node.h"
#include "engine/protocol/create_topics.h"
#include "sim/check/checkers.h"
#include "sim/cluster.h"

namespace gregor::app {

int bench_cluster(double simulated_seconds, double rate, bool with_checkers, double* simulated_per_wall,
                  BenchFigures* figures) {
  sim::Simulator simulator(1);
  sim::ClusterSpec spec;
  spec.brokers = 3;
  spec.zk_servers = 1;
  spec.broker_config = {{"auto.leader.rebalance.enable", "false"}};
  sim::Cluster cluster(simulator, spec);
  sim::CheckerSet checkers;
  // Without checkers nothing keeps the trace: the simulator counts its events.
  if (with_checkers) simulator.add_listener([&](const TraceEvent& e) { checkers.on_event(e); });
  // Topic creation through zk, as an admin client would (the broker API does the same).
  simulator.run_until_pred([&] { return cluster.ready(); }, Time{} + Duration::seconds(30));
  bool created = false;
  cluster.broker(*cluster.controller())->create_topic("orders", 6, 3, {}, [&](protocol::ErrorCode, std::string) { created = true; });
  simulator.run_until_pred([&] { return created && cluster.topic_ready("orders", 6); }, simulator.now() + Duration::seconds(30));
  if (!cluster.topic_ready("orders", 6)) {
    std::fprintf(stderr, "bench cluster: the topic did not come up\n");
    return 1;
  }
  client::ProducerConfig pc;
  pc.bootstrap_servers = cluster.broker_ids();
  pc.acks = -1;
  client::ProducerWorkload w;
  w.topic = "orders";
  w.rate_per_sec = rate;
  w.value_bytes = 100;
  w.key_pattern = "seq";
  simulator.add_node(NodeId{sim::kFirstClientNodeId}, "producer-1",
                     [&](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, w); });
  const Time start = simulator.now();
  const uint64_t loop_events0 = simulator.loop().events_run();
  auto t0 = std::chrono::steady_clock::now();
  simulator.run_until(start + Duration::micros(static_cast<int64_t>(simulated_seconds * 1e6)));
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto* p = simulator.node_as<client::ProducerNode>(NodeId{sim::kFirstClientNodeId});
  const double sim_s = static_cast<double>((simulator.now() - start).us) / 1e6;
  const uint64_t loop_events = simulator.loop().events_run() - loop_events0;
  if (figures) {
    figures->simulated_per_wall = sim_s / wall;
    figures->loop_events_per_wall = static_cast<double>(loop_events) / wall;
    figures->records_per_wall = static_cast<double>(p->acked()) / wall;
    return p->acked() > 0 ? 0 : 1;
  }
  std::printf("workload:      3 brokers, 1 zk, orders: 6 partitions RF 3, producer %.0f records/s x 100 B, acks=all%s\n",
              rate, with_checkers ? ", checkers on" : "");
  std::printf("simulated:     %.1f s in %.3f s wall  ->  %.1f simulated s per wall s (%s)\n", sim_s, wall, sim_s / wall,
              allocator_name());
  if (simulated_per_wall) *simulated_per_wall = sim_s / wall;
  std::printf("records:       %lld acked, %lld failed (%.0f acked records per wall s)\n", static_cast<long long>(p->acked()),
              static_cast<long long>(p->failed()), static_cast<double>(p->acked()) / wall);
  std::printf("events:        %llu loop events (%.0f/s), %llu trace events, %llu frames delivered\n",
              static_cast<unsigned long long>(loop_events), static_cast<double>(loop_events) / wall,
              static_cast<unsigned long long>(simulator.events_emitted()), static_cast<unsigned long long>(simulator.frames_delivered()));
  if (with_checkers) {
    checkers.finish(simulator.now());
    for (const auto& c : checkers.checkers())
      if (c->violation()) std::printf("checker %s: %s\n", c->name(), c->violation()->message.c_str());
  }
  return p->acked() > 0 ? 0 : 1;
}

}  // namespace gregor::app
