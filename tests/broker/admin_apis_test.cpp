// The admin APIs stock tools use: CreatePartitions, DeleteRecords, DescribeCluster, ElectLeaders,
// DescribeLogDirs, with Kafka's error codes.
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/protocol/create_partitions.h"
#include "engine/protocol/delete_records.h"
#include "engine/protocol/describe_cluster.h"
#include "engine/protocol/describe_log_dirs.h"
#include "engine/protocol/elect_leaders.h"
#include "engine/protocol/fetch.h"
#include "engine/protocol/list_offsets.h"
#include "engine/protocol/metadata.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

protocol::CreatePartitionsResponse::CreatePartitionsTopicResult create_partitions(
    test::ClusterFixture& f, const std::string& topic, int32_t count,
    std::optional<std::vector<std::vector<int32_t>>> assignment = std::nullopt, bool validate_only = false,
    int32_t broker = -1) {
  protocol::CreatePartitionsRequest req;
  req.timeout_ms = 30000;
  req.validate_only = validate_only;
  req.topics.push_back({.name = topic, .count = count});
  if (assignment) {
    req.topics[0].assignments.emplace();
    for (auto& a : *assignment) req.topics[0].assignments->push_back({.broker_ids = a});
  }
  auto r = f.call<protocol::CreatePartitionsRequest, protocol::CreatePartitionsResponse>(
      broker < 0 ? *f.cluster.controller() : broker, req, 3);
  REQUIRE(r);
  REQUIRE(r->results.size() == 1);
  return r->results[0];
}

int64_t list_offset(test::ClusterFixture& f, const std::string& topic, int32_t partition, int64_t timestamp) {
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  req.topics.push_back({topic, {}});
  req.topics[0].partitions.push_back({});
  req.topics[0].partitions[0].partition_index = partition;
  req.topics[0].partitions[0].timestamp = timestamp;
  auto r = f.call<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse>(f.leader_of(topic, partition), req, 1);
  REQUIRE(r);
  const auto& p = r->topics.at(0).partitions.at(0);
  REQUIRE(p.error_code == ErrorCode::NONE);
  return p.offset;
}

}  // namespace

