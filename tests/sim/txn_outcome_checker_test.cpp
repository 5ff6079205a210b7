// txn-outcome (sim/check/txn_outcome_checker.h) against hand-made traces: the stale EndTxn's damage
// (records a producer saw committed ended by an abort marker, and the reverse) and runs that hold.
#include <catch2/catch.hpp>

#include <string>

#include "sim/check/txn_outcome_checker.h"

using namespace gregor;

namespace {

// A transactional producer (node 2001, producer id 7) writing to topic t; broker 1 leads.
struct OutcomeTrace {
  sim::CheckerSet set;
  int64_t t = 0;
  OutcomeTrace() { sim::add_txn_outcome_checker(set); }
  void ev(int32_t node, TraceBody body) {
    t += 1000;
    set.on_event(TraceEvent{Time{t}, NodeId{node}, std::move(body)});
  }
  void begin() { ev(2001, ev::TxnBegin{.transactional_id = "tx", .producer_id = 7, .epoch = 0}); }
  void ack(int32_t partition, int64_t base, int64_t count) {
    ev(2001, ev::ProduceAck{.topic = "t", .partition = partition, .base_offset = base, .count = count, .crc = base + 100, .acks = -1});
  }
  void commit(const std::string& outcome = "NONE") {
    ev(2001, ev::TxnCommit{.transactional_id = "tx", .producer_id = 7, .epoch = 0, .partitions = "t-0", .outcome = outcome});
  }
  void abort(const std::string& outcome = "NONE") {
    ev(2001, ev::TxnAbort{.transactional_id = "tx", .producer_id = 7, .epoch = 0, .partitions = "t-0", .outcome = outcome});
  }
  void marker(int32_t partition, int64_t offset, const std::string& result, int64_t producer_id = 7) {
    ev(1, ev::TxnMarkerAppend{.topic = "t", .partition = partition, .producer_id = producer_id, .producer_epoch = 0,
                              .result = result, .offset = offset, .lso = offset + 1});
  }
  const std::optional<sim::Violation>& finish() {
    set.finish(Time{t + 1000});
    return set.find("txn-outcome")->violation();
  }
};

}  // namespace

TEST_CASE("txn-outcome catches records the producer saw committed ended by an abort marker", "[checkers]") {
  // The stale EndTxn: a commit marker lands inside the second transaction; its tail is ended by
  // the third transaction's abort.
  OutcomeTrace o;
  o.begin();
  o.ack(0, 0, 5);
  o.commit();
  o.marker(0, 5, "commit");
  o.begin();
  o.ack(0, 6, 5);
  o.marker(0, 11, "commit");  // the stale EndTxn's marker
  o.ack(0, 12, 5);
  o.commit();                 // answered NONE as a retry: no marker
  o.begin();
  o.ack(0, 17, 5);
  o.abort();
  o.marker(0, 22, "abort");
  const auto& v = o.finish();
  REQUIRE(v.has_value());
  CHECK(v->message.find("t-0@12..16") != std::string::npos);
  CHECK(v->message.find("abort marker at offset 22") != std::string::npos);
}

TEST_CASE("txn-outcome catches records the producer saw aborted ended by a commit marker", "[checkers]") {
  OutcomeTrace o;
  o.begin();
  o.ack(1, 0, 3);
  o.abort();
  o.marker(1, 3, "commit");
  const auto& v = o.finish();
  REQUIRE(v.has_value());
  CHECK(v->message.find("saw its transaction aborted") != std::string::npos);
}

TEST_CASE("txn-outcome holds when every transaction ends as its producer saw it end", "[checkers]") {
  OutcomeTrace o;
  o.begin();
  o.ack(0, 0, 5);
  o.ack(1, 0, 2);
  o.commit();
  o.marker(0, 5, "commit");
  o.marker(1, 2, "commit");
  o.marker(0, 6, "abort", 8);  // another producer's marker says nothing about producer 7's records
  o.begin();
  o.ack(0, 7, 5);
  o.abort("PRODUCER_FENCED");  // fenced while open: aborted
  o.marker(0, 12, "abort");
  o.begin();
  o.ack(0, 13, 5);
  o.commit("REQUEST_TIMED_OUT");  // an end that failed settles nothing
  o.marker(0, 18, "abort");
  o.begin();
  o.ack(1, 3, 4);
  o.commit();  // its marker not written before the run ended: says nothing
  CHECK_FALSE(o.finish().has_value());
}
