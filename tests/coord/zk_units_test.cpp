// Unit tests of the pieces under the server: path rules, the tree, txn and wire codecs (with
// truncation fuzzing), the prep stage's view of outstanding changes, and the log + snapshot store
// on a simulated disk (torn tails, corruption).
#include <catch2/catch.hpp>

#include "engine/coord/zk_database.h"
#include "engine/coord/zk_prep.h"
#include "engine/coord/zk_storage.h"
#include "engine/coord/zk_wire.h"
#include "engine/coord/znode_tree.h"
#include "sim/sim_disk.h"

using namespace gregor;
using namespace gregor::coord;

namespace {

Txn create_txn(int64_t zxid, const std::string& path, const std::string& data, int64_t owner = 0) {
  Txn t;
  t.zxid = zxid;
  t.session = owner;
  TxnOp op;
  op.type = TxnType::kCreate;
  op.path = path;
  op.data = to_bytes(data);
  op.ephemeral_owner = owner;
  t.ops.push_back(op);
  return t;
}

Txn session_txn(int64_t zxid, int64_t session) {
  Txn t;
  t.zxid = zxid;
  t.session = session;
  TxnOp op;
  op.type = TxnType::kCreateSession;
  op.timeout_ms = 6000;
  op.password = Bytes(16, 7);
  t.ops.push_back(op);
  return t;
}

void apply_ok(ZkDatabase& db, const Txn& t) {
  ApplyResult r;
  Status s = db.apply(t, &r);
  REQUIRE(s.is_ok());
}

}  // namespace

TEST_CASE("zk: path rules", "[zk][unit]") {
  for (const char* ok : {"/", "/a", "/a/b", "/brokers/ids/1", "/a-b_c.d", "/.../x", "/a.b"}) CHECK(valid_path(ok));
  for (const char* bad : {"", "a", "/a/", "//", "/a//b", "/.", "/..", "/a/./b", "/a/../b", "/tab\there"})
    CHECK_FALSE(valid_path(bad));
  CHECK(valid_path("/queue/", true));
  CHECK(valid_path("/", true));
  CHECK_FALSE(valid_path("/a//", true));
  CHECK(valid_path("/" + std::string(ZkLimits::kMaxPathBytes - 1, 'x')));
  CHECK_FALSE(valid_path("/" + std::string(ZkLimits::kMaxPathBytes, 'x')));
  CHECK_FALSE(valid_path("/" + std::string(ZkLimits::kMaxPathBytes - 5, 'x'), true));  // + 10 digits
  CHECK(parent_path("/a") == "/");
  CHECK(parent_path("/a/b/c") == "/a/b");
  CHECK(last_component("/a/b/c") == "c");
  CHECK(join_path("/", "x") == "/x");
  CHECK(join_path("/a", "x") == "/a/x");
  CHECK(sequence_suffix(0) == "0000000000");
  CHECK(sequence_suffix(42) == "0000000042");
  CHECK(sequence_suffix(2147483647) == "2147483647");
  CHECK(printable_data(as_view(std::string("{\"leader\":1}"))) == "{\"leader\":1}");
  CHECK(printable_data(as_view(Bytes{0, 1, 2})) == "<3 bytes>");
  CHECK(std::string(zk_error_name(ZkError::kNoChildrenForEphemerals)) == "NoChildrenForEphemerals");
  CHECK(zk_error_from_wire(-112) == ZkError::kSessionExpired);
  CHECK(zk_error_from_wire(-9999) == ZkError::kSystemError);
  CHECK(static_cast<int32_t>(ZkError::kNodeExists) == -110);
}

