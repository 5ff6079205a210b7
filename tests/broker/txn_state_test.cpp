// Transactions in the producer state (engine/broker/producer_state.h; KIP-98): open transactions
// and the last stable offset, markers and their fencing, aborted transactions, and the rebuild of
// all of it from the log.
#include <catch2/catch.hpp>

#include "engine/broker/producer_state.h"
#include "engine/log/log.h"
#include "engine/record/batch_builder.h"
#include "engine/record/control_record.h"
#include "sim/sim_disk.h"

using namespace gregor;
using broker::ProducerStateManager;
using protocol::ErrorCode;

namespace {

Bytes txn_batch(int64_t pid, int16_t epoch, int32_t seq, int count, bool transactional = true) {
  std::vector<record::Record> records;
  for (int i = 0; i < count; i++) {
    record::Record r;
    r.timestamp = 1000 + seq + i;
    r.value = to_bytes("p" + std::to_string(pid) + "-" + std::to_string(seq + i));
    records.push_back(r);
  }
  record::BatchBuildOptions o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = seq;
  if (transactional) o.attributes = record::kTransactionalFlagMask;
  return record::build_batch(o, records);
}

struct Leader {
  sim::SimDisk disk;
  std::unique_ptr<log::Log> log;
  ProducerStateManager state;
  Leader() { open(); }
  void open() {
    auto l = log::Log::load(disk, "t-0", log::LogConfig{}, Time{0});
    REQUIRE(l);
    log = std::move(*l);
  }
  std::pair<ErrorCode, int64_t> append(Bytes batch) {
    auto h = record::parse_batch_header(as_view(batch), true);
    REQUIRE(h);
    auto check = state.check_leader_append(*log, *h);
    if (check.duplicate) return {ErrorCode::NONE, check.duplicate->first_offset};
    if (check.error != ErrorCode::NONE) return {check.error, -1};
    auto info = log->append_as_leader(std::move(batch), LeaderEpoch{0}, Time{0});
    REQUIRE(info);
    state.on_leader_append(*log, *h, info->first_offset.value);
    return {ErrorCode::NONE, info->first_offset.value};
  }
  // What Partition::append_txn_marker does.
  std::pair<ErrorCode, int64_t> marker(int64_t pid, int16_t epoch, bool commit, int32_t coordinator_epoch = 0) {
    ErrorCode e = state.check_marker(*log, pid, epoch, coordinator_epoch);
    if (e != ErrorCode::NONE) return {e, -1};
    const record::EndTxnMarker m{commit ? record::ControlType::kCommit : record::ControlType::kAbort, coordinator_epoch};
    Bytes b = record::build_end_txn_marker_batch(pid, epoch, m, 5000);
    auto h = record::parse_batch_header(as_view(b), true);
    REQUIRE(h);
    auto info = log->append_validated(log::ValidatedBatch{SharedBytes(std::move(b)), *h}, LeaderEpoch{0}, Time{0});
    REQUIRE(info);
    state.on_leader_append(*log, *h, info->first_offset.value, m);
    return {ErrorCode::NONE, info->first_offset.value};
  }
  std::optional<int64_t> first_unstable() {
    REQUIRE(state.catch_up_for_read(*log).is_ok());
    return state.first_unstable_offset();
  }
};

}  // namespace

TEST_CASE("the last stable offset follows the earliest of two overlapping transactions", "[transactions]") {
  Leader l;
  CHECK(l.append(txn_batch(-1, -1, -1, 2, false)).second == 0);  // plain records: stable
  CHECK(!l.first_unstable());
  CHECK(l.append(txn_batch(1, 0, 0, 2)).second == 2);  // producer 1 opens at 2
  CHECK(l.append(txn_batch(2, 0, 0, 1)).second == 4);  // producer 2 opens at 4
  CHECK(l.append(txn_batch(1, 0, 2, 1)).second == 5);  // producer 1 goes on: still open at 2
  CHECK(l.first_unstable() == 2);
  CHECK(l.state.producers().at(1).current_txn_first_offset == 2);
  // Producer 1 commits: the earliest open transaction is now producer 2's.
  CHECK(l.marker(1, 0, true).second == 6);
  CHECK(l.first_unstable() == 4);
  CHECK(!l.state.producers().at(1).current_txn_first_offset);
  REQUIRE(l.state.last_completed());
  CHECK(l.state.last_completed()->first_offset == 2);
  CHECK(l.state.last_completed()->committed);
  // Producer 2 aborts: nothing is open; the abort is remembered with the LSO after it.
  CHECK(l.marker(2, 0, false).second == 7);
  CHECK(!l.first_unstable());
  REQUIRE(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX}).size() == 1);
  const broker::AbortedTxn a = l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX}).front();
  CHECK(a.producer_id == 2);
  CHECK(a.first_offset == 4);
  CHECK(a.last_offset == 7);
  CHECK(a.last_stable_offset == 8);
  // A fetch lists it when its range overlaps [4, 7].
  CHECK(l.log->collect_aborted_transactions(Offset{0}, Offset{4}).empty());
  CHECK(l.log->collect_aborted_transactions(Offset{0}, Offset{5}).size() == 1);
  CHECK(l.log->collect_aborted_transactions(Offset{7}, Offset{100}).size() == 1);
  CHECK(l.log->collect_aborted_transactions(Offset{8}, Offset{100}).empty());
}

