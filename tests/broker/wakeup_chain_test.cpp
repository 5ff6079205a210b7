// The acks=all wake-up chain, timed in virtual time on links of a fixed latency: nothing between a
// produce and its acknowledgement may wait for a timer or a later batch. A produce reaches the
// leader (one hop); the leader appends, and the followers' long-poll fetches parked there complete
// in the same instant (a second hop brings the records to them); each follower appends and sends
// its next fetch, naming the new offset, in the same instant (a third hop); the leader moves the
// high watermark on that fetch and answers the delayed produce at once (the fourth hop). The
// real-socket p99 of issue 22 rests on this chain; a deferral to a timer or to the fetch's
// max.wait here would show as a whole replica.fetch.wait.max.ms.
#include "cluster_fixture.h"
#include "engine/protocol/fetch.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

constexpr int64_t kHopMs = 1;
// n hops of the fixed link latency.
Duration hops(int64_t n) { return Duration::millis(n * kHopMs); }

// A cluster whose links all take exactly one hop, with an RF 3 topic whose followers are idle: their
// fetches are parked at the leader (replica.fetch.wait.max.ms is 500, the last answer came 100 ms ago).
void start_idle(test::ClusterFixture& f) {
  f.sim.set_latency(sim::Simulator::kWorld, sim::Simulator::kWorld, sim::LinkLatency{hops(1), Duration{0}});
  f.create_topic("t", 1, 3);
  const int32_t leader = f.leader_of("t", 0);
  REQUIRE(f.produce(leader, "t", 0, -1, "warm-up") == ErrorCode::NONE);
  f.sim.run_for(Duration::millis(100));
}

std::vector<int32_t> followers_of(int32_t leader) {
  std::vector<int32_t> out;
  for (int32_t b = 1; b <= 3; b++)
    if (b != leader) out.push_back(b);
  return out;
}

}  // namespace

TEST_CASE("wake-up chain: an acks=all produce at an idle RF 3 leader is answered after exactly four hops", "[broker][wakeup]") {
  test::ClusterFixture f(22);
  start_idle(f);
  const int32_t leader = f.leader_of("t", 0);
  const std::vector<int32_t> followers = followers_of(leader);
  const Offset end_before = f.replica(leader, "t", 0)->log_end_offset();

  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 30000;
  req.topic_data.push_back({"t", {{0, SharedBytes(test::make_batch("timed"))}}});
  std::optional<protocol::ProduceResponse> resp;
  bool done = false;
  const Time sent = f.sim.now();
  f.client->call<protocol::ProduceRequest, protocol::ProduceResponse>(NodeId{leader}, req, 7, &resp, &done);

  // The leader appends one hop later.
  REQUIRE(f.run_until([&] { return f.replica(leader, "t", 0)->log_end_offset() > end_before; }, Duration::seconds(2)));
  CHECK(f.sim.now() - sent == hops(1));
  // The parked fetches were answered in that instant: both followers have the record one hop later.
  REQUIRE(f.run_until([&] {
    for (int32_t b : followers)
      if (f.replica(b, "t", 0)->log_end_offset() <= end_before) return false;
    return true;
  }, Duration::seconds(2)));
  CHECK(f.sim.now() - sent == hops(2));
  CHECK_FALSE(done);
  // Their next fetches went out at once: the leader's high watermark covers the record a hop later.
  REQUIRE(f.run_until([&] { return f.replica(leader, "t", 0)->high_watermark() > end_before; }, Duration::seconds(2)));
  CHECK(f.sim.now() - sent == hops(3));
  // And the delayed produce was answered in that instant.
  REQUIRE(f.run_until([&] { return done; }, Duration::seconds(2)));
  CHECK(f.sim.now() - sent == hops(4));
  REQUIRE(resp);
  CHECK(resp->responses.at(0).partition_responses.at(0).error_code == ErrorCode::NONE);
  CHECK(resp->responses.at(0).partition_responses.at(0).base_offset == end_before.value);
}

