// Issue 16: every API a broker advertises, at every version it advertises, is answered (not a
// closed connection), and the semantics that differ between versions are Kafka 3.9's: Metadata v0's
// empty list, topic ids (Metadata v10+, CreateTopics v7, DeleteTopics v6), OffsetCommit v0 and
// leader epochs, OffsetFetch v8's several groups, FindCoordinator v4's batched keys, static
// membership (JoinGroup v5+, LeaveGroup v3+), ListGroups filters, SyncGroup v5's protocol check.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <tuple>

#include "cluster_fixture.h"
#include "engine/protocol/alter_user_scram_credentials.h"
#include "engine/protocol/create_acls.h"
#include "engine/protocol/delete_acls.h"
#include "engine/protocol/describe_acls.h"
#include "engine/protocol/protocol.h"

using namespace gregor;
using protocol::ApiKey;
using protocol::ErrorCode;

namespace {

using AllApis = std::tuple<
    std::pair<protocol::ProduceRequest, protocol::ProduceResponse>, std::pair<protocol::FetchRequest, protocol::FetchResponse>,
    std::pair<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse>,
    std::pair<protocol::MetadataRequest, protocol::MetadataResponse>,
    std::pair<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>,
    std::pair<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>,
    std::pair<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>,
    std::pair<protocol::JoinGroupRequest, protocol::JoinGroupResponse>,
    std::pair<protocol::HeartbeatRequest, protocol::HeartbeatResponse>,
    std::pair<protocol::LeaveGroupRequest, protocol::LeaveGroupResponse>,
    std::pair<protocol::SyncGroupRequest, protocol::SyncGroupResponse>,
    std::pair<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>,
    std::pair<protocol::ListGroupsRequest, protocol::ListGroupsResponse>,
    std::pair<protocol::ApiVersionsRequest, protocol::ApiVersionsResponse>,
    std::pair<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>,
    std::pair<protocol::DeleteTopicsRequest, protocol::DeleteTopicsResponse>,
    std::pair<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>,
    std::pair<protocol::OffsetForLeaderEpochRequest, protocol::OffsetForLeaderEpochResponse>,
    std::pair<protocol::DescribeConfigsRequest, protocol::DescribeConfigsResponse>,
    std::pair<protocol::AlterConfigsRequest, protocol::AlterConfigsResponse>,
    std::pair<protocol::IncrementalAlterConfigsRequest, protocol::IncrementalAlterConfigsResponse>,
    std::pair<protocol::LeaderAndIsrRequest, protocol::LeaderAndIsrResponse>,
    std::pair<protocol::StopReplicaRequest, protocol::StopReplicaResponse>,
    std::pair<protocol::UpdateMetadataRequest, protocol::UpdateMetadataResponse>,
    std::pair<protocol::ControlledShutdownRequest, protocol::ControlledShutdownResponse>,
    std::pair<protocol::DeleteRecordsRequest, protocol::DeleteRecordsResponse>,
    std::pair<protocol::DescribeLogDirsRequest, protocol::DescribeLogDirsResponse>,
    std::pair<protocol::CreatePartitionsRequest, protocol::CreatePartitionsResponse>,
    std::pair<protocol::DeleteGroupsRequest, protocol::DeleteGroupsResponse>,
    std::pair<protocol::ElectLeadersRequest, protocol::ElectLeadersResponse>,
    std::pair<protocol::OffsetDeleteRequest, protocol::OffsetDeleteResponse>,
    std::pair<protocol::DescribeClusterRequest, protocol::DescribeClusterResponse>,
    std::pair<protocol::AlterPartitionReassignmentsRequest, protocol::AlterPartitionReassignmentsResponse>,
    std::pair<protocol::ListPartitionReassignmentsRequest, protocol::ListPartitionReassignmentsResponse>,
    std::pair<protocol::SaslHandshakeRequest, protocol::SaslHandshakeResponse>,
    std::pair<protocol::SaslAuthenticateRequest, protocol::SaslAuthenticateResponse>,
    std::pair<protocol::AlterUserScramCredentialsRequest, protocol::AlterUserScramCredentialsResponse>,
    std::pair<protocol::DescribeAclsRequest, protocol::DescribeAclsResponse>,
    std::pair<protocol::CreateAclsRequest, protocol::CreateAclsResponse>,
    std::pair<protocol::DeleteAclsRequest, protocol::DeleteAclsResponse>,
    std::pair<protocol::WriteTxnMarkersRequest, protocol::WriteTxnMarkersResponse>,
    std::pair<protocol::DescribeProducersRequest, protocol::DescribeProducersResponse>,
    std::pair<protocol::AddPartitionsToTxnRequest, protocol::AddPartitionsToTxnResponse>,
    std::pair<protocol::AddOffsetsToTxnRequest, protocol::AddOffsetsToTxnResponse>,
    std::pair<protocol::EndTxnRequest, protocol::EndTxnResponse>,
    std::pair<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>,
    std::pair<protocol::DescribeTransactionsRequest, protocol::DescribeTransactionsResponse>,
    std::pair<protocol::ListTransactionsRequest, protocol::ListTransactionsResponse>>;

// A request that a client of this version could send about topic "t" and group "g": valid at the
// version (non-nullable fields set), reaching past the broker's first checks where it can.
template <typename Req>
Req sensible_request(int16_t version) {
  (void)version;
  Req r{};
  if constexpr (std::is_same_v<Req, protocol::ProduceRequest>) {
    r.acks = 1;
    r.timeout_ms = 1000;
    r.topic_data.push_back({.name = "t", .partition_data = {{.index = 0, .records = SharedBytes(test::make_batch("v"))}}});
  } else if constexpr (std::is_same_v<Req, protocol::FetchRequest>) {
    r.replica_id = -1;
    r.max_wait_ms = 0;
    r.max_bytes = 1 << 20;
    r.topics.resize(1);
    r.topics[0].topic = "t";
    r.topics[0].partitions.resize(1);
    r.topics[0].partitions[0].partition_max_bytes = 1 << 20;
  } else if constexpr (std::is_same_v<Req, protocol::ListOffsetsRequest>) {
    r.replica_id = -1;
    r.topics.resize(1);
    r.topics[0].name = "t";
    r.topics[0].partitions.resize(1);
    r.topics[0].partitions[0].timestamp = -1;
  } else if constexpr (std::is_same_v<Req, protocol::MetadataRequest>) {
    r.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.name = "t"}};
  } else if constexpr (std::is_same_v<Req, protocol::OffsetCommitRequest>) {
    r.group_id = "simple";
    r.topics.push_back({.name = "t", .partitions = {{.partition_index = 0, .committed_offset = 0}}});
  } else if constexpr (std::is_same_v<Req, protocol::OffsetFetchRequest>) {
    r.group_id = "simple";
    r.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{.name = "t", .partition_indexes = {0}}};
    r.groups.push_back({.group_id = "simple", .topics = std::nullopt});
  } else if constexpr (std::is_same_v<Req, protocol::FindCoordinatorRequest>) {
    r.key = "g";
    r.coordinator_keys = {"g"};
  } else if constexpr (std::is_same_v<Req, protocol::JoinGroupRequest>) {
    r.group_id = "g";
    r.session_timeout_ms = 10000;
    r.rebalance_timeout_ms = 10000;
    r.protocol_type = "consumer";
    r.protocols.push_back({.name = "range", .metadata = {}});
    (void)version;
  } else if constexpr (std::is_same_v<Req, protocol::HeartbeatRequest> || std::is_same_v<Req, protocol::SyncGroupRequest>) {
    r.group_id = "g";
    r.member_id = "nobody";
  } else if constexpr (std::is_same_v<Req, protocol::LeaveGroupRequest>) {
    r.group_id = "g";
    r.member_id = "nobody";
    r.members.push_back({.member_id = "nobody"});
  } else if constexpr (std::is_same_v<Req, protocol::DescribeGroupsRequest>) {
    r.groups = {"g"};
  } else if constexpr (std::is_same_v<Req, protocol::ApiVersionsRequest>) {
    r.client_software_name = "gregor-test";
    r.client_software_version = "1.0";
  } else if constexpr (std::is_same_v<Req, protocol::CreateTopicsRequest>) {
    r.topics.push_back({.name = "created-" + std::to_string(version), .num_partitions = 1, .replication_factor = 1});
    r.timeout_ms = 30000;
  } else if constexpr (std::is_same_v<Req, protocol::DeleteTopicsRequest>) {
    r.topic_names = {"missing"};
    r.topics.push_back({.name = "missing"});
    r.timeout_ms = 30000;
  } else if constexpr (std::is_same_v<Req, protocol::InitProducerIdRequest>) {
    r.transactional_id = std::nullopt;
    r.transaction_timeout_ms = 60000;
  } else if constexpr (std::is_same_v<Req, protocol::OffsetForLeaderEpochRequest>) {
    r.replica_id = -1;
    r.topics.resize(1);
    r.topics[0].topic = "t";
    r.topics[0].partitions.resize(1);
    r.topics[0].partitions[0].current_leader_epoch = -1;
  } else if constexpr (std::is_same_v<Req, protocol::DescribeConfigsRequest>) {
    r.resources.push_back({.resource_type = 2, .resource_name = "t", .configuration_keys = std::nullopt});
  } else if constexpr (std::is_same_v<Req, protocol::AlterConfigsRequest> ||
                       std::is_same_v<Req, protocol::IncrementalAlterConfigsRequest>) {
    r.validate_only = true;
  } else if constexpr (std::is_same_v<Req, protocol::ControlledShutdownRequest>) {
    r.broker_id = 99;  // not a broker of the cluster: refused, nothing moves
  } else if constexpr (std::is_same_v<Req, protocol::DeleteRecordsRequest>) {
    r.topics.push_back({.name = "t", .partitions = {{.partition_index = 0, .offset = 0}}});
    r.timeout_ms = 30000;
  } else if constexpr (std::is_same_v<Req, protocol::CreatePartitionsRequest>) {
    r.topics.push_back({.name = "missing", .count = 2, .assignments = std::nullopt});
    r.timeout_ms = 30000;
    r.validate_only = true;
  } else if constexpr (std::is_same_v<Req, protocol::DeleteGroupsRequest>) {
    r.groups_names = {"no-such-group"};
  } else if constexpr (std::is_same_v<Req, protocol::ElectLeadersRequest>) {
    r.topic_partitions = std::vector<protocol::ElectLeadersRequest::TopicPartitions>{{.topic = "t", .partitions = {0}}};
    r.timeout_ms = 30000;
  } else if constexpr (std::is_same_v<Req, protocol::OffsetDeleteRequest>) {
    r.group_id = "g";
    r.topics.push_back({.name = "t", .partitions = {{.partition_index = 0}}});
  } else if constexpr (std::is_same_v<Req, protocol::AlterPartitionReassignmentsRequest>) {
    // A cancellation of a move there is none of: refused per partition, nothing moves.
    r.topics.push_back({.name = "t", .partitions = {{.partition_index = 0, .replicas = std::nullopt}}});
    r.timeout_ms = 30000;
  }
  // DescribeLogDirs (null topics: all), DescribeCluster, ListPartitionReassignments (null: all): empty.
  // SaslHandshake and SaslAuthenticate on a PLAINTEXT listener: ILLEGAL_SASL_STATE, as Kafka answers.
  // AlterUserScramCredentials, DescribeAcls, CreateAcls, DeleteAcls: empty (no authorizer:
  // SECURITY_DISABLED).
  // WriteTxnMarkers, DescribeProducers: empty (nothing written, nothing described).
  // LeaderAndIsr, StopReplica, UpdateMetadata: empty, from controller epoch 0 (stale).
  return r;
}

