// The transaction coordinator over a fake broker (txn_fixture.h): its states, its records in
// __transaction_state, the markers it sends, fencing, timeouts, failover and transaction.version.
#include "txn_fixture.h"

using namespace gregor;
using namespace gregor::test;
using protocol::ErrorCode;
using txn::TxnState;

TEST_CASE("txn coordinator: init then add partitions then commit ends in CompleteCommit after the markers") {
  TxnFixture f;
  auto init = f.init("t1");
  REQUIRE(init.error == ErrorCode::NONE);
  CHECK(init.producer_id == 1000);
  CHECK(init.producer_epoch == 0);
  CHECK(f.md("t1").state == TxnState::kEmpty);

  REQUIRE(f.add("t1", init.producer_id, 0, {tp("orders", 0), tp("orders", 1)}) == ErrorCode::NONE);
  CHECK(f.md("t1").state == TxnState::kOngoing);
  CHECK(f.md("t1").partitions.size() == 2);

  auto end = f.end("t1", init.producer_id, 0, true);
  REQUIRE(end.error == ErrorCode::NONE);
  CHECK(f.md("t1").state == TxnState::kPrepareCommit);
  // One WriteTxnMarkers per leader (orders-0 on broker 1, orders-1 on broker 2), commit markers
  // with the producer's id and epoch and the coordinator's epoch.
  REQUIRE(f.host.markers.size() == 2);
  std::set<int32_t> brokers;
  for (const auto& m : f.host.markers) {
    brokers.insert(m.broker);
    REQUIRE(m.request.markers.size() == 1);
    CHECK(m.request.markers[0].producer_id == init.producer_id);
    CHECK(m.request.markers[0].producer_epoch == 0);
    CHECK(m.request.markers[0].transaction_result == true);
    CHECK(m.request.markers[0].coordinator_epoch == 0);
  }
  CHECK(brokers == std::set<int32_t>{1, 2});
  // While the markers are out, the next transaction waits.
  CHECK(f.add("t1", init.producer_id, 0, {tp("orders", 2)}) == ErrorCode::CONCURRENT_TRANSACTIONS);
  // A retried EndTxn of the same commit is answered CONCURRENT_TRANSACTIONS, an abort INVALID_TXN_STATE.
  CHECK(f.end("t1", init.producer_id, 0, true).error == ErrorCode::CONCURRENT_TRANSACTIONS);
  CHECK(f.end("t1", init.producer_id, 0, false).error == ErrorCode::INVALID_TXN_STATE);

  f.answer_markers();
  CHECK(f.md("t1").state == TxnState::kCompleteCommit);
  CHECK(f.md("t1").partitions.empty());
  CHECK(f.end("t1", init.producer_id, 0, true).error == ErrorCode::NONE);  // a retry after completion
  CHECK(f.transitions("t1") == std::vector<std::string>{"Empty->Empty", "Empty->Ongoing", "Ongoing->PrepareCommit",
                                                        "PrepareCommit->CompleteCommit"});
  // Every transition is a record in the id's partition of __transaction_state, in Kafka's format.
  const int32_t part = txn::partition_for_transactional_id("t1", 2);
  const auto& log = f.host.state_log[part];
  REQUIRE(log.size() == 4);
  auto recs = record::decode_records(as_view(log[2]));
  REQUIRE(recs);
  REQUIRE(recs->size() == 1);
  auto key = txn::decode_txn_key(*recs->at(0).key);
  REQUIRE(key);
  CHECK(*key == "t1");
  auto value = txn::decode_txn_value(*recs->at(0).value);
  REQUIRE(value);
  CHECK(value->state == TxnState::kPrepareCommit);
  CHECK(value->producer_id == init.producer_id);
  CHECK(value->partitions == std::set<TopicPartition>{tp("orders", 0), tp("orders", 1)});
  CHECK(value->transaction_timeout_ms == 60000);

  // The next transaction starts from CompleteCommit.
  CHECK(f.add("t1", init.producer_id, 0, {tp("orders", 2)}) == ErrorCode::NONE);
  CHECK(f.md("t1").state == TxnState::kOngoing);
}

