// Durability: after a process crash or a power loss, a restarted server holds exactly the
// acknowledged state (plus, at most, the one write in flight whose ack never arrived), over many
// seeds, through snapshots and log rolls; and no client ever finds the server behind what it saw.
#include <catch2/catch.hpp>

#include <map>

#include "zk_harness.h"

using namespace gregor;
using namespace gregor::coord;
using namespace gregor::coord::testing;

namespace {

// A model of the tree a single client builds: path -> data, version, cversion.
struct ModelNode {
  std::string data;
  int32_t version = 0;
  int32_t cversion = 0;
  bool operator==(const ModelNode&) const = default;
};
using Model = std::map<std::string, ModelNode>;

Model project(const ZnodeTree& tree) {
  Model m;
  for (const auto& [path, node] : tree.nodes())
    m[path] = ModelNode{to_string(as_view(node.data)), node.stat.version, node.stat.cversion};
  return m;
}

std::string describe(const Model& m) {
  std::string out;
  for (const auto& [p, n] : m)
    out += p + " v" + std::to_string(n.version) + " cv" + std::to_string(n.cversion) + " " + n.data + "\n";
  return out;
}

// One random op that succeeds on `model`, as the client's call and the model's change.
struct Op {
  std::string what;
  std::function<void(ZkClient&, std::function<void(ZkError)>)> issue;
  std::function<void(Model&)> apply;
};

Op random_op(Rng& rng, const Model& model, int serial) {
  std::vector<std::string> leaves, all;
  for (const auto& [p, n] : model) {
    // The root, the queue and ZooKeeper's own znodes (which clients cannot delete) are not targets.
    if (p == "/" || p == "/q" || p.rfind("/zookeeper", 0) == 0) continue;
    all.push_back(p);
    const bool has_children = std::any_of(model.begin(), model.end(), [&](const auto& kv) {
      return kv.first.size() > p.size() && kv.first.compare(0, p.size(), p) == 0 && kv.first[p.size()] == '/';
    });
    if (!has_children) leaves.push_back(p);
  }
  const std::string value = "v" + std::to_string(serial);
  const uint64_t kind = rng.uniform(5);
  if (kind == 0 || all.empty()) {
    // Create a child of the root or of an existing node.
    std::string parent = all.empty() || rng.chance(0.5) ? "/" : all[rng.uniform(all.size())];
    std::string path = join_path(parent, "n" + std::to_string(serial));
    return Op{"create " + path,
              [path, value](ZkClient& c, std::function<void(ZkError)> done) {
                c.create(path, to_bytes(value), CreateMode::kPersistent, [done](ZkError e, std::string) { done(e); });
              },
              [path, parent, value](Model& m) {
                m[path] = ModelNode{value, 0, 0};
                m[parent].cversion++;
              }};
  }
  if (kind == 1) {
    // A sequential child of /q: its name depends on /q's cversion.
    return Op{"create sequential",
              [value](ZkClient& c, std::function<void(ZkError)> done) {
                c.create("/q/s-", to_bytes(value), CreateMode::kPersistentSequential,
                         [done](ZkError e, std::string) { done(e); });
              },
              [value](Model& m) {
                m["/q/s-" + sequence_suffix(m["/q"].cversion)] = ModelNode{value, 0, 0};
                m["/q"].cversion++;
              }};
  }
  if (kind == 2 && !leaves.empty()) {
    std::string path = leaves[rng.uniform(leaves.size())];
    const int32_t version = model.at(path).version;
    return Op{"delete " + path,
              [path, version](ZkClient& c, std::function<void(ZkError)> done) { c.remove(path, version, done); },
              [path](Model& m) {
                m.erase(path);
                m[parent_path(path)].cversion++;
              }};
  }
  if (kind == 3 && all.size() >= 2) {
    // A multi: two conditional sets.
    std::string a = all[rng.uniform(all.size())], b = all[rng.uniform(all.size())];
    if (a == b) b = "/q";
    const int32_t va = model.at(a).version;
    return Op{"multi " + a + " " + b,
              [a, b, va, value](ZkClient& c, std::function<void(ZkError)> done) {
                c.multi({ZkOp::set_data(a, to_bytes(value + "a"), va), ZkOp::set_data(b, to_bytes(value + "b"), -1)},
                        [done](ZkError e, std::vector<ZkOpResult>) { done(e); });
              },
              [a, b, value](Model& m) {
                m[a].data = value + "a";
                m[a].version++;
                m[b].data = value + "b";
                m[b].version++;
              }};
  }
  std::string path = all.empty() ? "/q" : all[rng.uniform(all.size())];
  const int32_t version = model.at(path).version;
  return Op{"set " + path,
            [path, version, value](ZkClient& c, std::function<void(ZkError)> done) {
              c.set_data(path, to_bytes(value), version, [done](ZkError e, Stat) { done(e); });
            },
            [path, value](Model& m) {
              m[path].data = value;
              m[path].version++;
            }};
}

}  // namespace

