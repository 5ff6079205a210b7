// A transaction coordinator alone on a simulated node, over a fake broker (TxnHost): the state log
// is a list of batches replicated at once, partition leaders are a table, producer ids count up,
// and WriteTxnMarkers requests are kept for the test to answer. The coordinator's states, records
// and markers can so be tested without the partition side (WriteTxnMarkers' handler).
#pragma once

#include <catch2/catch.hpp>
#include <deque>
#include <memory>

#include "engine/record/batch_split.h"
#include "engine/record/record.h"
#include "engine/txn/transaction_coordinator.h"
#include "sim/simulator.h"

namespace gregor::test {

struct SentMarkers {
  int32_t broker = -1;
  protocol::WriteTxnMarkersRequest request;
  std::function<void(protocol::ErrorCode, const protocol::WriteTxnMarkersResponse*)> done;
};

class FakeTxnHost final : public txn::TxnHost {
 public:
  std::map<std::string, int32_t> topics{{"orders", 3}};  // topic -> partitions
  std::map<TopicPartition, int32_t> leaders;             // default: partition % 3 + 1
  std::map<int32_t, std::vector<Bytes>> state_log;      // __transaction_state partition -> batches
  std::optional<int32_t> leader_epoch = 0;              // of every __transaction_state partition
  int64_t next_pid = 1000;
  std::deque<SentMarkers> markers;
  int32_t state_partitions = 2;

  int32_t live_broker_count() const override { return 3; }
  int32_t partition_count(const std::string& topic) const override {
    if (topic == txn::kTransactionStateTopic) return state_partitions;
    auto it = topics.find(topic);
    return it == topics.end() ? 0 : it->second;
  }
  std::optional<txn::BrokerAddress> partition_leader(const TopicPartition& tp) const override {
    auto it = leaders.find(tp);
    const int32_t id = it != leaders.end() ? it->second : tp.partition % 3 + 1;
    if (id < 0) return std::nullopt;
    return txn::BrokerAddress{id, "broker-" + std::to_string(id), 9092};
  }
  void create_transaction_state_topic(int32_t, int32_t, int32_t, int32_t, std::function<void(protocol::ErrorCode)> done) override {
    done(protocol::ErrorCode::NONE);
  }
  std::optional<int32_t> local_leader_epoch(const TopicPartition& tp) const override {
    if (tp.topic != txn::kTransactionStateTopic || tp.partition >= state_partitions) return std::nullopt;
    return leader_epoch;
  }
  txn::OffsetsAppend append_as_leader(const TopicPartition& tp, Bytes batch) override {
    auto& log = state_log[tp.partition];
    log.push_back(std::move(batch));
    return {protocol::ErrorCode::NONE, Offset{static_cast<int64_t>(log.size()) - 1}};
  }
  protocol::ErrorCode check_replicated(const TopicPartition&, Offset) const override { return protocol::ErrorCode::NONE; }
  Status read_log(const TopicPartition& tp, const std::function<Status(ByteView batch)>& each) override {
    for (const auto& b : state_log[tp.partition]) GREGOR_RETURN_IF_ERROR(each(as_view(b)));
    return Status::ok();
  }
  void generate_producer_id(std::function<void(protocol::ErrorCode, int64_t)> done) override {
    done(protocol::ErrorCode::NONE, next_pid++);
  }
  void send_write_txn_markers(int32_t broker, const protocol::WriteTxnMarkersRequest& req,
                              std::function<void(protocol::ErrorCode, const protocol::WriteTxnMarkersResponse*)> done) override {
    markers.push_back({broker, req, std::move(done)});
  }
};

// The node: a coordinator over a host it shares with the test (so that a second coordinator, a
// failover, reads the same state log).
class TxnNode final : public Node {
 public:
  TxnNode(Runtime& rt, const txn::TxnConfig& config, FakeTxnHost& host) : rt_(rt), coordinator(rt, config, host) {}
  void start() override {
    coordinator.start();
    coordinator.on_partitions_changed();
  }
  void on_message(NodeId, Bytes) override {}
  Runtime& rt_;
  txn::TransactionCoordinator coordinator;
};

struct TxnFixture {
  sim::Simulator sim;
  txn::TxnConfig config;
  FakeTxnHost host;
  std::vector<TraceEvent> events;
  TxnNode* node = nullptr;
  int next_node = 700;

