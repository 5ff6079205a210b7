// The broker's idempotent-producer state (engine/broker/producer_state.h) over a real Log on a
// SimDisk: duplicates, gaps, epochs, and the rebuild from the log that a new leader relies on.
#include <catch2/catch.hpp>

#include "engine/broker/producer_state.h"
#include "engine/log/log.h"
#include "engine/record/batch_builder.h"
#include "sim/sim_disk.h"

using namespace gregor;
using broker::ProducerStateManager;
using protocol::ErrorCode;

namespace {

Bytes idempotent_batch(int64_t pid, int16_t epoch, int32_t seq, int count) {
  std::vector<record::Record> records;
  for (int i = 0; i < count; i++) {
    record::Record r;
    r.timestamp = 1000;
    r.value = to_bytes("p-" + std::to_string(seq + i));
    records.push_back(r);
  }
  record::BatchBuildOptions o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = seq;
  return record::build_batch(o, records);
}

struct Leader {
  sim::SimDisk disk;
  std::unique_ptr<log::Log> log;
  ProducerStateManager state;
  Leader() {
    auto l = log::Log::load(disk, "t-0", log::LogConfig{}, Time{0});
    REQUIRE(l);
    log = std::move(*l);
  }
  // What Partition::append_as_leader does: check, then append and record. Returns the error, and
  // the base offset of the append or of the original batch of a duplicate.
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
};

}  // namespace