template <size_t I = 0>
bool answered(test::ClusterFixture& f, int32_t broker, ApiKey key, int16_t version) {
  if constexpr (I == std::tuple_size_v<AllApis>) {
    FAIL("no request type for api " << protocol::api_name(key));
    return false;
  } else {
    using Pair = std::tuple_element_t<I, AllApis>;
    using Req = typename Pair::first_type;
    using Resp = typename Pair::second_type;
    if (Req::kApiKey != key) return answered<I + 1>(f, broker, key, version);
    auto resp = f.call<Req, Resp>(broker, sensible_request<Req>(version), version);
    return resp.has_value();
  }
}

test::ClusterFixture& ready_cluster(test::ClusterFixture& f) {
  f.create_topic("t", 1, 3);
  return f;
}

template <typename Req, typename Resp>
Resp call_ok(test::ClusterFixture& f, int32_t broker, const Req& req, int16_t version) {
  auto resp = f.call<Req, Resp>(broker, req, version);
  REQUIRE(resp);
  return *resp;
}

// The coordinator of group `g`, once the offsets topic is up.
int32_t coordinator(test::ClusterFixture& f, const std::string& g) {
  int32_t found = -1;
  REQUIRE(f.run_until([&] {
    protocol::FindCoordinatorRequest req;
    req.key = g;
    auto r = f.call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(1, req, 2);
    if (r && r->error_code == ErrorCode::NONE) found = r->node_id;
    return found >= 0;
  }));
  // ... and has loaded its offsets partition.
  REQUIRE(f.run_until([&] {
    protocol::DescribeGroupsRequest req;
    req.groups = {g};
    auto r = f.call<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>(found, req, 0);
    return r && r->groups.size() == 1 && r->groups[0].error_code == ErrorCode::NONE;
  }));
  return found;
}

}  // namespace

