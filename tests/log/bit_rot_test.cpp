// Bit rot (SimDisk::corrupt_bit) in a middle segment, over many seeds: the log reports it and never
// serves a changed batch.
//
// One field is the exception, as in Kafka: partitionLeaderEpoch (bytes 12..15 of a batch) sits
// outside the CRC so that a leader can stamp it without recomputing; a flip there is served. The
// base offset is outside the CRC too, but the log checks offset continuity, so it is caught.
#include <catch2/catch.hpp>

#include "engine/record/checked_batches.h"
#include "log_test_support.h"

using namespace gregor;
using namespace gregor::log;
using namespace gregor::log::testing;

TEST_CASE("log: bit rot in a middle segment is reported, not served (SimDisk::corrupt_bit)", "[log][corruption]") {
  int detected = 0;
  int epoch_field = 0;
  for (uint64_t seed = 1; seed <= 100; seed++) {
    INFO("seed " << seed);
    Rng rng = Rng::derive(seed, "log-bit-rot");
    sim::SimDisk disk;
    auto opened = Log::load(disk, "orders-0", small_segments(700, 150), Time{0});
    REQUIRE(opened.is_ok());
    Log& log = **opened;
    for (int i = 0; i < 40; i++)
      REQUIRE(log.append_as_leader(make_batch(1 + i % 4, "r" + std::to_string(i), i, rng.uniform(60)), LeaderEpoch{i / 10}, Time{0}).is_ok());
    Bytes original;
    const auto batches = read_all_batches(log, original);
    const auto segments = log.segments();
    REQUIRE(segments.size() >= 4);
    const SegmentInfo& middle = segments[1 + rng.uniform(segments.size() - 2)];
    auto [path, position] = disk.corrupt_bit(rng, segment_path("orders-0", middle.base_offset.value, kLogSuffix));
    REQUIRE(!path.empty());
    // Where the flipped byte sits in the whole log, and whether it is an epoch field.
    uint64_t log_position = position;
    for (const auto& s : segments)
      if (s.base_offset < middle.base_offset) log_position += s.size_bytes;
    bool in_epoch_field = false;
    uint64_t batch_start = 0;
    for (const auto& b : batches) {
      if (log_position >= batch_start && log_position < batch_start + b.bytes.size())
        in_epoch_field = log_position - batch_start >= 12 && log_position - batch_start < 16;
      batch_start += b.bytes.size();
    }

    // Read the whole log in small fetches, as a consumer would, stepping over what is refused.
    bool refused = false;
    Bytes served;
    Offset next = log.log_start_offset();
    while (next < log.log_end_offset()) {
      auto r = log.read(next, 1 + rng.uniform(600), log.log_end_offset());
      if (!r) {
        CHECK(r.status().code() == StatusCode::kCorruption);
        refused = true;
        // Step over the batch the original log has at `next`.
        for (const auto& b : batches)
          if (b.header.base_offset <= next.value && b.header.last_offset() >= next.value) next = Offset{b.header.next_offset()};
        continue;
      }
      auto split = record::split_batches(as_view(r->records), true);
      REQUIRE(split.is_ok());
      for (const auto& b : split->batches) {
        // Every batch served is one of the originals, byte for byte, but for the epoch field.
        bool matched = false;
        for (const auto& o : batches) {
          if (o.header.base_offset != b.header.base_offset) continue;
          Bytes got(b.bytes.begin(), b.bytes.end());
          Bytes want(o.bytes.begin(), o.bytes.end());
          if (in_epoch_field) {
            std::fill(got.begin() + 12, got.begin() + 16, 0);
            std::fill(want.begin() + 12, want.begin() + 16, 0);
          }
          matched = got == want;
        }
        REQUIRE(matched);
        next = Offset{b.header.next_offset()};
      }
    }
    if (in_epoch_field) {
      epoch_field++;
    } else {
      CHECK(refused);
      detected += refused ? 1 : 0;
    }
  }
  CHECK(detected + epoch_field == 100);
  CHECK(detected > 80);
}

TEST_CASE("log: a flipped bit below the recovery point is cut off with repair_corruption, and the log is damaged", "[log][corruption]") {
  int damaged = 0;
  for (uint64_t seed = 1; seed <= 50; seed++) {
    INFO("seed " << seed);
    Rng rng = Rng::derive(seed, "log-repair");
    sim::SimDisk disk;
    Offset end;
    {
      auto opened = Log::load(disk, "orders-0", small_segments(700, 150), Time{0});
      REQUIRE(opened.is_ok());
      for (int i = 0; i < 40; i++)
        REQUIRE((*opened)->append_as_leader(make_batch(1 + i % 4, "r" + std::to_string(i), i, rng.uniform(60)), LeaderEpoch{i / 10}, Time{0}).is_ok());
      REQUIRE((*opened)->flush().is_ok());  // a clean stop: everything below the recovery point
      end = (*opened)->log_end_offset();
    }
    const auto segments_before = disk.list("orders-0");
    REQUIRE(segments_before.is_ok());
    auto [path, position] = disk.corrupt_bit(rng, segment_path("orders-0", 0, kLogSuffix));
    REQUIRE(!path.empty());
    // Without the option the open fails; with it the log keeps what precedes the bad batch.
    RecoveryReport strict;
    OpenOptions verify;
    verify.verify_all_segments = true;
    auto refused = Log::load(disk, "orders-0", small_segments(700, 150), Time{0}, &strict, verify);
    RecoveryReport report;
    OpenOptions repair = verify;
    repair.repair_corruption = true;
    auto opened = Log::load(disk, "orders-0", small_segments(700, 150), Time{0}, &report, repair);
    REQUIRE(opened.is_ok());
    if (refused.is_ok()) {
      // The flip hit a field outside the CRC that nothing checks (the leader epoch): nothing lost.
      CHECK(!report.damaged);
      CHECK((*opened)->log_end_offset() == end);
      continue;
    }
    CHECK(refused.status().code() == StatusCode::kCorruption);
    CHECK(report.damaged);
    CHECK(report.corruption_found);
    CHECK((*opened)->log_end_offset() < end);
    CHECK((*opened)->recovery_point() <= (*opened)->log_end_offset());
    damaged++;
    // What is left reads back whole, and opens again without damage.
    auto r = (*opened)->read((*opened)->log_start_offset(), 1 << 20, (*opened)->log_end_offset());
    CHECK(r.is_ok());
    opened->reset();
    RecoveryReport again;
    CHECK(Log::load(disk, "orders-0", small_segments(700, 150), Time{0}, &again, repair).is_ok());
    CHECK(!again.damaged);
  }
  CHECK(damaged > 30);
}