TEST_CASE("a retried batch is acknowledged with its original offset, not appended twice", "[groups][idempotence]") {
  Leader l;
  CHECK(l.append(idempotent_batch(7, 0, 0, 3)) == std::make_pair(ErrorCode::NONE, int64_t{0}));
  CHECK(l.append(idempotent_batch(7, 0, 3, 2)) == std::make_pair(ErrorCode::NONE, int64_t{3}));
  // The same batch again (a retry after a lost response): the original offset, no new records.
  CHECK(l.append(idempotent_batch(7, 0, 0, 3)) == std::make_pair(ErrorCode::NONE, int64_t{0}));
  CHECK(l.append(idempotent_batch(7, 0, 3, 2)) == std::make_pair(ErrorCode::NONE, int64_t{3}));
  CHECK(l.log->log_end_offset() == Offset{5});
  // A gap is refused; the next in sequence is fine.
  CHECK(l.append(idempotent_batch(7, 0, 6, 1)).first == ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  CHECK(l.append(idempotent_batch(7, 0, 5, 1)) == std::make_pair(ErrorCode::NONE, int64_t{5}));
  // Another producer has its own sequence.
  CHECK(l.append(idempotent_batch(8, 0, 0, 1)) == std::make_pair(ErrorCode::NONE, int64_t{6}));
  // Non-idempotent batches pass untouched.
  std::vector<record::Record> plain(1);
  plain[0].value = to_bytes("plain");
  CHECK(l.append(record::build_batch({}, plain)).first == ErrorCode::NONE);
}

TEST_CASE("only the last 5 batches are remembered, and epochs fence older producers", "[groups][idempotence]") {
  Leader l;
  for (int i = 0; i < 7; i++) REQUIRE(l.append(idempotent_batch(1, 0, i, 1)).first == ErrorCode::NONE);
  CHECK(l.state.producers().at(1).batches.size() == broker::kProducerBatchesRetained);
  CHECK(l.append(idempotent_batch(1, 0, 6, 1)) == std::make_pair(ErrorCode::NONE, int64_t{6}));  // duplicate
  CHECK(l.append(idempotent_batch(1, 0, 2, 1)) == std::make_pair(ErrorCode::NONE, int64_t{2}));  // still among the 5
  // Older than the last 5: no longer recognisable, and out of sequence.
  CHECK(l.append(idempotent_batch(1, 0, 1, 1)).first == ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  // A new epoch starts at 0; an older epoch is fenced.
  CHECK(l.append(idempotent_batch(1, 1, 3, 1)).first == ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  CHECK(l.append(idempotent_batch(1, 1, 0, 1)).first == ErrorCode::NONE);
  CHECK(l.append(idempotent_batch(1, 0, 7, 1)).first == ErrorCode::INVALID_PRODUCER_EPOCH);
  // A producer never seen may start anywhere (its state may have been removed by retention).
  CHECK(l.append(idempotent_batch(99, 0, 42, 1)).first == ErrorCode::NONE);
}

TEST_CASE("producer state is rebuilt from the log: a new leader still recognises duplicates", "[groups][idempotence]") {
  sim::SimDisk disk;
  {
    auto lg = log::Log::load(disk, "t-0", log::LogConfig{}, Time{0});
    REQUIRE(lg);
    // Batches written by some other leader (as a follower fetches them): no producer state here.
    for (int i = 0; i < 3; i++) {
      Bytes b = idempotent_batch(5, 0, i * 2, 2);
      REQUIRE((*lg)->append_as_leader(std::move(b), LeaderEpoch{0}, Time{0}));
    }
    REQUIRE((*lg)->flush().is_ok());
  }
  // The "new leader": a fresh manager over the reopened log.
  auto lg = log::Log::load(disk, "t-0", log::LogConfig{}, Time{0});
  REQUIRE(lg);
  ProducerStateManager state;
  Bytes retry = idempotent_batch(5, 0, 4, 2);
  auto h = record::parse_batch_header(as_view(retry), true);
  REQUIRE(h);
  auto check = state.check_leader_append(**lg, *h);
  REQUIRE(check.duplicate);
  CHECK(check.duplicate->first_offset == 4);
  CHECK(check.duplicate->last_offset == 5);
  CHECK(state.scanned_to() == 6);
  Bytes gap = idempotent_batch(5, 0, 8, 1);
  auto hg = record::parse_batch_header(as_view(gap), true);
  CHECK(state.check_leader_append(**lg, *hg).error == ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  // Truncation below what was scanned (a follower truncating after an election) is noticed: the
  // state starts over, and the truncated batch is no longer a duplicate but the next in sequence.
  REQUIRE((*lg)->truncate_to(Offset{4}).is_ok());
  auto again = state.check_leader_append(**lg, *h);
  CHECK(!again.duplicate);
  CHECK(again.error == ErrorCode::NONE);
  CHECK(state.scanned_to() == 4);
}

TEST_CASE("a truncated batch is no duplicate once other batches took its offsets (swarm safe seed 486)", "[groups][idempotence]") {
  // The leader appends producer 7's batch (seq 2) at offset 2, loses it to a truncation when it
  // becomes a follower, leads again and appends a non-idempotent producer's batches at offsets 2
  // and 3 (no state check for those). Producer 7's retry of seq 2 must be appended, not
  // acknowledged with offset 2, which now holds someone else's record: that ack would be a lost
  // acks=all write. Partition reports every truncation (on_truncate); without it the manager
  // followed the new appends as if nothing had happened.
  Leader l;
  CHECK(l.append(idempotent_batch(7, 0, 0, 2)) == std::make_pair(ErrorCode::NONE, int64_t{0}));
  CHECK(l.append(idempotent_batch(7, 0, 2, 1)) == std::make_pair(ErrorCode::NONE, int64_t{2}));
  REQUIRE(l.log->truncate_to(Offset{2}).is_ok());
  l.state.on_truncate();
  CHECK(l.append(idempotent_batch(-1, -1, -1, 1)).second == 2);
  CHECK(l.append(idempotent_batch(-1, -1, -1, 1)).second == 3);
  CHECK(l.append(idempotent_batch(7, 0, 2, 1)) == std::make_pair(ErrorCode::NONE, int64_t{4}));
  CHECK(l.append(idempotent_batch(7, 0, 2, 1)) == std::make_pair(ErrorCode::NONE, int64_t{4}));  // now a duplicate
}