TEST_CASE("txn coordinator: markers are retried until every partition leader wrote them") {
  TxnFixture f;
  auto init = f.init("t1");
  REQUIRE(f.add("t1", init.producer_id, 0, {tp("orders", 0)}) == ErrorCode::NONE);
  REQUIRE(f.end("t1", init.producer_id, 0, false).error == ErrorCode::NONE);
  REQUIRE(f.host.markers.size() == 1);
  CHECK(f.host.markers.front().broker == 1);
  // The leader moved: NOT_LEADER_OR_FOLLOWER, then the marker goes to the new leader.
  f.host.leaders[tp("orders", 0)] = 3;
  f.answer_markers(ErrorCode::NOT_LEADER_OR_FOLLOWER);
  CHECK(f.md("t1").state == TxnState::kPrepareAbort);
  f.advance(Duration::millis(txn::kMarkerRetryBackoffMs + 10));
  REQUIRE(f.host.markers.size() == 1);
  CHECK(f.host.markers.front().broker == 3);
  CHECK(f.host.markers.front().request.markers[0].transaction_result == false);
  // A broken connection is retried too.
  auto m = std::move(f.host.markers.front());
  f.host.markers.pop_front();
  m.done(ErrorCode::NETWORK_EXCEPTION, nullptr);
  f.advance(Duration::millis(txn::kMarkerRetryBackoffMs + 10));
  REQUIRE(f.host.markers.size() == 1);
  f.answer_markers();
  CHECK(f.md("t1").state == TxnState::kCompleteAbort);
  CHECK(f.transitions("t1").back() == "PrepareAbort->CompleteAbort");
}

TEST_CASE("txn coordinator: a second InitProducerId fences the first instance and aborts its transaction") {
  TxnFixture f;
  auto first = f.init("t1");
  REQUIRE(f.add("t1", first.producer_id, 0, {tp("orders", 0)}) == ErrorCode::NONE);
  // The new instance: the open transaction is aborted with a bumped epoch; it hears
  // CONCURRENT_TRANSACTIONS until the abort completes.
  auto second = f.init("t1");
  CHECK(second.error == ErrorCode::CONCURRENT_TRANSACTIONS);
  CHECK(f.md("t1").state == TxnState::kPrepareAbort);
  CHECK(f.md("t1").producer_epoch == 1);
  REQUIRE(f.host.markers.size() == 1);
  CHECK(f.host.markers.front().request.markers[0].producer_epoch == 1);
  CHECK(f.host.markers.front().request.markers[0].transaction_result == false);
  CHECK(f.init("t1").error == ErrorCode::CONCURRENT_TRANSACTIONS);
  f.answer_markers();
  CHECK(f.md("t1").state == TxnState::kCompleteAbort);
  second = f.init("t1");
  REQUIRE(second.error == ErrorCode::NONE);
  CHECK(second.producer_id == first.producer_id);
  CHECK(second.producer_epoch == 2);
  // The old instance is fenced everywhere.
  CHECK(f.add("t1", first.producer_id, 0, {tp("orders", 1)}) == ErrorCode::PRODUCER_FENCED);
  CHECK(f.end("t1", first.producer_id, 0, true).error == ErrorCode::PRODUCER_FENCED);
  CHECK(f.add("t1", 4242, 2, {tp("orders", 1)}) == ErrorCode::INVALID_PRODUCER_ID_MAPPING);
  // KIP-360: naming an old id and epoch is fenced as well.
  CHECK(f.init("t1", 60000, std::make_pair(first.producer_id, int16_t{0})).error == ErrorCode::PRODUCER_FENCED);
  const auto transitions = f.transitions("t1");
  CHECK(std::count(transitions.begin(), transitions.end(), "Ongoing->PrepareEpochFence") == 1);
}

TEST_CASE("txn coordinator: request checks answer Kafka's errors") {
  TxnFixture f;
  CHECK(f.init("t1", 0).error == ErrorCode::INVALID_TRANSACTION_TIMEOUT);
  CHECK(f.init("t1", 900001).error == ErrorCode::INVALID_TRANSACTION_TIMEOUT);
  CHECK(f.init("t1", 900000).error == ErrorCode::NONE);
  CHECK(f.init("").error == ErrorCode::INVALID_REQUEST);
  CHECK(f.add("unknown", 1, 0, {tp("orders", 0)}) == ErrorCode::INVALID_PRODUCER_ID_MAPPING);
  auto init = f.init("t2");
  CHECK(f.end("t2", init.producer_id, init.producer_epoch, true).error == ErrorCode::INVALID_TXN_STATE);  // Empty
  // A transactional id of a partition this broker does not lead.
  f.host.leader_epoch.reset();
  f.coord().on_partitions_changed();
  CHECK(f.init("t3").error == ErrorCode::NOT_COORDINATOR);
  CHECK(f.add("t2", init.producer_id, init.producer_epoch, {tp("orders", 0)}) == ErrorCode::NOT_COORDINATOR);
}

