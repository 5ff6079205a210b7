// The checkers against hand-made traces: each must catch its violation, and stay quiet on a
// trace that keeps the invariant.
#include <catch2/catch.hpp>

#include "engine/coord/zxid.h"
#include "sim/check/checkers.h"
#include "sim/check/eos_checkers.h"
#include "sim/check/txn_checkers.h"
#include "sim/check/zk_checkers.h"

using namespace gregor;

namespace {

struct TraceBuilder {
  sim::CheckerSet set;
  int64_t t = 0;
  void ev(int32_t node, TraceBody body) {
    t += 1000;
    set.on_event(TraceEvent{Time{t}, NodeId{node}, std::move(body)});
  }
  void leader(int32_t node, int32_t epoch, IntList isr) {
    ev(node, ev::BecomeLeader{.topic = "t", .partition = 0, .leader_epoch = epoch, .isr = std::move(isr), .leo = 0, .hw = 0});
  }
  void append(int32_t node, int64_t base, int64_t last, int64_t crc, int32_t epoch = 0) {
    ev(node, ev::LogAppend{.topic = "t", .partition = 0, .base_offset = base, .last_offset = last, .epoch = epoch, .crc = crc,
                           .role = "leader"});
  }
  void hw(int32_t node, int64_t hw, const char* role = "leader") {
    ev(node, ev::HwAdvance{.topic = "t", .partition = 0, .hw = hw, .leader_epoch = 0, .role = role});
  }
  void truncate(int32_t node, int64_t offset) {
    ev(node, ev::LogTruncate{.topic = "t", .partition = 0, .offset = offset, .old_leo = 0, .reason = "test", .full = std::nullopt});
  }
  void ack(int64_t base, int64_t crc, int32_t acks = -1) {
    ev(2001, ev::ProduceAck{.topic = "t", .partition = 0, .base_offset = base, .count = 1, .crc = crc, .acks = acks});
  }
  void change(int32_t node, int32_t leader, int32_t epoch, IntList isr) {
    ev(node, ev::LeaderChange{.topic = "t", .partition = 0, .leader = leader, .leader_epoch = epoch, .isr = std::move(isr),
                              .controller_epoch = 1, .reason = "test"});
  }
  bool violated(const std::string& name) { return set.find(name)->violation().has_value(); }
};

}  // namespace

TEST_CASE("a clean replication trace violates nothing", "[checkers]") {
  TraceBuilder b;
  b.leader(1, 0, {1, 2});
  b.append(1, 0, 0, 111);
  b.append(2, 0, 0, 111);
  b.hw(1, 1);
  b.ack(0, 111);
  b.hw(2, 1, "follower");
  b.leader(2, 1, {2});
  b.set.finish(Time{b.t});
  for (const auto& c : b.set.checkers()) {
    INFO(c->name());
    CHECK_FALSE(c->violation());
  }
}

TEST_CASE("single-leader catches two leaders in one epoch", "[checkers]") {
  TraceBuilder b;
  b.leader(1, 3, {1, 2});
  b.leader(2, 3, {1, 2});
  REQUIRE(b.violated("single-leader"));
  CHECK(b.set.find("single-leader")->violation()->message.find("epoch 3") != std::string::npos);
  CHECK_FALSE(b.set.find("single-leader")->violation()->context.empty());
}

TEST_CASE("epoch-monotonic catches a controller going back in epochs", "[checkers]") {
  TraceBuilder b;
  b.change(1, 1, 5, {1});
  b.change(1, 2, 4, {2});
  CHECK(b.violated("epoch-monotonic"));
}

TEST_CASE("hw-monotonic catches a leader moving its HW back", "[checkers]") {
  TraceBuilder b;
  b.leader(1, 0, {1});
  b.hw(1, 5);
  b.hw(1, 3);
  CHECK(b.violated("hw-monotonic"));
}

TEST_CASE("hw-within-isr catches an ISR member below the HW", "[checkers]") {
  TraceBuilder b;
  b.leader(1, 0, {1, 2});
  b.append(1, 0, 4, 1);
  b.append(2, 0, 4, 1);
  b.hw(1, 5);
  CHECK_FALSE(b.violated("hw-within-isr"));
  b.truncate(2, 2);  // the follower lost its tail but stays in the ISR
  CHECK(b.violated("hw-within-isr"));
}

