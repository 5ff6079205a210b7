// NetworkClient's request timeouts (engine/protocol/network_client.h): each request fails with
// REQUEST_TIMED_OUT at its own deadline, in correlation id order when deadlines meet, and one timer
// covers every pending request (engine/core/deadline_timer.h) instead of one per request.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "engine/protocol/metadata.h"
#include "engine/protocol/network_client.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace gregor::test {
namespace {

using protocol::ErrorCode;

// A peer that answers every request (a bare response header: the correlation id) unless silent.
class Peer final : public Node {
 public:
  explicit Peer(Runtime& rt) : rt_(rt) {}
  void start() override {}
  void on_message(NodeId from, Bytes frame) override {
    received++;
    if (silent) return;
    ByteReader r(as_view(frame));
    r.i16();  // api key
    r.i16();  // api version
    const int32_t correlation_id = r.i32();
    ByteWriter w;
    w.i32(correlation_id);
    rt_.send(from, w.take());
  }
  void on_disconnect(NodeId) override {}
  bool silent = false;
  int received = 0;

 private:
  Runtime& rt_;
};

class Client final : public Node {
 public:
  explicit Client(Runtime& rt) : rt_(rt), net_(rt, "timeout-test") {}
  void start() override {}
  void on_message(NodeId from, Bytes frame) override { net_.on_message(from, std::move(frame)); }
  void on_disconnect(NodeId peer) override { net_.on_disconnect(peer); }

  struct Outcome {
    std::string name;
    ErrorCode error;
    Time at;
  };
  // A Metadata v0 request to node 1 (its response header is the correlation id alone).
  void send(const std::string& name, Duration timeout) {
    protocol::MetadataRequest req;
    req.topics.emplace();  // v0 has no null list: an empty one (every topic)
    net_.send(NodeId{1}, req, 0, timeout, [this, name](ErrorCode error, ByteReader*) {
      outcomes.push_back({name, error, rt_.now()});
      if (chain > 0) {
        chain--;
        send(name, Duration::seconds(30));
      }
    });
  }
  protocol::NetworkClient& net() { return net_; }
  std::vector<Outcome> outcomes;
  int chain = 0;  // requests still to send one after another, each when the last is answered

 private:
  Runtime& rt_;
  protocol::NetworkClient net_;
};

struct World {
  sim::Simulator sim{11};
  Peer* peer = nullptr;
  Client* client = nullptr;
  World() {
    sim.add_node(NodeId{1}, "peer", [this](Runtime& rt) {
      auto p = std::make_unique<Peer>(rt);
      peer = p.get();
      return p;
    });
    sim.add_node(NodeId{gregor::sim::kFirstClientNodeId}, "client", [this](Runtime& rt) {
      auto c = std::make_unique<Client>(rt);
      client = c.get();
      return c;
    });
    sim.run_for(Duration::millis(1));
  }
};

}  // namespace

TEST_CASE("network client: each request times out at its own deadline, in order, under one timer", "[network-client]") {
  World w;
  w.peer->silent = true;
  const Time t0 = w.sim.now();
  const size_t pending0 = w.sim.loop().pending();
  w.client->send("a", Duration::millis(100));
  w.sim.run_for(Duration::millis(10));
  w.client->send("b", Duration::millis(50));
  w.sim.run_for(Duration::millis(10));
  w.client->send("c", Duration::millis(100));
  w.client->send("d", Duration::millis(80));  // the same deadline as "a"
  w.sim.run_for(Duration::millis(5));
  REQUIRE(w.peer->received == 4);
  // Delivered, unanswered: what is scheduled for them is one timer, not four.
  CHECK(w.sim.loop().pending() == pending0 + 1);
  CHECK(w.client->net().in_flight_total() == 4);
  w.sim.run_for(Duration::millis(200));
  REQUIRE(w.client->outcomes.size() == 4);
  const auto& o = w.client->outcomes;
  CHECK(o[0].name == "b");
  CHECK(o[0].at == t0 + Duration::millis(60));
  CHECK(o[1].name == "a");
  CHECK(o[1].at == t0 + Duration::millis(100));
  CHECK(o[2].name == "d");
  CHECK(o[2].at == t0 + Duration::millis(100));
  CHECK(o[3].name == "c");
  CHECK(o[3].at == t0 + Duration::millis(120));
  for (const auto& x : o) CHECK(x.error == ErrorCode::REQUEST_TIMED_OUT);
  CHECK(w.client->net().in_flight_total() == 0);
  // Nothing pending: nothing stays scheduled for the client.
  CHECK(w.sim.loop().pending() == pending0);
}

TEST_CASE("network client: answered requests never time out, and their deadlines cost no timer each", "[network-client]") {
  World w;
  const size_t pending0 = w.sim.loop().pending();
  w.client->chain = 499;
  w.client->send("r", Duration::seconds(30));
  // Each answer comes within milliseconds; run past the first request's deadline.
  w.sim.run_for(Duration::seconds(31));
  REQUIRE(w.client->outcomes.size() == 500);
  for (const auto& x : w.client->outcomes) CHECK(x.error == ErrorCode::NONE);
  CHECK(w.client->outcomes.back().at < Time{0} + Duration::seconds(30));
  CHECK(w.client->net().in_flight_total() == 0);
  CHECK(w.sim.loop().pending() <= pending0 + 1);
  // A request sent now still times out at its deadline.
  w.peer->silent = true;
  const Time sent = w.sim.now();
  w.client->send("late", Duration::seconds(5));
  w.sim.run_for(Duration::seconds(6));
  REQUIRE(w.client->outcomes.size() == 501);
  CHECK(w.client->outcomes.back().error == ErrorCode::REQUEST_TIMED_OUT);
  CHECK(w.client->outcomes.back().at == sent + Duration::seconds(5));
}

}  // namespace gregor::test
