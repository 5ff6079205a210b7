// The replicated ensemble (engine/coord/zk_ensemble.cpp) on the simulator: three servers and
// ZkClients. Election, forwarded writes, failover with the session kept, a minority that refuses
// clients, stale reads and sync, a restarted server synced from the leader.
#include <catch2/catch.hpp>

#include <optional>
#include <set>
#include <utility>

#include "zk_harness.h"

using namespace gregor;
using namespace gregor::coord;
using namespace gregor::coord::testing;

namespace {

const std::vector<NodeId> kServers{NodeId{1001}, NodeId{1002}, NodeId{1003}};

struct Ensemble {
  sim::Simulator sim;
  explicit Ensemble(uint64_t seed) : sim(seed) {
    for (NodeId id : kServers) {
      ZkServerConfig c;
      c.ensemble = kServers;
      sim.add_node(id, "zk-" + std::to_string(id.value - 1000), [c](Runtime& rt) { return std::make_unique<ZkServer>(rt, c); });
    }
  }
  ZkServer* server(NodeId id) { return sim.node_as<ZkServer>(id); }
  bool run_until(const std::function<bool()>& pred, Duration limit = Duration::seconds(60)) {
    return sim.run_until_pred(pred, sim.now() + limit) == sim::RunOutcome::kPredicateMet;
  }
  std::optional<NodeId> leader() {
    for (NodeId id : kServers) {
      ZkServer* s = server(id);
      if (s && s->active() && s->peer_state() == PeerState::kLeading) return id;
    }
    return std::nullopt;
  }
  bool all_active() {
    for (NodeId id : kServers)
      if (!server(id) || !server(id)->active()) return false;
    return true;
  }
  ZkTestClient* add_client(NodeId id, std::vector<NodeId> servers) {
    ZkClientConfig c;
    c.servers = std::move(servers);
    c.session_timeout = Duration::millis(6000);
    sim.add_node(id, "client-" + std::to_string(id.value), [c](Runtime& rt) { return std::make_unique<ZkTestClient>(rt, c); });
    ZkTestClient* client = sim.node_as<ZkTestClient>(id);
    run_until([client] { return client->zk.state() == SessionState::kConnected; });
    return client;
  }
  ZkTestClient* client(NodeId id) { return sim.node_as<ZkTestClient>(id); }
  ZkError create(NodeId c, const std::string& path, const std::string& data, CreateMode mode = CreateMode::kPersistent) {
    std::optional<ZkError> out;
    client(c)->zk.create(path, to_bytes(data), mode, [&](ZkError e, std::string) { out = e; });
    run_until([&] { return out.has_value(); });
    return out.value_or(ZkError::kSystemError);
  }
  ZkError set(NodeId c, const std::string& path, const std::string& data) {
    std::optional<ZkError> out;
    client(c)->zk.set_data(path, to_bytes(data), -1, [&](ZkError e, Stat) { out = e; });
    run_until([&] { return out.has_value(); });
    return out.value_or(ZkError::kSystemError);
  }
  std::string get(NodeId c, const std::string& path) {
    std::optional<std::string> out;
    client(c)->zk.get_data(path, false, [&](ZkError e, Bytes d, Stat) {
      out = e == ZkError::kOk ? to_string(as_view(d)) : std::string("error ") + zk_error_name(e);
    });
    run_until([&] { return out.has_value(); });
    return out.value_or("no answer");
  }
  std::string data_on(NodeId server_id, const std::string& path) {
    ZkServer* s = server(server_id);
    if (!s) return "down";
    const Znode* n = s->tree().find(path);
    return n ? to_string(as_view(n->data)) : "missing";
  }
};

}  // namespace

TEST_CASE("zk ensemble: one leader is elected and writes through a follower reach every server", "[zk][ensemble]") {
  Ensemble e(1);
  REQUIRE(e.run_until([&] { return e.all_active(); }));
  const NodeId leader = *e.leader();
  int leaders = 0;
  for (NodeId id : kServers) leaders += e.server(id)->peer_state() == PeerState::kLeading ? 1 : 0;
  CHECK(leaders == 1);
  const NodeId follower = leader == kServers[0] ? kServers[1] : kServers[0];
  e.add_client(NodeId{2001}, {follower});
  CHECK(e.create(NodeId{2001}, "/a", "one") == ZkError::kOk);
  CHECK(e.create(NodeId{2001}, "/a", "two") == ZkError::kNodeExists);  // the leader's prep decides
  CHECK(e.set(NodeId{2001}, "/a", "three") == ZkError::kOk);
  CHECK(e.get(NodeId{2001}, "/a") == "three");
  REQUIRE(e.run_until([&] {
    for (NodeId id : kServers)
      if (e.data_on(id, "/a") != "three") return false;
    return true;
  }));
}

