// Bad input on a broker's socket: random frames, frames with a well-formed request header and a
// random or truncated body, frames cut off on the wire, negative and oversized sizes, from many
// connections. A request it cannot parse closes its connection (as Kafka does). Afterwards the
// broker is still up, has no stuck connection state, and serves a
// well-behaved client (the engine's producer, acks=all) and a plain ApiVersions request.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>

#include "engine/broker/broker.h"
#include "engine/client/producer_node.h"
#include "engine/coord/zk_server.h"
#include "engine/protocol/api_versions.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/header.h"
#include "engine/protocol/metadata.h"
#include "fuzz_broker_world.h"
#include "net_test_util.h"

using namespace gregor;

namespace {
constexpr Duration kWait = Duration::seconds(30);
constexpr NodeId kBroker = test::FuzzBrokerWorld::kBroker;
const NodeId kProducer{2001};

Bytes random_bytes(Rng& rng, size_t n) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng.next_u64());
  return b;
}

Bytes with_header(protocol::ApiKey key, int16_t version, int32_t correlation_id, const Bytes& body) {
  protocol::RequestHeader h;
  h.api_key = key;
  h.api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = "fuzzer";
  ByteWriter w;
  h.encode(w);
  w.raw(as_view(body));
  return w.take();
}

// A well-formed request of a random supported api and version, or its body replaced by noise.
Bytes plausible_request(Rng& rng, int32_t correlation_id) {
  auto table = protocol::supported_api_versions();
  const auto& range = table[rng.uniform(table.size())];
  const int16_t version = static_cast<int16_t>(rng.range(range.min_version, range.max_version));
  ByteWriter body;
  switch (rng.uniform(4)) {
    case 0: {
      protocol::MetadataRequest m;
      if (rng.uniform(2)) m.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{{.name = "fuzz"}};
      m.encode(body, 4);
      return with_header(protocol::ApiKey::METADATA, 4, correlation_id, body.take());
    }
    case 1: {
      protocol::FindCoordinatorRequest f;
      f.key = "g";
      f.encode(body, 2);
      return with_header(protocol::ApiKey::FIND_COORDINATOR, 2, correlation_id, body.take());
    }
    default:
      return with_header(range.api_key, version, correlation_id, random_bytes(rng, rng.uniform(300)));
  }
}

void append_size(Bytes& b, uint32_t n) {
  for (int shift = 24; shift >= 0; shift -= 8) b.push_back(static_cast<uint8_t>(n >> shift));
}
}  // namespace

TEST_CASE("A broker survives random, truncated and oversized frames and keeps serving a well-behaved client") {
  net::NodeConfig node = test::node_config(kBroker.value);
  node.transport.socket_request_max_bytes = 1 << 20;
  test::FuzzBrokerWorld fixture(node, kWait);
  net::AsioWorld& world = fixture.world();

  Rng rng = Rng::derive(20261202, "fuzz", 0);
  const uint16_t port = world.port(kBroker);
  int32_t correlation_id = 1;
  for (int connection = 0; connection < 200; connection++) {
    auto client = std::make_unique<test::RawClient>(world.io(), port);
    client->start_reading();
    const uint64_t kind = rng.uniform(5);
    for (int frame = 0; frame < 5; frame++) {
      switch (kind) {
        case 0: client->write_frame(random_bytes(rng, rng.uniform(200))); break;
        case 1: client->write_frame(plausible_request(rng, correlation_id++)); break;
        case 2: {  // a well-formed request cut short inside the frame
          Bytes full = plausible_request(rng, correlation_id++);
          full.resize(rng.uniform(full.size() + 1));
          client->write_frame(full);
          break;
        }
        case 3: {  // the size promises more than ever comes: the frame is cut off on the wire
          Bytes b;
          Bytes body = plausible_request(rng, correlation_id++);
          append_size(b, static_cast<uint32_t>(body.size() + 1 + rng.uniform(1000)));
          b.insert(b.end(), body.begin(), body.end());
          client->write_raw(b);
          frame = 5;
          break;
        }
        default: {  // a negative or oversized size
          Bytes b;
          append_size(b, rng.uniform(2) ? 0x80000000u + static_cast<uint32_t>(rng.uniform(1000)) : (2u << 20));
          b.push_back(0);
          client->write_raw(b);
          frame = 5;
          break;
        }
      }
    }
    // A frame of noise cannot be a request the broker answers: it closes that connection.
    if (kind == 0) CHECK(world.run_until([&] { return client->closed(); }, Duration::seconds(2)));
    world.run_for(Duration::millis(2));
    client->shutdown_send();
    world.run_until([&] { return client->closed(); }, Duration::millis(200));
  }
  REQUIRE(world.running(kBroker));
  CHECK(world.runtime(kBroker).stats().protocol_errors > 0);  // the bad sizes were seen

  // A well-behaved raw client: ApiVersions is answered.
  test::RawClient good(world.io(), port);
  good.start_reading();
  ByteWriter body;
  protocol::ApiVersionsRequest av;
  av.encode(body, 2);
  good.write_frame(with_header(protocol::ApiKey::API_VERSIONS, 2, 4242, body.take()));
  REQUIRE(world.run_until([&] { return !good.frames().empty(); }, kWait));
  ByteReader r(as_view(good.frames()[0]));
  CHECK(r.i32() == 4242);

  // And the engine's producer gets every record acknowledged.
  client::ProducerConfig pc;
  pc.bootstrap_servers = {kBroker};
  client::ProducerWorkload workload;
  workload.topic = "fuzz";
  workload.rate_per_sec = 2000;
  workload.max_records = 100;
  world.add_node(test::node_config(kProducer.value, /*listen=*/false),
                 [pc, workload](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, pc, workload); });
  world.start(kProducer);
  auto* producer = world.node_as<client::ProducerNode>(kProducer);
  REQUIRE(world.run_until([&] { return producer->acked() + producer->failed() == 100; }, kWait));
  CHECK(producer->acked() == 100);
  CHECK(world.running(kBroker));
  if (std::getenv("GREGOR_NET_TEST_LOG"))
    for (const auto& line : world.log_lines()) std::fprintf(stderr, "%s\n", line.c_str());
}
