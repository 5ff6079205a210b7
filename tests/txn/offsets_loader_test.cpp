// The group coordinator's loader and transactional offsets: records of a TxnOffsetCommit (a
// transactional batch of a producer) stay pending until the producer's marker (a control batch)
// follows them in __consumer_offsets: a commit marker makes them committed offsets where it
// stands, an abort marker drops them, no marker leaves them pending after the load.
#include <catch2/catch.hpp>

#include "engine/group/group_coordinator.h"
#include "engine/group/offsets_topic.h"
#include "engine/record/batch_builder.h"
#include "sim/simulator.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

const TopicPartition kOffsets0{group::kOffsetsTopic, 0};

class FakeGroupHost final : public group::CoordinatorHost {
 public:
  std::unique_ptr<log::Log> log;
  int32_t live_broker_count() const override { return 3; }
  int32_t partition_count(const std::string& topic) const override { return topic == group::kOffsetsTopic ? 1 : 0; }
  std::optional<group::BrokerAddress> partition_leader(const TopicPartition&) const override {
    return group::BrokerAddress{1, "broker-1", 9092};
  }
  void create_offsets_topic(int32_t, int32_t, std::function<void(ErrorCode)> done) override { done(ErrorCode::NONE); }
  std::optional<int32_t> local_leader_epoch(const TopicPartition& tp) const override {
    if (tp == kOffsets0 && leading) return 0;
    return std::nullopt;
  }
  group::OffsetsAppend append_as_leader(const TopicPartition&, Bytes batch) override {
    auto a = log->append_as_leader(std::move(batch), LeaderEpoch{0}, Time{0});
    if (!a) return {ErrorCode::INVALID_RECORD, Offset{-1}};
    return {ErrorCode::NONE, a->last_offset};
  }
  ErrorCode check_replicated(const TopicPartition&, Offset) const override { return ErrorCode::NONE; }
  log::Log* local_log(const TopicPartition& tp) override { return tp == kOffsets0 ? log.get() : nullptr; }
  bool leading = false;
};

class GroupNode final : public Node {
 public:
  GroupNode(Runtime& rt, const group::GroupConfig& config) : rt_(rt), coordinator(rt, config, host) {
    auto opened = log::Log::load(rt.disk(), "__consumer_offsets-0", log::LogConfig{}, Time{0});
    REQUIRE(opened);
    host.log = std::move(*opened);
  }
  void start() override {}
  void on_message(NodeId, Bytes) override {}
  Runtime& rt_;
  FakeGroupHost host;
  group::GroupCoordinator coordinator;
};

// Appends one batch at the log's end as a follower would (the offsets given here).
void append(log::Log& log, int64_t producer_id, int16_t attributes, const std::vector<record::Record>& records) {
  record::BatchBuildOptions o;
  o.base_offset = log.log_end_offset().value;
  o.attributes = attributes;
  o.producer_id = producer_id;
  o.producer_epoch = producer_id >= 0 ? 0 : -1;
  o.base_sequence = producer_id >= 0 && !(attributes & record::kControlFlagMask) ? 0 : -1;
  o.partition_leader_epoch = 0;
  Bytes batch = record::build_batch(o, records);
  REQUIRE(log.append_as_follower(as_view(batch), Time{0}));
}

record::Record offset_record(const std::string& group, int32_t partition, int64_t offset) {
  record::Record r;
  r.timestamp = 1000;
  r.key = group::encode_key(group::OffsetCommitKey{group, "orders", partition});
  r.value = group::encode_value(group::OffsetCommitValue{offset, -1, "", 1000});
  return r;
}

// A transaction marker's record: key (version 0, type 0 abort / 1 commit), value (version 0,
// coordinator epoch).
record::Record marker(bool commit) {
  ByteWriter k;
  k.i16(0);
  k.i16(commit ? 1 : 0);
  ByteWriter v;
  v.i16(0);
  v.i32(0);
  record::Record r;
  r.timestamp = 1000;
  r.key = k.take();
  r.value = v.take();
  return r;
}

constexpr int16_t kTxn = record::kTransactionalFlagMask;
constexpr int16_t kControl = record::kTransactionalFlagMask | record::kControlFlagMask;

}  // namespace

TEST_CASE("offsets loader keeps transactional offsets pending until their marker") {
  sim::Simulator sim(7, sim::SimConfig{});
  group::GroupConfig config;
  config.offsets_topic_num_partitions = 1;
  sim.add_node(NodeId{900}, "group", [&](Runtime& rt) { return std::make_unique<GroupNode>(rt, config); });
  auto* node = sim.node_as<GroupNode>(NodeId{900});
  log::Log& log = *node->host.log;
  append(log, -1, 0, {offset_record("g", 0, 10), offset_record("g", 1, 11)});  // plain commits
  append(log, 7001, kTxn, {offset_record("g", 0, 20)});                      // committed below
  append(log, 7002, kTxn, {offset_record("g", 1, 21)});                      // aborted below
  append(log, 7003, kTxn, {offset_record("g", 2, 22)});                      // no marker yet
  append(log, 7001, kControl, {marker(true)});
  append(log, 7002, kControl, {marker(false)});
  append(log, -1, 0, {offset_record("g", 0, 30)});  // a later plain commit wins over the transaction's

  node->host.leading = true;
  node->coordinator.on_partitions_changed();
  sim.run_until_pred([] { return false; }, sim.now() + Duration::millis(10));
  REQUIRE(!node->coordinator.is_loading(0));
  const group::GroupMetadata* g = node->coordinator.group("g");
  REQUIRE(g);
  CHECK(g->offsets.at(TopicPartition{"orders", 0}).offset == 30);
  CHECK(g->offsets.at(TopicPartition{"orders", 1}).offset == 11);  // the aborted 21 dropped
  CHECK(g->offsets.count(TopicPartition{"orders", 2}) == 0);      // still pending
  REQUIRE(g->pending_txn_offsets.count(7003) == 1);
  CHECK(g->pending_txn_offsets.at(7003).at(TopicPartition{"orders", 2}).offset == 22);
  CHECK(g->pending_txn_offsets.count(7001) == 0);
  CHECK(g->pending_txn_offsets.count(7002) == 0);

  // OffsetFetch v7 with require_stable: the pending partition is unstable, the others are not.
  protocol::OffsetFetchRequest fetch;
  fetch.group_id = "g";
  fetch.require_stable = true;
  fetch.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{"orders", {0, 2}}};
  auto r = node->coordinator.offset_fetch(fetch, 7);
  CHECK(r.topics[0].partitions[0].error_code == ErrorCode::NONE);
  CHECK(r.topics[0].partitions[0].committed_offset == 30);
  CHECK(r.topics[0].partitions[1].error_code == ErrorCode::UNSTABLE_OFFSET_COMMIT);
  // Its marker arrives (the broker reports it): now it is committed.
  node->coordinator.complete_txn_offsets(0, 7003, 0, true);
  r = node->coordinator.offset_fetch(fetch, 7);
  CHECK(r.topics[0].partitions[1].error_code == ErrorCode::NONE);
  CHECK(r.topics[0].partitions[1].committed_offset == 22);
}
