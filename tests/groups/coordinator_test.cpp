// The group coordinator through its Kafka APIs, with raw requests: FindCoordinator creating
// __consumer_offsets, the join/sync/heartbeat state machine and its errors, offsets, describe and
// list, and a coordinator failover that keeps committed offsets.
#include <catch2/catch.hpp>

#include "engine/protocol/consumer_protocol.h"
#include "engine/group/offsets_topic.h"
#include "engine/protocol/describe_groups.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/heartbeat.h"
#include "engine/protocol/join_group.h"
#include "engine/protocol/leave_group.h"
#include "engine/protocol/list_groups.h"
#include "engine/protocol/offset_commit.h"
#include "engine/protocol/offset_fetch.h"
#include "engine/protocol/sync_group.h"
#include "group_fixture.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

using test::join_request;

template <typename Req, typename Resp>
std::optional<Resp> until_ok(test::GroupFixture& f, int32_t broker, const Req& req, int16_t version) {
  std::optional<Resp> out;
  f.run_until(
      [&] {
        out = f.call<Req, Resp>(broker, req, version);
        // Kafka's clients retry both: the coordinator is still loading the group's offsets
        // partition, or has not yet processed the LeaderAndIsr that makes it the leader (another
        // broker's metadata, which answered FindCoordinator, can be ahead of it).
        if (out && (out->error_code == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS || out->error_code == ErrorCode::NOT_COORDINATOR)) {
          f.sim.run_for(Duration::millis(100));
          return false;
        }
        return true;
      },
      Duration::seconds(30));
  return out;
}

}  // namespace

TEST_CASE("FindCoordinator creates __consumer_offsets and points at the leader of the group's partition", "[groups][coordinator]") {
  test::GroupFixture f(11);
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  int attempts = 0;
  int32_t coordinator = find_coordinator(f, "g1", &attempts);
  REQUIRE(coordinator > 0);
  CHECK(attempts > 1);  // the first answer was COORDINATOR_NOT_AVAILABLE while the topic was made
  CHECK(f.kinds["offsets_topic_create"] >= 1);
  const int32_t p = group::partition_for_group("g1", 4);
  CHECK(f.cluster.leader(TopicPartition{group::kOffsetsTopic, p}) == coordinator);
  // offsets.topic.num.partitions = 4, replication factor min(3, live brokers) = 3.
  for (int i = 0; i < 4; i++) {
    auto* part = f.cluster.broker(*f.cluster.leader({group::kOffsetsTopic, i}))->partition({group::kOffsetsTopic, i});
    REQUIRE(part);
    CHECK(part->replicas().size() == 3);
  }
  // The coordinator loaded (an empty) partition before answering group requests.
  REQUIRE(f.run_until([&] { return f.kinds["offsets_load"] >= 4; }, Duration::seconds(10)));
}

