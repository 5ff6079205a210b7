// Every advertised API at every advertised version, with mutated bodies, against a real broker
// (issue 17's "Done when"): for each (api, version) a valid body (the request with default fields,
// and for the data APIs one that names the topic) is mutated 24 ways (bit flips, boundary bytes,
// int32 fields overwritten with extremes, truncation, insertion, appended garbage) and sent on a
// connection of its own. Meanwhile a well-behaved connection asks ApiVersions after every
// (api, version) and must be answered each time, and a producer writes acks=all records the whole
// time; at the end every record is acknowledged and the broker is up. Seeds are fixed: a failure
// replays.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "engine/broker/broker.h"
#include "engine/client/producer_node.h"
#include "engine/coord/zk_server.h"
#include "engine/protocol/alter_user_scram_credentials.h"
#include "engine/protocol/create_acls.h"
#include "engine/protocol/delete_acls.h"
#include "engine/protocol/describe_acls.h"
#include "engine/protocol/protocol.h"
#include "engine/record/batch_builder.h"
#include "fuzz_broker_world.h"
#include "net_test_util.h"

using namespace gregor;
using protocol::ApiKey;

namespace {
constexpr Duration kWait = Duration::seconds(30);
constexpr NodeId kBroker = test::FuzzBrokerWorld::kBroker;
const NodeId kProducer{2001};
constexpr int kMutationsPerVersion = 24;

using AllRequests =
    std::tuple<protocol::ProduceRequest, protocol::FetchRequest, protocol::ListOffsetsRequest, protocol::MetadataRequest,
               protocol::LeaderAndIsrRequest, protocol::StopReplicaRequest, protocol::UpdateMetadataRequest,
               protocol::ControlledShutdownRequest, protocol::OffsetCommitRequest, protocol::OffsetFetchRequest,
               protocol::FindCoordinatorRequest, protocol::JoinGroupRequest, protocol::HeartbeatRequest,
               protocol::LeaveGroupRequest, protocol::SyncGroupRequest, protocol::DescribeGroupsRequest,
               protocol::ListGroupsRequest, protocol::ApiVersionsRequest, protocol::CreateTopicsRequest,
               protocol::DeleteTopicsRequest, protocol::InitProducerIdRequest, protocol::OffsetForLeaderEpochRequest,
               protocol::DescribeConfigsRequest, protocol::AlterConfigsRequest, protocol::IncrementalAlterConfigsRequest,
               protocol::DeleteRecordsRequest, protocol::DescribeLogDirsRequest, protocol::CreatePartitionsRequest,
               protocol::DeleteGroupsRequest, protocol::ElectLeadersRequest, protocol::OffsetDeleteRequest,
               protocol::DescribeClusterRequest, protocol::AlterPartitionReassignmentsRequest,
               protocol::ListPartitionReassignmentsRequest, protocol::SaslHandshakeRequest,
               protocol::SaslAuthenticateRequest, protocol::AlterUserScramCredentialsRequest,
               protocol::DescribeAclsRequest, protocol::CreateAclsRequest, protocol::DeleteAclsRequest,
               protocol::WriteTxnMarkersRequest, protocol::DescribeProducersRequest,
               protocol::AddPartitionsToTxnRequest, protocol::AddOffsetsToTxnRequest, protocol::EndTxnRequest,
               protocol::TxnOffsetCommitRequest, protocol::DescribeTransactionsRequest,
               protocol::ListTransactionsRequest>;

// A valid body of (key, version): the request with default fields. False when no codec has it.
template <size_t I = 0>
bool default_body(ApiKey key, int16_t version, Bytes* out) {
  if constexpr (I == std::tuple_size_v<AllRequests>) {
    return false;
  } else {
    using Req = std::tuple_element_t<I, AllRequests>;
    if (Req::kApiKey != key) return default_body<I + 1>(key, version, out);
    Req req{};
    // Fields null by default that some versions do not allow null.
    if constexpr (std::is_same_v<Req, protocol::OffsetFetchRequest>) req.topics.emplace();
    if constexpr (std::is_same_v<Req, protocol::MetadataRequest>) req.topics.emplace();  // v0 has no null list
    ByteWriter w;
    req.encode(w, version);
    *out = w.take();
    return true;
  }
}

// A body that reaches further into the broker: it names the fuzz topic and its partitions.
std::optional<Bytes> topical_body(ApiKey key, int16_t version) {
  ByteWriter w;
  switch (key) {
    case ApiKey::PRODUCE: {
      protocol::ProduceRequest p;
      p.acks = -1;
      p.timeout_ms = 1000;
      p.topic_data.resize(1);
      p.topic_data[0].name = "fuzz";
      p.topic_data[0].partition_data.resize(1);
      p.topic_data[0].partition_data[0].index = 0;
      record::Record rec;
      rec.value = to_bytes("fuzz");
      p.topic_data[0].partition_data[0].records = SharedBytes(record::build_batch(record::BatchBuildOptions{}, {rec}));
      p.encode(w, version);
      return w.take();
    }
    case ApiKey::FETCH: {
      protocol::FetchRequest f;
      f.replica_id = -1;
      f.max_wait_ms = 10;
      f.topics.resize(1);
      f.topics[0].topic = "fuzz";
      f.topics[0].partitions.resize(1);
      f.topics[0].partitions[0].partition_max_bytes = 1 << 20;
      f.encode(w, version);
      return w.take();
    }
    case ApiKey::METADATA: {
      protocol::MetadataRequest m;
      m.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.name = "fuzz"}};
      m.encode(w, version);
      return w.take();
    }
    default: return std::nullopt;
  }
}