TEST_CASE("zk: crash and power loss recover exactly the acknowledged state", "[zk][recovery]") {
  int power_losses = 0, crashes = 0, inflight_kept = 0, inflight_lost = 0, torn = 0, snapshots = 0;
  for (uint64_t seed = 100; seed < 160; seed++) {
    ZkServerConfig config;
    config.storage.snapshot_count = 3 + static_cast<int64_t>(seed % 9);
    // A commit window lets the crash land between a txn's append and its fsync.
    config.commit_delay = Duration::micros(static_cast<int64_t>(seed % 4) * 700);
    ZkWorld w(seed, config);
    w.sim.add_listener([&](const TraceEvent& e) {
      if (e.kind() == "zk_snapshot") snapshots++;
      if (e.kind() == "zk_recover" && e.get_int("truncated_bytes") > 0) torn++;
      if (e.kind() == "zk_connect_refused") FAIL("a client saw a state the server lost: " << e.to_string());
    });
    ZkTestClient* c = w.add_client(NodeId{2}, w.client_config(Duration::millis(18000)));
    REQUIRE(w.create(c, "/q") == ZkError::kOk);
    Model acked = project(w.server()->tree());
    Rng rng = w.sim.stream("ops");
    int serial = 0;

    for (int round = 0; round < 4; round++) {
      // Some acknowledged ops, one at a time.
      const int ops = 3 + static_cast<int>(rng.uniform(12));
      for (int i = 0; i < ops; i++) {
        Op op = random_op(rng, acked, serial++);
        std::optional<ZkError> result;
        op.issue(c->zk, [&](ZkError e) { result = e; });
        REQUIRE(w.run_until([&] { return result.has_value(); }, Duration::seconds(30)));
        REQUIRE(*result == ZkError::kOk);
        op.apply(acked);
        REQUIRE(project(w.server()->tree()) == acked);
      }
      // One more op, and the server goes down at a random moment while it is in flight.
      Op last = random_op(rng, acked, serial++);
      Model if_applied = acked;
      last.apply(if_applied);
      std::optional<ZkError> last_result;
      last.issue(c->zk, [&](ZkError e) { last_result = e; });
      w.sim.run_for(Duration::micros(static_cast<int64_t>(rng.uniform(3000))));
      const bool acked_before_crash = last_result.has_value() && *last_result == ZkError::kOk;
      const bool power = rng.chance(0.6);
      if (power) {
        w.sim.power_loss(ZkWorld::kServer);
        power_losses++;
      } else {
        w.sim.crash(ZkWorld::kServer);
        crashes++;
      }
      w.sim.run_for(Duration::millis(static_cast<int64_t>(rng.uniform(3000))));
      w.sim.restart(ZkWorld::kServer);
      INFO("seed " << seed << " round " << round << (power ? " power loss" : " crash") << ", in flight: " << last.what);
      REQUIRE(w.server()->serving());
      const Model recovered = project(w.server()->tree());
      INFO("recovered:\n" << describe(recovered) << "acked:\n" << describe(acked));
      if (acked_before_crash) {
        CHECK(recovered == if_applied);
      } else {
        CHECK((recovered == acked || recovered == if_applied));
      }
      if (recovered == if_applied) {
        inflight_kept++;
        acked = if_applied;
      } else {
        inflight_lost++;
      }
      // The client resumes its session and carries on.
      REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected && last_result.has_value(); },
                          Duration::seconds(30)));
    }
  }
  // The seeds exercised what they should.
  CHECK(power_losses > 20);
  CHECK(crashes > 20);
  CHECK(inflight_kept > 0);
  CHECK(inflight_lost > 0);
  CHECK(torn > 0);
  CHECK(snapshots > 0);
}