TEST_CASE("join, sync, heartbeat, commit and fetch follow Kafka's state machine and errors", "[groups][coordinator]") {
  test::GroupFixture f(12);
  f.create_topic("orders", 6, 3);
  const int32_t c = find_coordinator(f, "g");
  REQUIRE(c > 0);

  // KIP-394: a join without a member id gets one to join with.
  auto first = until_ok<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(f, c, join_request("g", "", {"orders"}), 5);
  REQUIRE(first);
  REQUIRE(first->error_code == ErrorCode::MEMBER_ID_REQUIRED);
  const std::string member = first->member_id;
  CHECK(member.rfind("test-client-", 0) == 0);
  // The real join waits out group.initial.rebalance.delay.ms, then makes generation 1 with this
  // member as leader, which gets every member's metadata.
  const Time asked = f.sim.now();
  auto joined = f.call<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(c, join_request("g", member, {"orders"}), 5);
  REQUIRE(joined);
  REQUIRE(joined->error_code == ErrorCode::NONE);
  CHECK(f.sim.now() - asked >= Duration::millis(500));
  CHECK(joined->generation_id == 1);
  CHECK(joined->leader == member);
  CHECK(joined->protocol_name == "range");
  REQUIRE(joined->members.size() == 1);
  // A member id the group never handed out.
  auto stranger = f.call<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(c, join_request("g", "nobody", {"orders"}), 5);
  REQUIRE(stranger);
  CHECK(stranger->error_code == ErrorCode::UNKNOWN_MEMBER_ID);

  // Sync with the leader's assignment.
  protocol::Assignment a;
  a.partitions["orders"] = {0, 1, 2, 3, 4, 5};
  protocol::SyncGroupRequest sync;
  sync.group_id = "g";
  sync.generation_id = 1;
  sync.member_id = member;
  sync.assignments.push_back({member, protocol::encode_assignment(a)});
  auto synced = f.call<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(c, sync, 3);
  REQUIRE(synced);
  REQUIRE(synced->error_code == ErrorCode::NONE);
  CHECK(synced->assignment == protocol::encode_assignment(a));
  CHECK(f.kinds["group_stable"] == 1);
  sync.generation_id = 0;
  CHECK(f.call<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(c, sync, 3)->error_code == ErrorCode::ILLEGAL_GENERATION);

  // Heartbeats: fine, stale generation, unknown member.
  protocol::HeartbeatRequest hb;
  hb.group_id = "g";
  hb.generation_id = 1;
  hb.member_id = member;
  CHECK(f.call<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(c, hb, 3)->error_code == ErrorCode::NONE);
  hb.generation_id = 0;
  CHECK(f.call<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(c, hb, 3)->error_code == ErrorCode::ILLEGAL_GENERATION);
  hb.generation_id = 1;
  hb.member_id = "nobody";
  CHECK(f.call<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(c, hb, 3)->error_code == ErrorCode::UNKNOWN_MEMBER_ID);
  // Group requests to a broker that does not coordinate the group.
  const int32_t other = c == 1 ? 2 : 1;
  hb.member_id = member;
  CHECK(f.call<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(other, hb, 3)->error_code == ErrorCode::NOT_COORDINATOR);

  // Offsets: a stale generation is refused, the current one stored once the HW covers it.
  protocol::OffsetCommitRequest commit;
  commit.group_id = "g";
  commit.generation_id = 0;
  commit.member_id = member;
  commit.topics.push_back({"orders",
                           {{.partition_index = 0, .committed_offset = 17, .committed_metadata = std::nullopt},
                            {.partition_index = 3, .committed_offset = 5, .committed_metadata = std::string("m")}}});
  auto refused = f.call<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(c, commit, 5);
  REQUIRE(refused);
  CHECK(refused->topics[0].partitions[0].error_code == ErrorCode::ILLEGAL_GENERATION);
  commit.generation_id = 1;
  auto committed = f.call<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(c, commit, 5);
  REQUIRE(committed);
  CHECK(committed->topics[0].partitions[0].error_code == ErrorCode::NONE);
  CHECK(committed->topics[0].partitions[1].error_code == ErrorCode::NONE);
  CHECK(f.kinds["offset_commit"] == 2);
  protocol::OffsetFetchRequest fetch;
  fetch.group_id = "g";
  fetch.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{"orders", {0, 1, 3}}};
  auto fetched = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(c, fetch, 4);
  REQUIRE(fetched);
  REQUIRE(fetched->topics.size() == 1);
  CHECK(fetched->topics[0].partitions[0].committed_offset == 17);
  CHECK(fetched->topics[0].partitions[1].committed_offset == -1);  // never committed
  CHECK(fetched->topics[0].partitions[2].committed_offset == 5);
  CHECK(fetched->topics[0].partitions[2].metadata == std::optional<std::string>("m"));

  // Describe and list.
  protocol::DescribeGroupsRequest describe;
  describe.groups = {"g", "unknown-group"};
  auto described = f.call<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>(c, describe, 4);
  REQUIRE(described);
  REQUIRE(described->groups.size() == 2);
  CHECK(described->groups[0].group_state == "Stable");
  CHECK(described->groups[0].protocol_data == "range");
  REQUIRE(described->groups[0].members.size() == 1);
  CHECK(described->groups[0].members[0].member_assignment == protocol::encode_assignment(a));
  CHECK(described->groups[1].group_state == "Dead");
  auto listed = f.call<protocol::ListGroupsRequest, protocol::ListGroupsResponse>(c, protocol::ListGroupsRequest{}, 2);
  REQUIRE(listed);
  REQUIRE(listed->groups.size() == 1);
  CHECK(listed->groups[0].group_id == "g");
  CHECK(listed->groups[0].protocol_type == "consumer");

  // Leaving empties the group; its offsets stay.
  protocol::LeaveGroupRequest leave;
  leave.group_id = "g";
  leave.member_id = member;
  CHECK(f.call<protocol::LeaveGroupRequest, protocol::LeaveGroupResponse>(c, leave, 1)->error_code == ErrorCode::NONE);
  REQUIRE(f.run_until([&] { return f.kinds["group_empty"] >= 1; }, Duration::seconds(5)));
  described = f.call<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>(c, describe, 4);
  CHECK(described->groups[0].group_state == "Empty");
  fetched = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(c, fetch, 4);
  CHECK(fetched->topics[0].partitions[0].committed_offset == 17);
  // A member of no group may still commit with generation -1 (a "simple" consumer) once it is empty.
  commit.generation_id = -1;
  commit.member_id = "";
  commit.topics = {{"orders", {{.partition_index = 1, .committed_offset = 3, .committed_metadata = std::nullopt}}}};
  CHECK(f.call<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(c, commit, 5)->topics[0].partitions[0].error_code ==
        ErrorCode::NONE);
  f.require_checkers_pass();
}

