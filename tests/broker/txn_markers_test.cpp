// Transactions, the partition side (KIP-98), over a simulated cluster: transactional produce,
// WriteTxnMarkers, the last stable offset, read_committed Fetch and ListOffsets, DescribeProducers,
// the transaction marker listener, and a read_committed consumer dropping aborted records.
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/broker/broker.h"
#include "engine/client/consumer.h"
#include "engine/protocol/describe_producers.h"
#include "engine/protocol/fetch.h"
#include "engine/protocol/list_offsets.h"
#include "engine/protocol/write_txn_markers.h"
#include "engine/record/batch_builder.h"
#include "engine/record/batch_split.h"
#include "engine/record/record.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

Bytes txn_batch(int64_t pid, int16_t epoch, int32_t seq, const std::vector<std::string>& values, bool transactional = true) {
  std::vector<record::Record> records;
  for (const auto& v : values) {
    record::Record r;
    r.timestamp = 1000;
    r.value = to_bytes(v);
    records.push_back(r);
  }
  record::BatchBuildOptions o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = seq;
  if (transactional) o.attributes = record::kTransactionalFlagMask;
  return record::build_batch(o, records);
}

// One acks=all produce of `batch`; the error and the base offset.
std::pair<ErrorCode, int64_t> produce(test::ClusterFixture& f, int32_t broker, const std::string& topic, Bytes batch) {
  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 30000;
  req.transactional_id = "tx";
  req.topic_data.push_back({topic, {{0, SharedBytes(std::move(batch))}}});
  auto r = f.call<protocol::ProduceRequest, protocol::ProduceResponse>(broker, req, 9);
  REQUIRE(r);
  const auto& pr = r->responses.at(0).partition_responses.at(0);
  return {pr.error_code, pr.base_offset};
}

struct MarkerSpec {
  int64_t pid;
  int16_t epoch;
  bool commit;
  int32_t coordinator_epoch;
  std::string topic = "t";
  int32_t partition = 0;
};

std::vector<ErrorCode> write_markers(test::ClusterFixture& f, int32_t broker, const std::vector<MarkerSpec>& ms) {
  protocol::WriteTxnMarkersRequest req;
  for (const auto& m : ms) {
    protocol::WriteTxnMarkersRequest::WritableTxnMarker w;
    w.producer_id = m.pid;
    w.producer_epoch = m.epoch;
    w.transaction_result = m.commit;
    w.coordinator_epoch = m.coordinator_epoch;
    w.topics.push_back({.name = m.topic, .partition_indexes = {m.partition}});
    req.markers.push_back(w);
  }
  auto r = f.call<protocol::WriteTxnMarkersRequest, protocol::WriteTxnMarkersResponse>(broker, req, 1);
  REQUIRE(r);
  std::vector<ErrorCode> out;
  REQUIRE(r->markers.size() == ms.size());
  for (size_t i = 0; i < ms.size(); i++) {
    CHECK(r->markers[i].producer_id == ms[i].pid);
    out.push_back(r->markers[i].topics.at(0).partitions.at(0).error_code);
  }
  return out;
}

protocol::FetchResponse::PartitionData fetch(test::ClusterFixture& f, int32_t broker, int64_t offset, int8_t isolation) {
  protocol::FetchRequest req;
  req.replica_id = -1;
  req.max_wait_ms = 0;
  req.min_bytes = 1;
  req.max_bytes = 1 << 20;
  req.isolation_level = isolation;
  req.session_epoch = -1;
  protocol::FetchRequest::FetchPartition fp;
  fp.partition = 0;
  fp.fetch_offset = offset;
  fp.partition_max_bytes = 1 << 20;
  req.topics.push_back({.topic = "t", .partitions = {fp}});
  auto r = f.call<protocol::FetchRequest, protocol::FetchResponse>(broker, req, 11);
  REQUIRE(r);
  return r->responses.at(0).partitions.at(0);
}

