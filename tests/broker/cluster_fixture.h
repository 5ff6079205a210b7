// A simulated cluster with checkers attached, a raw request client and helpers for tests of the
// replication protocol.
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "engine/client/producer_node.h"
#include "engine/protocol/create_topics.h"
#include "engine/protocol/produce.h"
#include "request_client.h"
#include "sim/check/checkers.h"
#include "sim/cluster.h"

namespace gregor::test {

inline sim::SimConfig debug_sim_config() {
  sim::SimConfig c;
  c.verbose = std::getenv("GREGOR_TRACE") != nullptr;
  return c;
}

struct ClusterFixture {
  sim::Simulator sim;
  sim::Cluster cluster;
  sim::CheckerSet checkers;
  std::vector<TraceEvent> events;
  RequestClient* client = nullptr;

  explicit ClusterFixture(uint64_t seed, std::map<std::string, std::string> cfg = {}, int brokers = 3)
      : sim(seed, debug_sim_config()), cluster(sim, sim::ClusterSpec{brokers, 1, std::move(cfg), {}}) {
    sim.add_listener([this](const TraceEvent& e) {
      checkers.on_event(e);
      events.push_back(e);
      if (std::getenv("GREGOR_TRACE")) std::fprintf(stderr, "%s\n", e.to_string().c_str());
    });
    sim.add_node(NodeId{sim::kFirstClientNodeId}, "client", [](Runtime& rt) { return std::make_unique<RequestClient>(rt); });
    client = sim.node_as<RequestClient>(NodeId{sim::kFirstClientNodeId});
  }

  bool run_until(const std::function<bool()>& pred, Duration limit = Duration::seconds(120)) {
    return sim.run_until_pred(pred, sim.now() + limit) == sim::RunOutcome::kPredicateMet;
  }

  template <typename Req, typename Resp>
  std::optional<Resp> call(int32_t broker, const Req& req, int16_t version) {
    std::optional<Resp> out;
    bool done = false;
    client->call<Req, Resp>(NodeId{broker}, req, version, &out, &done);
    run_until([&] { return done; });
    return out;
  }

  void create_topic(const std::string& name, int partitions, int rf, std::map<std::string, std::string> configs = {}) {
    REQUIRE(run_until([&] { return cluster.ready(); }));
    protocol::CreateTopicsRequest req;
    protocol::CreateTopicsRequest::CreatableTopic t;
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = static_cast<int16_t>(rf);
    for (auto& [k, v] : configs) t.configs.push_back({k, v});
    req.topics.push_back(t);
    auto resp = call<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(*cluster.controller(), req, 3);
    REQUIRE(resp);
    REQUIRE(resp->topics.at(0).error_code == protocol::ErrorCode::NONE);
    REQUIRE(run_until([&] { return cluster.topic_ready(name, partitions); }));
  }

  // One acks=`acks` produce of one record, straight to `broker`; the error code (or
  // NETWORK_EXCEPTION when no answer came).
  protocol::ErrorCode produce(int32_t broker, const std::string& topic, int partition, int16_t acks, const std::string& value,
                              int64_t* base_offset = nullptr, int32_t timeout_ms = 30000) {
    protocol::ProduceRequest req;
    req.acks = acks;
    req.timeout_ms = timeout_ms;
    Bytes batch = make_batch(value);
    auto h = record::parse_batch_header(as_view(batch), false);
    req.topic_data.push_back({topic, {{partition, SharedBytes(Bytes(batch))}}});
    auto r = call<protocol::ProduceRequest, protocol::ProduceResponse>(broker, req, 7);
    if (!r) return protocol::ErrorCode::NETWORK_EXCEPTION;
    const auto& pr = r->responses.at(0).partition_responses.at(0);
    if (base_offset) *base_offset = pr.base_offset;
    // Tell the checkers, as a producer client would.
    if (pr.error_code == protocol::ErrorCode::NONE)
      sim.emit(NodeId{sim::kFirstClientNodeId}, ev::ProduceAck{.topic = topic,
                                                              .partition = partition,
                                                              .base_offset = pr.base_offset,
                                                              .count = 1,
                                                              .crc = static_cast<int64_t>(h->crc),
                                                              .acks = acks});
    return pr.error_code;
  }

  int32_t leader_of(const std::string& topic, int partition) {
    auto l = cluster.leader(TopicPartition{topic, partition});
    REQUIRE(l);
    return *l;
  }
  broker::Partition* replica(int32_t broker, const std::string& topic, int partition) {
    auto* b = cluster.broker(broker);
    return b ? b->partition(TopicPartition{topic, partition}) : nullptr;
  }
  size_t count(const std::string& kind, int32_t node = -1) const {
    size_t n = 0;
    for (const auto& e : events)
      if (e.kind() == kind && (node < 0 || e.node.value == node)) n++;
    return n;
  }
  const sim::Checker& checker(const std::string& name) {
    auto* c = checkers.find(name);
    REQUIRE(c);
    return *c;
  }
};

}  // namespace gregor::test