Bytes mutate(Rng& rng, Bytes b) {
  const uint64_t kind = rng.uniform(7);
  auto pos = [&] { return static_cast<size_t>(rng.uniform(std::max<uint64_t>(b.size(), 1))); };
  switch (kind) {
    case 0:  // flip 1-8 bits
      if (!b.empty())
        for (uint64_t i = 0, n = 1 + rng.uniform(8); i < n; i++) b[pos()] ^= static_cast<uint8_t>(1u << rng.uniform(8));
      break;
    case 1: {  // boundary bytes
      const uint8_t values[] = {0x00, 0xff, 0x7f, 0x80, 0x01};
      if (!b.empty())
        for (uint64_t i = 0, n = 1 + rng.uniform(4); i < n; i++) b[pos()] = values[rng.uniform(std::size(values))];
      break;
    }
    case 2: {  // an int32 overwritten with an extreme (counts, lengths, epochs, ids)
      const uint32_t values[] = {0x7fffffffu, 0xffffffffu, 0x80000000u, 0x00010000u, 0xfffffffeu};
      if (b.size() >= 4) {
        const size_t at = static_cast<size_t>(rng.uniform(b.size() - 3));
        const uint32_t v = values[rng.uniform(std::size(values))];
        for (int i = 0; i < 4; i++) b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (24 - 8 * i));
      }
      break;
    }
    case 3: b.resize(pos()); break;  // truncated
    case 4: {                        // bytes inserted
      Bytes extra(1 + rng.uniform(16));
      for (auto& x : extra) x = static_cast<uint8_t>(rng.next_u64());
      b.insert(b.begin() + static_cast<long>(std::min(pos(), b.size())), extra.begin(), extra.end());
      break;
    }
    case 5:  // garbage appended
      for (uint64_t i = 0, n = 1 + rng.uniform(64); i < n; i++) b.push_back(static_cast<uint8_t>(rng.next_u64()));
      break;
    default:  // a uvarint-looking run (compact lengths of flexible versions)
      if (!b.empty())
        for (uint64_t i = 0, n = 1 + rng.uniform(5); i < n; i++) b[std::min(pos(), b.size() - 1)] = 0xff;
      break;
  }
  return b;
}

