// Incremental fetch sessions (KIP-227) on the leader: a full request opens a session, incremental
// ones name only what changed and are answered only with what changed, forgotten partitions leave
// the session, and a wrong epoch or an unknown or closed session is refused as Kafka refuses it.
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/protocol/delete_records.h"
#include "engine/protocol/fetch.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

constexpr int16_t kVersion = 11;

struct Sessions : test::ClusterFixture {
  Sessions() : ClusterFixture(27, {}, 1) {}

  // A consumer's fetch (no waiting) of the given partitions of "s" at the given offsets.
  protocol::FetchResponse fetch(int32_t session_id, int32_t epoch, std::vector<std::pair<int32_t, int64_t>> partitions,
                                std::vector<int32_t> forgotten = {}) {
    protocol::FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 1;
    req.session_id = session_id;
    req.session_epoch = epoch;
    if (!partitions.empty()) {
      protocol::FetchRequest::FetchTopic t;
      t.topic = "s";
      for (auto [partition, offset] : partitions) {
        protocol::FetchRequest::FetchPartition p;
        p.partition = partition;
        p.fetch_offset = offset;
        p.partition_max_bytes = 1 << 20;
        t.partitions.push_back(p);
      }
      req.topics.push_back(t);
    }
    if (!forgotten.empty()) req.forgotten_topics_data.push_back({.topic = "s", .topic_id = {}, .partitions = forgotten, .unknown_tagged_fields = {}});
    auto r = call<protocol::FetchRequest, protocol::FetchResponse>(leader_of("s", 0), req, kVersion);
    REQUIRE(r);
    return *r;
  }
};

// The partitions an answer carries, with whether each has records.
std::map<int32_t, bool> carried(const protocol::FetchResponse& r) {
  std::map<int32_t, bool> out;
  for (const auto& t : r.responses)
    for (const auto& pd : t.partitions) out[pd.partition_index] = pd.records && !pd.records->empty();
  return out;
}

}  // namespace

TEST_CASE("A fetch session answers an incremental fetch with the partitions that changed only", "[broker][fetch-session]") {
  Sessions f;
  f.create_topic("s", 3, 1);
  const int32_t leader = f.leader_of("s", 0);

  // Sessionless (librdkafka's way): no session.
  auto none = f.fetch(0, -1, {{0, 0}, {1, 0}, {2, 0}});
  CHECK(none.error_code == ErrorCode::NONE);
  CHECK(none.session_id == 0);
  CHECK(carried(none).size() == 3);

  // A full request opens a session, answered for every partition.
  auto full = f.fetch(0, 0, {{0, 0}, {1, 0}, {2, 0}});
  REQUIRE(full.error_code == ErrorCode::NONE);
  const int32_t id = full.session_id;
  REQUIRE(id != 0);
  CHECK(carried(full).size() == 3);

  // Nothing changed: an incremental request naming nothing gets an answer naming nothing.
  auto idle = f.fetch(id, 1, {});
  CHECK(idle.error_code == ErrorCode::NONE);
  CHECK(idle.session_id == id);
  CHECK(carried(idle).empty());

  // A record in s-1: only s-1 comes back, with it, though the request named no partition.
  REQUIRE(f.produce(leader, "s", 1, -1, "one") == ErrorCode::NONE);
  CHECK(carried(f.fetch(id, 2, {})) == std::map<int32_t, bool>{{1, true}});
  // The fetcher moves s-1 on: s-1 is named, and answered (no records); then nothing again.
  CHECK(carried(f.fetch(id, 3, {{1, 1}})) == std::map<int32_t, bool>{{1, false}});
  CHECK(carried(f.fetch(id, 4, {})).empty());

  // s-0 forgotten: its new record is not sent; s-2's is, from the offset the session holds.
  REQUIRE(f.produce(leader, "s", 0, -1, "zero") == ErrorCode::NONE);
  REQUIRE(f.produce(leader, "s", 2, -1, "two") == ErrorCode::NONE);
  CHECK(carried(f.fetch(id, 5, {}, {0})) == std::map<int32_t, bool>{{2, true}});
  // Added back: s-0 is in the session again.
  CHECK(carried(f.fetch(id, 6, {{0, 0}, {2, 1}})) == std::map<int32_t, bool>{{0, true}, {2, false}});

  // A wrong epoch, and an unknown session: refused with the session error alone.
  auto stale = f.fetch(id, 6, {{0, 0}});
  CHECK(stale.error_code == ErrorCode::INVALID_FETCH_SESSION_EPOCH);
  CHECK(stale.responses.empty());
  auto unknown = f.fetch(id == 1 ? 2 : 1, 1, {});
  CHECK(unknown.error_code == ErrorCode::FETCH_SESSION_ID_NOT_FOUND);
  CHECK(unknown.session_id == 0);
  // The right epoch still works after a refusal (the refused request did not move it).
  CHECK(f.fetch(id, 7, {}).error_code == ErrorCode::NONE);

  // Closing the session (epoch -1) is a sessionless fetch; the id is gone after it.
  auto closing = f.fetch(id, -1, {{0, 0}});
  CHECK(closing.error_code == ErrorCode::NONE);
  CHECK(closing.session_id == 0);
  CHECK(carried(closing).size() == 1);
  CHECK(f.fetch(id, 8, {}).error_code == ErrorCode::FETCH_SESSION_ID_NOT_FOUND);
}