TEST_CASE("hw-within-isr forgets a leader whose process stopped", "[checkers]") {
  // Swarm safe seeds 3178 and 3271: the leader stops and starts again, and an ISR member opens a
  // log cut by a disk fault before the new process has become leader of anything.
  TraceBuilder b;
  b.leader(1, 0, {1, 2});
  b.append(1, 0, 4, 1);
  b.append(2, 0, 4, 1);
  b.hw(1, 5);
  b.ev(0, ev::NodeCrash{.target = 1, .name = "broker-1"});
  b.ev(0, ev::NodeRestart{.target = 1, .name = "broker-1", .incarnation = 2});
  b.ev(2, ev::LogOpen{.topic = "t", .partition = 0, .leo = 2, .log_start = 0});
  CHECK_FALSE(b.violated("hw-within-isr"));
  b.ev(1, ev::LogOpen{.topic = "t", .partition = 0, .leo = 5, .log_start = 0});
  b.leader(1, 1, {1, 2});  // the new process leads with the cut member in its ISR
  b.hw(1, 5);
  CHECK(b.violated("hw-within-isr"));
}

TEST_CASE("log-matching catches a different batch below the HW", "[checkers]") {
  TraceBuilder b;
  b.leader(1, 0, {1, 2});
  b.append(1, 0, 0, 111);
  b.hw(1, 1);
  b.append(2, 0, 0, 999);
  b.hw(2, 1, "follower");
  CHECK(b.violated("log-matching"));
}

TEST_CASE("acked-write-lost catches a new leader without an acknowledged batch", "[checkers]") {
  TraceBuilder b;
  b.leader(1, 0, {1, 2});
  b.append(1, 0, 0, 111);
  b.append(1, 1, 1, 222);
  b.append(2, 0, 0, 111);
  b.ack(1, 222);
  b.leader(2, 1, {2});  // broker 2 never had offset 1
  REQUIRE(b.violated("acked-write-lost"));
  CHECK(b.set.find("acked-write-lost")->violation()->message.find("offset 1") != std::string::npos);
  CHECK_FALSE(b.violated("acks1-write-lost"));
}

TEST_CASE("acks1-write-lost is checked at the end of a run too", "[checkers]") {
  TraceBuilder b;
  b.leader(1, 0, {1});
  b.append(1, 0, 0, 111);
  b.ack(0, 111, 1);
  b.truncate(1, 0);
  CHECK_FALSE(b.violated("acks1-write-lost"));
  b.set.finish(Time{b.t});
  CHECK(b.violated("acks1-write-lost"));
}

TEST_CASE("acked-write-lost ignores a leader of an epoch the controller has already superseded", "[checkers]") {
  // Swarm safe seed 1303: broker 3 is paused while the controller makes it leader at epoch 1, then,
  // finding it gone, elects broker 1 at epoch 2, which takes an acknowledged write. Resumed, broker 3
  // acts on the stale epoch-1 request (as a Kafka broker would) without that write: nobody follows
  // it, it cannot commit, and it learns of epoch 2 next. Not a loss. The same broker elected at
  // the newest epoch without the write is one.
  TraceBuilder b;
  auto change = [&](int32_t leader, int32_t epoch) {
    b.change(4, leader, epoch, {1, 2, 3});
  };
  change(1, 0);
  b.leader(1, 0, {1, 2, 3});
  b.append(1, 0, 0, 111);
  b.append(3, 0, 0, 111);
  b.ack(0, 111);
  change(3, 1);
  change(1, 2);
  b.leader(1, 2, {1, 2});
  b.append(1, 1, 1, 222);
  b.ack(1, 222);
  b.leader(3, 1, {1, 2, 3});  // the stale one
  CHECK_FALSE(b.violated("acked-write-lost"));
  change(3, 3);
  b.leader(3, 3, {3});  // a real election of a replica without offset 1
  REQUIRE(b.violated("acked-write-lost"));
  CHECK(b.set.find("acked-write-lost")->violation()->message.find("offset 1") != std::string::npos);
}