  explicit TxnFixture(int16_t transaction_version = 1, uint64_t seed = 1) : sim(seed, sim::SimConfig{}) {
    config.transaction_version = transaction_version;
    sim.add_listener([this](const TraceEvent& e) { events.push_back(e); });
    start_coordinator();
  }
  // A new coordinator node (the previous one stays, but the host's epoch moves on: a failover).
  void start_coordinator() {
    const NodeId id{next_node++};
    sim.add_node(id, "txn-" + std::to_string(id.value),
                 [this](Runtime& rt) { return std::make_unique<TxnNode>(rt, config, host); });
    node = sim.node_as<TxnNode>(id);
    settle();
  }
  txn::TransactionCoordinator& coord() { return node->coordinator; }
  void settle(Duration d = Duration::millis(10)) {
    sim.run_until_pred([] { return false; }, sim.now() + d);
  }
  void advance(Duration d) { settle(d); }

  txn::TransactionCoordinator::ProducerIdAndEpoch init(const std::string& id, int32_t timeout_ms = 60000,
                                                       std::optional<std::pair<int64_t, int16_t>> expected = std::nullopt) {
    txn::TransactionCoordinator::ProducerIdAndEpoch out{protocol::ErrorCode::UNKNOWN_SERVER_ERROR};
    coord().init_producer_id(id, timeout_ms, expected, [&](const auto& r) { out = r; });
    settle();
    return out;
  }
  protocol::ErrorCode add(const std::string& id, int64_t pid, int16_t epoch, std::set<TopicPartition> parts) {
    protocol::ErrorCode out = protocol::ErrorCode::UNKNOWN_SERVER_ERROR;
    coord().add_partitions(id, pid, epoch, parts, [&](protocol::ErrorCode e) { out = e; });
    settle();
    return out;
  }
  txn::TransactionCoordinator::ProducerIdAndEpoch end(const std::string& id, int64_t pid, int16_t epoch, bool commit) {
    txn::TransactionCoordinator::ProducerIdAndEpoch out{protocol::ErrorCode::UNKNOWN_SERVER_ERROR};
    coord().end_txn(id, pid, epoch, commit, [&](const auto& r) { out = r; });
    settle();
    return out;
  }
  // Answers every marker request sent so far with `error` for each partition.
  size_t answer_markers(protocol::ErrorCode error = protocol::ErrorCode::NONE) {
    size_t n = 0;
    while (!host.markers.empty()) {
      SentMarkers m = std::move(host.markers.front());
      host.markers.pop_front();
      protocol::WriteTxnMarkersResponse resp;
      for (const auto& mk : m.request.markers) {
        protocol::WriteTxnMarkersResponse::WritableTxnMarkerResult r;
        r.producer_id = mk.producer_id;
        for (const auto& t : mk.topics) {
          protocol::WriteTxnMarkersResponse::WritableTxnMarkerTopicResult tr;
          tr.name = t.name;
          for (int32_t p : t.partition_indexes) tr.partitions.push_back({p, error});
          r.topics.push_back(std::move(tr));
        }
        resp.markers.push_back(std::move(r));
      }
      m.done(protocol::ErrorCode::NONE, &resp);
      n++;
    }
    settle();
    return n;
  }
  const txn::TransactionMetadata& md(const std::string& id) {
    const txn::TransactionMetadata* m = coord().transaction(id);
    REQUIRE(m);
    return *m;
  }
  std::vector<std::string> transitions(const std::string& id) const {
    std::vector<std::string> out;
    for (const auto& e : events)
      if (const auto* c = e.as<ev::TxnStateChange>(); c && e.node.value == node_id() && c->transactional_id == id)
        out.push_back(c->from + "->" + c->to);
    return out;
  }
  int32_t node_id() const { return next_node - 1; }
};

inline TopicPartition tp(const std::string& topic, int32_t p) { return TopicPartition{topic, p}; }

}  // namespace gregor::test
