// A simulated cluster for group tests: 3 brokers, every checker (replication and consumption)
// attached, a ledger of what was acknowledged and consumed, and helpers to add producers,
// consumers and the exactly-once sink as nodes.
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "../broker/request_client.h"
#include "engine/client/consumer_node.h"
#include "engine/client/producer_node.h"
#include "engine/client/transactional_sink.h"
#include "engine/protocol/consumer_protocol.h"
#include "engine/protocol/create_topics.h"
#include "engine/protocol/describe_groups.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/join_group.h"
#include "sim/check/checkers.h"
#include "sim/check/consume_checkers.h"
#include "sim/cluster.h"

namespace gregor::test {

inline constexpr int32_t kSinkNodeId = 3001;

// Broker settings that make group tests quick: a few offsets partitions and a short initial
// rebalance delay (Kafka's defaults are 50 and 3000 ms).
inline std::map<std::string, std::string> group_broker_config(std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> c{{"offsets.topic.num.partitions", "4"},
                                       {"group.initial.rebalance.delay.ms", "500"},
                                       {"min.insync.replicas", "2"}};
  for (auto& [k, v] : extra) c[k] = v;
  return c;
}

// Consumer settings for tests: sessions of 6 s (the broker's minimum), heartbeats every second.
inline client::ConsumerConfig group_consumer_config(const std::string& group, const std::string& client_id,
                                                    std::map<std::string, std::string> extra = {}) {
  client::ConsumerConfig c;
  std::map<std::string, std::string> s{{"group.id", group},
                                       {"client.id", client_id},
                                       {"session.timeout.ms", "6000"},
                                       {"heartbeat.interval.ms", "1000"},
                                       {"max.poll.interval.ms", "30000"},
                                       {"auto.offset.reset", "earliest"},
                                       {"enable.auto.commit", "false"},
                                       {"fetch.max.wait.ms", "100"},
                                       {"max.poll.records", "50"}};
  for (auto& [k, v] : extra) s[k] = v;
  Status st = c.apply(s);
  REQUIRE(st.is_ok());
  c.bootstrap_servers = {NodeId{1}, NodeId{2}, NodeId{3}};
  return c;
}

struct GroupFixture {
  sim::Simulator sim;
  sim::Cluster cluster;
  sim::CheckerSet checkers;
  sim::ConsumeLedger ledger;
  std::map<std::string, int64_t> kinds;  // events per kind
  std::vector<std::function<void(const TraceEvent&)>> hooks;
  RequestClient* client = nullptr;

  static sim::ClusterSpec spec(std::map<std::string, std::string> cfg) {
    sim::ClusterSpec s;
    s.brokers = 3;
    s.zk_servers = 1;
    s.broker_config = std::move(cfg);
    return s;
  }

  explicit GroupFixture(uint64_t seed, std::map<std::string, std::string> cfg = group_broker_config())
      : sim(seed, debug_config()), cluster(sim, spec(std::move(cfg))) {
    sim::add_consume_checkers(checkers);
    sim.add_listener([this](const TraceEvent& e) {
      checkers.on_event(e);
      ledger.apply(e);
      kinds[std::string(e.kind())]++;
      if (std::getenv("GREGOR_TRACE")) std::fprintf(stderr, "%s\n", e.to_string().c_str());
      for (auto& h : hooks) h(e);
    });
    sim.add_node(NodeId{sim::kFirstClientNodeId}, "client", [](Runtime& rt) { return std::make_unique<RequestClient>(rt); });
    client = sim.node_as<RequestClient>(NodeId{sim::kFirstClientNodeId});
  }

  static sim::SimConfig debug_config() {
    sim::SimConfig c;
    c.verbose = std::getenv("GREGOR_TRACE") != nullptr;
    return c;
  }

  bool run_until(const std::function<bool()>& pred, Duration limit = Duration::seconds(120)) {
    return sim.run_until_pred(pred, sim.now() + limit) == sim::RunOutcome::kPredicateMet;
  }

  template <typename Req, typename Resp>
  std::optional<Resp> call(int32_t broker, const Req& req, int16_t version, RequestClient* via = nullptr) {
    std::optional<Resp> out;
    bool done = false;
    (via ? via : client)->call<Req, Resp>(NodeId{broker}, req, version, &out, &done);
    run_until([&] { return done; });
    return out;
  }

  void create_topic(const std::string& name, int partitions, int rf) {
    REQUIRE(run_until([&] { return cluster.ready(); }));
    protocol::CreateTopicsRequest req;
    protocol::CreateTopicsRequest::CreatableTopic t;
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = static_cast<int16_t>(rf);
    req.topics.push_back(t);
    auto resp = call<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(*cluster.controller(), req, 3);
    REQUIRE(resp);
    REQUIRE(resp->topics.at(0).error_code == protocol::ErrorCode::NONE);
    REQUIRE(run_until([&] { return cluster.topic_ready(name, partitions); }));
  }

  client::ProducerNode* add_producer(int32_t id, double rate, int64_t max_records, bool idempotent,
                                     const std::string& topic = "orders") {
    client::ProducerConfig pc;
    pc.client_id = "producer-" + std::to_string(id);
    pc.bootstrap_servers = {NodeId{1}, NodeId{2}, NodeId{3}};
    pc.acks = -1;
    pc.enable_idempotence = idempotent;
    pc.request_timeout_ms = 5000;
    client::ProducerWorkload w;
    w.topic = topic;
    w.rate_per_sec = rate;
    w.value_bytes = 40;
    w.max_records = max_records;
    w.key_pattern = "seq";
    sim.add_node(NodeId{id}, pc.client_id,
                 [pc, w](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, w); });
    return sim.node_as<client::ProducerNode>(NodeId{id});
  }