// ---- The zk checkers (sim/check/zk_checkers.h), on hand-made ensemble traces ----

namespace {

struct ZkTrace {
  sim::CheckerSet set;
  int64_t t = 0;
  ZkTrace() { sim::add_zk_checkers(set); }
  void ev(int32_t node, TraceBody body) {
    t += 1000;
    set.on_event(TraceEvent{Time{t}, NodeId{node}, std::move(body)});
  }
  void leader(int32_t node, int64_t epoch, int64_t zxid) {
    ev(node, ev::ZkLeader{.leader = node, .epoch = epoch, .zxid = zxid, .quorum = 2});
  }
  void commit(int32_t node, int64_t zxid, int64_t epoch, IntList acks) {
    ev(node, ev::ZkCommit{.zxid = zxid, .epoch = epoch, .acks = std::move(acks), .servers = 3});
  }
  void create(int32_t node, const std::string& path, int64_t zxid, int64_t session = 7, bool ephemeral = false,
              const std::string& data = "a") {
    ev(node, ev::ZkCreate{.path = path, .version = 0, .session = session, .ephemeral = ephemeral, .data = data, .zxid = zxid});
  }
  void set_data(int32_t node, const std::string& path, int32_t version, int64_t zxid, const std::string& data) {
    ev(node, ev::ZkSet{.path = path, .version = version, .session = 7, .data = data, .zxid = zxid});
  }
  void remove(int32_t node, const std::string& path, int64_t zxid, int64_t session = 7) {
    ev(node, ev::ZkDelete{.path = path, .session = session, .zxid = zxid});
  }
  void expire(int32_t node, int64_t session, int64_t ephemerals) {
    ev(node, ev::ZkSessionExpire{.session = session, .ephemerals = ephemerals});
  }
  bool violated(const std::string& name) { return set.find(name)->violation().has_value(); }
};

}  // namespace

constexpr int64_t zx(int64_t epoch, int64_t counter) { return coord::make_zxid(epoch, counter); }

TEST_CASE("a clean zk ensemble trace violates no zk checker", "[checkers][zk]") {
  ZkTrace z;
  z.leader(1003, 1, 0);
  z.commit(1003, zx(1, 1), 1, {1001, 1003});
  for (int32_t server : {1003, 1001, 1002}) z.create(server, "/brokers/ids/1", zx(1, 1), 9, true, "b1");
  z.commit(1003, zx(1, 2), 1, {1002, 1003});
  for (int32_t server : {1003, 1001, 1002}) z.set_data(server, "/x", 1, zx(1, 2), "v1");
  z.leader(1002, 2, zx(1, 2));
  z.commit(1002, zx(2, 1), 2, {1001, 1002});
  for (int32_t server : {1002, 1001}) {
    z.remove(server, "/brokers/ids/1", zx(2, 1), 9);
    z.expire(server, 9, 1);
  }
  z.set.finish(Time{z.t});
  for (const auto& c : z.set.checkers()) {
    INFO(c->name());
    CHECK_FALSE(c->violation());
  }
}

TEST_CASE("zk-quorum-commit catches a commit acknowledged by a minority", "[checkers][zk]") {
  ZkTrace z;
  z.leader(1003, 1, 0);
  z.commit(1003, zx(1, 1), 1, {1003});
  CHECK(z.violated("zk-quorum-commit"));
}

TEST_CASE("zk-quorum-commit catches a new leader without a committed write", "[checkers][zk]") {
  ZkTrace z;
  z.leader(1003, 1, 0);
  z.commit(1003, zx(1, 1), 1, {1001, 1003});
  z.commit(1003, zx(1, 2), 1, {1001, 1003});
  z.leader(1002, 2, zx(1, 1));  // elected from a log that stops before 0x100000002
  CHECK(z.violated("zk-quorum-commit"));
}

TEST_CASE("zk-quorum-commit catches two leaders of one epoch", "[checkers][zk]") {
  ZkTrace z;
  z.leader(1003, 1, 0);
  z.leader(1002, 1, 0);
  CHECK(z.violated("zk-quorum-commit"));
}

