// Topic lifecycle as Kafka 3.9 runs it: a topic is known to every broker (its metadata and its
// leader's partition) by the time CreateTopics answers, and a deleted topic's data never shows
// through a new topic of the same name.
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/protocol/delete_topics.h"
#include "engine/protocol/list_offsets.h"
#include "engine/protocol/metadata.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

protocol::CreateTopicsResponse create(test::ClusterFixture& f, const std::string& name, int partitions, int rf) {
  protocol::CreateTopicsRequest req;
  req.timeout_ms = 30000;
  req.topics.push_back({});
  req.topics[0].name = name;
  req.topics[0].num_partitions = partitions;
  req.topics[0].replication_factor = static_cast<int16_t>(rf);
  auto resp = f.call<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(*f.cluster.controller(), req, 3);
  REQUIRE(resp);
  REQUIRE(resp->topics.size() == 1);
  return *resp;
}

ErrorCode delete_topic(test::ClusterFixture& f, const std::string& name) {
  protocol::DeleteTopicsRequest req;
  req.timeout_ms = 30000;
  req.topic_names.push_back(name);
  auto resp = f.call<protocol::DeleteTopicsRequest, protocol::DeleteTopicsResponse>(*f.cluster.controller(), req, 1);
  REQUIRE(resp);
  REQUIRE(resp->responses.size() == 1);
  return resp->responses[0].error_code;
}

protocol::MetadataResponse metadata(test::ClusterFixture& f, int32_t broker, const std::string& topic) {
  protocol::MetadataRequest req;
  req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.name = topic}};
  req.allow_auto_topic_creation = false;
  auto m = f.call<protocol::MetadataRequest, protocol::MetadataResponse>(broker, req, 4);
  REQUIRE(m);
  REQUIRE(m->topics.size() == 1);
  return *m;
}

// The latest offset of a partition as its leader answers ListOffsets (-1 on an error).
int64_t latest_offset(test::ClusterFixture& f, int32_t broker, const std::string& topic, int32_t partition) {
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  req.topics.push_back({topic, {}});
  req.topics[0].partitions.push_back({});
  req.topics[0].partitions[0].partition_index = partition;
  req.topics[0].partitions[0].timestamp = -1;  // latest
  auto r = f.call<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse>(broker, req, 1);
  REQUIRE(r);
  const auto& p = r->topics.at(0).partitions.at(0);
  return p.error_code == ErrorCode::NONE ? p.offset : -1;
}

}  // namespace

TEST_CASE("a new topic is known to every broker when CreateTopics answers: produce via another broker, no retry",
          "[broker][topic-lifecycle]") {
  // Before the fix the controller answered once its own metadata had the leaders; other brokers
  // said UNKNOWN_TOPIC_OR_PARTITION or showed no leader for a while, and a client without retries
  // failed. Many topics over several seeds: every one must work at the first try.
  for (uint64_t seed : {1, 2, 3, 4}) {
    test::ClusterFixture f(seed);
    REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
    for (int i = 0; i < 12; i++) {
      const std::string name = "fresh-" + std::to_string(i);
      const int partitions = 1 + i % 4;
      auto resp = create(f, name, partitions, 1 + i % 3);
      REQUIRE(resp.topics[0].error_code == ErrorCode::NONE);
      // At the moment of the answer, every live broker's metadata has every partition with its
      // leader, and that leader already leads the partition.
      for (int32_t b = 1; b <= 3; b++) {
        auto parts = f.cluster.broker(b)->metadata().topic_partitions(name);
        REQUIRE(static_cast<int>(parts.size()) == partitions);
        for (const auto& [index, pm] : parts) {
          REQUIRE(pm.leader >= 0);
          auto* leader_replica = f.replica(pm.leader, name, index);
          REQUIRE(leader_replica);
          CHECK(leader_replica->is_leader());
        }
      }
      // A client that asks a broker other than the controller, then produces once to the leader it
      // was told of.
      const int32_t other = *f.cluster.controller() % 3 + 1;
      auto m = metadata(f, other, name);
      REQUIRE(m.topics[0].error_code == ErrorCode::NONE);
      REQUIRE(static_cast<int>(m.topics[0].partitions.size()) == partitions);
      for (const auto& p : m.topics[0].partitions) {
        REQUIRE(p.error_code == ErrorCode::NONE);
        CHECK(f.produce(p.leader_id, name, p.partition_index, 1, "v") == ErrorCode::NONE);
      }
    }
  }
}

TEST_CASE("delete then immediately recreate: the new topic starts at offset 0 on every broker",
          "[broker][topic-lifecycle]") {
  for (uint64_t seed : {11, 12, 13}) {
    test::ClusterFixture f(seed);
    REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
    REQUIRE(create(f, "again", 2, 3).topics[0].error_code == ErrorCode::NONE);
    for (int i = 0; i < 5; i++) REQUIRE(f.produce(f.leader_of("again", 0), "again", 0, -1, "old") == ErrorCode::NONE);
    REQUIRE(f.run_until([&] {
      for (int32_t b = 1; b <= 3; b++) {
        auto* r = f.replica(b, "again", 0);
        if (!r || r->log_end_offset().value != 5) return false;
      }
      return true;
    }));
    REQUIRE(delete_topic(f, "again") == ErrorCode::NONE);
    // The answer came after every broker dropped the topic.
    for (int32_t b = 1; b <= 3; b++) {
      CHECK_FALSE(f.cluster.broker(b)->metadata().has_topic("again"));
      CHECK(f.replica(b, "again", 0) == nullptr);
    }
    REQUIRE(create(f, "again", 2, 3).topics[0].error_code == ErrorCode::NONE);
    for (int32_t b = 1; b <= 3; b++) {
      auto* r = f.replica(b, "again", 0);
      REQUIRE(r);
      CHECK(r->log_end_offset().value == 0);
      CHECK(r->log_start_offset().value == 0);
    }
    const int32_t leader = f.leader_of("again", 0);
    CHECK(latest_offset(f, leader, "again", 0) == 0);
    int64_t offset = -1;
    REQUIRE(f.produce(leader, "again", 0, -1, "new", &offset) == ErrorCode::NONE);
    CHECK(offset == 0);
  }
}

