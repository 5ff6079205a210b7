// Test support for tests/log: the disks the log tests run on, fault-injecting wrappers, and
// helpers to build batches.
//
// Every behavioural test runs on both disks (GENERATE over DiskKind): the simulated disk and real
// files in a fresh temp dir. A "process crash" is dropping the Log object and opening it again from
// the same disk (FileDisk also drops its descriptors: a new FileDisk on the same root).
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/disk.h"
#include "engine/core/rng.h"
#include "engine/log/log.h"
#include "engine/record/batch_builder.h"
#include "engine/record/batch_split.h"
#include "engine/record/record.h"
#include "net/file_disk.h"
#include "sim/sim_disk.h"

namespace gregor::log::testing {

enum class DiskKind { kSim, kFile };
inline const char* disk_kind_name(DiskKind k) { return k == DiskKind::kSim ? "SimDisk" : "FileDisk"; }

// Forwards everything to another disk; subclasses override what they fault.
class ForwardingDisk : public Disk {
 public:
  explicit ForwardingDisk(Disk& inner) : inner_(&inner) {}
  Status create(const std::string& p) override { return inner_->create(p); }
  Result<uint64_t> append(const std::string& p, ByteView d) override { return inner_->append(p, d); }
  Result<Bytes> read(const std::string& p, uint64_t o, size_t n) override { return inner_->read(p, o, n); }
  Result<std::shared_ptr<const OpenFile>> open_shared(const std::string& p) override { return inner_->open_shared(p); }
  Status truncate(const std::string& p, uint64_t s) override { return inner_->truncate(p, s); }
  Status fsync(const std::string& p) override { return inner_->fsync(p); }
  Status rename(const std::string& f, const std::string& t) override { return inner_->rename(f, t); }
  Status remove(const std::string& p) override { return inner_->remove(p); }
  Result<uint64_t> size(const std::string& p) override { return inner_->size(p); }
  bool exists(const std::string& p) override { return inner_->exists(p); }
  Result<std::vector<std::string>> list(const std::string& d) override { return inner_->list(d); }
  void set_inner(Disk& inner) { inner_ = &inner; }

 protected:
  Disk* inner_;
};

// A disk that fills up: appends beyond `budget` more bytes fail with kDiskFull and change nothing
// (the Disk contract), on top of any disk.
class FillingDisk final : public ForwardingDisk {
 public:
  using ForwardingDisk::ForwardingDisk;
  Result<uint64_t> append(const std::string& p, ByteView d) override {
    if (budget_ < d.size()) return Status::error(StatusCode::kDiskFull, "test disk full");
    auto r = inner_->append(p, d);
    if (r) budget_ -= d.size();
    return r;
  }
  void set_budget(uint64_t bytes) { budget_ = bytes; }

 private:
  uint64_t budget_ = UINT64_MAX;
};

// The disk under test, of either kind, with what the tests need to crash and damage it.
class TestDisk {
 public:
  explicit TestDisk(DiskKind kind) : kind_(kind) {
    if (kind == DiskKind::kSim) {
      sim_ = std::make_unique<sim::SimDisk>();
    } else {
      char pattern[] = "/tmp/gregor-log-test-XXXXXX";
      const char* dir = ::mkdtemp(pattern);
      REQUIRE(dir != nullptr);
      root_ = dir;
      file_ = std::make_unique<net::FileDisk>(root_);
    }
    front_ = std::make_unique<FillingDisk>(backing());
  }
  ~TestDisk() {
    file_.reset();
    if (!root_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(root_, ignored);
    }
  }
  TestDisk(const TestDisk&) = delete;
  TestDisk& operator=(const TestDisk&) = delete;

  // What the log is given: forwards to the backing disk, and can be made to fill up.
  FillingDisk& disk() { return *front_; }
  DiskKind kind() const { return kind_; }
  sim::SimDisk* sim() { return sim_.get(); }

  // The process went away: a real disk's descriptors close, the page cache (and the files) stay.
  void process_crash() {
    if (file_) {
      file_ = std::make_unique<net::FileDisk>(root_);
      front_->set_inner(*file_);
    }
  }

  // Flips one bit of a file in place, durably, through the Disk interface (both kinds).
  void flip_bit(const std::string& path, uint64_t byte, int bit) {
    auto data = backing().read_all(path);
    REQUIRE(data.is_ok());
    REQUIRE(byte < data->size());
    (*data)[byte] ^= static_cast<uint8_t>(1u << bit);
    REQUIRE(backing().truncate(path, 0).is_ok());
    REQUIRE(backing().append(path, as_view(*data)).is_ok());
    REQUIRE(backing().fsync(path).is_ok());
  }

  Disk& backing() { return sim_ ? static_cast<Disk&>(*sim_) : static_cast<Disk&>(*file_); }

 private:
  DiskKind kind_;
  std::unique_ptr<sim::SimDisk> sim_;
  std::unique_ptr<net::FileDisk> file_;
  std::string root_;
  std::unique_ptr<FillingDisk> front_;
};

// A batch of `count` records as a producer would send it: value "<tag>-<i>", key "k<i>" and one
// header, timestamps from `timestamp_ms`.
inline Bytes make_batch(int count, const std::string& tag, int64_t timestamp_ms = 1000, size_t value_bytes = 0) {
  std::vector<record::Record> records;
  for (int i = 0; i < count; i++) {
    record::Record r;
    r.timestamp = timestamp_ms + i;
    r.key = to_bytes("k" + std::to_string(i));
    std::string value = tag + "-" + std::to_string(i);
    if (value.size() < value_bytes) value.resize(value_bytes, 'x');
    r.value = to_bytes(value);
    r.headers.push_back(record::RecordHeader{"h", to_bytes(tag)});
    records.push_back(std::move(r));
  }
  return record::build_batch(record::BatchBuildOptions{}, records);
}

// All batches of a log from its start to its end, checked (CRC) and split.
inline std::vector<record::BatchView> read_all_batches(Log& log, Bytes& storage) {
  auto r = log.read(log.log_start_offset(), SIZE_MAX / 2, Offset{INT64_MAX});
  REQUIRE(r.is_ok());
  storage = r->records.to_bytes();
  auto split = record::split_batches(as_view(storage), true);
  REQUIRE(split.is_ok());
  REQUIRE(split->truncated_tail_bytes == 0);
  return split->batches;
}

inline LogConfig small_segments(int64_t segment_bytes = 1024, int32_t index_interval_bytes = 128) {
  LogConfig c;
  c.segment_bytes = segment_bytes;
  c.index_interval_bytes = index_interval_bytes;
  return c;
}

inline std::string segment_path(const std::string& dir, int64_t base, const char* suffix) {
  return dir + "/" + segment_file_name(Offset{base}, suffix);
}

}  // namespace gregor::log::testing