TEST_CASE("an abort while another transaction is open records that transaction's start as its LSO", "[transactions]") {
  Leader l;
  CHECK(l.append(txn_batch(1, 0, 0, 1)).second == 0);
  CHECK(l.append(txn_batch(2, 0, 0, 1)).second == 1);
  CHECK(l.marker(2, 0, false).second == 2);
  REQUIRE(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX}).size() == 1);
  CHECK(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX}).front().last_stable_offset == 0);  // producer 1 still open
}

TEST_CASE("markers are fenced by producer epoch and coordinator epoch", "[transactions]") {
  Leader l;
  CHECK(l.append(txn_batch(1, 3, 0, 1)).first == ErrorCode::NONE);
  CHECK(l.marker(1, 2, true, 5).first == ErrorCode::INVALID_PRODUCER_EPOCH);
  CHECK(l.marker(1, 3, true, 5).first == ErrorCode::NONE);
  CHECK(l.state.producers().at(1).coordinator_epoch == 5);
  CHECK(l.marker(1, 3, true, 4).first == ErrorCode::TRANSACTION_COORDINATOR_FENCED);
  // A marker with a bumped epoch (the coordinator aborted a timed-out transaction) fences the old
  // epoch, and the producer starts again at sequence 0.
  CHECK(l.marker(1, 4, false, 5).first == ErrorCode::NONE);
  CHECK(l.append(txn_batch(1, 3, 1, 1)).first == ErrorCode::INVALID_PRODUCER_EPOCH);
  CHECK(l.append(txn_batch(1, 4, 1, 1)).first == ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  CHECK(l.append(txn_batch(1, 4, 0, 1)).first == ErrorCode::NONE);
  // A producer this partition never saw may be given a marker (it is then known).
  CHECK(l.marker(9, 0, false, 5).first == ErrorCode::NONE);
  CHECK(l.state.producers().at(9).coordinator_epoch == 5);
}

TEST_CASE("a plain batch inside an open transaction is INVALID_TXN_STATE", "[transactions]") {
  Leader l;
  CHECK(l.append(txn_batch(1, 0, 0, 1)).first == ErrorCode::NONE);
  CHECK(l.append(txn_batch(1, 0, 1, 1, false)).first == ErrorCode::INVALID_TXN_STATE);
  CHECK(l.append(txn_batch(1, 0, 1, 1)).first == ErrorCode::NONE);
  CHECK(l.marker(1, 0, true).first == ErrorCode::NONE);
  CHECK(l.append(txn_batch(1, 0, 2, 1, false)).first == ErrorCode::NONE);
}

TEST_CASE("open and aborted transactions are rebuilt from the log after a restart and a truncation", "[transactions]") {
  Leader l;
  CHECK(l.append(txn_batch(1, 0, 0, 2)).second == 0);
  CHECK(l.marker(1, 0, false).second == 2);
  CHECK(l.append(txn_batch(2, 0, 0, 1)).second == 3);
  CHECK(l.append(txn_batch(3, 0, 0, 1)).second == 4);
  CHECK(l.marker(3, 0, false).second == 5);
  REQUIRE(l.log->flush().is_ok());
  l.log.reset();
  l.open();
  ProducerStateManager fresh;
  REQUIRE(fresh.catch_up_for_read(*l.log).is_ok());
  CHECK(fresh.first_unstable_offset() == 3);
  REQUIRE(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX}).size() == 2);
  CHECK(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX})[0].first_offset == 0);
  CHECK(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX})[0].last_offset == 2);
  CHECK(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX})[1].first_offset == 4);
  CHECK(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX})[1].last_stable_offset == 3);  // producer 2 still open then
  // A truncation that removes the second abort (and its marker): only the first is left.
  REQUIRE(l.log->truncate_to(Offset{4}).is_ok());
  fresh.on_truncate();
  REQUIRE(fresh.catch_up_for_read(*l.log).is_ok());
  CHECK(l.log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX}).size() == 1);
  CHECK(fresh.first_unstable_offset() == 3);
  CHECK(!fresh.producers().count(3));
}
