// Transaction state on disk (KIP-98): the aborted-transaction index (`.txnindex`, Kafka's format)
// and producer-state snapshots (`<offset>.snapshot`), on the simulated disk and on real files.
// Recovery after a restart loads the latest snapshot and scans only the log after it; the state it
// ends with equals a scan of the whole log (idempotent dedup and open transactions survive).
#include <catch2/catch.hpp>

#include "engine/broker/producer_state.h"
#include "engine/core/rng.h"
#include "engine/log/log.h"
#include "engine/record/batch_builder.h"
#include "engine/record/control_record.h"
#include "../log/log_test_support.h"

using namespace gregor;
using broker::ProducerStateManager;
using log::testing::DiskKind;
using log::testing::TestDisk;
using protocol::ErrorCode;

namespace {

Bytes producer_batch(int64_t pid, int16_t epoch, int32_t seq, int count, bool transactional) {
  std::vector<record::Record> records;
  for (int i = 0; i < count; i++) {
    record::Record r;
    r.timestamp = 1000 + seq + i;
    r.value = to_bytes("p" + std::to_string(pid) + "-" + std::to_string(seq + i) + std::string(40, 'x'));
    records.push_back(r);
  }
  record::BatchBuildOptions o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = seq;
  if (transactional) o.attributes = record::kTransactionalFlagMask;
  return record::build_batch(o, records);
}

log::LogConfig small_segments() {
  log::LogConfig c;
  c.segment_bytes = 1024;  // a roll every few batches
  return c;
}

// A leader's log and producer state, wired as Partition wires them: a snapshot at every roll.
struct Replica {
  Disk& disk;
  std::unique_ptr<log::Log> log;
  ProducerStateManager state;
  std::vector<std::string> problems;

  explicit Replica(Disk& d) : disk(d) { open(); }
  ~Replica() {
    if (log) log->set_roll_hook(nullptr);
  }
  void open() {
    auto l = log::Log::load(disk, "t-0", small_segments(), Time{0});
    REQUIRE(l);
    log = std::move(*l);
    state = ProducerStateManager{};
    state.set_problem_listener([this](const std::string& what) { problems.push_back(what); });
    log->set_roll_hook([this](Offset) { REQUIRE(state.take_snapshot(*log).is_ok()); });
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
  int64_t marker(int64_t pid, int16_t epoch, bool commit) {
    REQUIRE(state.check_marker(*log, pid, epoch, 0) == ErrorCode::NONE);
    const record::EndTxnMarker m{commit ? record::ControlType::kCommit : record::ControlType::kAbort, 0};
    Bytes b = record::build_end_txn_marker_batch(pid, epoch, m, 5000);
    auto h = record::parse_batch_header(as_view(b), true);
    REQUIRE(h);
    auto info = log->append_validated(log::ValidatedBatch{SharedBytes(std::move(b)), *h}, LeaderEpoch{0}, Time{0});
    REQUIRE(info);
    state.on_leader_append(*log, *h, info->first_offset.value, m);
    return info->first_offset.value;
  }
  std::vector<Offset> snapshots() {
    auto offsets = log->producer_snapshot_offsets();
    REQUIRE(offsets);
    return *offsets;
  }
  std::vector<log::AbortedTxn> aborted() { return log->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX}); }
};

// What a history leaves: producer 1 idempotent throughout, producer 2 aborting and committing
// transactions, producer 3 with a transaction still open at the end. Returns producer 1's last batch.
struct History {
  Bytes last_idempotent_batch;
  int64_t last_idempotent_offset = -1;
  int64_t open_txn_first_offset = -1;
};

History write_history(Replica& r, int rounds) {
  History h;
  int32_t seq1 = 0, seq2 = 0;
  for (int i = 0; i < rounds; i++) {
    Bytes b = producer_batch(1, 0, seq1, 2, false);
    h.last_idempotent_batch = b;
    auto [e1, o1] = r.append(std::move(b));
    REQUIRE(e1 == ErrorCode::NONE);
    h.last_idempotent_offset = o1;
    seq1 += 2;
    REQUIRE(r.append(producer_batch(2, 0, seq2, 3, true)).first == ErrorCode::NONE);
    seq2 += 3;
    r.marker(2, 0, i % 2 == 0);  // commit, abort, commit, ...
  }
  auto [e3, o3] = r.append(producer_batch(3, 0, 0, 1, true));
  REQUIRE(e3 == ErrorCode::NONE);
  h.open_txn_first_offset = o3;
  // One more idempotent batch after the open transaction began: the retry checked below.
  Bytes b = producer_batch(1, 0, seq1, 2, false);
  h.last_idempotent_batch = b;
  auto [e1, o1] = r.append(std::move(b));
  REQUIRE(e1 == ErrorCode::NONE);
  h.last_idempotent_offset = o1;
  return h;
}