TEST_CASE("CreatePartitions grows a topic: every broker knows the new leaders when it answers", "[broker][admin]") {
  test::ClusterFixture f(41);
  f.create_topic("grow", 2, 2);
  auto r = create_partitions(f, "grow", 5);
  REQUIRE(r.error_code == ErrorCode::NONE);
  for (int32_t b = 1; b <= 3; b++) {
    auto parts = f.cluster.broker(b)->metadata().topic_partitions("grow");
    REQUIRE(parts.size() == 5);
    for (const auto& [index, pm] : parts) {
      CHECK(pm.replicas.size() == 2);
      REQUIRE(pm.leader >= 0);
    }
  }
  CHECK(f.count("partitions_added") == 1);
  for (int p = 2; p < 5; p++) CHECK(f.produce(f.leader_of("grow", p), "grow", p, -1, "x") == ErrorCode::NONE);

  // Kafka's refusals.
  CHECK(create_partitions(f, "grow", 5).error_code == ErrorCode::INVALID_PARTITIONS);
  CHECK(create_partitions(f, "grow", 3).error_code == ErrorCode::INVALID_PARTITIONS);
  CHECK(create_partitions(f, "missing", 3).error_code == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  CHECK(create_partitions(f, "grow", 7, std::vector<std::vector<int32_t>>{{1, 2}}).error_code ==
        ErrorCode::INVALID_REPLICA_ASSIGNMENT);  // two partitions, one assignment
  CHECK(create_partitions(f, "grow", 6, std::vector<std::vector<int32_t>>{{1}}).error_code ==
        ErrorCode::INVALID_REPLICA_ASSIGNMENT);  // replication factor 1, not 2
  CHECK(create_partitions(f, "grow", 6, std::vector<std::vector<int32_t>>{{1, 9}}).error_code ==
        ErrorCode::INVALID_REPLICA_ASSIGNMENT);  // no broker 9
  const int32_t other = *f.cluster.controller() % 3 + 1;
  CHECK(create_partitions(f, "grow", 6, std::nullopt, false, other).error_code == ErrorCode::NOT_CONTROLLER);
  // validate_only changes nothing; a hand placement is followed.
  CHECK(create_partitions(f, "grow", 6, std::nullopt, true).error_code == ErrorCode::NONE);
  CHECK(f.cluster.broker(1)->metadata().topic_partitions("grow").size() == 5);
  REQUIRE(create_partitions(f, "grow", 6, std::vector<std::vector<int32_t>>{{3, 1}}).error_code == ErrorCode::NONE);
  const auto* p5 = f.cluster.broker(1)->metadata().partition(TopicPartition{"grow", 5});
  REQUIRE(p5);
  CHECK(p5->replicas == std::vector<int32_t>{3, 1});
  CHECK(p5->leader == 3);
}

TEST_CASE("DeleteRecords moves the log start offset: ListOffsets earliest follows, fetching below is out of range",
          "[broker][admin]") {
  test::ClusterFixture f(42);
  f.create_topic("trim", 1, 3);
  const int32_t leader = f.leader_of("trim", 0);
  for (int i = 0; i < 10; i++) REQUIRE(f.produce(leader, "trim", 0, -1, "v") == ErrorCode::NONE);
  auto delete_records = [&](int32_t broker, int64_t offset) {
    protocol::DeleteRecordsRequest req;
    req.timeout_ms = 30000;
    req.topics.push_back({.name = "trim", .partitions = {{.partition_index = 0, .offset = offset}}});
    auto r = f.call<protocol::DeleteRecordsRequest, protocol::DeleteRecordsResponse>(broker, req, 2);
    REQUIRE(r);
    return r->topics.at(0).partitions.at(0);
  };
  auto r = delete_records(leader, 4);
  CHECK(r.error_code == ErrorCode::NONE);
  CHECK(r.low_watermark == 4);
  // As Kafka's DelayedDeleteRecords, the answer came once every replica's log start offset (the
  // followers take the leader's from their fetches) reached the offset: the low watermark.
  for (int32_t b = 1; b <= 3; b++) CHECK(f.replica(b, "trim", 0)->log_start_offset().value == 4);
  CHECK(list_offset(f, "trim", 0, -2) == 4);  // earliest
  CHECK(list_offset(f, "trim", 0, -1) == 10);
  CHECK(f.count("delete_records") == 1);
  // A fetch below the log start offset is out of range.
  protocol::FetchRequest fetch;
  fetch.replica_id = -1;
  fetch.max_wait_ms = 0;
  fetch.max_bytes = 1 << 20;
  fetch.topics.push_back({});
  fetch.topics[0].topic = "trim";
  fetch.topics[0].partitions.push_back({});
  fetch.topics[0].partitions[0].partition = 0;
  fetch.topics[0].partitions[0].fetch_offset = 2;
  fetch.topics[0].partitions[0].partition_max_bytes = 1 << 20;
  auto fr = f.call<protocol::FetchRequest, protocol::FetchResponse>(leader, fetch, 11);
  REQUIRE(fr);
  CHECK(fr->responses.at(0).partitions.at(0).error_code == ErrorCode::OFFSET_OUT_OF_RANGE);
  CHECK(fr->responses.at(0).partitions.at(0).log_start_offset == 4);
  // -1 is the high watermark; past it, negative, at a follower, or unknown: Kafka's errors.
  CHECK(delete_records(leader, 11).error_code == ErrorCode::OFFSET_OUT_OF_RANGE);
  CHECK(delete_records(leader, -5).error_code == ErrorCode::OFFSET_OUT_OF_RANGE);
  CHECK(delete_records(leader % 3 + 1, 5).error_code == ErrorCode::NOT_LEADER_OR_FOLLOWER);
  r = delete_records(leader, -1);
  CHECK(r.error_code == ErrorCode::NONE);
  CHECK(r.low_watermark == 10);
  CHECK(list_offset(f, "trim", 0, -2) == 10);
  protocol::DeleteRecordsRequest unknown;
  unknown.topics.push_back({.name = "nope", .partitions = {{.partition_index = 0, .offset = 1}}});
  auto ur = f.call<protocol::DeleteRecordsRequest, protocol::DeleteRecordsResponse>(leader, unknown, 0);
  REQUIRE(ur);
  CHECK(ur->topics.at(0).partitions.at(0).error_code == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
}

TEST_CASE("DeleteRecords waits for a paused follower until timeout_ms and not for a dead one", "[broker][admin]") {
  test::ClusterFixture f(43);
  f.create_topic("slow", 1, 3);
  const int32_t leader = f.leader_of("slow", 0);
  for (int i = 0; i < 6; i++) REQUIRE(f.produce(leader, "slow", 0, -1, "v") == ErrorCode::NONE);
  const int32_t follower = leader % 3 + 1;
  auto delete_records = [&](int64_t offset, int32_t timeout_ms) {
    protocol::DeleteRecordsRequest req;
    req.timeout_ms = timeout_ms;
    req.topics.push_back({.name = "slow", .partitions = {{.partition_index = 0, .offset = offset}}});
    auto r = f.call<protocol::DeleteRecordsRequest, protocol::DeleteRecordsResponse>(leader, req, 2);
    REQUIRE(r);
    return r->topics.at(0).partitions.at(0);
  };
  // A paused follower is still a live broker: its log start offset is waited for, in vain.
  f.sim.pause(NodeId{follower});
  const Time asked = f.sim.now();
  auto r = delete_records(3, 1000);
  CHECK(r.error_code == ErrorCode::REQUEST_TIMED_OUT);
  CHECK(r.low_watermark == -1);
  CHECK(f.sim.now() - asked >= Duration::millis(1000));
  CHECK(f.replica(leader, "slow", 0)->log_start_offset().value == 3);  // deleted at the leader anyway
  // Once it fetches again, the same request completes.
  f.sim.resume(NodeId{follower});
  r = delete_records(3, 30000);
  CHECK(r.error_code == ErrorCode::NONE);
  CHECK(r.low_watermark == 3);
  CHECK(f.replica(follower, "slow", 0)->log_start_offset().value == 3);
  // A crashed follower, once its registration is gone, is not waited for.
  f.sim.crash(NodeId{follower});
  REQUIRE(f.run_until([&] { return f.cluster.broker(leader)->metadata().brokers().count(follower) == 0; }));
  r = delete_records(5, 30000);
  CHECK(r.error_code == ErrorCode::NONE);
  CHECK(r.low_watermark == 5);
}

TEST_CASE("DescribeCluster names the cluster id, the controller and the brokers", "[broker][admin]") {
  test::ClusterFixture f(43);
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  f.sim.run_for(Duration::seconds(1));
  for (int16_t version : {0, 1}) {
    protocol::DescribeClusterRequest req;
    auto r = f.call<protocol::DescribeClusterRequest, protocol::DescribeClusterResponse>(2, req, version);
    REQUIRE(r);
    CHECK(r->error_code == ErrorCode::NONE);
    CHECK(r->controller_id == *f.cluster.controller());
    CHECK(r->brokers.size() == 3);
    CHECK(r->cluster_id.size() == 22);
  }
  protocol::DescribeClusterRequest controllers;
  controllers.endpoint_type = 2;
  auto r = f.call<protocol::DescribeClusterRequest, protocol::DescribeClusterResponse>(2, controllers, 1);
  REQUIRE(r);
  CHECK(r->error_code == ErrorCode::UNSUPPORTED_ENDPOINT_TYPE);
}

TEST_CASE("ElectLeaders: preferred moves leadership back, unclean elects an out-of-sync replica of an offline partition",
          "[broker][admin]") {
  test::ClusterFixture f(44, {{"auto.leader.rebalance.enable", "false"}});
  f.create_topic("lead", 1, 2);
  const TopicPartition tp{"lead", 0};
  auto elect = [&](int8_t type, std::optional<std::vector<TopicPartition>> tps) {
    protocol::ElectLeadersRequest req;
    req.election_type = type;
    req.timeout_ms = 30000;
    if (tps) {
      req.topic_partitions.emplace();
      for (const auto& t : *tps) req.topic_partitions->push_back({.topic = t.topic, .partitions = {t.partition}});
    }
    auto r = f.call<protocol::ElectLeadersRequest, protocol::ElectLeadersResponse>(*f.cluster.controller(), req, 2);
    REQUIRE(r);
    return *r;
  };
  auto result_of = [](const protocol::ElectLeadersResponse& r, const TopicPartition& t) {
    for (const auto& x : r.replica_election_results)
      if (x.topic == t.topic)
        for (const auto& p : x.partition_result)
          if (p.partition_id == t.partition) return p.error_code;
    return ErrorCode::UNKNOWN_SERVER_ERROR;
  };
  const auto replicas = f.cluster.broker(1)->metadata().partition(tp)->replicas;
  const int32_t preferred = replicas[0], second = replicas[1];
  CHECK(result_of(elect(0, std::vector<TopicPartition>{tp}), tp) == ErrorCode::ELECTION_NOT_NEEDED);
  CHECK(result_of(elect(0, std::vector<TopicPartition>{{"nope", 0}}), TopicPartition{"nope", 0}) ==
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  // The preferred replica goes and comes back: leadership stays away until a preferred election.
  f.sim.crash(NodeId{preferred});
  REQUIRE(f.run_until([&] { return f.cluster.leader(tp) == second; }));
  f.sim.restart(NodeId{preferred});
  // The controller learns the ISR expansion from its notification.
  REQUIRE(f.run_until([&] {
    auto& parts = f.cluster.broker(*f.cluster.controller())->controller().partitions();
    auto it = parts.find(tp);
    return it != parts.end() && it->second.state.isr.size() == 2;
  }));
  auto all = elect(0, std::nullopt);
  CHECK(result_of(all, tp) == ErrorCode::NONE);
  CHECK(f.cluster.leader(tp) == preferred);
  for (int32_t b = 1; b <= 3; b++) {
    const auto* pm = f.cluster.broker(b)->metadata().partition(tp);
    REQUIRE(pm);
    CHECK(pm->leader == preferred);
  }
  // Unclean: a live leader needs none.
  CHECK(result_of(elect(1, std::vector<TopicPartition>{tp}), tp) == ErrorCode::ELECTION_NOT_NEEDED);
  // The follower falls out of the ISR (crashed), then the leader dies: offline. The follower comes
  // back; only an unclean election makes it leader.
  f.sim.crash(NodeId{second});
  REQUIRE(f.run_until([&] { return f.replica(preferred, "lead", 0)->isr().size() == 1; }));
  f.sim.crash(NodeId{preferred});
  REQUIRE(f.run_until([&] { return f.cluster.leader(tp) == -1; }));
  CHECK(result_of(elect(1, std::vector<TopicPartition>{tp}), tp) == ErrorCode::ELIGIBLE_LEADERS_NOT_AVAILABLE);
  f.sim.restart(NodeId{second});
  REQUIRE(f.run_until([&] {
    auto c = f.cluster.controller();
    return c && f.cluster.broker(*c)->controller().live_brokers().count(second) == 1;
  }));
  f.sim.run_for(Duration::seconds(2));
  CHECK(f.cluster.leader(tp) == -1);  // unclean.leader.election.enable is false
  CHECK(result_of(elect(0, std::vector<TopicPartition>{tp}), tp) == ErrorCode::PREFERRED_LEADER_NOT_AVAILABLE);
  CHECK(result_of(elect(1, std::vector<TopicPartition>{tp}), tp) == ErrorCode::NONE);
  CHECK(f.cluster.leader(tp) == second);
}

TEST_CASE("DescribeLogDirs lists the hosted partitions with their sizes", "[broker][admin]") {
  test::ClusterFixture f(45);
  f.create_topic("sized", 2, 3);
  for (int i = 0; i < 4; i++) REQUIRE(f.produce(f.leader_of("sized", 0), "sized", 0, -1, "value") == ErrorCode::NONE);
  REQUIRE(f.run_until([&] { return f.replica(2, "sized", 0)->log_end_offset().value == 4; }));
  for (int16_t version : {0, 4}) {
    protocol::DescribeLogDirsRequest req;
    req.topics = std::vector<protocol::DescribeLogDirsRequest::DescribableLogDirTopic>{{.topic = "sized", .partitions = {0, 1}}};
    auto r = f.call<protocol::DescribeLogDirsRequest, protocol::DescribeLogDirsResponse>(2, req, version);
    REQUIRE(r);
    REQUIRE(r->results.size() == 1);
    CHECK(r->results[0].log_dir == "/sim/broker-2");
    REQUIRE(r->results[0].topics.size() == 1);
    const auto& parts = r->results[0].topics[0].partitions;
    REQUIRE(parts.size() == 2);
    CHECK(parts[0].partition_index == 0);
    CHECK(parts[0].partition_size > 0);
    CHECK(parts[1].partition_size == 0);
    CHECK(parts[0].offset_lag == 0);
  }
}