Bytes request(ApiKey key, int16_t version, int32_t correlation_id, const Bytes& body) {
  protocol::RequestHeader h;
  h.api_key = key;
  h.api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = "api-fuzz";
  ByteWriter w;
  h.encode(w);
  w.raw(as_view(body));
  return w.take();
}

}  // namespace

TEST_CASE("Every advertised API at every version with mutated bodies: the broker and its other clients carry on") {
  test::FuzzBrokerWorld fixture(test::node_config(kBroker.value), kWait);
  net::AsioWorld& world = fixture.world();
  auto* broker = fixture.broker();

  // The producer writes through the whole fuzz run.
  client::ProducerConfig pc;
  pc.bootstrap_servers = {kBroker};
  pc.acks = -1;
  client::ProducerWorkload workload;
  workload.topic = "fuzz";
  workload.rate_per_sec = 200;
  workload.max_records = 400;
  world.add_node(test::node_config(kProducer.value, /*listen=*/false),
                 [pc, workload](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, workload); });
  world.start(kProducer);
  auto* producer = world.node_as<client::ProducerNode>(kProducer);

  const uint16_t port = world.port(kBroker);
  test::RawClient good(world.io(), port);
  good.start_reading();
  int32_t good_correlation = 1'000'000;
  auto good_still_served = [&]() {
    protocol::ApiVersionsRequest av;
    ByteWriter body;
    av.encode(body, 0);
    const size_t before = good.frames().size();
    good.write_frame(request(ApiKey::API_VERSIONS, 0, ++good_correlation, body.take()));
    if (!world.run_until([&] { return good.frames().size() > before || good.closed(); }, kWait)) return false;
    if (good.closed()) return false;
    ByteReader r(as_view(good.frames().back()));
    return r.i32() == good_correlation;
  };

  Rng rng = Rng::derive(20261203, "api-fuzz", 0);
  int32_t correlation_id = 1;
  size_t versions = 0, frames = 0, closed_by_broker = 0;
  for (const protocol::ApiVersionRange& range : protocol::supported_api_versions()) {
    for (int16_t version = range.min_version; version <= range.max_version; version++) {
      INFO(protocol::api_name(range.api_key) << " v" << version);
      std::vector<Bytes> bases;
      Bytes body;
      REQUIRE(default_body(range.api_key, version, &body));
      bases.push_back(body);
      if (auto topical = topical_body(range.api_key, version)) bases.push_back(*topical);
      versions++;
      std::unique_ptr<test::RawClient> client;
      for (int m = 0; m < kMutationsPerVersion; m++) {
        const Bytes frame = request(range.api_key, version, correlation_id++, mutate(rng, bases[rng.uniform(bases.size())]));
        // The broker may have closed the connection after the last frame before this client saw it:
        // a failed write is such a close too.
        while (!client || client->closed() || !client->try_write_frame(frame)) {
          if (client) closed_by_broker++;
          client = std::make_unique<test::RawClient>(world.io(), port);
          client->start_reading();
        }
        frames++;
        world.run_for(Duration::millis(1));
      }
      client->shutdown_send();
      world.run_until([&] { return client->closed(); }, Duration::millis(200));
      REQUIRE(world.running(kBroker));
      REQUIRE(good_still_served());
    }
  }
  INFO(versions << " (api, version) pairs, " << frames << " mutated requests, " << closed_by_broker << " connections closed");
  CHECK(versions >= 60);
  REQUIRE(world.run_until([&] { return producer->acked() + producer->failed() == workload.max_records; }, Duration::seconds(60)));
  CHECK(producer->acked() == workload.max_records);
  CHECK(world.running(kBroker));
  CHECK(broker->controller().is_active());
  if (std::getenv("GREGOR_NET_TEST_LOG"))
    for (const auto& line : world.log_lines()) std::fprintf(stderr, "%s\n", line.c_str());
}