// The state a scan of the whole log gives, for comparison: the same log with its snapshots moved away.
struct FullScan {
  std::vector<log::ProducerSnapshotEntry> entries;
  std::optional<int64_t> first_unstable;
};
FullScan full_scan(log::Log& log) {
  std::vector<std::pair<Offset, Bytes>> kept;
  auto offsets = log.producer_snapshot_offsets();
  REQUIRE(offsets);
  for (Offset o : *offsets) {
    auto bytes = log.read_producer_snapshot(o);
    REQUIRE(bytes);
    kept.emplace_back(o, std::move(*bytes));
    REQUIRE(log.delete_producer_snapshot(o).is_ok());
  }
  ProducerStateManager scan;
  REQUIRE(scan.catch_up_for_read(log).is_ok());
  CHECK(scan.loaded_snapshot_offset() == -1);
  FullScan out{scan.snapshot_entries(), scan.first_unstable_offset()};
  for (auto& [o, bytes] : kept) REQUIRE(log.write_producer_snapshot(o, as_view(bytes)).is_ok());
  return out;
}

}  // namespace

TEST_CASE("a restart recovers the producer state from its latest snapshot and scans only the log after it",
          "[transactions][snapshot]") {
  const DiskKind kind = GENERATE(DiskKind::kSim, DiskKind::kFile);
  INFO(log::testing::disk_kind_name(kind));
  TestDisk disk(kind);
  History h;
  std::vector<log::AbortedTxn> aborted_before;
  std::vector<log::ProducerSnapshotEntry> entries_before;
  {
    Replica r(disk.disk());
    h = write_history(r, 12);
    REQUIRE(r.log->segments().size() > 3);
    // Kafka keeps the newest two snapshots; every roll wrote one.
    CHECK(r.snapshots().size() == log::kProducerSnapshotsRetained);
    aborted_before = r.aborted();
    CHECK(aborted_before.size() == 6);
    REQUIRE(r.state.catch_up_for_read(*r.log).is_ok());
    entries_before = r.state.snapshot_entries();
  }
  disk.process_crash();  // no clean shutdown: the snapshots of the rolls are all there is
  Replica r(disk.disk());
  const std::vector<Offset> snapshots = r.snapshots();
  REQUIRE(!snapshots.empty());
  REQUIRE(r.state.catch_up_for_read(*r.log).is_ok());
  CHECK(r.state.loaded_snapshot_offset() == snapshots.back().value);
  // Only the batches of the active segment were scanned, not the whole log.
  CHECK(snapshots.back() == r.log->segments().back().base_offset);
  int64_t batches_after = 0;
  for (Offset at = snapshots.back(); at < r.log->log_end_offset();) {
    auto read = r.log->read(at, 1, Offset{INT64_MAX});
    REQUIRE(read);
    auto header = record::parse_batch_header(as_view(read->records), false);
    REQUIRE(header);
    at = Offset{header->next_offset()};
    batches_after++;
  }
  CHECK(r.state.batches_scanned() == batches_after);
  CHECK(batches_after < 12 * 3);
  CHECK(r.problems.empty());

  // The recovered state equals the one before the restart and a scan of the whole log.
  CHECK(r.state.snapshot_entries() == entries_before);
  const FullScan full = full_scan(*r.log);
  CHECK(r.state.snapshot_entries() == full.entries);
  CHECK(r.state.first_unstable_offset() == full.first_unstable);
  CHECK(r.state.first_unstable_offset() == h.open_txn_first_offset);
  CHECK(r.aborted() == aborted_before);

  // Idempotent dedup survives: a retry of producer 1's last batch is acknowledged, not appended.
  const Offset end = r.log->log_end_offset();
  auto [e, offset] = r.append(h.last_idempotent_batch);
  CHECK(e == ErrorCode::NONE);
  CHECK(offset == h.last_idempotent_offset);
  CHECK(r.log->log_end_offset() == end);
  // The open transaction survives: producer 3 may not write outside it, and it still holds the LSO.
  CHECK(r.append(producer_batch(3, 0, 1, 1, false)).first == ErrorCode::INVALID_TXN_STATE);
  const int64_t abort_at = r.marker(3, 0, false);
  CHECK(!r.state.first_unstable_offset());
  const std::vector<log::AbortedTxn> after = r.aborted();
  REQUIRE(after.size() == aborted_before.size() + 1);
  CHECK(after.back().first_offset == h.open_txn_first_offset);
  CHECK(after.back().last_offset == abort_at);
}