TEST_CASE("zk-quorum-commit catches a new epoch whose first commit is not counter 1", "[checkers][zk]") {
  SECTION("one running counter across epochs (the scheme before epochs were in the zxid)") {
    ZkTrace z;
    z.leader(1003, 1, 0);
    z.commit(1003, 1, 1, {1001, 1003});  // zxid 1 is epoch 0's
    CHECK(z.violated("zk-quorum-commit"));
  }
  SECTION("the counter goes on from the old epoch") {
    ZkTrace z;
    z.leader(1003, 1, 0);
    z.commit(1003, zx(1, 1), 1, {1001, 1003});
    z.leader(1002, 2, zx(1, 1));
    z.commit(1002, zx(2, 2), 2, {1001, 1002});
    CHECK(z.violated("zk-quorum-commit"));
  }
  SECTION("a gap in an epoch's counters") {
    ZkTrace z;
    z.leader(1003, 1, 0);
    z.commit(1003, zx(1, 1), 1, {1001, 1003});
    z.commit(1003, zx(1, 3), 1, {1001, 1003});
    CHECK(z.violated("zk-quorum-commit"));
  }
}

TEST_CASE("zk-quorum-commit catches an election that does not raise the epoch above the leader's log", "[checkers][zk]") {
  ZkTrace z;
  z.leader(1003, 2, zx(2, 4));  // its log already holds txns of epoch 2
  CHECK(z.violated("zk-quorum-commit"));
}

TEST_CASE("zk-znode-versions catches two values under one zxid", "[checkers][zk]") {
  ZkTrace z;
  z.set_data(1003, "/x", 1, zx(1, 5), "leader's");
  z.set_data(1001, "/x", 1, zx(1, 5), "diverged");
  CHECK(z.violated("zk-znode-versions"));
}

TEST_CASE("zk-znode-versions catches a version going back on a server", "[checkers][zk]") {
  ZkTrace z;
  z.set_data(1001, "/x", 2, zx(1, 5), "v2");
  z.set_data(1001, "/x", 2, zx(1, 6), "v2 again");
  CHECK(z.violated("zk-znode-versions"));
}

TEST_CASE("zk-znode-versions catches a server applying a lower zxid after a higher one", "[checkers][zk]") {
  ZkTrace z;
  z.set_data(1001, "/x", 1, zx(2, 1), "epoch 2");
  z.set_data(1001, "/y", 1, zx(1, 9), "epoch 1, later");
  CHECK(z.violated("zk-znode-versions"));
}

TEST_CASE("zk-ephemeral-session catches an ephemeral outliving its session", "[checkers][zk]") {
  ZkTrace z;
  z.create(1001, "/controller", 1, 9, true, "c");
  z.expire(1001, 9, 0);  // expired without deleting /controller
  CHECK(z.violated("zk-ephemeral-session"));
}

TEST_CASE("zk-ephemeral-session catches an ephemeral created for an ended session", "[checkers][zk]") {
  ZkTrace z;
  z.expire(1002, 9, 0);
  z.create(1002, "/brokers/ids/2", 4, 9, true, "b2");
  CHECK(z.violated("zk-ephemeral-session"));
}

