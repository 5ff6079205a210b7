// DeleteGroups and OffsetDelete at the group coordinator: Kafka's errors, and tombstones that keep
// a deleted group (or offset) deleted when another coordinator loads the partition.
#include <catch2/catch.hpp>

#include "engine/protocol/consumer_protocol.h"
#include "engine/protocol/delete_groups.h"
#include "engine/protocol/describe_groups.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/join_group.h"
#include "engine/protocol/offset_commit.h"
#include "engine/protocol/offset_delete.h"
#include "engine/protocol/offset_fetch.h"
#include "engine/protocol/sync_group.h"
#include "group_fixture.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

int32_t coordinator_of(test::GroupFixture& f, const std::string& group) { return test::find_coordinator(f, group); }

ErrorCode commit(test::GroupFixture& f, int32_t c, const std::string& group, int32_t partition, int64_t offset,
                 int32_t generation = -1, const std::string& member = "") {
  protocol::OffsetCommitRequest req;
  req.group_id = group;
  req.generation_id = generation;
  req.member_id = member;
  req.topics = {{"orders", {{.partition_index = partition, .committed_offset = offset, .committed_metadata = std::nullopt}}}};
  auto r = f.call<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(c, req, 5);
  REQUIRE(r);
  return r->topics.at(0).partitions.at(0).error_code;
}

int64_t committed(test::GroupFixture& f, int32_t c, const std::string& group, int32_t partition) {
  protocol::OffsetFetchRequest req;
  req.group_id = group;
  req.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{"orders", {partition}}};
  auto r = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(c, req, 4);
  REQUIRE(r);
  return r->topics.at(0).partitions.at(0).committed_offset;
}

std::vector<ErrorCode> delete_groups(test::GroupFixture& f, int32_t c, std::vector<std::string> groups) {
  protocol::DeleteGroupsRequest req;
  req.groups_names = std::move(groups);
  auto r = f.call<protocol::DeleteGroupsRequest, protocol::DeleteGroupsResponse>(c, req, 2);
  REQUIRE(r);
  std::vector<ErrorCode> out;
  for (const auto& g : req.groups_names)
    for (const auto& res : r->results)
      if (res.group_id == g) out.push_back(res.error_code);
  REQUIRE(out.size() == req.groups_names.size());
  return out;
}

}  // namespace

TEST_CASE("DeleteGroups deletes an empty group with its offsets, refuses unknown and non-empty groups",
          "[groups][admin]") {
  test::GroupFixture f(31);
  f.create_topic("orders", 2, 3);
  const int32_t c = coordinator_of(f, "empty-group");
  REQUIRE(c > 0);
  REQUIRE(commit(f, c, "empty-group", 0, 42) == ErrorCode::NONE);
  REQUIRE(committed(f, c, "empty-group", 0) == 42);
  // A group with a member.
  const int32_t c2 = coordinator_of(f, "busy-group");
  REQUIRE(c2 > 0);
  auto joined = f.call<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(
      c2, test::join_request("busy-group", "", {"orders"}, 30000), 3);
  REQUIRE(joined);
  REQUIRE(joined->error_code == ErrorCode::NONE);
  protocol::SyncGroupRequest sync;
  sync.group_id = "busy-group";
  sync.generation_id = joined->generation_id;
  sync.member_id = joined->member_id;
  REQUIRE(f.call<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(c2, sync, 3)->error_code == ErrorCode::NONE);
  REQUIRE(commit(f, c2, "busy-group", 1, 7, joined->generation_id, joined->member_id) == ErrorCode::NONE);

  // OffsetDelete of a topic the member subscribes to is refused per partition.
  protocol::OffsetDeleteRequest od;
  od.group_id = "busy-group";
  od.topics.push_back({.name = "orders", .partitions = {{.partition_index = 1}}});
  auto odr = f.call<protocol::OffsetDeleteRequest, protocol::OffsetDeleteResponse>(c2, od, 0);
  REQUIRE(odr);
  CHECK(odr->error_code == ErrorCode::NONE);
  CHECK(odr->topics.at(0).partitions.at(0).error_code == ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC);
  CHECK(committed(f, c2, "busy-group", 1) == 7);
  CHECK(delete_groups(f, c2, {"busy-group"}) == std::vector<ErrorCode>{ErrorCode::NON_EMPTY_GROUP});
  CHECK(delete_groups(f, coordinator_of(f, "no-such-group"), {"no-such-group"}) ==
        std::vector<ErrorCode>{ErrorCode::GROUP_ID_NOT_FOUND});

  // The empty group goes with its offsets; asking again finds nothing.
  CHECK(delete_groups(f, c, {"empty-group"}) == std::vector<ErrorCode>{ErrorCode::NONE});
  CHECK(f.kinds["group_deleted"] == 1);
  CHECK(committed(f, c, "empty-group", 0) == -1);
  CHECK(delete_groups(f, c, {"empty-group"}) == std::vector<ErrorCode>{ErrorCode::GROUP_ID_NOT_FOUND});

  // The tombstones keep it deleted when another broker loads the offsets partition: the
  // coordinator crashes, a new one takes over and reads the log.
  f.sim.crash(NodeId{c});
  const int32_t next = coordinator_of(f, "empty-group");
  REQUIRE(next > 0);
  REQUIRE(next != c);
  CHECK(committed(f, next, "empty-group", 0) == -1);
  f.sim.restart(NodeId{c});
  f.require_checkers_pass();
}

TEST_CASE("OffsetDelete removes an empty group's offsets of the partitions named", "[groups][admin]") {
  test::GroupFixture f(32);
  f.create_topic("orders", 2, 3);
  const int32_t c = coordinator_of(f, "g");
  REQUIRE(c > 0);
  REQUIRE(commit(f, c, "g", 0, 10) == ErrorCode::NONE);
  REQUIRE(commit(f, c, "g", 1, 11) == ErrorCode::NONE);
  protocol::OffsetDeleteRequest od;
  od.group_id = "g";
  od.topics.push_back({.name = "orders", .partitions = {{.partition_index = 0}}});
  auto r = f.call<protocol::OffsetDeleteRequest, protocol::OffsetDeleteResponse>(c, od, 0);
  REQUIRE(r);
  CHECK(r->error_code == ErrorCode::NONE);
  CHECK(r->topics.at(0).partitions.at(0).error_code == ErrorCode::NONE);
  CHECK(committed(f, c, "g", 0) == -1);
  CHECK(committed(f, c, "g", 1) == 11);
  od.group_id = "unknown";
  r = f.call<protocol::OffsetDeleteRequest, protocol::OffsetDeleteResponse>(coordinator_of(f, "unknown"), od, 0);
  REQUIRE(r);
  CHECK(r->error_code == ErrorCode::GROUP_ID_NOT_FOUND);
}