TEST_CASE("wake-up chain: a second produce queued behind the first is handled the instant the first is answered", "[broker][wakeup]") {
  // The leader takes one request per connection at a time (as Kafka does): the second produce,
  // sent right behind the first, is handled in the instant the first is answered (three hops in),
  // and the followers' fetches that moved the high watermark park then and complete on its append
  // at once: its own replication round is two hops more, and its answer one hop back, six in all.
  test::ClusterFixture f(23);
  start_idle(f);
  const int32_t leader = f.leader_of("t", 0);
  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 30000;
  req.topic_data.push_back({"t", {{0, SharedBytes(test::make_batch("first"))}}});
  std::optional<protocol::ProduceResponse> first, second;
  bool first_done = false, second_done = false;
  const Time sent = f.sim.now();
  f.client->call<protocol::ProduceRequest, protocol::ProduceResponse>(NodeId{leader}, req, 7, &first, &first_done);
  req.topic_data.at(0).partition_data.at(0).records = SharedBytes(test::make_batch("second"));
  f.client->call<protocol::ProduceRequest, protocol::ProduceResponse>(NodeId{leader}, req, 7, &second, &second_done);
  REQUIRE(f.run_until([&] { return first_done; }, Duration::seconds(2)));
  CHECK(f.sim.now() - sent == hops(4));
  REQUIRE(f.run_until([&] { return second_done; }, Duration::seconds(2)));
  CHECK(f.sim.now() - sent == hops(6));
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->responses.at(0).partition_responses.at(0).error_code == ErrorCode::NONE);
  CHECK(second->responses.at(0).partition_responses.at(0).error_code == ErrorCode::NONE);
  CHECK(second->responses.at(0).partition_responses.at(0).base_offset ==
        first->responses.at(0).partition_responses.at(0).base_offset + 1);
}

TEST_CASE("wake-up chain: a consumer's parked fetch completes the instant the high watermark covers a new record", "[broker][wakeup]") {
  // The end-to-end half of the chain (gregor bench latency): a consumer long-polls at the log end,
  // parked at the leader; it may read a record only once the high watermark covers it, three hops
  // after the produce, and the leader answers it in that instant: the records reach it a hop later.
  test::ClusterFixture f(24);
  start_idle(f);
  const int32_t leader = f.leader_of("t", 0);
  const Offset end_before = f.replica(leader, "t", 0)->log_end_offset();
  // A connection of its own: a leader takes one request per connection at a time.
  const NodeId consumer_id{sim::kFirstClientNodeId + 1};
  f.sim.add_node(consumer_id, "consumer", [](Runtime& rt) { return std::make_unique<test::RequestClient>(rt); });
  auto* consumer = f.sim.node_as<test::RequestClient>(consumer_id);
  protocol::FetchRequest fetch;
  fetch.max_wait_ms = 500;
  fetch.min_bytes = 1;
  protocol::FetchRequest::FetchTopic topic;
  topic.topic = "t";
  protocol::FetchRequest::FetchPartition fp;
  fp.partition = 0;
  fp.fetch_offset = end_before.value;
  fp.partition_max_bytes = 1 << 20;
  topic.partitions.push_back(fp);
  fetch.topics.push_back(topic);
  constexpr int16_t kFetchVersion = 11;  // sessionless, topics by name
  std::optional<protocol::FetchResponse> fetched;
  bool fetch_done = false;
  consumer->call<protocol::FetchRequest, protocol::FetchResponse>(NodeId{leader}, fetch, kFetchVersion, &fetched, &fetch_done);
  f.sim.run_for(Duration::millis(10));
  REQUIRE_FALSE(fetch_done);  // parked: nothing to read yet

  protocol::ProduceRequest req;
  req.acks = 1;  // the leader answers the producer at once; the consumer still waits for the HW
  req.timeout_ms = 30000;
  req.topic_data.push_back({"t", {{0, SharedBytes(test::make_batch("read me"))}}});
  std::optional<protocol::ProduceResponse> produced;
  bool produce_done = false;
  const Time sent = f.sim.now();
  f.client->call<protocol::ProduceRequest, protocol::ProduceResponse>(NodeId{leader}, req, 7, &produced, &produce_done);
  REQUIRE(f.run_until([&] { return produce_done; }, Duration::seconds(2)));
  CHECK(f.sim.now() - sent == hops(2));
  CHECK_FALSE(fetch_done);  // the record is not committed yet
  REQUIRE(f.run_until([&] { return fetch_done; }, Duration::seconds(2)));
  CHECK(f.sim.now() - sent == hops(4));
  REQUIRE(fetched);
  const auto& pd = fetched->responses.at(0).partitions.at(0);
  CHECK(pd.error_code == ErrorCode::NONE);
  CHECK(pd.high_watermark == end_before.value + 1);
  REQUIRE(pd.records);
  CHECK_FALSE(pd.records->empty());
}
