// gregor bench e2e: records end to end through produce -> replicate -> consume in the simulator,
// per wall second. The reference workload of the brokers issue (3 brokers, one topic of 6
// partitions with replication factor 3, a producer at 5,000 records/s of 100 bytes with acks=all)
// plus a group of 2 at-least-once consumers committing after every polled batch. The group forms
// first (group.initial.rebalance.delay.ms and all); the clock starts with the producer.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "app/commands.h"
#include "engine/client/consumer_node.h"
#include "engine/client/producer_node.h"
#include "sim/check/checkers.h"
#include "sim/check/consume_checkers.h"
#include "sim/cluster.h"

namespace gregor::app {

int bench_e2e(double simulated_seconds, double rate, bool with_checkers, BenchFigures* figures) {
  sim::Simulator simulator(1);
  sim::ClusterSpec spec;
  spec.brokers = 3;
  spec.zk_servers = 1;
  spec.broker_config = {{"auto.leader.rebalance.enable", "false"}, {"offsets.topic.num.partitions", "50"}};
  sim::Cluster cluster(simulator, spec);
  sim::CheckerSet checkers;
  if (with_checkers) sim::add_consume_checkers(checkers);
  int64_t consumed = 0, acked_batches = 0, commits = 0;
  uint64_t events = 0;
  simulator.add_listener([&](const TraceEvent& e) {
    events++;
    if (e.kind() == "consume") consumed++;
    else if (e.kind() == "produce_ack") acked_batches++;
    else if (e.kind() == "offset_commit") commits++;
    if (with_checkers) checkers.on_event(e);
  });
  simulator.run_until_pred([&] { return cluster.ready(); }, Time{} + Duration::seconds(30));
  bool created = false;
  cluster.broker(*cluster.controller())->create_topic("orders", 6, 3, {}, [&](protocol::ErrorCode, std::string) { created = true; });
  simulator.run_until_pred([&] { return created && cluster.topic_ready("orders", 6); }, simulator.now() + Duration::seconds(30));
  if (!cluster.topic_ready("orders", 6)) {
    std::fprintf(stderr, "bench e2e: the topic did not come up\n");
    return 1;
  }
  // The group: two at-least-once consumers with the Java client's defaults, manual commits.
  const NodeId consumers[2] = {NodeId{sim::kFirstClientNodeId + 1}, NodeId{sim::kFirstClientNodeId + 2}};
  for (int i = 0; i < 2; i++) {
    client::ConsumerConfig cc;
    Status s = cc.apply({{"group.id", "bench"}, {"client.id", "consumer-" + std::to_string(i + 1)},
                         {"enable.auto.commit", "false"}, {"auto.offset.reset", "earliest"}});
    GREGOR_ASSERT(s.is_ok());
    cc.bootstrap_servers = cluster.broker_ids();
    client::ConsumerWorkload w;
    w.topics = {"orders"};
    w.mode = client::DeliveryMode::kAtLeastOnce;
    w.processing_time = Duration::millis(1);
    simulator.add_node(consumers[i], cc.client_id, [cc, w](Runtime& rt) { return std::make_unique<client::ConsumerNode>(rt, cc, w); });
  }
  auto group_ready = [&] {
    for (NodeId id : consumers) {
      auto* c = simulator.node_as<client::ConsumerNode>(id);
      if (!c || !c->consumer().group().stable() || c->consumer().assignment().size() != 3) return false;
    }
    return true;
  };
  simulator.run_until_pred(group_ready, simulator.now() + Duration::seconds(60));
  if (!group_ready()) {
    std::fprintf(stderr, "bench e2e: the group did not stabilise\n");
    return 1;
  }
  client::ProducerConfig pc;
  pc.bootstrap_servers = cluster.broker_ids();
  pc.acks = -1;
  client::ProducerWorkload pw;
  pw.topic = "orders";
  pw.rate_per_sec = rate;
  pw.value_bytes = 100;
  pw.key_pattern = "seq";
  // The producer stops shortly before the end, so the consumers can drain what is in flight.
  const Time start_at = simulator.now();
  const double drain_s = std::min(2.0, simulated_seconds / 10);
  pw.stop_at = start_at + Duration::micros(static_cast<int64_t>((simulated_seconds - drain_s) * 1e6));
  simulator.add_node(NodeId{sim::kFirstClientNodeId}, "producer-1",
                     [&](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, pw); });

  const Time start = start_at;
  const int64_t consumed0 = consumed;
  const uint64_t loop_events0 = simulator.loop().events_run();
  auto t0 = std::chrono::steady_clock::now();
  simulator.run_until(start + Duration::micros(static_cast<int64_t>(simulated_seconds * 1e6)));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double sim_s = static_cast<double>((simulator.now() - start).us) / 1e6;
  auto* p = simulator.node_as<client::ProducerNode>(NodeId{sim::kFirstClientNodeId});
  const int64_t e2e = consumed - consumed0;
  const uint64_t loop_events = simulator.loop().events_run() - loop_events0;
  if (figures) {
    figures->simulated_per_wall = sim_s / wall;
    figures->loop_events_per_wall = static_cast<double>(loop_events) / wall;
    figures->records_per_wall = static_cast<double>(e2e) / wall;
    return e2e > 0 ? 0 : 1;
  }
  std::printf("workload:      3 brokers, 1 zk, orders: 6 partitions RF 3, producer %.0f records/s x 100 B, acks=all,\n"
              "               group of 2 at-least-once consumers (commit after every batch)%s\n",
              rate, with_checkers ? ", checkers on" : "");
  std::printf("simulated:     %.1f s in %.3f s wall  ->  %.1f simulated s per wall s\n", sim_s, wall, sim_s / wall);
  std::printf("end to end:    %lld records produced, acked and consumed  ->  %.0f records per wall s\n",
              static_cast<long long>(e2e), static_cast<double>(e2e) / wall);
  std::printf("               (%lld acked, %lld failed; %lld produce batches; %lld offset commits; lag at the end %lld)\n",
              static_cast<long long>(p->acked()), static_cast<long long>(p->failed()), static_cast<long long>(acked_batches),
              static_cast<long long>(commits), static_cast<long long>(p->acked() - e2e));
  std::printf("events:        %llu loop events (%.0f/s), %llu trace events, %llu frames delivered\n",
              static_cast<unsigned long long>(loop_events), static_cast<double>(loop_events) / wall,
              static_cast<unsigned long long>(events), static_cast<unsigned long long>(simulator.frames_delivered()));
  // The baseline, in the same run: the same cluster and producer without the group (bench cluster).
  std::printf("\nbaseline (gregor bench cluster, the same workload without the group):\n");
  double baseline = 0;
  if (bench_cluster(simulated_seconds, rate, false, &baseline) != 0 || baseline <= 0) return 1;
  std::printf("\nratio:         end to end runs at %.2f of the produce-only baseline's simulated s per wall s\n",
              (sim_s / wall) / baseline);
  int violations = 0;
  if (with_checkers) {
    checkers.finish(simulator.now());
    for (const auto& c : checkers.checkers())
      if (c->violation()) {
        violations++;
        std::printf("checker %s: %s\n", c->name(), c->violation()->message.c_str());
      }
  }
  return e2e > 0 && violations == 0 ? 0 : 1;
}

}  // namespace gregor::app