  void add_consumer(int32_t id, const std::string& group, client::DeliveryMode mode,
                    std::map<std::string, std::string> extra = {}, std::optional<client::DeliveryMode> behaviour = std::nullopt,
                    const std::string& topic = "orders") {
    client::ConsumerConfig cc = group_consumer_config(group, "consumer-" + std::to_string(id), std::move(extra));
    client::ConsumerWorkload w;
    w.topics = {topic};
    w.mode = mode;
    w.behaviour = behaviour;
    w.processing_time = Duration::millis(5);
    w.poll_idle = Duration::millis(20);
    if (behaviour.value_or(mode) == client::DeliveryMode::kExactlyOnce) w.sink = NodeId{kSinkNodeId};
    sim.add_node(NodeId{id}, cc.client_id, [cc, w](Runtime& rt) { return std::make_unique<client::ConsumerNode>(rt, cc, w); });
  }

  void add_sink() {
    sim.add_node(NodeId{kSinkNodeId}, "sink", [](Runtime& rt) { return std::make_unique<client::TransactionalSinkNode>(rt); });
  }

  client::ConsumerNode* consumer(int32_t id) { return sim.node_as<client::ConsumerNode>(NodeId{id}); }
  client::ProducerNode* producer(int32_t id) { return sim.node_as<client::ProducerNode>(NodeId{id}); }

  // The coordinator-side state of a group, from whichever broker coordinates it now.
  const group::GroupMetadata* group_state(const std::string& group, int32_t* coordinator = nullptr) {
    for (NodeId b : cluster.broker_ids()) {
      broker::Broker* br = cluster.broker(b.value);
      if (!br) continue;
      const group::GroupMetadata* g = br->group_coordinator().group(group);
      if (g) {
        if (coordinator) *coordinator = b.value;
        return g;
      }
    }
    return nullptr;
  }

  bool stable_with(const std::string& group, size_t members) {
    const group::GroupMetadata* g = group_state(group);
    return g && g->state == group::GroupState::kStable && g->members.size() == members;
  }

  // Every acks=all acknowledged record of `group`'s topics consumed.
  bool caught_up(const std::string& group) {
    const auto* g = ledger.group(group);
    return g && ledger.acked_count(g->topics) > 0 && ledger.lost(group) == 0;
  }

  // Finishes the checkers and fails the test with the first violation found.
  void require_checkers_pass() {
    checkers.finish(sim.now());
    for (const auto& c : checkers.checkers()) {
      INFO("checker " << c->name());
      if (c->violation()) {
        std::string ctx;
        for (const auto& l : c->violation()->context) ctx += "  " + l + "\n";
        FAIL(c->violation()->message << "\n" << ctx);
      }
    }
  }
  const sim::Violation* violation(const std::string& checker) {
    checkers.finish(sim.now());
    auto* c = checkers.find(checker);
    REQUIRE(c);
    return c->violation() ? &*c->violation() : nullptr;
  }
};

// A consumer's JoinGroup (protocol type consumer, the range assignor) subscribing to `topics`.
inline protocol::JoinGroupRequest join_request(const std::string& group, const std::string& member,
                                               std::vector<std::string> topics, int32_t timeouts_ms = 10000) {
  protocol::JoinGroupRequest req;
  req.group_id = group;
  req.session_timeout_ms = timeouts_ms;
  req.rebalance_timeout_ms = timeouts_ms;
  req.member_id = member;
  req.protocol_type = "consumer";
  protocol::Subscription s;
  s.topics = std::move(topics);
  req.protocols.push_back({"range", protocol::encode_subscription(s)});
  return req;
}

// Asks any broker until the coordinator is known (the first ask creates __consumer_offsets).
inline int32_t find_coordinator(GroupFixture& f, const std::string& group, int* attempts = nullptr) {
  int32_t node = -1;
  int n = 0;
  f.run_until(
      [&] {
        if (node >= 0) return true;
        protocol::FindCoordinatorRequest req;
        req.key = group;
        int32_t any = 1;  // a live broker to ask
        while (any < 3 && !f.cluster.broker(any)) any++;
        auto resp = f.call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(any, req, 2);
        n++;
        if (resp && resp->error_code == protocol::ErrorCode::NONE) {
          // The answer comes from the asked broker's metadata, which can be ahead of the
          // coordinator itself: wait until the coordinator answers for the group (DescribeGroups
          // says neither NOT_COORDINATOR nor COORDINATOR_LOAD_IN_PROGRESS), as a client would retry.
          protocol::DescribeGroupsRequest describe;
          describe.groups = {group};
          auto d = f.call<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>(resp->node_id, describe, 4);
          if (d && d->groups.size() == 1 && d->groups[0].error_code == protocol::ErrorCode::NONE) node = resp->node_id;
        }
        if (node < 0) f.sim.run_for(Duration::millis(200));
        return node >= 0;
      },
      Duration::seconds(60));
  if (attempts) *attempts = n;
  return node;
}

}  // namespace gregor::test