TEST_CASE("zk ensemble: the leader crashes and a client keeps its session on another server", "[zk][ensemble]") {
  Ensemble e(2);
  REQUIRE(e.run_until([&] { return e.all_active(); }));
  const NodeId leader = *e.leader();
  ZkTestClient* c = e.add_client(NodeId{2001}, kServers);
  const int64_t session = c->zk.session_id();
  CHECK(e.create(NodeId{2001}, "/eph", "x", CreateMode::kEphemeral) == ZkError::kOk);
  const int64_t epoch = e.server(leader)->current_epoch();
  e.sim.crash(leader);
  REQUIRE(e.run_until([&] { return e.leader().has_value(); }));
  CHECK(e.server(*e.leader())->current_epoch() > epoch);
  REQUIRE(e.run_until([&] { return c->zk.state() == SessionState::kConnected && *c->zk.server() != leader; }));
  CHECK(c->zk.session_id() == session);
  CHECK(e.get(NodeId{2001}, "/eph") == "x");  // the session and its ephemeral survived
  CHECK(e.create(NodeId{2001}, "/after", "y") == ZkError::kOk);
  // The old leader comes back, is synced, and follows.
  e.sim.restart(leader);
  REQUIRE(e.run_until([&] { return e.server(leader) && e.server(leader)->active(); }));
  CHECK(e.server(leader)->peer_state() == PeerState::kFollowing);
  CHECK(e.data_on(leader, "/after") == "y");
}

TEST_CASE("zk ensemble: a server cut off from the quorum refuses clients and commits nothing", "[zk][ensemble]") {
  Ensemble e(3);
  REQUIRE(e.run_until([&] { return e.all_active(); }));
  const NodeId leader = *e.leader();
  std::set<NodeId> others;
  for (NodeId id : kServers)
    if (id != leader) others.insert(id);
  e.sim.partition({leader}, others);
  // The majority elects a new leader; the old one stops serving.
  REQUIRE(e.run_until([&] { return e.leader().has_value() && *e.leader() != leader; }));
  REQUIRE(e.run_until([&] { return !e.server(leader)->active(); }));
  // A client that can only reach the cut-off server gets no session.
  ZkClientConfig pinned;
  pinned.servers = {leader};
  e.sim.add_node(NodeId{2003}, "client-2003", [pinned](Runtime& rt) { return std::make_unique<ZkTestClient>(rt, pinned); });
  CHECK_FALSE(e.run_until([&] { return e.client(NodeId{2003})->zk.state() == SessionState::kConnected; }, Duration::seconds(5)));
  const int64_t zxid = e.server(leader)->database().last_zxid();
  // The majority serves writes.
  e.add_client(NodeId{2001}, std::vector<NodeId>(others.begin(), others.end()));
  CHECK(e.create(NodeId{2001}, "/majority", "m") == ZkError::kOk);
  CHECK(e.server(leader)->database().last_zxid() == zxid);
  e.sim.heal_all();
  REQUIRE(e.run_until([&] { return e.server(leader)->active(); }));
  CHECK(e.data_on(leader, "/majority") == "m");
}

TEST_CASE("zk ensemble: a follower behind the leader serves a stale read and sync makes it current", "[zk][ensemble]") {
  Ensemble e(4);
  REQUIRE(e.run_until([&] { return e.all_active(); }));
  const NodeId leader = *e.leader();
  const NodeId lagging = leader == kServers[0] ? kServers[1] : kServers[0];
  e.add_client(NodeId{2001}, {leader});
  e.add_client(NodeId{2002}, {lagging});
  CHECK(e.create(NodeId{2001}, "/v", "old") == ZkError::kOk);
  REQUIRE(e.run_until([&] { return e.data_on(lagging, "/v") == "old"; }));
  // Hold what the leader sends the lagging follower for 2s: the write commits with the other one.
  e.sim.clog(leader, lagging, Duration::millis(2000));
  CHECK(e.set(NodeId{2001}, "/v", "new") == ZkError::kOk);
  CHECK(e.get(NodeId{2002}, "/v") == "old");  // served locally: stale
  std::optional<ZkError> synced;
  e.client(NodeId{2002})->zk.sync("/v", [&](ZkError err) { synced = err; });
  REQUIRE(e.run_until([&] { return synced.has_value(); }));
  CHECK(*synced == ZkError::kOk);
  CHECK(e.sim.now().ms() > 0);
  CHECK(e.get(NodeId{2002}, "/v") == "new");  // after sync: current
}