TEST_CASE("log: a leader epoch below the one before it shows a flipped epoch field and the log is cut where that epoch starts", "[log][corruption]") {
  sim::SimDisk disk;
  const LogConfig config = small_segments(1 << 20, 4096);  // one segment: recovery rescans it
  std::vector<int64_t> bases;
  size_t flipped_at = 0;
  {
    auto opened = Log::load(disk, "orders-0", config, Time{0});
    REQUIRE(opened.is_ok());
    for (int i = 0; i < 20; i++)
      REQUIRE((*opened)->append_as_leader(make_batch(2, "r" + std::to_string(i)), LeaderEpoch{i < 10 ? 0 : 3}, Time{0}).is_ok());
    REQUIRE((*opened)->flush().is_ok());  // a clean stop
    Bytes storage;
    const auto batches = read_all_batches(**opened, storage);
    for (size_t i = 0; i < batches.size(); i++) {
      bases.push_back(batches[i].header.base_offset);
      if (i < 5) flipped_at += batches[i].bytes.size();
    }
  }
  // One bit of batch 5's partitionLeaderEpoch (bytes 12..15, big-endian, outside the CRC): 0 -> 2^29.
  const std::string path = segment_path("orders-0", 0, kLogSuffix);
  auto whole = disk.read_all(path);
  REQUIRE(whole.is_ok());
  Bytes bytes = *whole;
  bytes[flipped_at + 12] ^= 0x20;
  REQUIRE(disk.truncate(path, 0).is_ok());
  REQUIRE(disk.append(path, as_view(bytes)).is_ok());
  REQUIRE(disk.fsync(path).is_ok());

  auto refused = Log::load(disk, "orders-0", config, Time{0});
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().code() == StatusCode::kCorruption);
  RecoveryReport report;
  OpenOptions repair;
  repair.repair_corruption = true;
  auto opened = Log::load(disk, "orders-0", config, Time{0}, &report, repair);
  REQUIRE(opened.is_ok());
  CHECK(report.damaged);
  CHECK(report.corruption_found);
  CHECK(report.corruption_detail.find("leader epoch") != std::string::npos);
  CHECK((*opened)->log_end_offset() == Offset{bases[5]});
  CHECK((*opened)->epoch_cache().latest_epoch() == LeaderEpoch{0});
  opened->reset();
  RecoveryReport again;
  auto reopened = Log::load(disk, "orders-0", config, Time{0}, &again, repair);
  REQUIRE(reopened.is_ok());
  CHECK(!again.damaged);
  CHECK((*reopened)->log_end_offset() == Offset{bases[5]});
}

TEST_CASE("log: a batch whose CRC a read remembered as checked is still refused after a bit flips in it",
          "[log][corruption]") {
  // A read remembers the batches whose CRC it checked by the address of their bytes
  // (engine/record/checked_batches.h) and skips the check for those very bytes later. A flipped bit
  // must not hide behind that: the disk copies a page before writing under a view, so the rotten
  // bytes are at another address and are checked again.
  int refused = 0;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    INFO("seed " << seed);
    Rng rng = Rng::derive(seed, "log-checked-rot");
    sim::SimDisk disk;
    auto opened = Log::load(disk, "orders-0", small_segments(100000, 1000), Time{0});
    REQUIRE(opened.is_ok());
    Log& log = **opened;
    REQUIRE(log.append_as_leader(make_batch(3, "v", 0, 0), LeaderEpoch{0}, Time{0}).is_ok());
    auto first = log.read(Offset{0}, 1 << 20, log.log_end_offset());
    REQUIRE(first.is_ok());
    REQUIRE(!first->records.empty());
    CHECK(record::checked_before(first->records));  // the read checked it and remembers it
    auto [path, position] = disk.corrupt_bit(rng, segment_path("orders-0", 0, kLogSuffix));
    REQUIRE(!path.empty());
    auto again = log.read(Offset{0}, 1 << 20, log.log_end_offset());
    if (position >= 12 && position < 16) continue;  // the leader epoch field: outside the CRC, served
    REQUIRE_FALSE(again.is_ok());
    CHECK(again.status().code() == StatusCode::kCorruption);
    refused++;
  }
  CHECK(refused > 40);
}