TEST_CASE("a second member makes the group rebalance; a silent member is removed after its session", "[groups][coordinator]") {
  test::GroupFixture f(13);
  f.create_topic("orders", 6, 3);
  const int32_t c = find_coordinator(f, "g");
  REQUIRE(c > 0);
  f.sim.add_node(NodeId{2002}, "client2", [](Runtime& rt) { return std::make_unique<test::RequestClient>(rt); });
  auto* client2 = f.sim.node_as<test::RequestClient>(NodeId{2002});
  // Member A joins (v3: no MEMBER_ID_REQUIRED) and syncs.
  auto a = f.call<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(c, join_request("g", "", {"orders"}), 3);
  REQUIRE(a);
  REQUIRE(a->error_code == ErrorCode::NONE);
  protocol::SyncGroupRequest sa;
  sa.group_id = "g";
  sa.generation_id = a->generation_id;
  sa.member_id = a->member_id;
  REQUIRE(f.call<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(c, sa, 3)->error_code == ErrorCode::NONE);
  // Member B joins: the group prepares a rebalance; A's heartbeat says so.
  std::optional<protocol::JoinGroupResponse> b;
  bool b_done = false;
  client2->call<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(NodeId{c}, join_request("g", "", {"orders"}), 3, &b, &b_done);
  REQUIRE(f.run_until([&] { return f.kinds["group_rebalance"] >= 2; }, Duration::seconds(5)));
  protocol::HeartbeatRequest hb;
  hb.group_id = "g";
  hb.generation_id = a->generation_id;
  hb.member_id = a->member_id;
  CHECK(f.call<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(c, hb, 3)->error_code == ErrorCode::REBALANCE_IN_PROGRESS);
  // A commit from the current generation is still accepted while the rebalance is prepared.
  protocol::OffsetCommitRequest commit;
  commit.group_id = "g";
  commit.generation_id = a->generation_id;
  commit.member_id = a->member_id;
  commit.topics.push_back(
      {"orders", {{.partition_index = 0, .committed_offset = 9, .committed_metadata = std::nullopt}}});
  CHECK(f.call<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(c, commit, 5)->topics[0].partitions[0].error_code ==
        ErrorCode::NONE);
  // A rejoins; both get generation 2, the leader (A, the first to join) with both members' metadata.
  auto a2 = f.call<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(c, join_request("g", a->member_id, {"orders"}), 3);
  REQUIRE(f.run_until([&] { return b_done; }, Duration::seconds(5)));
  REQUIRE(a2);
  REQUIRE(b);
  CHECK(a2->error_code == ErrorCode::NONE);
  CHECK(b->error_code == ErrorCode::NONE);
  CHECK(a2->generation_id == a->generation_id + 1);
  CHECK(b->generation_id == a2->generation_id);
  CHECK(a2->leader == a->member_id);
  CHECK(a2->members.size() == 2);
  CHECK(b->members.empty());
  // The old generation's commit is now refused.
  CHECK(f.call<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(c, commit, 5)->topics[0].partitions[0].error_code ==
        ErrorCode::ILLEGAL_GENERATION);
  // A syncs, B stays silent: after B's session (10 s) the group rebalances without it.
  sa.generation_id = a2->generation_id;
  REQUIRE(f.call<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(c, sa, 3)->error_code == ErrorCode::NONE);
  REQUIRE(f.run_until([&] { return f.kinds["member_leave"] >= 1; }, Duration::seconds(20)));
  CHECK(f.group_state("g")->members.size() == 1);
  CHECK(f.group_state("g")->state == group::GroupState::kPreparingRebalance);
}