TEST_CASE("every advertised API at every advertised version is answered and never closed", "[versions]") {
  test::ClusterFixture f(1601);
  ready_cluster(f);
  const int32_t controller = *f.cluster.controller();
  // The inter-broker APIs last: they are refused (stale controller epoch) but still answered.
  std::vector<protocol::ApiVersionRange> ranges(protocol::supported_api_versions().begin(),
                                                protocol::supported_api_versions().end());
  std::stable_partition(ranges.begin(), ranges.end(), [](const protocol::ApiVersionRange& r) {
    return r.api_key != ApiKey::LEADER_AND_ISR && r.api_key != ApiKey::STOP_REPLICA &&
           r.api_key != ApiKey::UPDATE_METADATA && r.api_key != ApiKey::CONTROLLED_SHUTDOWN;
  });
  int calls = 0;
  for (const auto& range : ranges)
    for (int16_t v = range.min_version; v <= range.max_version; v++) {
      INFO(protocol::api_name(range.api_key) << " v" << v);
      CHECK(answered(f, controller, range.api_key, v));
      calls++;
    }
  CHECK(calls == 254);  // Kafka 3.9's ranges of the 48 APIs Gregor implements
  // Every broker advertises the same table, and still works.
  for (int32_t b = 1; b <= 3; b++) {
    auto av = call_ok<protocol::ApiVersionsRequest, protocol::ApiVersionsResponse>(f, b, {}, 3);
    CHECK(av.api_keys.size() == protocol::supported_api_versions().size());
  }
  CHECK(f.produce(f.leader_of("t", 0), "t", 0, -1, "after") == ErrorCode::NONE);
}

