// The simulated network: connection ids, FIFO per direction, partitions, clogs, latency.
#include <catch2/catch.hpp>

#include "probe_node.h"

using namespace gregor;
using gregor::test::ProbeWorld;

namespace {
// Latency with a jitter far larger than the base, so frames would overtake each other if the
// channel did not keep them in order.
sim::SimConfig jittery() {
  sim::SimConfig c;
  c.latency = sim::LinkLatency{Duration::micros(100), Duration::millis(10)};
  return c;
}

std::vector<std::string> numbered(int n, const std::string& prefix = "f") {
  std::vector<std::string> v;
  for (int i = 0; i < n; i++) v.push_back(prefix + std::to_string(i));
  return v;
}

int count_disconnects(const test::ProbeLog& log, int32_t peer) {
  int n = 0;
  for (const auto& e : log.of("disconnect"))
    if (e.peer == NodeId{peer}) n++;
  return n;
}
}  // namespace

TEST_CASE("network: a request arrives from the sender's negative id, the reply from the peer's id") {
  ProbeWorld w(1);
  w.add(1);
  w.add(2);
  CHECK(w.probe(1).send(NodeId{2}, "request"));
  w.sim.run_for(Duration::millis(5));
  auto at2 = w.log(2).of("msg");
  REQUIRE(at2.size() == 1);
  CHECK(at2[0].peer == NodeId{-1});
  CHECK(is_inbound_connection(at2[0].peer));
  CHECK(w.probe(2).send(at2[0].peer, "response"));
  w.sim.run_for(Duration::millis(5));
  auto at1 = w.log(1).of("msg");
  REQUIRE(at1.size() == 1);
  CHECK(at1[0].peer == NodeId{2});
  CHECK(at1[0].data == "response");
  CHECK(w.sim.frames_sent() == 2);
  CHECK(w.sim.frames_delivered() == 2);
}

TEST_CASE("network: latency is base plus jitter, within bounds") {
  sim::SimConfig c;
  c.latency = sim::LinkLatency{Duration::micros(500), Duration::micros(200)};
  ProbeWorld w(3, c);
  w.add(1);
  w.add(2);
  for (int i = 0; i < 50; i++) {
    Time sent = w.sim.now();
    REQUIRE(w.probe(1).send(NodeId{2}, "x"));
    w.sim.run_for(Duration::millis(2));
    auto msgs = w.log(2).of("msg");
    REQUIRE(msgs.size() == static_cast<size_t>(i + 1));
    Duration took = msgs.back().at - sent;
    REQUIRE(took >= Duration::micros(500));
    REQUIRE(took <= Duration::micros(700));
  }
}

TEST_CASE("network: FIFO per directed pair even with large jitter") {
  ProbeWorld w(7, jittery());
  w.add(1);
  w.add(2);
  w.add(3);
  auto frames = numbered(300);
  // Bursts at the same instant and sends spread over time, both towards node 2 and node 3.
  for (size_t i = 0; i < frames.size(); i++) {
    REQUIRE(w.probe(1).send(NodeId{2}, frames[i]));
    REQUIRE(w.probe(1).send(NodeId{3}, frames[i]));
    if (i % 10 == 9) w.sim.run_for(Duration::micros(1500));
  }
  w.sim.run_for(Duration::seconds(1));
  CHECK(w.log(2).messages() == frames);
  CHECK(w.log(3).messages() == frames);
  // The jitter was real: arrival gaps differ, so the order was kept by the channel.
  std::set<int64_t> gaps;
  auto msgs = w.log(2).of("msg");
  for (size_t i = 1; i < msgs.size(); i++) gaps.insert((msgs[i].at - msgs[i - 1].at).us);
  CHECK(gaps.size() > 10);
}

TEST_CASE("network: a reply on the inbound connection keeps order with the peer's own requests") {
  // Node 2's replies to node 1 (send(-1)) and its own requests to node 1 (send(1)) travel on the
  // same simulated connection, so together they arrive in send order.
  ProbeWorld w(9, jittery());
  w.add(1);
  w.add(2);
  std::vector<std::string> sent;
  for (int i = 0; i < 100; i++) {
    std::string s = "m" + std::to_string(i);
    REQUIRE(w.probe(2).send(NodeId{i % 2 ? -1 : 1}, s));
    sent.push_back(s);
  }
  w.sim.run_for(Duration::seconds(1));
  CHECK(w.log(1).messages() == sent);
}