int64_t list_latest(test::ClusterFixture& f, int32_t broker, int8_t isolation) {
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  req.isolation_level = isolation;
  req.topics.push_back({"t", {}});
  req.topics[0].partitions.push_back({.partition_index = 0, .timestamp = protocol::kListOffsetsLatestTimestamp});
  auto r = f.call<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse>(broker, req, 2);
  REQUIRE(r);
  REQUIRE(r->topics.at(0).partitions.at(0).error_code == ErrorCode::NONE);
  return r->topics.at(0).partitions.at(0).offset;
}

// The last offset of every batch in a fetch's records.
std::vector<int64_t> batch_ends(const protocol::FetchResponse::PartitionData& pd) {
  std::vector<int64_t> out;
  if (!pd.records) return out;
  auto split = record::split_batches(as_view(*pd.records), true);
  REQUIRE(split);
  for (const auto& b : split->batches) out.push_back(b.header.last_offset());
  return out;
}

struct MarkerCall {
  TopicPartition tp;
  int64_t pid;
  int16_t epoch;
  bool committed;
};

}  // namespace

TEST_CASE("WriteTxnMarkers commits and aborts what a read_committed fetch sees", "[transactions]") {
  test::ClusterFixture f(1901);
  f.create_topic("t", 1, 3);
  const int32_t leader = f.leader_of("t", 0);
  std::vector<MarkerCall> calls;
  f.cluster.broker(leader)->replica_manager().set_txn_marker_listener(
      [&calls](const TopicPartition& tp, int64_t pid, int16_t epoch, bool committed) {
        calls.push_back({tp, pid, epoch, committed});
      });

  CHECK(produce(f, leader, "t", txn_batch(1000, 0, 0, {"a1", "a2"})) == std::make_pair(ErrorCode::NONE, int64_t{0}));
  CHECK(produce(f, leader, "t", txn_batch(2000, 0, 0, {"b1"})) == std::make_pair(ErrorCode::NONE, int64_t{2}));
  CHECK(produce(f, leader, "t", txn_batch(1000, 0, 2, {"a3"})) == std::make_pair(ErrorCode::NONE, int64_t{3}));

  // Both transactions are open: the LSO is the first one's start.
  auto committed_view = fetch(f, leader, 0, 1);
  CHECK(committed_view.error_code == ErrorCode::NONE);
  CHECK(committed_view.high_watermark == 4);
  CHECK(committed_view.last_stable_offset == 0);
  CHECK(batch_ends(committed_view).empty());
  auto uncommitted_view = fetch(f, leader, 0, 0);
  CHECK(uncommitted_view.last_stable_offset == 0);
  CHECK(batch_ends(uncommitted_view) == std::vector<int64_t>{1, 2, 3});
  CHECK(list_latest(f, leader, 1) == 0);
  CHECK(list_latest(f, leader, 0) == 4);

  // A plain batch from a producer in a transaction is refused.
  CHECK(produce(f, leader, "t", txn_batch(1000, 0, 3, {"x"}, false)).first == ErrorCode::INVALID_TXN_STATE);

  // Producer 2000 aborts, 1000 commits: the markers are offsets 4 and 5, answered once replicated.
  CHECK(write_markers(f, leader, {{2000, 0, false, 3}, {1000, 0, true, 3}}) ==
        std::vector<ErrorCode>{ErrorCode::NONE, ErrorCode::NONE});
  CHECK(f.count("txn_marker_append", leader) == 2);
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].tp == TopicPartition{"t", 0});
  CHECK(calls[0].pid == 2000);
  CHECK(!calls[0].committed);
  CHECK(calls[1].pid == 1000);
  CHECK(calls[1].epoch == 0);
  CHECK(calls[1].committed);
  CHECK(f.replica(leader, "t", 0)->high_watermark() == Offset{6});  // answered once the ISR has both

  committed_view = fetch(f, leader, 0, 1);
  CHECK(committed_view.last_stable_offset == 6);
  CHECK(batch_ends(committed_view) == std::vector<int64_t>{1, 2, 3, 4, 5});  // data and both markers
  REQUIRE(committed_view.aborted_transactions);
  REQUIRE(committed_view.aborted_transactions->size() == 1);
  CHECK(committed_view.aborted_transactions->at(0).producer_id == 2000);
  CHECK(committed_view.aborted_transactions->at(0).first_offset == 2);
  // A fetch past the abort lists none.
  auto later = fetch(f, leader, 5, 1);
  CHECK(later.aborted_transactions->empty());
  CHECK(list_latest(f, leader, 1) == 6);

  // DescribeProducers: both producers, their last sequences, the coordinator epoch, no open txn.
  protocol::DescribeProducersRequest dreq;
  dreq.topics.push_back({.name = "t", .partition_indexes = {0}});
  auto d = f.call<protocol::DescribeProducersRequest, protocol::DescribeProducersResponse>(leader, dreq, 0);
  REQUIRE(d);
  const auto& dp = d->topics.at(0).partitions.at(0);
  CHECK(dp.error_code == ErrorCode::NONE);
  REQUIRE(dp.active_producers.size() == 2);
  CHECK(dp.active_producers[0].producer_id == 1000);
  CHECK(dp.active_producers[0].last_sequence == 2);
  CHECK(dp.active_producers[0].coordinator_epoch == 3);
  CHECK(dp.active_producers[0].current_txn_start_offset == -1);
  // A new transaction shows its start offset.
  CHECK(produce(f, leader, "t", txn_batch(2000, 0, 1, {"b2"})) == std::make_pair(ErrorCode::NONE, int64_t{6}));
  d = f.call<protocol::DescribeProducersRequest, protocol::DescribeProducersResponse>(leader, dreq, 0);
  REQUIRE(d);
  CHECK(d->topics.at(0).partitions.at(0).active_producers.at(1).current_txn_start_offset == 6);
  // A follower is no leader for DescribeProducers.
  const int32_t follower = leader == 1 ? 2 : 1;
  d = f.call<protocol::DescribeProducersRequest, protocol::DescribeProducersResponse>(follower, dreq, 0);
  REQUIRE(d);
  CHECK(d->topics.at(0).partitions.at(0).error_code == ErrorCode::NOT_LEADER_OR_FOLLOWER);
}