TEST_CASE("zk: the tree keeps stats, children and ephemerals consistent", "[zk][unit]") {
  ZnodeTree t;
  CHECK(t.create("/a", to_bytes("x"), false, 0, 1, 1000) == ZkError::kOk);
  CHECK(t.create("/a/b", {}, true, 77, 2, 2000) == ZkError::kOk);
  CHECK(t.create("/a/b/c", {}, false, 0, 3, 3000) == ZkError::kNoChildrenForEphemerals);
  CHECK(t.create("/a/b", {}, false, 0, 3, 3000) == ZkError::kNodeExists);
  CHECK(t.create("/z/y", {}, false, 0, 3, 3000) == ZkError::kNoNode);
  CHECK(t.find("/a/b")->null_data);
  CHECK(t.find("/a")->stat.ctime == 1000);
  CHECK(t.find("/a")->stat.num_children == 1);
  CHECK(t.find("/a")->stat.cversion == 1);
  CHECK(t.find("/a")->stat.pzxid == 2);
  CHECK(t.ephemerals(77) == std::vector<std::string>{"/a/b"});
  CHECK(t.remove("/a", 4) == ZkError::kNotEmpty);
  CHECK(t.set_data("/a", to_bytes("y"), false, 5, 4, 4000) == ZkError::kBadVersion);
  CHECK(t.set_data("/a", to_bytes("y"), false, 1, 4, 4000) == ZkError::kOk);
  CHECK(t.find("/a")->stat.mzxid == 4);
  CHECK(t.find("/a")->stat.mtime == 4000);
  CHECK(t.find("/a")->stat.ctime == 1000);
  CHECK(t.remove("/a/b", 5) == ZkError::kOk);
  CHECK(t.ephemerals(77).empty());
  CHECK(t.find("/a")->stat.cversion == 2);
  CHECK(t.remove("/", 6) == ZkError::kBadArguments);
  CHECK(t.remove("/zookeeper/quota", 6) == ZkError::kBadArguments);
  CHECK(t.consistent());
}

TEST_CASE("zk: snapshots round-trip and detect corruption", "[zk][unit]") {
  ZkDatabase db;
  apply_ok(db, session_txn(1, 500));
  apply_ok(db, create_txn(2, "/a", "alpha"));
  apply_ok(db, create_txn(3, "/a/e", "eph", 500));
  Bytes snap = db.encode_snapshot();
  ZkDatabase copy;
  REQUIRE(copy.decode_snapshot(as_view(snap)).is_ok());
  CHECK(copy == db);
  CHECK(copy.tree().ephemerals(500) == std::vector<std::string>{"/a/e"});
  for (size_t i = 0; i < snap.size(); i += 3) {
    Bytes bad = snap;
    bad[i] ^= 0x10;
    ZkDatabase d;
    CHECK_FALSE(d.decode_snapshot(as_view(bad)).is_ok());
  }
  for (size_t n = 0; n < snap.size(); n++) {
    ZkDatabase d;
    CHECK_FALSE(d.decode_snapshot(ByteView(snap.data(), n)).is_ok());
  }
}