TEST_CASE("network: sends to an unknown, absent or crashed node fail") {
  ProbeWorld w(1);
  w.add(1);
  w.add(2);
  CHECK_FALSE(w.probe(1).send(NodeId{9}, "x"));
  CHECK_FALSE(w.probe(1).send(NodeId{-9}, "x"));
  CHECK_FALSE(w.probe(1).send(NodeId{0}, "x"));
  w.sim.crash(NodeId{2});
  CHECK_FALSE(w.probe(1).send(NodeId{2}, "x"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages().empty());
}

TEST_CASE("network: a partition drops what is in flight both ways and refuses sends until healed") {
  ProbeWorld w(11);
  w.add(1);
  w.add(2);
  REQUIRE(w.probe(1).send(NodeId{2}, "before"));
  w.sim.run_for(Duration::millis(5));
  REQUIRE(w.log(2).messages() == std::vector<std::string>{"before"});

  REQUIRE(w.probe(1).send(NodeId{2}, "in-flight-1to2"));
  REQUIRE(w.probe(2).send(NodeId{-1}, "in-flight-2to1"));
  w.sim.run_for(Duration::micros(100));  // still in flight: the minimum latency is 500 us
  w.sim.partition({NodeId{1}}, {NodeId{2}});
  CHECK(w.sim.is_cut(NodeId{1}, NodeId{2}));
  CHECK(w.sim.is_cut(NodeId{2}, NodeId{1}));
  CHECK_FALSE(w.probe(1).send(NodeId{2}, "refused"));
  CHECK_FALSE(w.probe(2).send(NodeId{1}, "refused"));
  CHECK_FALSE(w.probe(2).send(NodeId{-1}, "refused"));
  w.sim.run_for(Duration::millis(50));
  CHECK(w.log(2).messages() == std::vector<std::string>{"before"});
  CHECK(w.log(1).messages().empty());
  CHECK(w.sim.frames_dropped() >= 2);

  // Both ends hear of the break once per connection id (outbound: the node id; inbound: negative).
  CHECK(count_disconnects(w.log(1), 2) == 1);
  CHECK(count_disconnects(w.log(1), -2) == 1);
  CHECK(count_disconnects(w.log(2), 1) == 1);
  CHECK(count_disconnects(w.log(2), -1) == 1);
  auto d = w.log(1).of("disconnect");
  REQUIRE(!d.empty());
  CHECK(d[0].at == Time{5'100});  // at once, at the partition

  // A second partition of an already broken connection reports nothing new.
  w.sim.partition({NodeId{1}}, {NodeId{2}});
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(1).of("disconnect").size() == 2);

  w.sim.heal({NodeId{1}}, {NodeId{2}});
  CHECK_FALSE(w.sim.is_cut(NodeId{1}, NodeId{2}));
  CHECK(w.probe(1).send(NodeId{2}, "after"));
  CHECK(w.probe(2).send(NodeId{1}, "after-back"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages() == std::vector<std::string>{"before", "after"});
  CHECK(w.log(1).messages() == std::vector<std::string>{"after-back"});
}

TEST_CASE("network: a one-way cut keeps the connection open; what is sent into it arrives after the heal, in order") {
  ProbeWorld w(13);
  w.add(1);
  w.add(2);
  REQUIRE(w.probe(1).send(NodeId{2}, "a"));
  REQUIRE(w.probe(2).send(NodeId{1}, "b"));
  w.sim.run_for(Duration::micros(100));
  w.sim.partition({NodeId{1}}, {NodeId{2}}, /*both_ways=*/false);
  CHECK(w.sim.is_cut(NodeId{1}, NodeId{2}));
  CHECK_FALSE(w.sim.is_cut(NodeId{2}, NodeId{1}));
  // The connection stays open: the other direction keeps delivering, nobody hears of a break, and
  // the open connection takes frames into the cut (TCP buffers and retransmits them).
  CHECK(w.probe(1).send(NodeId{2}, "held"));
  CHECK(w.probe(2).send(NodeId{1}, "c"));
  w.sim.run_for(Duration::seconds(5));
  CHECK(w.log(1).messages() == std::vector<std::string>{"b", "c"});
  CHECK(w.log(2).messages().empty());
  CHECK(w.log(1).of("disconnect").empty());
  CHECK(w.log(2).of("disconnect").empty());
  const Time healed = w.sim.now();
  w.sim.heal({NodeId{1}}, {NodeId{2}}, false);
  CHECK(w.probe(1).send(NodeId{2}, "d"));
  w.sim.run_for(Duration::millis(5));
  // Retransmitted: what was in flight at the cut and what was sent into it, then the new frame.
  CHECK(w.log(2).messages() == std::vector<std::string>{"a", "held", "d"});
  auto got = w.log(2).of("msg");
  REQUIRE(!got.empty());
  CHECK(got[0].at >= healed);
}

TEST_CASE("network: a connection closed during a one-way cut loses what was sent into it; none opens across a cut") {
  ProbeWorld w(14);
  w.add(1);
  w.add(2);
  w.add(3);
  REQUIRE(w.probe(1).send(NodeId{2}, "a"));
  w.sim.run_for(Duration::millis(5));
  w.sim.partition({NodeId{1}}, {NodeId{2}, NodeId{3}}, /*both_ways=*/false);
  CHECK(w.probe(1).send(NodeId{2}, "lost"));
  // 1 and 3 had no connection: the handshake cannot cross the cut, whichever side starts it.
  CHECK_FALSE(w.probe(1).send(NodeId{3}, "refused"));
  CHECK_FALSE(w.probe(3).send(NodeId{1}, "refused"));
  w.sim.run_for(Duration::millis(5));
  // A timeout on one side closes the connection: both ends hear of it, the held frame is gone.
  w.probe(2).close(NodeId{-1});
  w.sim.run_for(Duration::millis(5));
  CHECK(count_disconnects(w.log(1), 2) == 1);
  CHECK(count_disconnects(w.log(2), 1) == 1);
  // Closed and still cut one way: no new connection either way until the heal.
  CHECK_FALSE(w.probe(2).send(NodeId{1}, "refused"));
  w.sim.heal_all();
  CHECK(w.probe(1).send(NodeId{2}, "after"));
  CHECK(w.probe(3).send(NodeId{1}, "after"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages() == std::vector<std::string>{"a", "after"});
  CHECK(w.log(1).messages() == std::vector<std::string>{"after"});
}

TEST_CASE("network: partition between groups, isolate and heal_all") {
  ProbeWorld w(17);
  for (int i = 1; i <= 4; i++) w.add(i);
  w.sim.partition({NodeId{1}, NodeId{2}}, {NodeId{3}, NodeId{4}});
  CHECK(w.sim.is_cut(NodeId{1}, NodeId{3}));
  CHECK(w.sim.is_cut(NodeId{4}, NodeId{2}));
  CHECK_FALSE(w.sim.is_cut(NodeId{1}, NodeId{2}));
  CHECK_FALSE(w.sim.is_cut(NodeId{3}, NodeId{4}));
  CHECK(w.probe(1).send(NodeId{2}, "same side"));
  CHECK_FALSE(w.probe(1).send(NodeId{4}, "other side"));
  w.sim.heal_all();
  CHECK(w.probe(1).send(NodeId{4}, "healed"));
  w.sim.isolate(NodeId{3});
  for (int i : {1, 2, 4}) {
    CHECK(w.sim.is_cut(NodeId{3}, NodeId{i}));
    CHECK(w.sim.is_cut(NodeId{i}, NodeId{3}));
  }
  CHECK(w.probe(1).send(NodeId{2}, "unaffected"));
  w.sim.heal_all();
  CHECK(w.probe(3).send(NodeId{1}, "back"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages() == std::vector<std::string>{"same side", "unaffected"});
  CHECK(w.log(4).messages() == std::vector<std::string>{"healed"});
  CHECK(w.log(1).messages() == std::vector<std::string>{"back"});
}

TEST_CASE("network: clog holds a direction's frames, then delivers them in order") {
  ProbeWorld w(19, jittery());
  w.add(1);
  w.add(2);
  w.sim.clog(NodeId{1}, NodeId{2}, Duration::millis(100));
  auto frames = numbered(50);
  for (const auto& f : frames) REQUIRE(w.probe(1).send(NodeId{2}, f));
  REQUIRE(w.probe(2).send(NodeId{1}, "other direction"));
  w.sim.run_for(Duration::millis(99));
  CHECK(w.log(2).messages().empty());
  CHECK(w.log(1).messages() == std::vector<std::string>{"other direction"});
  w.sim.run_for(Duration::millis(50));
  CHECK(w.log(2).messages() == frames);
  for (const auto& e : w.log(2).of("msg")) CHECK(e.at >= Time{100'000});
  CHECK(w.log(2).of("disconnect").empty());  // a clog is not a break
}

TEST_CASE("network: clog also holds frames already in flight") {
  ProbeWorld w(23);
  w.add(1);
  w.add(2);
  REQUIRE(w.probe(1).send(NodeId{2}, "early"));  // due at 0.5-0.7 ms
  w.sim.run_for(Duration::micros(100));
  w.sim.clog(NodeId{1}, NodeId{2}, Duration::millis(10));
  REQUIRE(w.probe(1).send(NodeId{2}, "late"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages().empty());
  w.sim.run_for(Duration::millis(10));
  CHECK(w.log(2).messages() == std::vector<std::string>{"early", "late"});
  auto msgs = w.log(2).of("msg");
  CHECK(msgs[0].at == Time{10'100});
}

TEST_CASE("network: a partition during a clog drops the held frames") {
  ProbeWorld w(29);
  w.add(1);
  w.add(2);
  w.sim.clog(NodeId{1}, NodeId{2}, Duration::millis(10));
  REQUIRE(w.probe(1).send(NodeId{2}, "held"));
  w.sim.run_for(Duration::millis(1));
  w.sim.partition({NodeId{1}}, {NodeId{2}});
  w.sim.run_for(Duration::millis(20));
  w.sim.heal_all();
  REQUIRE(w.probe(1).send(NodeId{2}, "new"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages() == std::vector<std::string>{"new"});
}

TEST_CASE("network: latency changes apply to new frames and never reorder") {
  sim::SimConfig c;
  c.latency = sim::LinkLatency{Duration::millis(1), Duration::micros(0)};
  ProbeWorld w(31, c);
  w.add(1);
  w.add(2);
  w.sim.set_latency(NodeId{1}, NodeId{2}, sim::LinkLatency{Duration::millis(20), Duration::micros(0)});
  REQUIRE(w.probe(1).send(NodeId{2}, "slow"));
  REQUIRE(w.probe(2).send(NodeId{1}, "default"));
  w.sim.set_latency(NodeId{1}, NodeId{2}, sim::LinkLatency{Duration::millis(2), Duration::micros(0)});
  REQUIRE(w.probe(1).send(NodeId{2}, "fast but behind"));
  w.sim.run_for(Duration::millis(30));
  auto at2 = w.log(2).of("msg");
  REQUIRE(at2.size() == 2);
  CHECK(at2[0].data == "slow");
  CHECK(at2[0].at == Time{20'000});
  CHECK(at2[1].data == "fast but behind");
  CHECK(at2[1].at == Time{20'000});
  auto at1 = w.log(1).of("msg");
  REQUIRE(at1.size() == 1);
  CHECK(at1[0].at == Time{1'000});
  // The default for every link.
  w.sim.set_latency(sim::Simulator::kWorld, sim::Simulator::kWorld,
                    sim::LinkLatency{Duration::millis(7), Duration::micros(0)});
  Time t0 = w.sim.now();
  REQUIRE(w.probe(2).send(NodeId{1}, "seven"));
  w.sim.run_for(Duration::millis(10));
  CHECK(w.log(1).of("msg").back().at == t0 + Duration::millis(7));
  // A link with its own latency keeps it.
  t0 = w.sim.now();
  REQUIRE(w.probe(1).send(NodeId{2}, "two"));
  w.sim.run_for(Duration::millis(10));
  CHECK(w.log(2).of("msg").back().at == t0 + Duration::millis(2));
}

TEST_CASE("network: a receiver crash drops frames in flight; the restarted node does not get them") {
  ProbeWorld w(37);
  w.add(1);
  w.add(2);
  REQUIRE(w.probe(1).send(NodeId{2}, "lost"));
  w.sim.run_for(Duration::micros(100));
  w.sim.crash(NodeId{2});
  w.sim.restart(NodeId{2});
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages().empty());
  CHECK(count_disconnects(w.log(1), 2) == 1);
  CHECK(count_disconnects(w.log(1), -2) == 1);
  REQUIRE(w.probe(1).send(NodeId{2}, "fresh"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages() == std::vector<std::string>{"fresh"});
}

TEST_CASE("network: a paused receiver gets its frames at resume, in order with later arrivals") {
  ProbeWorld w(41);
  w.add(1);
  w.add(2);
  w.sim.pause(NodeId{2});
  REQUIRE(w.probe(1).send(NodeId{2}, "a"));
  REQUIRE(w.probe(1).send(NodeId{2}, "b"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages().empty());
  // A frame sent now arrives at 5.5-5.7 ms; the resume happens inside an event at 5.8 ms that was
  // scheduled before the frame's delivery event, so both are due at the same instant.
  Time resume_at = w.sim.now() + Duration::micros(800);
  w.sim.loop().schedule(resume_at, [&] { w.sim.resume(NodeId{2}); });
  w.sim.clog(NodeId{1}, NodeId{2}, Duration::micros(800));
  REQUIRE(w.probe(1).send(NodeId{2}, "c"));
  w.sim.run_for(Duration::millis(5));
  CHECK(w.log(2).messages() == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("network: jitter of one link does not depend on traffic on other links") {
  // Link jitter is drawn from a stream per directed link, so adding a node that talks does not
  // change the timing between two others.
  auto arrivals = [](bool with_third) {
    ProbeWorld w(43, jittery());
    w.add(1);
    w.add(2);
    if (with_third) w.add(3);
    for (int i = 0; i < 20; i++) {
      if (with_third) REQUIRE(w.probe(3).send(NodeId{1}, "noise"));
      REQUIRE(w.probe(1).send(NodeId{2}, "x"));
      w.sim.run_for(Duration::millis(30));
    }
    std::vector<int64_t> at;
    for (const auto& e : w.log(2).of("msg")) at.push_back(e.at.us);
    return at;
  };
  auto alone = arrivals(false);
  CHECK(alone.size() == 20);
  CHECK(alone == arrivals(true));
}

TEST_CASE("network: each lane to a peer is a connection of its own that breaks with the pair") {
  ProbeWorld w(1);
  w.add(1);
  w.add(2);
  const NodeId markers = lane_connection(NodeId{2}, Lane::kTxnMarkers);
  const NodeId control = lane_connection(NodeId{2}, Lane::kController);
  CHECK(w.probe(1).send(NodeId{2}, "first"));
  CHECK(w.probe(1).send(markers, "second"));
  CHECK(w.probe(1).send(control, "third"));
  w.sim.run_for(Duration::millis(5));
  auto at2 = w.log(2).of("msg");
  REQUIRE(at2.size() == 3);
  // The receiver tells the connections apart (a broker handles each one's requests in turn).
  CHECK(at2[0].peer == NodeId{-1});
  CHECK(at2[1].peer == NodeId{-lane_connection(NodeId{1}, Lane::kTxnMarkers).value});
  CHECK(at2[2].peer == NodeId{-lane_connection(NodeId{1}, Lane::kController).value});
  for (const auto& m : at2) {
    CHECK(is_inbound_connection(m.peer));
    CHECK(node_of_connection(m.peer) == NodeId{-1});
  }
  CHECK(lane_of(at2[2].peer) == Lane::kController);
  // The answer on a lane arrives from the id the request went to.
  CHECK(w.probe(2).send(at2[1].peer, "answer"));
  CHECK(w.probe(2).send(at2[2].peer, "control answer"));
  w.sim.run_for(Duration::millis(5));
  auto at1 = w.log(1).of("msg");
  REQUIRE(at1.size() == 2);
  CHECK(at1[0].peer == markers);
  CHECK(at1[0].data == "answer");
  CHECK(at1[1].peer == control);
  CHECK(at1[1].data == "control answer");
  // Breaking the pair ends every lane used, at both ends.
  w.probe(1).close(NodeId{2});
  w.sim.run_for(Duration::millis(5));
  CHECK(count_disconnects(w.log(1), 2) == 1);
  CHECK(count_disconnects(w.log(1), markers.value) == 1);
  CHECK(count_disconnects(w.log(1), control.value) == 1);
  CHECK(count_disconnects(w.log(2), -lane_connection(NodeId{1}, Lane::kTxnMarkers).value) == 1);
  CHECK(count_disconnects(w.log(2), -lane_connection(NodeId{1}, Lane::kController).value) == 1);
  // A pair whose other lanes were not used since hears only of the first.
  CHECK(w.probe(1).send(NodeId{2}, "again"));
  w.sim.run_for(Duration::millis(5));
  w.probe(2).close(NodeId{-1});
  w.sim.run_for(Duration::millis(5));
  CHECK(count_disconnects(w.log(1), 2) == 2);
  CHECK(count_disconnects(w.log(1), markers.value) == 1);
  CHECK(count_disconnects(w.log(1), control.value) == 1);
}

TEST_CASE("network: lane ids name their node and lane") {
  // 147'483'646: the largest node id whose every lane fits an int32_t.
  for (int32_t node : {1, 7, 147'483'646}) {
    for (Lane lane : {Lane::kMain, Lane::kTxnMarkers, Lane::kController}) {
      const NodeId id = lane_connection(NodeId{node}, lane);
      CHECK(lane_of(id) == lane);
      CHECK(lane_of(NodeId{-id.value}) == lane);
      CHECK(node_of_connection(id) == NodeId{node});
      CHECK(node_of_connection(NodeId{-id.value}) == NodeId{-node});
      CHECK(is_extra_lane(id) == (lane != Lane::kMain));
    }
  }
}