TEST_CASE("Metadata v0 with an empty list answers every topic and v1 with one answers none", "[versions]") {
  test::ClusterFixture f(1602);
  ready_cluster(f);
  protocol::MetadataRequest empty;
  empty.topics.emplace();
  auto v0 = call_ok<protocol::MetadataRequest, protocol::MetadataResponse>(f, 1, empty, 0);
  REQUIRE(v0.topics.size() == 1);
  CHECK(v0.topics[0].name == "t");
  CHECK(v0.topics[0].partitions.size() == 1);
  auto v1 = call_ok<protocol::MetadataRequest, protocol::MetadataResponse>(f, 1, empty, 1);
  CHECK(v1.topics.empty());
}

TEST_CASE("topic ids known to every broker: Metadata v10 and v12 by id with CreateTopics v7 and Fetch v13+ and DeleteTopics v6", "[versions]") {
  test::ClusterFixture f(1603);
  ready_cluster(f);
  protocol::CreateTopicsRequest create;
  create.topics.push_back({.name = "by-id", .num_partitions = 2, .replication_factor = 2});
  auto created = call_ok<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(f, *f.cluster.controller(), create, 7);
  REQUIRE(created.topics.size() == 1);
  REQUIRE(created.topics[0].error_code == ErrorCode::NONE);
  const Uuid id = created.topics[0].topic_id;
  CHECK_FALSE(id.is_zero());
  // v5+: the created topic's shape and configs.
  CHECK(created.topics[0].num_partitions == 2);
  CHECK(created.topics[0].replication_factor == 2);
  REQUIRE(created.topics[0].configs);
  CHECK_FALSE(created.topics[0].configs->empty());
  // Every broker answers Metadata v10+ with the same id, and v12 finds the topic by it.
  for (int32_t b = 1; b <= 3; b++) {
    protocol::MetadataRequest by_name;
    by_name.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.name = "by-id"}};
    // Other brokers learn of the topic from the controller's UpdateMetadata, which may still be on its way.
    std::optional<protocol::MetadataResponse> m;
    REQUIRE(f.run_until([&] {
      m = f.call<protocol::MetadataRequest, protocol::MetadataResponse>(b, by_name, 10);
      return m && m->topics.size() == 1 && m->topics[0].error_code == ErrorCode::NONE;
    }));
    CHECK(m->topics[0].topic_id == id);
    protocol::MetadataRequest by_id;
    by_id.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.topic_id = id, .name = std::nullopt}};
    auto m12 = call_ok<protocol::MetadataRequest, protocol::MetadataResponse>(f, b, by_id, 12);
    REQUIRE(m12.topics.size() == 1);
    CHECK(m12.topics[0].name == std::optional<std::string>("by-id"));
    CHECK(m12.topics[0].partitions.size() == 2);
  }
  // Fetch v13+ names the topic by id; an unknown id is UNKNOWN_TOPIC_ID.
  REQUIRE(f.run_until([&] { return f.cluster.topic_ready("by-id", 2); }));
  const int32_t leader = f.leader_of("by-id", 0);
  REQUIRE(f.produce(leader, "by-id", 0, -1, "x") == ErrorCode::NONE);
  for (int16_t version : {13, 15, 17}) {
    protocol::FetchRequest fetch;
    fetch.max_wait_ms = 0;
    fetch.max_bytes = 1 << 20;
    fetch.topics.resize(2);
    fetch.topics[0].topic_id = id;
    fetch.topics[0].partitions.resize(1);
    fetch.topics[0].partitions[0].partition_max_bytes = 1 << 20;
    fetch.topics[1].topic_id = Uuid{7, 7};
    fetch.topics[1].partitions.resize(1);
    auto fr = call_ok<protocol::FetchRequest, protocol::FetchResponse>(f, leader, fetch, version);
    INFO("Fetch v" << version);
    REQUIRE(fr.responses.size() == 2);
    CHECK(fr.responses[0].topic_id == id);
    CHECK(fr.responses[0].partitions.at(0).error_code == ErrorCode::NONE);
    CHECK(fr.responses[0].partitions.at(0).high_watermark == 1);
    CHECK(fr.responses[0].partitions.at(0).records.has_value());
    CHECK_FALSE(fr.responses[0].partitions.at(0).records->empty());
    CHECK(fr.responses[1].partitions.at(0).error_code == ErrorCode::UNKNOWN_TOPIC_ID);
  }
  protocol::MetadataRequest unknown;
  unknown.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.topic_id = Uuid{7, 7}, .name = std::nullopt}};
  auto mu = call_ok<protocol::MetadataRequest, protocol::MetadataResponse>(f, 1, unknown, 12);
  REQUIRE(mu.topics.size() == 1);
  CHECK(mu.topics[0].error_code == ErrorCode::UNKNOWN_TOPIC_ID);
  // DeleteTopics v6 by id.
  protocol::DeleteTopicsRequest del;
  del.topics.push_back({.name = std::nullopt, .topic_id = id});
  del.topics.push_back({.name = std::nullopt, .topic_id = Uuid{7, 7}});
  del.timeout_ms = 30000;
  auto deleted = call_ok<protocol::DeleteTopicsRequest, protocol::DeleteTopicsResponse>(f, *f.cluster.controller(), del, 6);
  REQUIRE(deleted.responses.size() == 2);
  CHECK(deleted.responses[0].error_code == ErrorCode::NONE);
  CHECK(deleted.responses[0].name == std::optional<std::string>("by-id"));
  CHECK(deleted.responses[1].error_code == ErrorCode::UNKNOWN_TOPIC_ID);
}