// ---- zxids: (epoch << 32) | counter (engine/coord/zxid.h) ----

TEST_CASE("zk ensemble: a new leader's first zxid has a higher epoch and counter 1", "[zk][ensemble][zxid]") {
  std::vector<ev::ZkCommit> commits;
  Ensemble e(5);
  e.sim.add_listener([&commits](const TraceEvent& t) {
    if (const auto* c = t.as<ev::ZkCommit>()) commits.push_back(*c);
  });
  REQUIRE(e.run_until([&] { return e.all_active(); }));
  const NodeId first_leader = *e.leader();
  const int64_t first_epoch = e.server(first_leader)->current_epoch();
  CHECK(first_epoch >= 1);
  e.add_client(NodeId{2001}, kServers);
  CHECK(e.create(NodeId{2001}, "/a", "one") == ZkError::kOk);
  REQUIRE(!commits.empty());
  CHECK(commits.front().zxid == make_zxid(first_epoch, 1));  // the session's creation
  const Znode* a = e.server(first_leader)->tree().find("/a");
  REQUIRE(a != nullptr);
  CHECK(zxid_epoch(a->stat.czxid) == first_epoch);
  CHECK(zxid_counter(a->stat.czxid) == 2);
  CHECK(a->stat.mzxid == a->stat.czxid);
  const int64_t a_czxid = a->stat.czxid;

  e.sim.crash(first_leader);
  REQUIRE(e.run_until([&] { return e.leader().has_value(); }));
  const NodeId second_leader = *e.leader();
  const int64_t second_epoch = e.server(second_leader)->current_epoch();
  CHECK(second_epoch > first_epoch);
  const size_t before = commits.size();
  REQUIRE(e.run_until([&] { return e.client(NodeId{2001})->zk.state() == SessionState::kConnected; }));
  CHECK(e.create(NodeId{2001}, "/b", "two") == ZkError::kOk);
  REQUIRE(commits.size() > before);
  // The counter restarts: the new epoch's first commit is (epoch << 32) | 1, above every zxid of
  // the old epoch.
  CHECK(commits[before].epoch == second_epoch);
  CHECK(commits[before].zxid == make_zxid(second_epoch, 1));
  CHECK(commits[before].zxid > a_czxid);
  const Znode* b = e.server(second_leader)->tree().find("/b");
  REQUIRE(b != nullptr);
  CHECK(zxid_epoch(b->stat.czxid) == second_epoch);
  CHECK(e.server(second_leader)->tree().find("/")->stat.pzxid == b->stat.czxid);
  for (const auto& c : commits) CHECK(zxid_epoch(c.zxid) == c.epoch);
}

namespace {

// The leader logs a write that no follower receives (its links to them are clogged: a partition
// would make it notice at once and stop serving), then crashes, which drops what the clogs held: the
// write is an uncommitted proposal of the old epoch in its log. The other two elect a new leader
// (a new epoch). Returns the old leader and the zxid of its lost write.
std::pair<NodeId, int64_t> leader_with_uncommitted_write(Ensemble& e) {
  REQUIRE(e.run_until([&] { return e.all_active(); }));
  const NodeId leader = *e.leader();
  std::set<NodeId> others;
  for (NodeId id : kServers)
    if (id != leader) others.insert(id);
  ZkClientConfig pinned;
  pinned.servers = {leader};
  pinned.session_timeout = Duration::millis(20000);
  e.sim.add_node(NodeId{2001}, "client-2001", [pinned](Runtime& rt) { return std::make_unique<ZkTestClient>(rt, pinned); });
  REQUIRE(e.run_until([&] { return e.client(NodeId{2001})->zk.state() == SessionState::kConnected; }));
  CHECK(e.create(NodeId{2001}, "/base", "b") == ZkError::kOk);
  REQUIRE(e.run_until([&] {
    for (NodeId id : kServers)
      if (e.data_on(id, "/base") != "b") return false;
    return true;
  }));
  const int64_t committed = e.server(leader)->last_logged_zxid();
  for (NodeId other : others) e.sim.clog(leader, other, Duration::millis(3000));
  e.client(NodeId{2001})->zk.create("/lost", to_bytes("x"), CreateMode::kPersistent, [](ZkError, std::string) {});
  REQUIRE(e.run_until([&] { return e.server(leader)->last_logged_zxid() > committed; }));
  const int64_t lost = e.server(leader)->last_logged_zxid();
  CHECK(zxid_follows(committed, lost));
  e.sim.crash(leader);
  REQUIRE(e.run_until([&] { return e.leader().has_value(); }));
  return {leader, lost};
}

}  // namespace