TEST_CASE("fenced markers are refused and never reach the listener", "[transactions]") {
  test::ClusterFixture f(1902);
  f.create_topic("t", 1, 3);
  const int32_t leader = f.leader_of("t", 0);
  int calls = 0;
  f.cluster.broker(leader)->replica_manager().set_txn_marker_listener(
      [&calls](const TopicPartition&, int64_t, int16_t, bool) { calls++; });
  REQUIRE(produce(f, leader, "t", txn_batch(7, 2, 0, {"v"})).first == ErrorCode::NONE);
  REQUIRE(write_markers(f, leader, {{7, 2, true, 10}}) == std::vector<ErrorCode>{ErrorCode::NONE});
  CHECK(calls == 1);
  REQUIRE(produce(f, leader, "t", txn_batch(7, 2, 1, {"w"})).first == ErrorCode::NONE);
  // An older producer epoch, an older coordinator epoch, an unknown partition, a follower.
  const int32_t follower = leader == 1 ? 2 : 1;
  CHECK(write_markers(f, leader, {{7, 1, false, 10}, {7, 2, false, 9}, {7, 2, false, 10, "nope", 0}}) ==
        std::vector<ErrorCode>{ErrorCode::INVALID_PRODUCER_EPOCH, ErrorCode::TRANSACTION_COORDINATOR_FENCED,
                               ErrorCode::UNKNOWN_TOPIC_OR_PARTITION});
  CHECK(write_markers(f, follower, {{7, 2, false, 10}}) == std::vector<ErrorCode>{ErrorCode::NOT_LEADER_OR_FOLLOWER});
  CHECK(calls == 1);
  CHECK(f.count("txn_marker_append") == 1);
  // The transaction is still open: the LSO stays at its start.
  CHECK(fetch(f, leader, 0, 1).last_stable_offset == 2);
  // A new leader rebuilds the open transaction from the log it replicated.
  f.cluster.shutdown_broker(leader);
  int32_t next = -1;
  REQUIRE(f.run_until([&] {
    auto l = f.cluster.leader(TopicPartition{"t", 0});
    next = l ? *l : -1;
    return next >= 0 && next != leader && f.replica(next, "t", 0) && f.replica(next, "t", 0)->is_leader();
  }));
  // Its high watermark catches up once the other follower fetches from it.
  int64_t lso = -1;
  for (int i = 0; i < 100 && lso != 2; i++) {
    f.run_until([] { return false; }, Duration::millis(100));
    lso = fetch(f, next, 0, 1).last_stable_offset;
  }
  CHECK(lso == 2);
  CHECK(write_markers(f, next, {{7, 2, false, 11}}) == std::vector<ErrorCode>{ErrorCode::NONE});
  auto view = fetch(f, next, 0, 1);
  CHECK(view.last_stable_offset == 4);
  REQUIRE(view.aborted_transactions->size() == 1);
  CHECK(view.aborted_transactions->at(0).first_offset == 2);
}