namespace {

// A transactional producer (node 2001) and a group's consumer (node 2002) in hand-made traces.
struct TxnTrace {
  TraceBuilder b;
  TxnTrace() { sim::add_txn_checkers(b.set); }
  void consumer(const std::string& group, const std::string& isolation) {
    b.ev(2002, ev::ConsumerStart{.group = group, .client_id = group + "-1", .mode = "at-least-once",
                                 .behaviour = "at-least-once", .topics = {"t"}, .isolation = isolation});
  }
  void begin() { b.ev(2001, ev::TxnBegin{.transactional_id = "tx", .producer_id = 7, .epoch = 0}); }
  void ack(int32_t partition, int64_t base, int64_t count, int64_t crc) {
    b.ev(2001, ev::ProduceAck{.topic = "t", .partition = partition, .base_offset = base, .count = count, .crc = crc, .acks = -1});
  }
  void commit(const std::string& outcome = "NONE") {
    b.ev(2001, ev::TxnCommit{.transactional_id = "tx", .producer_id = 7, .epoch = 0, .partitions = "t-0,t-1", .outcome = outcome});
  }
  void abort(const std::string& outcome = "NONE") {
    b.ev(2001, ev::TxnAbort{.transactional_id = "tx", .producer_id = 7, .epoch = 0, .partitions = "t-0", .outcome = outcome});
  }
  void consume(const std::string& group, int32_t partition, int64_t offset) {
    b.ev(2002, ev::Consume{.group = group, .member = "m", .generation = 1, .mode = "at-least-once", .topic = "t",
                           .partition = partition, .offset = offset, .value = "p2001-" + std::to_string(offset)});
  }
  // Broker 1 leads t-<partition> and holds the batch [base, base + count) below its HW.
  void logged(int32_t partition, int64_t base, int64_t count, int64_t crc) {
    b.ev(4, ev::LeaderChange{.topic = "t", .partition = partition, .leader = 1, .leader_epoch = 0, .isr = {1},
                             .controller_epoch = 1, .reason = "test"});
    b.ev(1, ev::LogAppend{.topic = "t", .partition = partition, .base_offset = base, .last_offset = base + count - 1,
                          .epoch = 0, .crc = crc, .role = "leader"});
    b.ev(1, ev::HwAdvance{.topic = "t", .partition = partition, .hw = base + count, .leader_epoch = 0, .role = "leader"});
  }
};

}  // namespace

TEST_CASE("read-committed-no-aborted catches a read_committed group delivering an aborted record", "[checkers]") {
  SECTION("delivered after the abort was known") {
    TxnTrace t;
    t.consumer("g", "read_committed");
    t.begin();
    t.ack(0, 0, 2, 11);
    t.abort();
    t.consume("g", 0, 1);
    CHECK(t.b.violated("read-committed-no-aborted"));
    CHECK(t.b.violated("txn-atomic"));
  }
  SECTION("delivered before the producer heard its abort answered") {
    TxnTrace t;
    t.consumer("g", "read_committed");
    t.begin();
    t.ack(0, 0, 2, 11);
    t.consume("g", 0, 0);
    CHECK_FALSE(t.b.violated("read-committed-no-aborted"));
    t.abort();
    CHECK(t.b.violated("read-committed-no-aborted"));
  }
  SECTION("a fenced producer's open transaction counts as aborted") {
    TxnTrace t;
    t.consumer("g", "read_committed");
    t.begin();
    t.ack(0, 0, 1, 11);
    t.commit("PRODUCER_FENCED");
    t.consume("g", 0, 0);
    CHECK(t.b.violated("read-committed-no-aborted"));
  }
}

TEST_CASE("read-committed-no-aborted stays quiet on committed records and read_uncommitted groups", "[checkers]") {
  TxnTrace t;
  t.consumer("g", "read_uncommitted");
  t.consumer("rc", "read_committed");
  t.begin();
  t.ack(0, 0, 2, 11);
  t.abort();
  t.consume("g", 0, 0);  // read_uncommitted sees aborted records: allowed
  t.begin();
  t.ack(0, 3, 2, 12);
  t.commit("REQUEST_TIMED_OUT");  // a failed commit ends nothing
  t.commit();
  t.consume("rc", 0, 3);
  t.consume("rc", 0, 4);
  CHECK_FALSE(t.b.violated("read-committed-no-aborted"));
  CHECK_FALSE(t.b.violated("txn-atomic"));
}

TEST_CASE("txn-atomic catches a committed transaction that is only partly in the logs", "[checkers]") {
  TxnTrace t;
  t.begin();
  t.ack(0, 0, 2, 11);
  t.ack(1, 0, 3, 22);
  t.commit();
  t.logged(0, 0, 2, 11);
  t.logged(1, 5, 1, 99);  // partition 1's leader holds something else
  t.b.set.finish(Time{t.b.t + 1000});
  REQUIRE(t.b.violated("txn-atomic"));
  CHECK(t.b.set.find("txn-atomic")->violation()->message.find("t-1@0") != std::string::npos);
}

