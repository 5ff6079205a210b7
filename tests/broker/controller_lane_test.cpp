// The controller's requests travel on a connection of their own (Lane::kController), as Kafka's
// ControllerChannelManager has its own NetworkClient: a LeaderAndIsr must not wait at a broker behind
// the controller's own broker's replica fetch, which that broker holds for up to
// replica.fetch.wait.max.ms when there is nothing to fetch (a broker serves one connection's requests
// in turn).
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/protocol/create_partitions.h"
#include "engine/core/trace_events.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

// One more partition of `topic`, placed on `replicas` (CreatePartitions with an assignment).
void add_partition(test::ClusterFixture& f, const std::string& topic, int32_t count, std::vector<int32_t> replicas) {
  protocol::CreatePartitionsRequest req;
  req.timeout_ms = 30000;
  req.topics.push_back({.name = topic, .count = count});
  req.topics[0].assignments.emplace();
  req.topics[0].assignments->push_back({.broker_ids = std::move(replicas)});
  auto r = f.call<protocol::CreatePartitionsRequest, protocol::CreatePartitionsResponse>(*f.cluster.controller(), req, 3);
  REQUIRE(r);
  REQUIRE(r->results.size() == 1);
  REQUIRE(r->results[0].error_code == ErrorCode::NONE);
}

// When the controller wrote a partition's first leader, and when that leader took it.
struct Handover {
  std::optional<Time> written, taken;
};
Handover handover(const std::vector<TraceEvent>& events, const TopicPartition& tp) {
  Handover h;
  for (const auto& e : events) {
    if (const auto* lc = e.as<ev::LeaderChange>(); lc && lc->topic == tp.topic && lc->partition == tp.partition && !h.written)
      h.written = e.time;
    if (const auto* bl = e.as<ev::BecomeLeader>(); bl && bl->topic == tp.topic && bl->partition == tp.partition && !h.taken)
      h.taken = e.time;
  }
  return h;
}

}  // namespace

TEST_CASE("controller lane: a LeaderAndIsr is not held behind the controller broker's long-poll fetch") {
  for (uint64_t seed : {1, 2, 3}) {
    // Followers park their fetches at the leader for up to 500 ms when there is nothing new.
    test::ClusterFixture f(seed, {{"replica.fetch.wait.max.ms", "500"}});
    REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
    // Every broker leads a partition of base and follows the others': the controller's broker keeps
    // a fetch parked at every other broker while base is idle.
    f.create_topic("base", 3, 3);
    f.create_topic("grow", 1, 1);
    const int32_t controller = *f.cluster.controller();
    const int32_t leader = controller % 3 + 1;  // another broker
    f.sim.run_for(Duration::seconds(2));
    // New partitions led by `leader`: the controller's LeaderAndIsr reaches it while a fetch is parked.
    for (int32_t p = 1; p <= 6; p++) {
      add_partition(f, "grow", p + 1, {leader});
      const TopicPartition tp{"grow", p};
      REQUIRE(f.run_until([&] { return handover(f.events, tp).taken.has_value(); }));
      const Handover h = handover(f.events, tp);
      REQUIRE(h.written);
      INFO("seed " << seed << " partition " << p << ": controller " << controller << " wrote the leader at "
                   << h.written->ms() << " ms, broker " << leader << " took it at " << h.taken->ms() << " ms");
      // A round trip's worth of simulated latency, not the 500 ms a parked fetch holds the connection.
      CHECK(*h.taken - *h.written < Duration::millis(100));
      f.sim.run_for(Duration::millis(137));
    }
  }
}

TEST_CASE("controller failover: no broker is ever told a cluster without its topics") {
  // A new controller reads the brokers, then the topics and their partition states from zk. It
  // used to send UpdateMetadata when it had read only the brokers: every broker replaced its
  // metadata with one that had no topics, and a transaction coordinator loading its partitions at
  // that moment took the transaction's partitions for deleted ones and completed a commit without
  // writing its markers.
  for (uint64_t seed : {1, 2, 3, 4}) {
    test::ClusterFixture f(seed, {{"zookeeper.session.timeout.ms", "6000"}});
    REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
    f.create_topic("orders", 3, 3);
    f.sim.run_for(Duration::seconds(1));
    const int32_t old_controller = *f.cluster.controller();
    f.sim.crash(NodeId{old_controller});
    const Time end = f.sim.now() + Duration::seconds(15);
    std::vector<std::string> lost;
    f.run_until([&] {
      for (NodeId id : f.cluster.broker_ids()) {
        const broker::Broker* b = f.cluster.broker(id.value);
        if (!b || b->metadata().controller_id() < 0) continue;
        if (b->metadata().topic_partitions("orders").size() != 3)
          lost.push_back("broker " + std::to_string(id.value) + " at " + std::to_string(f.sim.now().ms()) + " ms");
      }
      return f.sim.now() >= end;
    });
    INFO("seed " << seed << ": brokers whose metadata lost topic orders: " << (lost.empty() ? "none" : lost.front()));
    CHECK(lost.empty());
    const auto now_controller = f.cluster.controller();
    REQUIRE(now_controller);
    CHECK(*now_controller != old_controller);
  }
}