TEST_CASE("zk: txns and frames decode only when whole", "[zk][unit]") {
  Txn t = create_txn(9, "/p", "data", 3);
  t.multi = true;
  t.time_ms = 1767225600123;
  TxnOp check;
  check.type = TxnType::kCheck;
  check.path = "/p";
  check.version = 0;
  t.ops.push_back(check);
  Bytes enc = encode_txn(t);
  Txn back;
  REQUIRE(decode_txn(as_view(enc), &back));
  CHECK(back == t);
  for (size_t n = 0; n < enc.size(); n++) CHECK_FALSE(decode_txn(ByteView(enc.data(), n), &back));

  wire::Request q;
  q.xid = 5;
  q.op = wire::OpCode::kMulti;
  q.ops = {ZkOp::create("/a", to_bytes("d"), CreateMode::kEphemeralSequential), ZkOp::remove("/b", 3),
           ZkOp::set_data("/c", to_bytes("e"), -1), ZkOp::check("/d", 7)};
  Bytes frame = wire::encode_request(q);
  wire::Request r;
  REQUIRE(wire::decode_request(as_view(frame), &r));
  REQUIRE(r.ops.size() == 4);
  CHECK(r.ops[0].mode == CreateMode::kEphemeralSequential);
  CHECK(r.ops[1].version == 3);
  CHECK(to_string(as_view(r.ops[2].data)) == "e");
  CHECK(r.ops[3].path == "/d");
  for (size_t n = 0; n < frame.size(); n++) {
    wire::Request partial;
    CHECK_FALSE(wire::decode_request(ByteView(frame.data(), n), &partial));
  }

  wire::Reply reply;
  reply.header = {5, 42, ZkError::kOk};
  const Stat stat{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  reply.results = {ZkOpResult{ZkOpType::kCreate, ZkError::kOk, "/a0000000001", {}},
                   ZkOpResult{ZkOpType::kSetData, ZkError::kOk, "", stat}};
  Bytes rf = wire::encode_reply(wire::OpCode::kMulti, reply);
  wire::Reply got;
  REQUIRE(wire::decode_reply(as_view(rf), wire::OpCode::kMulti, &got));
  CHECK(got.header.zxid == 42);
  CHECK(got.results[0].created_path == "/a0000000001");
  CHECK(got.results[1].stat == stat);
  for (size_t n = 0; n < rf.size(); n++) {
    wire::Reply partial;
    CHECK_FALSE(wire::decode_reply(ByteView(rf.data(), n), wire::OpCode::kMulti, &partial));
  }
  Bytes note = wire::encode_notification(7, WatchEvent{WatchType::kNodeDeleted, "/gone"});
  REQUIRE(wire::decode_notification(as_view(note), &got));
  CHECK(got.event == WatchEvent{WatchType::kNodeDeleted, "/gone"});
}

TEST_CASE("zk: prep checks against outstanding changes", "[zk][unit]") {
  ZkDatabase db;
  apply_ok(db, session_txn(1, 500));
  apply_ok(db, create_txn(2, "/x", "0"));
  ZkPrep prep(db);
  // Two conditional sets on version 0, prepared before either is applied.
  PrepOutcome first = prep.ops(500, 1, 0, {ZkOp::set_data("/x", to_bytes("a"), 0)}, false);
  PrepOutcome second = prep.ops(500, 2, 0, {ZkOp::set_data("/x", to_bytes("b"), 0)}, false);
  CHECK(first.error == ZkError::kOk);
  REQUIRE(first.txn.has_value());
  CHECK(first.txn->zxid == 3);
  CHECK(second.error == ZkError::kBadVersion);
  CHECK_FALSE(second.txn.has_value());
  // A create and a create below it, both outstanding; sequential names count outstanding creates.
  PrepOutcome dir = prep.ops(500, 3, 0, {ZkOp::create("/d", {}, CreateMode::kPersistent)}, false);
  PrepOutcome s1 = prep.ops(500, 4, 0, {ZkOp::create("/d/s", {}, CreateMode::kEphemeralSequential)}, false);
  PrepOutcome s2 = prep.ops(500, 5, 0, {ZkOp::create("/d/s", {}, CreateMode::kEphemeralSequential)}, false);
  CHECK(s1.results[0].created_path == "/d/s0000000000");
  CHECK(s2.results[0].created_path == "/d/s0000000001");
  CHECK(prep.ops(500, 6, 0, {ZkOp::remove("/d", -1)}, false).error == ZkError::kNotEmpty);
  // Closing the session deletes the ephemerals that are still outstanding too.
  PrepOutcome close = prep.close_session(500, 7, false, 0);
  REQUIRE(close.txn.has_value());
  CHECK(close.txn->ops[0].paths == std::vector<std::string>{"/d/s0000000000", "/d/s0000000001"});
  // A failed multi leaves nothing outstanding behind.
  const size_t outstanding = prep.outstanding();
  PrepOutcome m = prep.ops(500, 8, 0, {ZkOp::create("/m", {}, CreateMode::kPersistent), ZkOp::check("/x", 0)}, true);
  CHECK(m.error == ZkError::kBadVersion);  // /x is at version 1 once the first set applies
  CHECK(m.results[0].error == ZkError::kOk);
  CHECK(prep.outstanding() == outstanding);
  CHECK(prep.ops(500, 9, 0, {ZkOp::create("/m", {}, CreateMode::kPersistent)}, false).error == ZkError::kOk);
  // Applying in order empties the outstanding records.
  for (auto* o : {&first, &dir, &s1, &s2, &close}) apply_ok(db, *o->txn), prep.applied(o->txn->zxid);
  CHECK(db.tree().find("/d")->stat.num_children == 0);
  CHECK(db.tree().find("/d")->stat.cversion == 4);
}

TEST_CASE("zk: the log recovers what was flushed and cuts a torn tail", "[zk][unit]") {
  for (uint64_t seed = 1; seed <= 40; seed++) {
    sim::SimDisk disk;
    ZkDatabase live;
    {
      ZkStorage storage(disk, ZkStorageConfig{});
      ZkDatabase empty;
      REQUIRE(storage.recover(empty).is_ok());
      REQUIRE(storage.append(session_txn(1, 9)).is_ok());
      apply_ok(live, session_txn(1, 9));
      for (int i = 2; i <= 10; i++) {
        Txn t = create_txn(i, "/n" + std::to_string(i), std::string(static_cast<size_t>(i * 7), 'x'));
        REQUIRE(storage.append(t).is_ok());
        apply_ok(live, t);
      }
      REQUIRE(storage.flush().is_ok());
      for (int i = 11; i <= 15; i++) REQUIRE(storage.append(create_txn(i, "/u" + std::to_string(i), "unsynced")).is_ok());
    }
    Rng rng(seed);
    disk.power_loss(rng);
    ZkDatabase recovered;
    ZkStorage storage(disk, ZkStorageConfig{});
    auto info = storage.recover(recovered);
    REQUIRE(info.is_ok());
    // Everything flushed is there; of the rest, a prefix of whole entries.
    CHECK(recovered.last_zxid() >= 10);
    CHECK(recovered.last_zxid() <= 15);
    for (int i = 2; i <= 10; i++) CHECK(recovered.tree().exists("/n" + std::to_string(i)));
    for (int64_t i = 11; i <= recovered.last_zxid(); i++) CHECK(recovered.tree().exists("/u" + std::to_string(i)));
    // The log continues from there, and a second recovery agrees.
    const int64_t next = recovered.last_zxid() + 1;
    REQUIRE(storage.append(create_txn(next, "/next", "n")).is_ok());
    REQUIRE(storage.flush().is_ok());
    ZkDatabase again;
    ZkStorage storage2(disk, ZkStorageConfig{});
    REQUIRE(storage2.recover(again).is_ok());
    CHECK(again.last_zxid() == next);
    CHECK(again.tree().exists("/next"));
  }
}

TEST_CASE("zk: a snapshot replaces the logs and a corrupt snapshot is refused", "[zk][unit]") {
  sim::SimDisk disk;
  ZkStorageConfig config;
  config.snapshot_count = 4;
  ZkDatabase db;
  ZkStorage storage(disk, config);
  ZkDatabase empty;
  REQUIRE(storage.recover(empty).is_ok());
  for (int i = 1; i <= 6; i++) {
    Txn t = create_txn(i, "/n" + std::to_string(i), "d");
    REQUIRE(storage.append(t).is_ok());
    apply_ok(db, t);
    REQUIRE(storage.flush().is_ok());
    if (storage.snapshot_due()) REQUIRE(storage.snapshot(db).is_ok());
  }
  auto files = disk.list("zk");
  REQUIRE(files.is_ok());
  CHECK(*files == std::vector<std::string>{"log.0000000000000005", "snapshot.0000000000000004"});
  {
    ZkDatabase recovered;
    ZkStorage s(disk, config);
    auto info = s.recover(recovered);
    REQUIRE(info.is_ok());
    CHECK(info->snapshot_zxid == 4);
    CHECK(info->txns_replayed == 2);
    CHECK(recovered == db);
  }
  Rng rng(3);
  disk.corrupt_bit(rng, "zk/snapshot.0000000000000004");
  ZkDatabase recovered;
  ZkStorage s(disk, config);
  auto info = s.recover(recovered);
  REQUIRE_FALSE(info.is_ok());
  CHECK(info.status().code() == StatusCode::kCorruption);
}

// ---- zxids: (epoch << 32) | counter ----

TEST_CASE("zk: a zxid is the epoch in the high 32 bits and a counter in the low 32", "[zk][unit][zxid]") {
  CHECK(make_zxid(1, 1) == 0x100000001);
  CHECK(make_zxid(3, 2) == 0x300000002);
  CHECK(zxid_epoch(0x500000007) == 5);
  CHECK(zxid_counter(0x500000007) == 7);
  CHECK(zxid_hex(make_zxid(3, 2)) == "0x300000002");
  CHECK(make_zxid(2, 1) > make_zxid(1, 0xfffffffe));  // every txn of a newer epoch is above the older ones
  // What may follow what: the next counter of the epoch, or counter 1 of a newer one.
  CHECK(zxid_follows(0, 1));
  CHECK(zxid_follows(0, make_zxid(1, 1)));
  CHECK(zxid_follows(make_zxid(1, 4), make_zxid(1, 5)));
  CHECK(zxid_follows(make_zxid(1, 4), make_zxid(3, 1)));
  CHECK(zxid_follows(make_zxid(1, 0), make_zxid(1, 1)));
  CHECK_FALSE(zxid_follows(make_zxid(1, 4), make_zxid(1, 6)));
  CHECK_FALSE(zxid_follows(make_zxid(1, 4), make_zxid(1, 4)));
  CHECK_FALSE(zxid_follows(make_zxid(1, 4), make_zxid(2, 2)));  // a newer epoch starts at 1
  CHECK_FALSE(zxid_follows(make_zxid(2, 1), make_zxid(1, 5)));  // never back to an older epoch
  CHECK_FALSE(zxid_follows(make_zxid(1, 4), make_zxid(1, 4) + 1 + (int64_t{1} << 32)));
}

TEST_CASE("zk: the database applies the next counter of its epoch or counter 1 of a newer one", "[zk][unit][zxid]") {
  ZkDatabase db;
  apply_ok(db, session_txn(make_zxid(1, 1), 9));
  apply_ok(db, create_txn(make_zxid(1, 2), "/a", "x"));
  ApplyResult r;
  CHECK_FALSE(db.apply(create_txn(make_zxid(1, 4), "/gap", "x"), &r).is_ok());
  CHECK_FALSE(db.apply(create_txn(make_zxid(2, 2), "/mid-epoch", "x"), &r).is_ok());
  CHECK_FALSE(db.apply(create_txn(make_zxid(1, 2), "/again", "x"), &r).is_ok());
  CHECK(db.last_zxid() == make_zxid(1, 2));
  apply_ok(db, create_txn(make_zxid(3, 1), "/b", "y"));  // epoch 2 committed nothing
  CHECK(db.tree().find("/b")->stat.czxid == make_zxid(3, 1));
  CHECK(db.tree().find("/")->stat.pzxid == make_zxid(3, 1));
}

TEST_CASE("zk: prep starts a new epoch at counter 1", "[zk][unit][zxid]") {
  ZkDatabase db;
  apply_ok(db, session_txn(make_zxid(1, 1), 9));
  ZkPrep prep(db);
  prep.start_epoch(4);
  PrepOutcome out = prep.ops(9, 1, 0, {ZkOp::create("/c", to_bytes("z"), CreateMode::kPersistent)}, false);
  REQUIRE(out.txn.has_value());
  CHECK(out.txn->zxid == make_zxid(4, 1));
  CHECK(out.results[0].stat.czxid == make_zxid(4, 1));
  apply_ok(db, *out.txn);
}

TEST_CASE("zk: the txn log spans epochs and truncates back to a zxid", "[zk][unit][zxid]") {
  sim::SimDisk disk;
  ZkDatabase db;
  {
    ZkStorage storage(disk, ZkStorageConfig{});
    ZkDatabase empty;
    REQUIRE(storage.recover(empty).is_ok());
    std::vector<Txn> txns{session_txn(make_zxid(1, 1), 9), create_txn(make_zxid(1, 2), "/a", "1"),
                          create_txn(make_zxid(2, 1), "/b", "2"), create_txn(make_zxid(2, 2), "/c", "3")};
    for (const Txn& t : txns) {
      REQUIRE(storage.append(t).is_ok());
      apply_ok(db, t);
    }
    REQUIRE(storage.flush().is_ok());
  }
  {
    // A restart opens a second log: the truncation removes it and cuts the first.
    ZkDatabase recovered;
    ZkStorage storage(disk, ZkStorageConfig{});
    REQUIRE(storage.recover(recovered).is_ok());
    CHECK(recovered == db);
    REQUIRE(storage.append(create_txn(make_zxid(2, 3), "/d", "4")).is_ok());
    REQUIRE(storage.flush().is_ok());
    REQUIRE(storage.truncate(make_zxid(1, 2)).is_ok());
    CHECK(storage.last_appended_zxid() == make_zxid(1, 2));
  }
  auto files = disk.list("zk");
  REQUIRE(files.is_ok());
  CHECK(*files == std::vector<std::string>{"log.0000000100000001"});
  ZkDatabase truncated;
  ZkStorage storage(disk, ZkStorageConfig{});
  REQUIRE(storage.recover(truncated).is_ok());
  CHECK(truncated.last_zxid() == make_zxid(1, 2));
  CHECK(truncated.tree().exists("/a"));
  CHECK_FALSE(truncated.tree().exists("/b"));
  // The log goes on in the new leader's epoch.
  REQUIRE(storage.append(create_txn(make_zxid(3, 1), "/e", "5")).is_ok());
  REQUIRE(storage.flush().is_ok());
  ZkDatabase again;
  ZkStorage storage2(disk, ZkStorageConfig{});
  REQUIRE(storage2.recover(again).is_ok());
  CHECK(again.last_zxid() == make_zxid(3, 1));
  CHECK(again.tree().exists("/e"));
  // Below the newest snapshot there is nothing left to cut back to.
  REQUIRE(storage2.snapshot(again).is_ok());
  CHECK_FALSE(storage2.truncate(make_zxid(1, 2)).is_ok());
}