TEST_CASE("Followers replicate through fetch sessions and start new ones after the leader restarts",
          "[broker][fetch-session]") {
  test::ClusterFixture f(31);
  f.create_topic("r", 4, 3);
  const int32_t leader = f.leader_of("r", 0);
  for (int i = 0; i < 5; i++) REQUIRE(f.produce(leader, "r", 0, -1, "v" + std::to_string(i)) == ErrorCode::NONE);
  // Every follower of r-0 has the five records: the leader's sessions carried them.
  for (NodeId b : f.cluster.broker_ids())
    if (b.value != leader) {
      REQUIRE(f.run_until([&] { return f.replica(b.value, "r", 0) && f.replica(b.value, "r", 0)->log_end_offset().value == 5; }));
    }
  REQUIRE(f.cluster.broker(leader));
  CHECK(f.cluster.broker(leader)->replica_manager().fetch_sessions().size() == 2);  // one per follower
  // The leader crashes: its followers' sessions are gone with it. They fetch from the new leader
  // in new sessions, and the old leader, back, opens its own.
  f.sim.crash(NodeId{leader});
  REQUIRE(f.run_until([&] {
    auto l = f.cluster.leader(TopicPartition{"r", 0});
    return l && *l >= 0 && *l != leader && f.cluster.topic_ready("r", 4);
  }));
  const int32_t next = f.leader_of("r", 0);
  REQUIRE(f.produce(next, "r", 0, -1, "after") == ErrorCode::NONE);
  f.sim.restart(NodeId{leader});
  for (NodeId b : f.cluster.broker_ids())
    REQUIRE(f.run_until([&] { return f.replica(b.value, "r", 0) && f.replica(b.value, "r", 0)->log_end_offset().value == 6; }));
  CHECK_FALSE(f.checker("acked-write-lost").violation());
}

// A follower's delayed fetch skips, when it completes, the partitions it left out when it arrived
// and that nothing marked since: their answer cannot have changed. A moved log start offset
// (DeleteRecords) marks nothing, so it must still reach the answer that completes the fetch.
TEST_CASE("A follower's delayed fetch answers with a log start offset moved while it waited",
          "[broker][fetch-session]") {
  test::ClusterFixture f(33, {}, 2);
  f.create_topic("q", 4, 2);
  // Two partitions with one leader; the other broker follows both.
  int32_t a = -1, b = -1;
  for (int32_t p = 1; p < 4 && b < 0; p++)
    if (f.leader_of("q", p) == f.leader_of("q", 0)) a = 0, b = p;
  REQUIRE(b > 0);
  const int32_t leader = f.leader_of("q", a);
  const int32_t follower = leader == 1 ? 2 : 1;
  for (int i = 0; i < 3; i++) REQUIRE(f.produce(leader, "q", a, -1, "v") == ErrorCode::NONE);

  // A second client speaks as the follower, in a session of its own.
  const NodeId fetcher{sim::kFirstClientNodeId + 1};
  f.sim.add_node(fetcher, "fetcher", [](Runtime& rt) { return std::make_unique<test::RequestClient>(rt); });
  auto* as_follower = f.sim.node_as<test::RequestClient>(fetcher);
  auto request = [&](int32_t session_id, int32_t epoch, int32_t max_wait_ms, bool name_partitions) {
    protocol::FetchRequest req;
    req.replica_id = follower;
    req.max_wait_ms = max_wait_ms;
    req.min_bytes = 1;
    req.session_id = session_id;
    req.session_epoch = epoch;
    if (name_partitions) {
      protocol::FetchRequest::FetchTopic t;
      t.topic = "q";
      for (auto [partition, offset] : {std::pair{a, int64_t{3}}, std::pair{b, int64_t{0}}}) {
        protocol::FetchRequest::FetchPartition p;
        p.partition = partition;
        p.fetch_offset = offset;
        p.log_start_offset = 0;
        p.partition_max_bytes = 1 << 20;
        t.partitions.push_back(p);
      }
      req.topics.push_back(t);
    }
    return req;
  };
  std::optional<protocol::FetchResponse> full;
  bool done = false;
  as_follower->call<protocol::FetchRequest, protocol::FetchResponse>(NodeId{leader}, request(0, 0, 0, true),
                                                                     protocol::kReplicaFetchVersion, &full, &done);
  REQUIRE(f.run_until([&] { return done; }));
  REQUIRE(full);
  REQUIRE(full->session_id != 0);
  // Nothing new on either partition: the incremental fetch waits (both are left out).
  std::optional<protocol::FetchResponse> waited;
  as_follower->call<protocol::FetchRequest, protocol::FetchResponse>(NodeId{leader}, request(full->session_id, 1, 20000, false),
                                                                     protocol::kReplicaFetchVersion, &waited, &done);
  f.sim.run_until(f.sim.now() + Duration::millis(100));
  REQUIRE_FALSE(done);

  // Meanwhile the leader's log of `a` starts at 2, and a record arrives in `b`.
  protocol::DeleteRecordsRequest del;
  del.timeout_ms = 30000;
  del.topics.push_back({.name = "q", .partitions = {{.partition_index = a, .offset = 2}}});
  auto deleted = f.call<protocol::DeleteRecordsRequest, protocol::DeleteRecordsResponse>(leader, del, 2);
  REQUIRE(deleted);
  REQUIRE(deleted->topics.at(0).partitions.at(0).error_code == ErrorCode::NONE);
  REQUIRE_FALSE(done);
  REQUIRE(f.produce(leader, "q", b, -1, "w") == ErrorCode::NONE);
  REQUIRE(f.run_until([&] { return done; }));
  REQUIRE(waited);
  // The record of `b` completed the fetch; `a` is in the answer too, with its new log start.
  std::map<int32_t, int64_t> log_starts;
  for (const auto& t : waited->responses)
    for (const auto& pd : t.partitions) log_starts[pd.partition_index] = pd.log_start_offset;
  CHECK(log_starts.count(b) == 1);
  CHECK(log_starts[a] == 2);
}