TEST_CASE("txn-atomic passes a committed transaction wholly in the logs and an aborted one partly there", "[checkers]") {
  TxnTrace t;
  t.begin();
  t.ack(0, 0, 2, 11);
  t.ack(1, 0, 3, 22);
  t.commit();
  t.begin();
  t.ack(0, 2, 1, 33);
  t.abort();
  t.logged(0, 0, 2, 11);
  t.logged(1, 0, 3, 22);
  t.b.set.finish(Time{t.b.t + 1000});
  CHECK_FALSE(t.b.violated("txn-atomic"));
}

namespace {

// The consume-transform-produce loop in hand-made traces: producer-1 (node 2001) writes input
// topic in, group eos (member node 2003, exactly-once-txn, transactional.id eos-1) writes out,
// group verify (node 2005, read_committed) reads out. Broker 1 coordinates.
struct EosTrace {
  TraceBuilder b;
  EosTrace() { sim::add_eos_checkers(b.set); }
  void start() {
    b.ev(2003, ev::ConsumerStart{.group = "eos", .client_id = "eos-1", .mode = "exactly-once-txn", .behaviour = "exactly-once-txn",
                                 .topics = {"in"}, .isolation = "read_committed"});
    b.ev(2005, ev::ConsumerStart{.group = "verify", .client_id = "verify-1", .mode = "at-least-once",
                                 .behaviour = "at-least-once", .topics = {"out"}, .isolation = "read_committed"});
  }
  void input_acked(int64_t base, int64_t count) {
    b.ev(2001, ev::ProduceAck{.topic = "in", .partition = 0, .base_offset = base, .count = count, .crc = 1, .acks = -1});
  }
  void begin() { b.ev(2003, ev::TxnBegin{.transactional_id = "eos-1", .producer_id = 9, .epoch = 0}); }
  void output_acked(int64_t base, int64_t count) {
    b.ev(2003, ev::ProduceAck{.topic = "out", .partition = 0, .base_offset = base, .count = count, .crc = 2, .acks = -1});
  }
  void coordinator(const std::string& to) {
    b.ev(1, ev::TxnStateChange{.transactional_id = "eos-1", .producer_id = 9, .producer_epoch = 0, .from = "Ongoing", .to = to,
                               .partitions = "__consumer_offsets-2,out-0"});
  }
  void commit() {
    b.ev(2003, ev::TxnCommit{.transactional_id = "eos-1", .producer_id = 9, .epoch = 0, .partitions = "out-0", .outcome = "NONE"});
  }
  // The group coordinator makes a transaction's offset visible (its marker reached __consumer_offsets).
  void offsets_visible(int64_t offset) {
    b.ev(1, ev::OffsetCommit{.group = "eos", .member = "", .generation = -1, .topic = "in", .partition = 0, .offset = offset});
  }
  // The member's consume events after its transaction committed: input offsets [first, last].
  void processed(int64_t first, int64_t last) {
    b.t += 1000;
    for (int64_t o = first; o <= last; o++)
      b.set.on_event(TraceEvent{Time{b.t}, NodeId{2003},
                                ev::Consume{.group = "eos", .member = "m", .generation = 1, .mode = "exactly-once-txn",
                                            .topic = "in", .partition = 0, .offset = o, .value = "p2001-" + std::to_string(o)}});
  }
  // verify reads output offset `at`, which names input offset `input`.
  void verified(int64_t at, int64_t input) {
    b.ev(2005, ev::Consume{.group = "verify", .member = "v", .generation = 1, .mode = "at-least-once", .topic = "out",
                           .partition = 0, .offset = at, .value = "in/0/" + std::to_string(input) + "=p2001-" + std::to_string(input)});
  }
  void fetched(int64_t offset) {
    b.ev(2003, ev::ConsumerPosition{.group = "eos", .member = "m", .generation = 2, .topic = "in", .partition = 0,
                                    .offset = offset, .reason = "committed"});
  }
  void finish() { b.set.finish(Time{b.t + 1000}); }
  // A committed transaction over input [0, 3) written to output [0, 3).
  void committed_batch() {
    input_acked(0, 3);
    begin();
    output_acked(0, 3);
    coordinator("PrepareCommit");
    offsets_visible(3);
    coordinator("CompleteCommit");
    commit();
    processed(0, 2);
  }
};

}  // namespace