TEST_CASE("coordinator failover: the new leader of the offsets partition reloads the group and its offsets", "[groups][coordinator]") {
  test::GroupFixture f(14);
  f.create_topic("orders", 6, 3);
  const int32_t c = find_coordinator(f, "g");
  REQUIRE(c > 0);
  auto joined = f.call<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(c, join_request("g", "", {"orders"}), 3);
  REQUIRE(joined);
  REQUIRE(joined->error_code == ErrorCode::NONE);
  protocol::Assignment a;
  a.partitions["orders"] = {0, 1, 2, 3, 4, 5};
  protocol::SyncGroupRequest sync;
  sync.group_id = "g";
  sync.generation_id = joined->generation_id;
  sync.member_id = joined->member_id;
  sync.assignments.push_back({joined->member_id, protocol::encode_assignment(a)});
  REQUIRE(f.call<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(c, sync, 3)->error_code == ErrorCode::NONE);
  protocol::OffsetCommitRequest commit;
  commit.group_id = "g";
  commit.generation_id = joined->generation_id;
  commit.member_id = joined->member_id;
  commit.topics.push_back({"orders",
                           {{.partition_index = 0, .committed_offset = 100, .committed_metadata = std::nullopt},
                            {.partition_index = 5, .committed_offset = 555, .committed_metadata = std::nullopt}}});
  REQUIRE(f.call<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(c, commit, 5)->topics[0].partitions[0].error_code ==
          ErrorCode::NONE);

  // The coordinator dies; the controller elects a new leader for the offsets partition, which
  // loads the group from the log.
  f.sim.crash(NodeId{c});
  int32_t next = -1;
  REQUIRE(f.run_until(
      [&] {
        auto l = f.cluster.leader({group::kOffsetsTopic, group::partition_for_group("g", 4)});
        if (!l || *l < 0 || *l == c) return false;
        next = *l;
        return f.cluster.broker(next)->group_coordinator().group("g") != nullptr &&
               !f.cluster.broker(next)->group_coordinator().is_loading(group::partition_for_group("g", 4));
      },
      Duration::seconds(60)));
  CHECK(find_coordinator(f, "g") == next);
  protocol::OffsetFetchRequest fetch;
  fetch.group_id = "g";
  fetch.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{"orders", {0, 5}}};
  auto fetched = until_ok<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(f, next, fetch, 4);
  REQUIRE(fetched);
  REQUIRE(fetched->error_code == ErrorCode::NONE);
  CHECK(fetched->topics[0].partitions[0].committed_offset == 100);
  CHECK(fetched->topics[0].partitions[1].committed_offset == 555);
  // The member and its generation survived too: it goes on heartbeating to the new coordinator.
  const group::GroupMetadata* g = f.cluster.broker(next)->group_coordinator().group("g");
  CHECK(g->state == group::GroupState::kStable);
  CHECK(g->generation == joined->generation_id);
  protocol::HeartbeatRequest hb;
  hb.group_id = "g";
  hb.generation_id = joined->generation_id;
  hb.member_id = joined->member_id;
  CHECK(f.call<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(next, hb, 3)->error_code == ErrorCode::NONE);
  // The old coordinator comes back as a follower: not the coordinator any more.
  f.sim.restart(NodeId{c});
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }, Duration::seconds(60)));
  f.sim.run_for(Duration::seconds(2));
  CHECK(f.call<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(c, hb, 3)->error_code == ErrorCode::NOT_COORDINATOR);
  f.require_checkers_pass();
}