TEST_CASE("OffsetCommit v0 and v6 with OffsetFetch v0 and v5 and v8 (several groups)", "[versions]") {
  test::ClusterFixture f(1604);
  ready_cluster(f);
  const int32_t c1 = coordinator(f, "old-style");
  protocol::OffsetCommitRequest v0;
  v0.group_id = "old-style";
  v0.topics.push_back({.name = "t", .partitions = {{.partition_index = 0, .committed_offset = 42, .committed_metadata = "m"}}});
  auto committed = call_ok<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(f, c1, v0, 0);
  REQUIRE(committed.topics.at(0).partitions.at(0).error_code == ErrorCode::NONE);
  protocol::OffsetFetchRequest fetch0;
  fetch0.group_id = "old-style";
  fetch0.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{.name = "t", .partition_indexes = {0}}};
  auto f0 = call_ok<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(f, c1, fetch0, 0);
  CHECK(f0.topics.at(0).partitions.at(0).committed_offset == 42);
  CHECK(f0.topics.at(0).partitions.at(0).metadata == std::optional<std::string>("m"));

  const int32_t c2 = coordinator(f, "epochs");
  protocol::OffsetCommitRequest v6;
  v6.group_id = "epochs";
  v6.topics.push_back(
      {.name = "t", .partitions = {{.partition_index = 0, .committed_offset = 7, .committed_leader_epoch = 3}}});
  REQUIRE(call_ok<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(f, c2, v6, 6)
              .topics.at(0).partitions.at(0).error_code == ErrorCode::NONE);
  protocol::OffsetFetchRequest fetch5;
  fetch5.group_id = "epochs";
  fetch5.topics = std::nullopt;  // v2+: everything the group committed
  auto f5 = call_ok<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(f, c2, fetch5, 5);
  REQUIRE(f5.topics.size() == 1);
  CHECK(f5.topics[0].partitions.at(0).committed_offset == 7);
  CHECK(f5.topics[0].partitions.at(0).committed_leader_epoch == 3);

  if (c1 == c2) {
    // v8: both groups in one request, each answered.
    protocol::OffsetFetchRequest fetch8;
    fetch8.groups.push_back({.group_id = "old-style", .topics = std::nullopt});
    fetch8.groups.push_back({.group_id = "epochs", .topics = std::nullopt});
    auto f8 = call_ok<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(f, c1, fetch8, 8);
    REQUIRE(f8.groups.size() == 2);
    CHECK(f8.groups[0].topics.at(0).partitions.at(0).committed_offset == 42);
    CHECK(f8.groups[1].topics.at(0).partitions.at(0).committed_leader_epoch == 3);
  }
  // v8 at a broker that coordinates neither: each group says NOT_COORDINATOR.
  const int32_t other = c1 == 1 ? 2 : 1;
  if (other != c2) {
    protocol::OffsetFetchRequest fetch8;
    fetch8.groups.push_back({.group_id = "old-style", .topics = std::nullopt});
    auto f8 = call_ok<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(f, other, fetch8, 8);
    REQUIRE(f8.groups.size() == 1);
    CHECK(f8.groups[0].error_code == ErrorCode::NOT_COORDINATOR);
  }
}