TEST_CASE("zk: concurrent writers lose no acknowledged write across power losses", "[zk][recovery]") {
  for (uint64_t seed = 200; seed < 220; seed++) {
    ZkServerConfig config;
    config.storage.snapshot_count = 20;
    config.commit_delay = Duration::micros(500);
    ZkWorld w(seed, config);
    w.sim.add_listener([&](const TraceEvent& e) {
      if (e.kind() == "zk_connect_refused") FAIL("a client saw a state the server lost: " << e.to_string());
    });
    constexpr int kClients = 4;
    std::vector<ZkTestClient*> clients;
    for (int i = 0; i < kClients; i++) clients.push_back(w.add_client(NodeId{2 + i}, w.client_config(Duration::millis(18000))));
    for (int i = 0; i < kClients; i++) REQUIRE(w.create(clients[0], "/w" + std::to_string(i), "0") == ZkError::kOk);

    // Each client counts up on its own node, one write in flight, and restarts on any error.
    std::vector<int> acked(kClients, 0), in_flight(kClients, -1);
    std::vector<std::function<void()>> next(kClients);
    for (int i = 0; i < kClients; i++) {
      next[i] = [&, i] {
        const int value = acked[i] + 1;
        in_flight[i] = value;
        clients[i]->zk.set_data("/w" + std::to_string(i), to_bytes(std::to_string(value)), -1, [&, i, value](ZkError e, Stat) {
          if (e == ZkError::kOk) acked[i] = std::max(acked[i], value);
          // After a ConnectionLoss the write may or may not have happened; the next one writes
          // a larger value anyway. Wait a little before retrying while disconnected.
          clients[i]->runtime().after(Duration::millis(e == ZkError::kOk ? 0 : 50), [&, i] { next[i](); });
        });
      };
      next[i]();
    }
    Rng rng = w.sim.stream("faults");
    for (int round = 0; round < 5; round++) {
      w.sim.run_for(Duration::millis(20 + static_cast<int64_t>(rng.uniform(200))));
      const std::vector<int> acked_at_crash = acked;
      const std::vector<int> in_flight_at_crash = in_flight;
      if (rng.chance(0.7))
        w.sim.power_loss(ZkWorld::kServer);
      else
        w.sim.crash(ZkWorld::kServer);
      w.sim.restart(ZkWorld::kServer);
      INFO("seed " << seed << " round " << round);
      REQUIRE(w.server()->serving());
      for (int i = 0; i < kClients; i++) {
        const Znode* node = w.server()->tree().find("/w" + std::to_string(i));
        REQUIRE(node != nullptr);
        const int value = std::stoi(to_string(as_view(node->data)));
        INFO("seed " << seed << " round " << round << " client " << i);
        CHECK(value >= acked_at_crash[i]);
        CHECK(value <= std::max(acked_at_crash[i], in_flight_at_crash[i]));
        acked[i] = std::max(acked[i], value);
      }
    }
  }
}