TEST_CASE("a clean shutdown snapshots at the log end so the next start scans nothing", "[transactions][snapshot]") {
  const DiskKind kind = GENERATE(DiskKind::kSim, DiskKind::kFile);
  INFO(log::testing::disk_kind_name(kind));
  TestDisk disk(kind);
  std::vector<log::ProducerSnapshotEntry> before;
  History h;
  {
    Replica r(disk.disk());
    h = write_history(r, 5);
    REQUIRE(r.log->flush().is_ok());
    REQUIRE(r.state.take_snapshot(*r.log).is_ok());  // what ReplicaManager::flush_all does
    before = r.state.snapshot_entries();
    CHECK(r.snapshots().back() == r.log->log_end_offset());
  }
  disk.process_crash();
  Replica r(disk.disk());
  REQUIRE(r.state.catch_up_for_read(*r.log).is_ok());
  CHECK(r.state.loaded_snapshot_offset() == r.log->log_end_offset().value);
  CHECK(r.state.batches_scanned() == 0);
  CHECK(r.state.snapshot_entries() == before);
  // All of it came from the snapshot: the open transaction, and producer 1's last batch, whose
  // retry is a duplicate.
  CHECK(r.state.first_unstable_offset() == h.open_txn_first_offset);
  const Offset end = r.log->log_end_offset();
  auto [e, offset] = r.append(h.last_idempotent_batch);
  CHECK(e == ErrorCode::NONE);
  CHECK(offset == h.last_idempotent_offset);
  CHECK(r.log->log_end_offset() == end);
  CHECK(r.append(producer_batch(3, 0, 1, 1, false)).first == ErrorCode::INVALID_TXN_STATE);
}

TEST_CASE("a producer snapshot that fails its CRC is reported and ignored and the log is rescanned",
          "[transactions][snapshot]") {
  const DiskKind kind = GENERATE(DiskKind::kSim, DiskKind::kFile);
  INFO(log::testing::disk_kind_name(kind));
  TestDisk disk(kind);
  std::vector<log::ProducerSnapshotEntry> before;
  std::vector<Offset> snapshots;
  {
    Replica r(disk.disk());
    write_history(r, 12);
    REQUIRE(r.state.catch_up_for_read(*r.log).is_ok());
    before = r.state.snapshot_entries();
    snapshots = r.snapshots();
    REQUIRE(snapshots.size() == 2);
  }
  disk.process_crash();
  // One bit of the newest snapshot's entries flips.
  const std::string newest = "t-0/" + log::segment_file_name(snapshots.back(), log::kProducerSnapshotSuffix);
  disk.flip_bit(newest, 12, 3);
  Replica r(disk.disk());
  REQUIRE(r.state.catch_up_for_read(*r.log).is_ok());
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].find("CRC") != std::string::npos);
  CHECK(r.problems[0].find(log::segment_file_name(snapshots.back(), log::kProducerSnapshotSuffix)) != std::string::npos);
  CHECK(!disk.backing().exists(newest));
  // The older snapshot took its place, and the rescan after it gives the same state.
  CHECK(r.state.loaded_snapshot_offset() == snapshots.front().value);
  CHECK(r.state.snapshot_entries() == before);
  CHECK(r.state.snapshot_entries() == full_scan(*r.log).entries);
}

TEST_CASE("a truncation deletes the producer snapshots above the new log end", "[transactions][snapshot]") {
  TestDisk disk(DiskKind::kSim);
  Replica r(disk.disk());
  write_history(r, 12);
  const std::vector<Offset> snapshots = r.snapshots();
  REQUIRE(snapshots.size() == 2);
  REQUIRE(r.log->truncate_to(snapshots.back() - 1).is_ok());
  r.state.on_truncate();
  CHECK(r.snapshots() == std::vector<Offset>{snapshots.front()});
  REQUIRE(r.state.catch_up_for_read(*r.log).is_ok());
  CHECK(r.state.loaded_snapshot_offset() == snapshots.front().value);
  CHECK(r.state.snapshot_entries() == full_scan(*r.log).entries);
  REQUIRE(r.log->truncate_fully_and_start_at(Offset{100}).is_ok());
  CHECK(r.snapshots().empty());
}