TEST_CASE("FindCoordinator v4 answers every key of the batch", "[versions]") {
  test::ClusterFixture f(1605);
  ready_cluster(f);
  const int32_t ca = coordinator(f, "a");
  protocol::FindCoordinatorRequest req;
  req.coordinator_keys = {"a", "b", "c"};
  auto r = call_ok<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(f, 2, req, 4);
  REQUIRE(r.coordinators.size() == 3);
  CHECK(r.coordinators[0].key == "a");
  CHECK(r.coordinators[0].node_id == ca);
  for (const auto& c : r.coordinators) CHECK(c.error_code == ErrorCode::NONE);
}

TEST_CASE("static membership: a rejoining instance fences the old member without a rebalance", "[versions]") {
  test::ClusterFixture f(1606);
  ready_cluster(f);
  const int32_t c = coordinator(f, "static");
  protocol::JoinGroupRequest join;
  join.group_id = "static";
  join.session_timeout_ms = 10000;
  join.rebalance_timeout_ms = 10000;
  join.group_instance_id = "instance-1";
  join.protocol_type = "consumer";
  join.protocols.push_back({.name = "range", .metadata = to_bytes("m")});
  // A static member gets no MEMBER_ID_REQUIRED (v5+ with an instance id).
  auto j1 = call_ok<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(f, c, join, 7);
  REQUIRE(j1.error_code == ErrorCode::NONE);
  CHECK(j1.protocol_type == std::optional<std::string>("consumer"));
  protocol::SyncGroupRequest sync;
  sync.group_id = "static";
  sync.generation_id = j1.generation_id;
  sync.member_id = j1.member_id;
  sync.group_instance_id = "instance-1";
  sync.protocol_type = "consumer";
  sync.protocol_name = "range";
  sync.assignments.push_back({.member_id = j1.member_id, .assignment = to_bytes("a")});
  auto s1 = call_ok<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(f, c, sync, 5);
  REQUIRE(s1.error_code == ErrorCode::NONE);
  CHECK(s1.protocol_name == std::optional<std::string>("range"));
  // v5: a protocol name that is not the group's is refused.
  protocol::SyncGroupRequest wrong = sync;
  wrong.protocol_name = "roundrobin";
  CHECK(call_ok<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(f, c, wrong, 5).error_code ==
        ErrorCode::INCONSISTENT_GROUP_PROTOCOL);
  // The instance restarts: it joins without a member id and gets a new one, same generation.
  auto j2 = call_ok<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(f, c, join, 9);
  REQUIRE(j2.error_code == ErrorCode::NONE);
  CHECK(j2.member_id != j1.member_id);
  CHECK(j2.generation_id == j1.generation_id);
  CHECK(j2.skip_assignment);  // the leader, at v9: no new assignment needed
  // The old member id is fenced.
  protocol::HeartbeatRequest hb;
  hb.group_id = "static";
  hb.generation_id = j1.generation_id;
  hb.member_id = j1.member_id;
  hb.group_instance_id = "instance-1";
  CHECK(call_ok<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(f, c, hb, 4).error_code ==
        ErrorCode::FENCED_INSTANCE_ID);
  hb.member_id = j2.member_id;
  CHECK(call_ok<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(f, c, hb, 4).error_code == ErrorCode::NONE);
  // ListGroups v4 filters by state; v5 by type.
  protocol::ListGroupsRequest list;
  list.states_filter = {"stable"};
  auto l = call_ok<protocol::ListGroupsRequest, protocol::ListGroupsResponse>(f, c, list, 5);
  REQUIRE(l.groups.size() == 1);
  CHECK(l.groups[0].group_state == "Stable");
  CHECK(l.groups[0].group_type == "classic");
  list.states_filter = {"Empty"};
  CHECK(call_ok<protocol::ListGroupsRequest, protocol::ListGroupsResponse>(f, c, list, 4).groups.empty());
  // LeaveGroup v3+: by instance id, and an unknown member in the same batch.
  protocol::LeaveGroupRequest leave;
  leave.group_id = "static";
  leave.members.push_back({.member_id = "", .group_instance_id = "instance-1"});
  leave.members.push_back({.member_id = "nobody"});
  auto lv = call_ok<protocol::LeaveGroupRequest, protocol::LeaveGroupResponse>(f, c, leave, 5);
  CHECK(lv.error_code == ErrorCode::NONE);
  REQUIRE(lv.members.size() == 2);
  CHECK(lv.members[0].error_code == ErrorCode::NONE);
  CHECK(lv.members[1].error_code == ErrorCode::UNKNOWN_MEMBER_ID);
  protocol::DescribeGroupsRequest describe;
  describe.groups = {"static"};
  describe.include_authorized_operations = true;
  auto d = call_ok<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>(f, c, describe, 5);
  REQUIRE(d.groups.size() == 1);
  CHECK(d.groups[0].members.empty());
  CHECK(d.groups[0].authorized_operations != std::numeric_limits<int32_t>::min());
}