namespace {
// A node running a Consumer by hand (assign, poll).
struct ConsumerHost final : Node {
  client::Consumer consumer;
  ConsumerHost(Runtime& rt, client::ConsumerConfig cc) : consumer(rt, std::move(cc)) {}
  void start() override { consumer.start(); }
  void on_message(NodeId from, Bytes frame) override { consumer.on_message(from, frame); }
  void on_disconnect(NodeId peer) override { consumer.on_disconnect(peer); }
};

std::vector<std::string> consume_all(test::ClusterFixture& f, int32_t id, const std::string& isolation, size_t want) {
  client::ConsumerConfig cc;
  REQUIRE(cc.apply({{"client.id", "c-" + isolation}, {"auto.offset.reset", "earliest"}, {"isolation.level", isolation}}).is_ok());
  cc.bootstrap_servers = {NodeId{1}, NodeId{2}, NodeId{3}};
  f.sim.add_node(NodeId{id}, cc.client_id, [cc](Runtime& rt) { return std::make_unique<ConsumerHost>(rt, cc); });
  auto* host = f.sim.node_as<ConsumerHost>(NodeId{id});
  REQUIRE(host);
  host->consumer.assign({TopicPartition{"t", 0}});
  std::vector<std::string> got;
  f.run_until([&] {
    for (const auto& r : host->consumer.poll()) got.push_back(r.value ? to_string(*r.value) : "null");
    return got.size() >= want;
  }, Duration::seconds(20));
  // Nothing more comes.
  f.run_until([] { return false; }, Duration::seconds(2));
  for (const auto& r : host->consumer.poll()) got.push_back(r.value ? to_string(*r.value) : "null");
  return got;
}
}  // namespace

TEST_CASE("a read_committed consumer drops aborted records and skips markers", "[transactions]") {
  test::ClusterFixture f(1903);
  f.create_topic("t", 1, 3);
  const int32_t leader = f.leader_of("t", 0);
  REQUIRE(produce(f, leader, "t", txn_batch(1, 0, 0, {"c1", "c2"})).first == ErrorCode::NONE);
  REQUIRE(produce(f, leader, "t", txn_batch(2, 0, 0, {"x1"})).first == ErrorCode::NONE);
  REQUIRE(produce(f, leader, "t", txn_batch(-1, -1, -1, {"plain"}, false)).first == ErrorCode::NONE);
  REQUIRE(produce(f, leader, "t", txn_batch(2, 0, 1, {"x2"})).first == ErrorCode::NONE);
  REQUIRE(write_markers(f, leader, {{2, 0, false, 0}, {1, 0, true, 0}}) ==
          std::vector<ErrorCode>{ErrorCode::NONE, ErrorCode::NONE});
  // Producer 2 starts again (a new transaction, committed) after its abort.
  REQUIRE(produce(f, leader, "t", txn_batch(2, 0, 2, {"y1"})).first == ErrorCode::NONE);
  REQUIRE(write_markers(f, leader, {{2, 0, true, 0}}) == std::vector<ErrorCode>{ErrorCode::NONE});
  // An open transaction at the end: read_committed stops before it.
  REQUIRE(produce(f, leader, "t", txn_batch(3, 0, 0, {"open"})).first == ErrorCode::NONE);

  CHECK(consume_all(f, 2101, "read_committed", 4) == std::vector<std::string>{"c1", "c2", "plain", "y1"});
  CHECK(consume_all(f, 2102, "read_uncommitted", 7) ==
        std::vector<std::string>{"c1", "c2", "x1", "plain", "x2", "y1", "open"});
}