TEST_CASE("after a power loss the producer state from the snapshots equals a scan of what the log kept",
          "[transactions][snapshot]") {
  for (uint64_t seed = 1; seed <= 20; seed++) {
    INFO("seed " << seed);
    TestDisk disk(DiskKind::kSim);
    {
      Replica r(disk.disk());
      write_history(r, 10);
    }
    Rng rng(seed);
    disk.sim()->power_loss(rng);
    Replica r(disk.disk());
    REQUIRE(r.state.catch_up_for_read(*r.log).is_ok());
    // Every snapshot left is at or below the log end.
    for (Offset o : r.snapshots()) CHECK(o <= r.log->log_end_offset());
    const std::vector<log::AbortedTxn> aborted = r.aborted();
    const FullScan full = full_scan(*r.log);
    CHECK(r.state.snapshot_entries() == full.entries);
    CHECK(r.state.first_unstable_offset() == full.first_unstable);
    // The index lists every abort marker the log kept, each once.
    ProducerStateManager again;
    REQUIRE(again.catch_up_for_read(*r.log).is_ok());
    CHECK(r.aborted() == aborted);
  }
}

TEST_CASE("the aborted-transaction index is a txnindex file of 34-byte entries beside its segment",
          "[transactions][txnindex]") {
  const DiskKind kind = GENERATE(DiskKind::kSim, DiskKind::kFile);
  INFO(log::testing::disk_kind_name(kind));
  TestDisk disk(kind);
  Replica r(disk.disk());
  REQUIRE(r.append(producer_batch(7, 0, 0, 2, true)).first == ErrorCode::NONE);  // offsets 0-1
  REQUIRE(r.append(producer_batch(8, 0, 0, 1, true)).first == ErrorCode::NONE);  // 2, still open
  const int64_t marker = r.marker(7, 0, false);                                   // 3
  const std::string path = "t-0/00000000000000000000.txnindex";
  REQUIRE(disk.backing().exists(path));
  auto bytes = disk.backing().read_all(path);
  REQUIRE(bytes);
  REQUIRE(bytes->size() == log::kTxnIndexEntryBytes);
  ByteReader in(as_view(*bytes));
  CHECK(in.i16() == 0);       // version
  CHECK(in.i64() == 7);       // producerId
  CHECK(in.i64() == 0);       // firstOffset
  CHECK(in.i64() == marker);  // lastOffset
  CHECK(in.i64() == 2);       // lastStableOffset: producer 8's transaction is open
  // A commit adds nothing; an index file exists only where something was aborted.
  r.marker(8, 0, true);
  CHECK(disk.backing().read_all(path)->size() == log::kTxnIndexEntryBytes);
  // A truncation below the marker takes the entry away.
  REQUIRE(r.log->truncate_to(Offset{marker}).is_ok());
  r.state.on_truncate();
  CHECK(disk.backing().read_all(path)->empty());
  CHECK(r.aborted().empty());
}