TEST_CASE("zk ensemble: a follower with an uncommitted proposal of the old epoch is truncated when it rejoins",
          "[zk][ensemble][zxid]") {
  std::vector<ev::ZkSync> syncs;
  Ensemble e(6);
  e.sim.add_listener([&syncs](const TraceEvent& t) {
    if (const auto* y = t.as<ev::ZkSync>()) syncs.push_back(*y);
  });
  const auto [old_leader, lost] = leader_with_uncommitted_write(e);
  const NodeId leader = *e.leader();
  CHECK(e.server(leader)->current_epoch() > zxid_epoch(lost));
  CHECK(e.data_on(leader, "/lost") == "missing");
  syncs.clear();
  e.sim.restart(old_leader);
  REQUIRE(e.run_until([&] { return e.server(old_leader) && e.server(old_leader)->active(); }));
  CHECK(e.server(old_leader)->peer_state() == PeerState::kFollowing);
  // Recovery replayed the lost write; the new leader's TRUNC took it out again.
  REQUIRE(syncs.size() == 1);
  CHECK(syncs[0].follower == old_leader.value);
  CHECK(syncs[0].mode == "trunc");
  CHECK(syncs[0].from_zxid == lost);
  CHECK(e.data_on(old_leader, "/lost") == "missing");
  CHECK(e.data_on(old_leader, "/base") == "b");
  CHECK(e.server(old_leader)->last_logged_zxid() < lost);
  // It goes on in the new epoch: a new write reaches it, logged right after its truncated log.
  e.add_client(NodeId{2002}, {leader});
  CHECK(e.create(NodeId{2002}, "/after", "a") == ZkError::kOk);
  REQUIRE(e.run_until([&] { return e.data_on(old_leader, "/after") == "a"; }));
  CHECK(zxid_epoch(e.server(old_leader)->last_logged_zxid()) == e.server(leader)->current_epoch());
  // And a restart replays a log that holds no trace of the lost write.
  e.sim.crash(old_leader);
  e.sim.restart(old_leader);
  REQUIRE(e.run_until([&] { return e.server(old_leader) && e.server(old_leader)->active(); }));
  CHECK(e.data_on(old_leader, "/lost") == "missing");
  CHECK(e.data_on(old_leader, "/after") == "a");
}

TEST_CASE("zk ensemble: votes compare the epoch first then the zxid then the server id", "[zk][ensemble][zxid]") {
  const QuorumVote newer_epoch{.leader = 1001, .epoch = 3, .zxid = make_zxid(2, 5)};
  const QuorumVote longer_log{.leader = 1003, .epoch = 2, .zxid = make_zxid(2, 9)};
  CHECK(vote_beats(newer_epoch, longer_log));
  CHECK_FALSE(vote_beats(longer_log, newer_epoch));
  CHECK(vote_beats(QuorumVote{1001, 2, make_zxid(2, 9)}, QuorumVote{1003, 2, make_zxid(2, 8)}));
  CHECK(vote_beats(QuorumVote{1003, 2, make_zxid(2, 9)}, QuorumVote{1002, 2, make_zxid(2, 9)}));
  CHECK_FALSE(vote_beats(QuorumVote{1002, 2, make_zxid(2, 9)}, QuorumVote{1002, 2, make_zxid(2, 9)}));

  // In an ensemble: the old leader holds the longest log (its uncommitted write) but the oldest
  // epoch; the two that acknowledged the new leader have the newer epoch. All three restart at
  // once: one of the two leads, and the old leader is truncated. Ordered by zxid alone, the old
  // leader would win, with a write that no quorum ever acknowledged.
  Ensemble e(7);
  const auto [old_leader, lost] = leader_with_uncommitted_write(e);
  const int64_t new_epoch = e.server(*e.leader())->current_epoch();
  for (NodeId id : kServers)
    if (id != old_leader) e.sim.crash(id);
  for (NodeId id : kServers) e.sim.restart(id);
  REQUIRE(e.run_until([&] { return e.all_active(); }));
  const NodeId leader = *e.leader();
  CHECK(leader != old_leader);
  CHECK(e.server(leader)->current_epoch() > new_epoch);
  CHECK(e.data_on(old_leader, "/lost") == "missing");
  CHECK(e.server(old_leader)->last_logged_zxid() < lost);
}