TEST_CASE("txn coordinator: a transaction open longer than its timeout is aborted and its producer fenced") {
  TxnFixture f;
  f.config.transaction_abort_timed_out_transaction_cleanup_interval_ms = 1000;
  f.start_coordinator();  // with the shorter check interval
  auto init = f.init("slow", 5000);
  REQUIRE(init.error == ErrorCode::NONE);
  REQUIRE(f.add("slow", init.producer_id, init.producer_epoch, {tp("orders", 0)}) == ErrorCode::NONE);
  f.advance(Duration::millis(3000));
  CHECK(f.md("slow").state == TxnState::kOngoing);
  f.advance(Duration::millis(4000));
  CHECK(f.md("slow").state == TxnState::kPrepareAbort);
  CHECK(f.md("slow").producer_epoch == init.producer_epoch + 1);
  f.answer_markers();
  CHECK(f.md("slow").state == TxnState::kCompleteAbort);
  // The producer's EndTxn comes too late: its epoch is fenced.
  CHECK(f.end("slow", init.producer_id, init.producer_epoch, true).error == ErrorCode::PRODUCER_FENCED);
}

TEST_CASE("txn coordinator: idle transactional ids expire after transactional.id.expiration.ms") {
  TxnFixture f;
  f.config.transactional_id_expiration_ms = 60000;
  f.config.transaction_remove_expired_transaction_cleanup_interval_ms = 10000;
  f.start_coordinator();
  REQUIRE(f.init("idle").error == ErrorCode::NONE);
  f.advance(Duration::millis(50000));
  CHECK(f.coord().transaction("idle"));
  f.advance(Duration::millis(30000));
  CHECK(!f.coord().transaction("idle"));
  // A tombstone in the state log: a new coordinator does not load it.
  const int32_t part = txn::partition_for_transactional_id("idle", 2);
  auto recs = record::decode_records(as_view(f.host.state_log[part].back()));
  REQUIRE(recs);
  CHECK(!recs->at(0).value);
  f.host.leader_epoch = 1;
  f.start_coordinator();
  CHECK(!f.coord().transaction("idle"));
}

TEST_CASE("txn coordinator: a new coordinator loads the state log and finishes a PrepareCommit transaction") {
  TxnFixture f;
  auto init = f.init("t1");
  REQUIRE(f.add("t1", init.producer_id, 0, {tp("orders", 0), tp("orders", 2)}) == ErrorCode::NONE);
  REQUIRE(f.end("t1", init.producer_id, 0, true).error == ErrorCode::NONE);
  REQUIRE(f.init("t2").error == ErrorCode::NONE);
  f.host.markers.clear();  // the old coordinator dies with its markers unanswered
  f.host.leader_epoch = 1;
  f.start_coordinator();
  CHECK(f.md("t1").state == TxnState::kPrepareCommit);
  CHECK(f.md("t1").producer_id == init.producer_id);
  CHECK(f.md("t2").state == TxnState::kEmpty);
  // It sends the markers again, with its own coordinator epoch, then completes.
  REQUIRE(f.host.markers.size() == 2);
  CHECK(f.host.markers.front().request.markers[0].coordinator_epoch == 1);
  f.answer_markers();
  CHECK(f.md("t1").state == TxnState::kCompleteCommit);
  bool loaded = false;
  for (const auto& e : f.events)
    if (const auto* l = e.as<ev::TxnLoad>(); l && e.node.value == f.node_id() && l->transactions > 0) loaded = true;
  CHECK(loaded);
}

TEST_CASE("txn coordinator: epoch exhaustion gives a new producer id") {
  TxnFixture f;
  auto init = f.init("t1");
  REQUIRE(init.error == ErrorCode::NONE);
  // Drive the epoch up to its limit through re-initialisations.
  int16_t epoch = init.producer_epoch;
  while (epoch < INT16_MAX - 1) {
    auto again = f.init("t1");
    REQUIRE(again.error == ErrorCode::NONE);
    REQUIRE(again.producer_id == init.producer_id);
    epoch = again.producer_epoch;
  }
  auto rotated = f.init("t1");
  REQUIRE(rotated.error == ErrorCode::NONE);
  CHECK(rotated.producer_id != init.producer_id);
  CHECK(rotated.producer_epoch == 0);
}

namespace {

// The stale-EndTxn story of KIP-890: a producer commits transaction 1, its EndTxn is retried (the
// first answer was lost) and the retry arrives once transaction 2 is Ongoing.
ErrorCode stale_end_txn_story(TxnFixture& f, TxnState* state_after) {
  auto init = f.init("story");
  REQUIRE(f.add("story", init.producer_id, init.producer_epoch, {tp("orders", 0)}) == ErrorCode::NONE);
  auto end1 = f.end("story", init.producer_id, init.producer_epoch, true);
  REQUIRE(end1.error == ErrorCode::NONE);
  f.answer_markers();
  REQUIRE(f.md("story").state == TxnState::kCompleteCommit);
  // Transaction 2, with the epoch the producer has now.
  REQUIRE(f.add("story", init.producer_id, end1.producer_epoch, {tp("orders", 1)}) == ErrorCode::NONE);
  // The stale retry of transaction 1's EndTxn.
  auto stale = f.end("story", init.producer_id, init.producer_epoch, true);
  *state_after = f.md("story").state;
  return stale.error;
}

}  // namespace