TEST_CASE("zk: txns recovered from the page cache after a crash survive a later power loss", "[zk][recovery]") {
  // Regression: recovery replayed a crashed server's unsynced (unacknowledged) txns without making
  // them durable, and the txns acknowledged after the restart went to a new, fsynced log. A power
  // loss then cut the old log's tail, leaving a zxid gap in the middle of the logs: the server
  // refused to start, and the acknowledged writes after the first restart were out of reach.
  int refused = 0;
  for (uint64_t seed = 310; seed < 320; seed++) {
    ZkServerConfig config;
    config.storage.snapshot_count = 1000;
    config.commit_delay = Duration::millis(100);  // a wide window between append and fsync
    ZkWorld w(seed, config);
    w.sim.add_listener([&](const TraceEvent& e) {
      if (e.kind() == "zk_recover_failed") refused++;
    });
    ZkTestClient* c = w.add_client(NodeId{2});
    REQUIRE(w.create(c, "/x", "0") == ZkError::kOk);
    // A write that reaches the log's page cache but not its fsync.
    std::optional<ZkError> in_flight;
    c->zk.set_data("/x", to_bytes("in flight"), -1, [&](ZkError e, Stat) { in_flight = e; });
    w.sim.run_for(Duration::millis(20));
    REQUIRE_FALSE(in_flight.has_value());
    REQUIRE(w.sim.disk(ZkWorld::kServer).unsynced_bytes() > 0);
    const size_t states_before = c->states.size();
    w.sim.crash(ZkWorld::kServer);  // the page cache survives
    w.sim.restart(ZkWorld::kServer);
    REQUIRE(w.server()->serving());
    CHECK(w.server()->tree().find("/x")->data == to_bytes("in flight"));  // recovered from the page cache
    REQUIRE(w.run_until([&] { return c->states.size() >= states_before + 2 && c->zk.state() == SessionState::kConnected; },
                        Duration::seconds(10)));
    for (int i = 1; i <= 3; i++) REQUIRE(w.set(c, "/x", "acked " + std::to_string(i)) == ZkError::kOk);
    w.sim.power_loss(ZkWorld::kServer);
    w.sim.restart(ZkWorld::kServer);
    INFO("seed " << seed);
    REQUIRE(w.server()->serving());
    const Znode* x = w.server()->tree().find("/x");
    REQUIRE(x != nullptr);
    CHECK(x->data == to_bytes("acked 3"));
    CHECK(x->stat.version == 4);
  }
  CHECK(refused == 0);
}

TEST_CASE("zk: snapshots bound the log and recovery starts from the newest one", "[zk][recovery]") {
  ZkServerConfig config;
  config.storage.snapshot_count = 10;
  ZkWorld w(300, config);
  ZkTestClient* c = w.add_client(NodeId{2});
  REQUIRE(w.create(c, "/x", "0") == ZkError::kOk);
  for (int i = 1; i <= 45; i++) REQUIRE(w.set(c, "/x", std::to_string(i)) == ZkError::kOk);
  const ZnodeTree before = w.server()->tree();
  auto files = w.sim.disk(ZkWorld::kServer).list("zk");
  REQUIRE(files.is_ok());
  int snapshots = 0, logs = 0;
  for (const auto& f : *files) {
    if (f.rfind("snapshot.", 0) == 0) snapshots++;
    if (f.rfind("log.", 0) == 0) logs++;
  }
  CHECK(snapshots == 1);  // older ones are removed
  CHECK(logs <= 1);       // only the log after the newest snapshot
  w.sim.crash(ZkWorld::kServer);
  w.sim.restart(ZkWorld::kServer);
  CHECK(zxid_epoch(w.server()->recovery().snapshot_zxid) == 1);  // a single server writes in epoch 1
  CHECK(zxid_counter(w.server()->recovery().snapshot_zxid) >= 40);
  CHECK(w.server()->recovery().txns_replayed < 10);
  CHECK(w.server()->tree() == before);
}