TEST_CASE("a txnindex goes with its segment at retention and a torn entry is cut and rebuilt at recovery",
          "[transactions][txnindex]") {
  const DiskKind kind = GENERATE(DiskKind::kSim, DiskKind::kFile);
  INFO(log::testing::disk_kind_name(kind));
  TestDisk disk(kind);
  {
    Replica r(disk.disk());
    REQUIRE(r.append(producer_batch(5, 0, 0, 1, true)).first == ErrorCode::NONE);
    r.marker(5, 0, false);
    REQUIRE(r.append(producer_batch(5, 0, 1, 1, true)).first == ErrorCode::NONE);
    r.marker(5, 0, false);
    const std::string path = "t-0/00000000000000000000.txnindex";
    REQUIRE(disk.backing().read_all(path)->size() == 2 * log::kTxnIndexEntryBytes);
    const std::vector<log::AbortedTxn> before = r.aborted();
    r.log->set_roll_hook(nullptr);
    r.log.reset();
    // A torn write: the second entry half there.
    REQUIRE(disk.backing().truncate(path, log::kTxnIndexEntryBytes + 20).is_ok());
    disk.process_crash();
    r.open();
    CHECK(disk.backing().read_all(path)->size() == log::kTxnIndexEntryBytes);
    REQUIRE(r.state.catch_up_for_read(*r.log).is_ok());  // the rescan appends the lost entry again
    CHECK(r.aborted() == before);
    CHECK(disk.backing().read_all(path)->size() == 2 * log::kTxnIndexEntryBytes);
  }
  // Retention: the segment and its index go together.
  Replica r(disk.disk());
  write_history(r, 12);
  const std::string first = "t-0/00000000000000000000.txnindex";
  CHECK(disk.backing().exists(first));
  REQUIRE(r.log->maybe_increment_log_start_offset(r.log->segments()[2].base_offset).is_ok());
  auto deleted = r.log->apply_retention(Time{0});
  REQUIRE(deleted);
  CHECK(*deleted == 2);
  CHECK(!disk.backing().exists(first));
  for (const auto& s : r.log->segments()) {
    for (const log::AbortedTxn& a : r.log->collect_aborted_transactions(s.base_offset, s.next_offset))
      CHECK(a.last_offset >= r.log->log_start_offset().value);
  }
}

TEST_CASE("a flipped bit in a txnindex entry is found against the log and the entry is rebuilt by a full rescan",
          "[transactions][txnindex]") {
  const DiskKind kind = GENERATE(DiskKind::kSim, DiskKind::kFile);
  INFO(log::testing::disk_kind_name(kind));
  TestDisk disk(kind);
  std::vector<log::AbortedTxn> before;
  std::string path;
  {
    Replica r(disk.disk());
    write_history(r, 12);
    before = r.aborted();
    REQUIRE(before.size() == 6);
    REQUIRE(!r.snapshots().empty());
    for (const auto& s : r.log->segments()) {
      const std::string p = "t-0/" + log::segment_file_name(s.base_offset, log::kTxnIndexSuffix);
      if (disk.backing().exists(p) && disk.backing().read_all(p)->size() >= log::kTxnIndexEntryBytes) {
        path = p;
        break;
      }
    }
    REQUIRE(!path.empty());
  }
  disk.process_crash();
  disk.flip_bit(path, 2 + 7, 0);  // the first entry's producer id, 1 bit off: still a valid-looking entry
  log::RecoveryReport report;
  auto reopened = log::Log::load(disk.disk(), "t-0", small_segments(), Time{0}, &report);
  REQUIRE(reopened);
  CHECK(report.txn_index_entries_dropped >= 1);
  auto offsets = (*reopened)->producer_snapshot_offsets();
  REQUIRE(offsets);
  CHECK(offsets->empty());  // the whole log is rescanned
  ProducerStateManager state;
  REQUIRE(state.catch_up_for_read(**reopened).is_ok());
  CHECK(state.loaded_snapshot_offset() == -1);
  CHECK((*reopened)->collect_aborted_transactions(Offset{0}, Offset{INT64_MAX}) == before);
}

TEST_CASE("the aborted transactions of a read_committed fetch include one that began below the bound and aborted after another's marker",
          "[transactions][txnindex]") {
  // Two producers: A's transaction [100, 300] aborted while B's was open from 150 (LSO 150 then);
  // B's [150, 350] aborted later. A fetch of [0, 200) must list both: B's records at 150..199 are in
  // it. Stopping at A's entry because its marker (300) is past the bound missed B's (the swarm's
  // transactions profile, seed 27: a read_committed group delivered aborted records).
  TestDisk disk(DiskKind::kSim);
  log::TransactionIndex index(disk.disk(), "00000000000000000000.txnindex");
  REQUIRE(index.append(log::AbortedTxn{1, 100, 300, 150}).is_ok());
  REQUIRE(index.append(log::AbortedTxn{2, 150, 350, 351}).is_ok());
  std::vector<log::AbortedTxn> out;
  CHECK(index.collect(0, 200, out));
  REQUIRE(out.size() == 2);
  CHECK(out[0].producer_id == 1);
  CHECK(out[1].producer_id == 2);
  // A bound below B's start: only A's, and the search is complete at B's entry (its LSO is past it).
  out.clear();
  CHECK(index.collect(0, 120, out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].producer_id == 1);
  // A bound past both LSOs' reach: not complete in this segment.
  out.clear();
  CHECK_FALSE(index.collect(0, 400, out));
  CHECK(out.size() == 2);
}