TEST_CASE("txn coordinator: transaction.version 1 lets a stale EndTxn end the next transaction and 2 does not") {
  SECTION("transaction.version=1") {
    TxnFixture f(1);
    TxnState state{};
    CHECK(stale_end_txn_story(f, &state) == ErrorCode::NONE);
    CHECK(state == TxnState::kPrepareCommit);  // transaction 2 committed by a request meant for 1
  }
  SECTION("transaction.version=2") {
    TxnFixture f(2);
    TxnState state{};
    CHECK(stale_end_txn_story(f, &state) == ErrorCode::PRODUCER_FENCED);
    CHECK(state == TxnState::kOngoing);  // transaction 2 goes on
    // The epoch moved at the EndTxn, and a retry of the EndTxn just made is still a retry.
    const auto& md = f.md("story");
    CHECK(md.producer_epoch == 1);
    auto end2 = f.end("story", md.producer_id, 1, true);
    CHECK(end2.error == ErrorCode::NONE);
    CHECK(end2.producer_epoch == 2);
    CHECK(f.end("story", md.producer_id, 1, true).error == ErrorCode::CONCURRENT_TRANSACTIONS);
    f.answer_markers();
    CHECK(f.end("story", md.producer_id, 1, true).error == ErrorCode::NONE);
  }
}

TEST_CASE("txn coordinator: verify_only answers whether partitions are in the transaction") {
  TxnFixture f;
  auto init = f.init("t1");
  REQUIRE(f.add("t1", init.producer_id, 0, {tp("orders", 0)}) == ErrorCode::NONE);
  auto v = f.coord().verify_partitions("t1", init.producer_id, 0, {tp("orders", 0), tp("orders", 1)});
  CHECK(v[tp("orders", 0)] == ErrorCode::NONE);
  CHECK(v[tp("orders", 1)] == ErrorCode::INVALID_TXN_STATE);
  v = f.coord().verify_partitions("t1", init.producer_id, 5, {tp("orders", 0)});
  CHECK(v[tp("orders", 0)] == ErrorCode::PRODUCER_FENCED);
}

TEST_CASE("txn coordinator: ListTransactions and DescribeTransactions") {
  TxnFixture f;
  auto a = f.init("a");
  auto b = f.init("b");
  REQUIRE(f.add("a", a.producer_id, 0, {tp("orders", 0), tp("orders", 1)}) == ErrorCode::NONE);
  f.advance(Duration::millis(2000));
  protocol::ListTransactionsRequest all;
  auto l = f.coord().list(all);
  CHECK(l.error_code == ErrorCode::NONE);
  CHECK(l.transaction_states.size() == 2);
  protocol::ListTransactionsRequest ongoing;
  ongoing.state_filters = {"Ongoing", "Bogus"};
  l = f.coord().list(ongoing);
  REQUIRE(l.transaction_states.size() == 1);
  CHECK(l.transaction_states[0].transactional_id == "a");
  CHECK(l.unknown_state_filters == std::vector<std::string>{"Bogus"});
  protocol::ListTransactionsRequest by_pid;
  by_pid.producer_id_filters = {b.producer_id};
  l = f.coord().list(by_pid);
  REQUIRE(l.transaction_states.size() == 1);
  CHECK(l.transaction_states[0].transactional_id == "b");
  CHECK(l.transaction_states[0].transaction_state == "Empty");
  protocol::ListTransactionsRequest long_running;
  long_running.duration_filter = 1000;
  CHECK(f.coord().list(long_running).transaction_states.size() == 1);
  long_running.duration_filter = 5000;
  CHECK(f.coord().list(long_running).transaction_states.empty());

  auto d = f.coord().describe("a");
  CHECK(d.error_code == ErrorCode::NONE);
  CHECK(d.transaction_state == "Ongoing");
  CHECK(d.producer_id == a.producer_id);
  CHECK(d.transaction_timeout_ms == 60000);
  CHECK(d.transaction_start_time_ms > 0);
  REQUIRE(d.topics.size() == 1);
  CHECK(d.topics[0].partitions == std::vector<int32_t>{0, 1});
  CHECK(f.coord().describe("nobody").error_code == ErrorCode::TRANSACTIONAL_ID_NOT_FOUND);
}
