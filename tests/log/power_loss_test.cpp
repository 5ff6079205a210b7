// Power loss at random points, over many seeds, on the simulated disk.
//
// A CrashingDisk counts the disk operations that change something and, at a chosen one, cuts the
// power (SimDisk::power_loss: unsynced data is lost, an unsynced appended tail may survive in part
// with garbage at its end) instead of doing it; every later operation fails, like a dead machine.
// The power can go between log operations or in the middle of one (an append, a roll, a flush,
// a truncation, a retention pass, or the recovery of a previous crash). After each loss the log is
// opened again and must:
//   - open without error (power loss is not corruption);
//   - serve only batches that were appended, byte for byte, from its log start to its end, each
//     passing its CRC (never a torn or garbage batch);
//   - keep every offset below the recovery point it had reached (everything fsynced survives);
//   - have an epoch cache that matches the epochs of the batches it holds.
// Process crashes (reopening without a power loss) must lose nothing at all.
#include <catch2/catch.hpp>

#include <map>

#include "log_test_support.h"

using namespace gregor;
using namespace gregor::log;
using namespace gregor::log::testing;

namespace {

class CrashingDisk final : public ForwardingDisk {
 public:
  CrashingDisk(sim::SimDisk& sim, Rng& rng) : ForwardingDisk(sim), sim_(sim), rng_(rng) {}

  // The power goes instead of the n-th next mutating operation (0: the very next one).
  void arm(uint64_t n) { countdown_ = static_cast<int64_t>(n); }
  void disarm() { countdown_ = -1; }
  bool crashed() const { return crashed_; }
  void reboot() {
    crashed_ = false;
    countdown_ = -1;
  }

  Status create(const std::string& p) override { return gate() ? inner_->create(p) : dead(); }
  Result<uint64_t> append(const std::string& p, ByteView d) override {
    if (!gate()) return dead();
    return inner_->append(p, d);
  }
  Result<Bytes> read(const std::string& p, uint64_t o, size_t n) override {
    if (crashed_) return dead();
    return inner_->read(p, o, n);
  }
  Status truncate(const std::string& p, uint64_t s) override { return gate() ? inner_->truncate(p, s) : dead(); }
  Status fsync(const std::string& p) override { return gate() ? inner_->fsync(p) : dead(); }
  Status rename(const std::string& f, const std::string& t) override { return gate() ? inner_->rename(f, t) : dead(); }
  Status remove(const std::string& p) override { return gate() ? inner_->remove(p) : dead(); }
  Result<uint64_t> size(const std::string& p) override {
    if (crashed_) return dead();
    return inner_->size(p);
  }
  Result<std::vector<std::string>> list(const std::string& d) override {
    if (crashed_) return dead();
    return inner_->list(d);
  }

 private:
  // True when the operation may proceed; cuts the power when its turn has come.
  bool gate() {
    if (crashed_) return false;
    if (countdown_ == 0) {
      sim_.power_loss(rng_);
      crashed_ = true;
      return false;
    }
    if (countdown_ > 0) countdown_--;
    return true;
  }
  static Status dead() { return Status::error(StatusCode::kIoError, "the power is off"); }

  sim::SimDisk& sim_;
  Rng& rng_;
  int64_t countdown_ = -1;
  bool crashed_ = false;
};

// What the test knows the log should hold: every batch appended and not truncated, by base offset.
struct Model {
  std::map<int64_t, Bytes> batches;
  int64_t log_end = 0;
  void truncate(int64_t end) {
    while (!batches.empty() && std::prev(batches.end())->first >= end) batches.erase(std::prev(batches.end()));
    log_end = batches.empty() ? end : std::min(end, record::parse_batch_header(as_view(std::prev(batches.end())->second), false)->next_offset());
  }
};

struct Run {
  explicit Run(uint64_t seed) : rng(Rng::derive(seed, "log-power-loss")), disk(sim, rng) {
    config.segment_bytes = 300 + static_cast<int64_t>(rng.uniform(1500));
    config.index_interval_bytes = static_cast<int32_t>(rng.uniform(400));
    config.retention_ms = -1;
    if (rng.chance(0.3)) config.flush_messages = 1 + static_cast<int64_t>(rng.uniform(20));
  }

  // Opens until it succeeds; the power may go during recovery too.
  void open(bool may_crash_during_recovery) {
    log.reset();
    for (int attempt = 0; attempt < 20; attempt++) {
      disk.reboot();
      if (may_crash_during_recovery && rng.chance(0.3)) disk.arm(rng.uniform(6));
      RecoveryReport report;
      auto opened = Log::load(disk, "orders-0", config, now, &report);
      if (opened) {
        // A power loss tears only the end of what was appended: never taken for corruption.
        INFO(report.corruption_detail);
        REQUIRE_FALSE(report.damaged);
        disk.disarm();
        bytes_truncated += report.bytes_truncated;
        segments_deleted += report.segments_deleted;
        log = std::move(*opened);
        return;
      }
      INFO(opened.status().to_string());
      REQUIRE(disk.crashed());  // only a power loss may fail an open here
    }
    FAIL("could not open the log");
  }