TEST_CASE("zk: a full disk halts the server without acknowledging; a restart recovers", "[zk][recovery]") {
  ZkWorld w(301);
  ZkTestClient* c = w.add_client(NodeId{2});
  REQUIRE(w.create(c, "/x", "0") == ZkError::kOk);
  const ZnodeTree before = w.server()->tree();
  w.sim.set_disk_capacity(ZkWorld::kServer, w.sim.disk(ZkWorld::kServer).used_bytes() + 10);
  std::optional<ZkError> result;
  c->zk.set_data("/x", to_bytes("does not fit"), -1, [&](ZkError e, Stat) { result = e; });
  REQUIRE(w.run_until([&] { return result.has_value(); }, Duration::seconds(30)));
  CHECK(*result == ZkError::kConnectionLoss);  // never acknowledged
  CHECK_FALSE(w.server()->serving());
  w.sim.set_disk_capacity(ZkWorld::kServer, UINT64_MAX);
  w.sim.restart(ZkWorld::kServer);
  CHECK(w.server()->serving());
  CHECK(w.server()->tree() == before);
  REQUIRE(w.run_until([&] { return c->zk.state() == SessionState::kConnected; }, Duration::seconds(10)));
  CHECK(w.set(c, "/x", "fits now") == ZkError::kOk);
}

TEST_CASE("zk: corruption in the middle of the log stops recovery instead of losing data", "[zk][recovery]") {
  ZkServerConfig config;
  config.storage.snapshot_count = 1000;
  ZkWorld w(302, config);
  ZkTestClient* c = w.add_client(NodeId{2});
  for (int i = 0; i < 10; i++) REQUIRE(w.create(c, "/n" + std::to_string(i), std::string(100, 'x')) == ZkError::kOk);
  const size_t states_before = c->states.size();
  w.sim.crash(ZkWorld::kServer);
  w.sim.restart(ZkWorld::kServer);  // starts a second log file
  // The client hears of the lost connection only as the next event: until then its state still
  // says connected. Wait for the reconnect, not for a state it has not yet left.
  REQUIRE(w.run_until([&] { return c->states.size() >= states_before + 2 && c->zk.state() == SessionState::kConnected; },
                      Duration::seconds(10)));
  REQUIRE(w.create(c, "/after") == ZkError::kOk);
  // Flip a bit inside the first log's entries (not its last bytes): recovery must refuse.
  auto files = w.sim.disk(ZkWorld::kServer).list("zk");
  REQUIRE(files.is_ok());
  REQUIRE(files->size() == 2);
  const std::string first = "zk/" + files->front();
  std::vector<std::string> kinds;
  w.sim.add_listener([&](const TraceEvent& e) { kinds.push_back(std::string(e.kind())); });
  w.sim.crash(ZkWorld::kServer);
  w.sim.corrupt_disk(ZkWorld::kServer, first);
  w.sim.restart(ZkWorld::kServer);
  // Either the flipped bit hit an entry (refused), or the header of the first file (refused too).
  CHECK_FALSE(w.server()->serving());
  CHECK(std::find(kinds.begin(), kinds.end(), "zk_recover_failed") != kinds.end());
}