TEST_CASE("eos checkers pass a clean consume-transform-produce trace", "[checkers]") {
  EosTrace t;
  t.start();
  t.committed_batch();
  for (int64_t o = 0; o < 3; o++) t.verified(o, o);
  t.verified(1, 1);  // verify reads an output record again (at least once): still one output record
  t.fetched(3);
  t.finish();
  CHECK_FALSE(t.b.violated("output-each-input-once"));
  CHECK_FALSE(t.b.violated("txn-offsets-with-commit"));
}

TEST_CASE("output-each-input-once catches an input record written twice to the output", "[checkers]") {
  EosTrace t;
  t.start();
  t.committed_batch();
  for (int64_t o = 0; o < 3; o++) t.verified(o, o);
  t.verified(3, 1);  // a second output record made from input 1: a zombie's or a replayed batch's
  t.finish();
  REQUIRE(t.b.violated("output-each-input-once"));
  CHECK(t.b.set.find("output-each-input-once")->violation()->message.find("in-0@1") != std::string::npos);
}

TEST_CASE("output-each-input-once catches an acknowledged input record missing from the output", "[checkers]") {
  EosTrace t;
  t.start();
  t.committed_batch();
  t.verified(0, 0);
  t.verified(1, 2);  // input 1 was skipped: its offset was committed without its output
  t.finish();
  REQUIRE(t.b.violated("output-each-input-once"));
  CHECK(t.b.set.find("output-each-input-once")->violation()->message.find("in-0@1") != std::string::npos);
}

TEST_CASE("txn-offsets-with-commit catches an aborting transaction's offsets made visible", "[checkers]") {
  EosTrace t;
  t.start();
  t.input_acked(0, 3);
  t.begin();
  t.output_acked(0, 3);
  t.coordinator("PrepareAbort");
  t.offsets_visible(3);
  REQUIRE(t.b.violated("txn-offsets-with-commit"));
  CHECK(t.b.set.find("txn-offsets-with-commit")->violation()->message.find("eos-1") != std::string::npos);
}

TEST_CASE("txn-offsets-with-commit catches a fetched offset that no commit made visible", "[checkers]") {
  EosTrace t;
  t.start();
  t.committed_batch();
  // The next transaction (input 3 and 4, offset 5) aborts; OffsetFetch must not answer 5.
  t.input_acked(3, 2);
  t.begin();
  t.output_acked(3, 2);
  t.coordinator("PrepareAbort");
  t.coordinator("CompleteAbort");
  t.fetched(5);
  t.finish();
  CHECK(t.b.violated("txn-offsets-with-commit"));
}

TEST_CASE("cluster model: a copy finds its own replicas and partitions, not the original's", "[checkers]") {
  // The model's maps carry a hash index of their entries (IndexedMap): a copy must index its own.
  TraceBuilder b;
  b.leader(1, 0, {1, 2});
  b.append(1, 0, 4, 111);
  b.hw(1, 5);
  sim::ClusterModel copy = b.set.model();
  b.append(1, 5, 9, 222);  // the original moves on
  b.ev(1, ev::LogAppend{.topic = "__consumer_offsets", .partition = 7, .base_offset = 0, .last_offset = 0, .epoch = 0, .crc = 1,
                        .role = "leader"});
  const sim::PartitionKey t0{"t", 0};
  REQUIRE(copy.replica(1, t0));
  CHECK(copy.replica(1, t0)->leo == 5);
  CHECK(copy.replica(1, t0)->hw == 5);
  CHECK(b.set.model().replica(1, t0)->leo == 10);
  CHECK(copy.replica(1, t0) != b.set.model().replica(1, t0));
  CHECK_FALSE(copy.replica(1, {"__consumer_offsets", 7}));
  REQUIRE(b.set.model().replica(1, {"__consumer_offsets", 7}));
  CHECK_FALSE(b.set.model().replica(2, {"__consumer_offsets", 7}));
  CHECK_FALSE(b.set.model().replica(1, {"__consumer_offsets", 8}));
  REQUIRE(copy.partition(t0));
  CHECK(copy.partition(t0)->acting.leader == 1);
  CHECK(copy.partition(t0) != b.set.model().partition(t0));
  CHECK(copy.replicas().size() == 1);
  CHECK(b.set.model().replicas().size() == 2);
}