  // The log must hold exactly a prefix of what the model allows, keeping at least `durable`.
  void check_recovered(int64_t durable, int64_t log_start_at_least) {
    const Offset start = log->log_start_offset();
    const Offset end = log->log_end_offset();
    INFO("start " << start << " end " << end << " durable " << durable << " model end " << model.log_end);
    REQUIRE(end.value >= durable);
    REQUIRE(end.value <= model.log_end);
    REQUIRE(start.value >= log_start_at_least);
    REQUIRE(start <= end);
    Bytes storage;
    auto batches = read_all_batches(*log, storage);
    int64_t expected = -1;
    for (const auto& b : batches) {
      auto it = model.batches.find(b.header.base_offset);
      REQUIRE(it != model.batches.end());
      REQUIRE(Bytes(b.bytes.begin(), b.bytes.end()) == it->second);
      if (expected >= 0) REQUIRE(b.header.base_offset == expected);
      expected = b.header.next_offset();
    }
    if (!batches.empty()) REQUIRE(expected == end.value);
    // The epoch cache: one entry per epoch, at its first batch (the first moved to log start).
    std::vector<std::pair<LeaderEpoch, Offset>> epochs;
    for (const auto& b : batches)
      if (epochs.empty() || b.header.partition_leader_epoch > epochs.back().first.value)
        epochs.emplace_back(LeaderEpoch{b.header.partition_leader_epoch}, std::max(Offset{b.header.base_offset}, start));
    REQUIRE(log->epoch_cache().entries() == epochs);
    model.truncate(end.value);
  }

  Rng rng;
  sim::SimDisk sim;
  CrashingDisk disk;
  LogConfig config;
  Time now{1'000'000};
  int32_t epoch = 0;
  std::unique_ptr<Log> log;
  Model model;
  uint64_t bytes_truncated = 0;
  int segments_deleted = 0;
};

}  // namespace

TEST_CASE("log: power loss at random points never serves a torn batch and keeps what was fsynced", "[log][power]") {
  int power_losses = 0;
  int losses_inside_operations = 0;
  uint64_t bytes_truncated = 0;
  int segments_deleted = 0;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    INFO("seed " << seed);
    Run run(seed);
    run.open(false);
    for (int step = 0; step < 80; step++) {
      INFO("step " << step);
      run.now = run.now + Duration::millis(static_cast<int64_t>(run.rng.uniform(50)));
      // The durable floor and the log start before this step.
      const int64_t durable = run.log->recovery_point().value;
      const int64_t start = run.log->log_start_offset().value;
      const bool armed = run.rng.chance(0.15);
      if (armed) run.disk.arm(run.rng.uniform(8));
      const uint64_t pick = run.rng.uniform(100);
      int64_t floor = durable;
      if (pick < 70) {
        if (run.rng.chance(0.1)) run.epoch++;
        Bytes batch = make_batch(1 + static_cast<int>(run.rng.uniform(4)), "s" + std::to_string(step), run.now.ms(),
                                 run.rng.uniform(120));
        const int64_t base = run.model.log_end;
        auto info = run.log->append_as_leader(batch, LeaderEpoch{run.epoch}, run.now);
        // Whether it went through or not, it may be on disk: the model allows it.
        record::set_base_offset(batch, base);
        record::set_partition_leader_epoch(batch, run.epoch);
        run.model.batches[base] = batch;
        run.model.log_end = record::parse_batch_header(as_view(batch), false)->next_offset();
        if (!info) REQUIRE(run.disk.crashed());
      } else if (pick < 80) {
        Status s = run.log->flush();
        if (!s.is_ok()) REQUIRE(run.disk.crashed());
      } else if (pick < 87) {
        const int64_t span = run.model.log_end - start;
        const int64_t target = start + static_cast<int64_t>(run.rng.uniform(static_cast<uint64_t>(span) + 1));
        floor = std::min(floor, target);
        Status s = run.log->truncate_to(Offset{target});
        if (s.is_ok()) run.model.truncate(run.log->log_end_offset().value);
        else REQUIRE(run.disk.crashed());
      } else if (pick < 92) {
        // Retention by size: keep about two segments' worth.
        LogConfig c = run.config;
        c.retention_bytes = 2 * run.config.segment_bytes;
        REQUIRE(run.log->update_config(c).is_ok());
        auto deleted = run.log->apply_retention(run.now);
        if (!deleted) REQUIRE(run.disk.crashed());
        REQUIRE(run.log->update_config(run.config).is_ok());
      } else if (pick < 96 && !armed) {
        // A process crash: everything written is still there, exactly.
        const Bytes before = [&] {
          Bytes storage;
          read_all_batches(*run.log, storage);
          return storage;
        }();
        const Offset end = run.log->log_end_offset();
        run.open(false);
        REQUIRE(run.log->log_end_offset() == end);
        Bytes after;
        read_all_batches(*run.log, after);
        REQUIRE(after == before);
        continue;
      } else {
        // The power goes between operations.
        run.disk.arm(0);
        static_cast<void>(run.disk.create("orders-0/poke"));
      }
      if (run.disk.crashed()) {
        power_losses++;
        if (pick < 92) losses_inside_operations++;
        run.open(true);
        run.check_recovered(floor, start);
      } else {
        run.disk.disarm();
        // No crash: the log and the model agree exactly.
        REQUIRE(run.log->log_end_offset().value == run.model.log_end);
      }
    }
    bytes_truncated += run.bytes_truncated;
    segments_deleted += run.segments_deleted;
  }
  // The runs did meet what they are about: many losses, some inside operations, torn tails cut,
  // and segments created by a roll whose predecessor was torn dropped.
  CHECK(power_losses > 300);
  CHECK(losses_inside_operations > 100);
  CHECK(bytes_truncated > 0);
  CHECK(segments_deleted > 0);
  WARN("power losses " << power_losses << " (" << losses_inside_operations << " inside operations), bytes cut "
                       << bytes_truncated << ", segments dropped " << segments_deleted);
}