TEST_CASE("a broker away while its topic was deleted does not serve the old data through the new topic",
          "[broker][topic-lifecycle]") {
  // The deletion finishes without the crashed broker (its StopReplica cannot reach it), so its old
  // files stay on its disk. When it is back and the topic is made again, the LeaderAndIsr carries
  // the new topic id: the old directory (another id in partition.metadata) is retired, and the
  // replica starts empty instead of offering the old topic's offsets.
  test::ClusterFixture f(21);
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  REQUIRE(create(f, "phoenix", 1, 3).topics[0].error_code == ErrorCode::NONE);
  for (int i = 0; i < 7; i++) REQUIRE(f.produce(f.leader_of("phoenix", 0), "phoenix", 0, -1, "old") == ErrorCode::NONE);
  int32_t away = 0;
  for (int32_t b = 1; b <= 3; b++)
    if (b != *f.cluster.controller() && b != f.leader_of("phoenix", 0)) away = b;
  REQUIRE(away != 0);
  REQUIRE(f.run_until([&] { return f.replica(away, "phoenix", 0)->log_end_offset().value == 7; }));
  f.sim.crash(NodeId{away});
  REQUIRE(f.run_until([&] { return f.cluster.broker(*f.cluster.controller())->controller().live_brokers().size() == 2; }));
  REQUIRE(delete_topic(f, "phoenix") == ErrorCode::NONE);
  f.sim.restart(NodeId{away});
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  REQUIRE(create(f, "phoenix", 1, 3).topics[0].error_code == ErrorCode::NONE);
  auto* r = f.replica(away, "phoenix", 0);
  REQUIRE(r);
  CHECK(r->log_end_offset().value == 0);
  CHECK(f.count("stale_topic_incarnation", away) == 1);
  // The old files are kept aside for file.delete.delay.ms, then removed.
  auto& disk = f.sim.disk(NodeId{away});
  auto retired = [&] {
    int n = 0;
    auto names = disk.list("");
    REQUIRE(names);
    for (const auto& name : *names)
      if (name.find("phoenix-0.") == 0 && name.size() > 7 && name.substr(name.size() - 7) == "-delete") n++;
    return n;
  };
  CHECK(retired() == 1);
  f.sim.run_for(Duration::seconds(61));
  CHECK(retired() == 0);
  // The leader's log is the new one: offset 0 is the next write.
  int64_t offset = -1;
  REQUIRE(f.produce(f.leader_of("phoenix", 0), "phoenix", 0, -1, "new", &offset) == ErrorCode::NONE);
  CHECK(offset == 0);
}

TEST_CASE("partition lookups by topic right after the topic is deleted and made again find the new replicas",
          "[broker][topic-lifecycle]") {
  // ReplicaManager::partition remembers the topic it found last: the lookups below alternate
  // between a topic that goes away and comes back with fewer partitions, and one that stays.
  test::ClusterFixture f(31);
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  REQUIRE(create(f, "stays", 1, 3).topics[0].error_code == ErrorCode::NONE);
  REQUIRE(create(f, "goes", 3, 3).topics[0].error_code == ErrorCode::NONE);
  for (int i = 0; i < 4; i++) REQUIRE(f.produce(f.leader_of("goes", 2), "goes", 2, -1, "old") == ErrorCode::NONE);
  REQUIRE(f.run_until([&] {
    for (int32_t b = 1; b <= 3; b++)
      if (!f.replica(b, "goes", 2) || f.replica(b, "goes", 2)->log_end_offset().value != 4) return false;
    return true;
  }));
  for (int32_t b = 1; b <= 3; b++) {
    REQUIRE(f.replica(b, "goes", 2));  // remembered as the last topic found on this broker
    REQUIRE(f.replica(b, "goes", 0));
  }
  REQUIRE(delete_topic(f, "goes") == ErrorCode::NONE);
  for (int32_t b = 1; b <= 3; b++) {
    CHECK(f.replica(b, "goes", 2) == nullptr);
    CHECK(f.replica(b, "goes", 0) == nullptr);
    CHECK(f.replica(b, "stays", 0) != nullptr);
    CHECK(f.replica(b, "goes", 0) == nullptr);
  }
  REQUIRE(create(f, "goes", 2, 3).topics[0].error_code == ErrorCode::NONE);
  for (int32_t b = 1; b <= 3; b++) {
    auto* r = f.replica(b, "goes", 0);
    REQUIRE(r);
    CHECK(r->log_end_offset().value == 0);
    CHECK(f.replica(b, "goes", 1) != nullptr);
    CHECK(f.replica(b, "goes", 2) == nullptr);  // the new topic has two partitions
  }
  // A restarted broker has a new ReplicaManager: its lookups find its reopened replicas.
  const int32_t b = f.leader_of("stays", 0) == 1 ? 2 : 1;
  REQUIRE(f.replica(b, "goes", 1));
  f.sim.crash(NodeId{b});
  f.sim.restart(NodeId{b});
  REQUIRE(f.run_until([&] { return f.cluster.ready() && f.replica(b, "goes", 1) != nullptr; }));
  CHECK(f.replica(b, "goes", 1)->log_end_offset().value == 0);
  CHECK(f.replica(b, "goes", 2) == nullptr);
  CHECK(f.replica(b, "stays", 0) != nullptr);
}