TEST_CASE("zk: corruption in the middle of the newest log is not taken for a torn tail", "[zk][recovery]") {
  // Regression: recovery used to cut the newest log at its first bad entry, whatever followed, so
  // one flipped bit early in it silently dropped every acknowledged txn after that point.
  ZkServerConfig config;
  config.storage.snapshot_count = 1000;
  ZkWorld w(303, config);
  ZkTestClient* c = w.add_client(NodeId{2});
  for (int i = 0; i < 10; i++) REQUIRE(w.create(c, "/n" + std::to_string(i), std::string(100, 'x')) == ZkError::kOk);
  Disk& disk = w.sim.disk(ZkWorld::kServer);
  auto files = disk.list("zk");
  REQUIRE(files.is_ok());
  REQUIRE(files->size() == 1);  // one log, the newest
  const std::string log = "zk/" + files->front();
  auto data = disk.read_all(log);
  REQUIRE(data.is_ok());
  REQUIRE(data->size() > 1000);
  // A byte well inside the third entry (the header is 8 bytes, each entry here over 100): rot on
  // the medium, in durable data, with seven intact acknowledged entries after it.
  Bytes rotten = *data;
  rotten[300] ^= 0x10;
  w.sim.crash(ZkWorld::kServer);
  REQUIRE(disk.truncate(log, 0).is_ok());
  REQUIRE(disk.append(log, as_view(rotten)).is_ok());
  REQUIRE(disk.fsync(log).is_ok());
  std::vector<std::string> kinds;
  w.sim.add_listener([&](const TraceEvent& e) { kinds.push_back(std::string(e.kind())); });
  w.sim.restart(ZkWorld::kServer);
  CHECK_FALSE(w.server()->serving());
  CHECK(std::find(kinds.begin(), kinds.end(), "zk_recover_failed") != kinds.end());
  // Nothing was cut off: with the bit restored, the server recovers every acknowledged node.
  auto size = disk.size(log);
  REQUIRE(size.is_ok());
  CHECK(*size == data->size());
  w.sim.crash(ZkWorld::kServer);
  REQUIRE(disk.truncate(log, 0).is_ok());
  REQUIRE(disk.append(log, as_view(*data)).is_ok());
  REQUIRE(disk.fsync(log).is_ok());
  w.sim.restart(ZkWorld::kServer);
  REQUIRE(w.server()->serving());
  for (int i = 0; i < 10; i++) CHECK(w.server()->tree().exists("/n" + std::to_string(i)));
}

TEST_CASE("zk: a torn tail of the newest log is cut and the rest recovered", "[zk][recovery]") {
  ZkServerConfig config;
  config.storage.snapshot_count = 1000;
  ZkWorld w(304, config);
  ZkTestClient* c = w.add_client(NodeId{2});
  for (int i = 0; i < 5; i++) REQUIRE(w.create(c, "/n" + std::to_string(i), "d") == ZkError::kOk);
  const ZnodeTree acked = w.server()->tree();
  Disk& disk = w.sim.disk(ZkWorld::kServer);
  auto files = disk.list("zk");
  REQUIRE(files.is_ok());
  REQUIRE(files->size() == 1);
  const std::string log = "zk/" + files->front();
  auto size = disk.size(log);
  REQUIRE(size.is_ok());
  // What a power loss in the middle of an unsynced append leaves: half an entry, its end garbage.
  w.sim.crash(ZkWorld::kServer);
  Bytes torn = {0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x00, 0x40, 0xde, 0xad, 0xbe, 0xef};
  REQUIRE(disk.append(log, as_view(torn)).is_ok());
  REQUIRE(disk.fsync(log).is_ok());
  w.sim.restart(ZkWorld::kServer);
  REQUIRE(w.server()->serving());
  CHECK(w.server()->recovery().truncated_bytes == torn.size());
  CHECK(w.server()->tree() == acked);
  auto after = disk.size(log);
  REQUIRE(after.is_ok());
  CHECK(*after == *size);
}

TEST_CASE("zk: the same seed gives the same run", "[zk][recovery]") {
  auto run = [](uint64_t seed) {
    ZkServerConfig config;
    config.storage.snapshot_count = 5;
    ZkWorld w(seed, config);
    ZkTestClient* a = w.add_client(NodeId{2});
    ZkTestClient* b = w.add_client(NodeId{3});
    w.create(a, "/x", "0");
    for (int i = 0; i < 10; i++) {
      a->zk.set_data("/x", to_bytes("a" + std::to_string(i)), -1, [](ZkError, Stat) {});
      b->zk.set_data("/x", to_bytes("b" + std::to_string(i)), i, [](ZkError, Stat) {});
    }
    w.sim.run_for(Duration::seconds(1));
    w.sim.power_loss(ZkWorld::kServer);
    w.sim.restart(ZkWorld::kServer);
    w.sim.run_for(Duration::seconds(30));
    return w.sim.fingerprint().hex();
  };
  CHECK(run(7) == run(7));
  CHECK(run(7) != run(8));
}
