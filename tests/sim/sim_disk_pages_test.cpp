// SimDisk in pages: it must behave exactly as the simple model of one growing byte vector per file
// (page cache and durable image) that the simulator had before, fault by fault and random draw by
// random draw, whatever the page size; and the views read_shared hands out must never change.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <vector>

#include "engine/core/rng.h"
#include "sim/sim_disk.h"

using namespace gregor;
using gregor::sim::SimDisk;

namespace {

// The reference: every file one vector for the page cache and, after a truncation below the
// fsynced size, one for the durable image (sim/sim_disk.* before it had pages).
class ReferenceDisk {
 public:
  explicit ReferenceDisk(uint64_t capacity) : capacity_(capacity) {}
  bool create(const std::string& p) { return files_.try_emplace(p).second || true; }
  bool append(const std::string& p, ByteView data) {
    auto it = files_.find(p);
    if (it == files_.end() || used_ + data.size() > capacity_) return false;
    it->second.data.insert(it->second.data.end(), data.begin(), data.end());
    used_ += data.size();
    return true;
  }
  bool truncate(const std::string& p, uint64_t size) {
    auto it = files_.find(p);
    if (it == files_.end()) return false;
    File& f = it->second;
    if (size > f.data.size() && used_ + (size - f.data.size()) > capacity_) return false;
    if (size < f.synced && !f.rewritten) {
      f.durable.assign(f.data.begin(), f.data.begin() + static_cast<std::ptrdiff_t>(f.synced));
      f.rewritten = true;
    }
    used_ = used_ - f.data.size() + size;
    f.data.resize(size, 0);
    return true;
  }
  void fsync(const std::string& p) {
    File& f = files_.at(p);
    f.synced = f.data.size();
    f.rewritten = false;
    f.durable.clear();
  }
  void power_loss(Rng& rng) {
    used_ = 0;
    for (auto& [path, f] : files_) {
      if (f.rewritten) {
        f.data = std::move(f.durable);
        f.durable.clear();
        f.rewritten = false;
      } else if (f.data.size() > f.synced) {
        uint64_t extra = f.data.size() - f.synced;
        uint64_t kept = rng.uniform(extra + 1);
        f.data.resize(f.synced + kept);
        if (kept > 0 && rng.chance(0.5)) {
          uint64_t torn = 1 + rng.uniform(std::min<uint64_t>(kept, 16));
          for (uint64_t i = 0; i < torn; i++) f.data[f.data.size() - 1 - i] = static_cast<uint8_t>(rng.next_u64());
        }
      }
      f.synced = f.data.size();
      used_ += f.data.size();
    }
  }
  std::pair<std::string, uint64_t> corrupt_bit(Rng& rng) {
    std::vector<std::string> candidates;
    for (auto& [p, f] : files_)
      if (!f.data.empty()) candidates.push_back(p);
    if (candidates.empty()) return {"", 0};
    const std::string victim = candidates[rng.uniform(candidates.size())];
    File& f = files_[victim];
    uint64_t pos = rng.uniform(f.data.size());
    uint8_t mask = static_cast<uint8_t>(1u << rng.uniform(8));
    f.data[pos] ^= mask;
    if (f.rewritten && pos < f.durable.size()) f.durable[pos] ^= mask;
    return {victim, pos};
  }
  uint64_t unsynced_bytes() const {
    uint64_t n = 0;
    for (const auto& [p, f] : files_) {
      if (!f.rewritten) {
        n += f.data.size() - f.synced;
        continue;
      }
      const size_t common = std::min(f.data.size(), f.durable.size());
      n += std::max(f.data.size(), f.durable.size()) - common;
      for (size_t i = 0; i < common; i++) n += f.data[i] != f.durable[i] ? 1 : 0;
    }
    return n;
  }
  void remove(const std::string& p) {
    used_ -= files_.at(p).data.size();
    files_.erase(p);
  }
  const Bytes& data(const std::string& p) const { return files_.at(p).data; }
  bool has(const std::string& p) const { return files_.count(p) > 0; }
  uint64_t used() const { return used_; }

 private:
  struct File {
    Bytes data;
    uint64_t synced = 0;
    bool rewritten = false;
    Bytes durable;
  };
  std::map<std::string, File> files_;
  uint64_t capacity_;
  uint64_t used_ = 0;
};

Bytes random_bytes(Rng& rng, size_t n) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng.next_u64());
  return b;
}

}  // namespace

TEST_CASE("SimDisk in pages behaves as one vector per file, faults and random draws included", "[sim_disk]") {
  for (size_t page_bytes : {size_t{1}, size_t{7}, size_t{64}, size_t{4096}, SimDisk::kDefaultPageBytes}) {
    for (uint64_t seed = 1; seed <= 12; seed++) {
      INFO("page bytes " << page_bytes << ", seed " << seed);
      const uint64_t capacity = seed % 3 == 0 ? 3000 : UINT64_MAX;
      SimDisk disk(capacity, page_bytes);
      ReferenceDisk ref(capacity);
      Rng ops(seed), faults_disk(seed * 7919), faults_ref(seed * 7919);
      const std::vector<std::string> paths = {"a/1.log", "a/2.index", "b/x"};
      // Views handed out, with the bytes they showed then: they must never change.
      std::vector<std::pair<SharedBytes, Bytes>> views;
      for (int step = 0; step < 400; step++) {
        const std::string& path = paths[ops.uniform(paths.size())];
        switch (ops.uniform(10)) {
          case 0:
            REQUIRE(disk.create(path).is_ok());
            ref.create(path);
            break;
          case 1:
          case 2:
          case 3: {
            const Bytes data = random_bytes(ops, ops.uniform(200));
            const bool ok = disk.append(path, as_view(data)).is_ok();
            CHECK(ok == ref.append(path, as_view(data)));
            break;
          }
          case 4: {
            if (!ref.has(path)) break;
            const uint64_t size = ref.data(path).size();
            const uint64_t to = ops.uniform(size + 50);
            CHECK(disk.truncate(path, to).is_ok() == ref.truncate(path, to));
            break;
          }
          case 5:
            if (!ref.has(path)) break;
            REQUIRE(disk.fsync(path).is_ok());
            ref.fsync(path);
            break;
          case 6: {
            if (!ref.has(path)) break;
            const Bytes& d = ref.data(path);
            const uint64_t at = ops.uniform(d.size() + 10);
            const size_t len = static_cast<size_t>(ops.uniform(300));
            auto view = disk.read_shared(path, at, len);
            REQUIRE(view.is_ok());
            const size_t n = at >= d.size() ? 0 : std::min<size_t>(len, d.size() - static_cast<size_t>(at));
            const Bytes expected(d.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(at, d.size())),
                                 d.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(at, d.size()) + n));
            CHECK(view->to_bytes() == expected);
            views.emplace_back(*view, expected);
            break;
          }
          case 7:
            if (ops.chance(0.3)) {
              disk.power_loss(faults_disk);
              ref.power_loss(faults_ref);
            } else {
              CHECK(disk.corrupt_bit(faults_disk) == ref.corrupt_bit(faults_ref));
            }
            break;
          case 8:
            if (!ref.has(path) || !ops.chance(0.2)) break;
            REQUIRE(disk.remove(path).is_ok());
            ref.remove(path);
            break;
          default:
            if (!ref.has(path)) break;
            auto all = disk.read_all(path);
            REQUIRE(all.is_ok());
            CHECK(*all == ref.data(path));
        }
        CHECK(disk.used_bytes() == ref.used());
        CHECK(disk.unsynced_bytes() == ref.unsynced_bytes());
      }
      for (const auto& p : paths) {
        CHECK(disk.exists(p) == ref.has(p));
        if (ref.has(p)) CHECK(*disk.read_all(p) == ref.data(p));
      }
      for (const auto& [view, seen] : views) CHECK(view.to_bytes() == seen);
    }
  }
}

TEST_CASE("SimDisk: read_shared shares a page, and a write under a view copies it first", "[sim_disk]") {
  SimDisk d(UINT64_MAX, 16);
  REQUIRE(d.create("f").is_ok());
  REQUIRE(d.append("f", as_view(std::string("0123456789abcdef0123"))).is_ok());
  auto inside = d.read_shared("f", 2, 6);  // within page 0: a view
  REQUIRE(inside.is_ok());
  CHECK(to_string(inside->view()) == "234567");
  auto across = d.read_shared("f", 12, 8);  // pages 0 and 1: a copy
  REQUIRE(across.is_ok());
  CHECK(to_string(across->view()) == "cdef0123");
  CHECK(d.stats().pages_copied == 0);
  // Cut below the view and write over it: the view keeps its bytes, the file has the new ones.
  REQUIRE(d.truncate("f", 4).is_ok());
  REQUIRE(d.append("f", as_view(std::string("XYZ"))).is_ok());
  CHECK(to_string(inside->view()) == "234567");
  CHECK(to_string(as_view(*d.read_all("f"))) == "0123XYZ");
  CHECK(d.stats().pages_copied == 1);
  // Appending past everything shown does not copy again (the view ends at byte 8 of page 0;
  // this page is a fresh copy nobody has seen).
  REQUIRE(d.append("f", as_view(std::string("uvw"))).is_ok());
  CHECK(d.stats().pages_copied == 1);
  // A flipped bit does not reach a view either.
  auto again = d.read_shared("f", 0, 10);
  REQUIRE(again.is_ok());
  const Bytes before = again->to_bytes();
  Rng rng(5);
  d.corrupt_bit(rng, "f");
  CHECK(again->to_bytes() == before);
  CHECK(*d.read_all("f") != before);
}

// The disks of one world share pages (PageShare): a follower that appends the bytes its leader has
// at the same position of the same path takes the leader's page instead of writing a copy. Every
// disk must still behave as its own vector per file, whatever the others do to their copies
// (flipped bits, power losses, truncations and rewrites), and views must never change.
TEST_CASE("SimDisks sharing pages each behave as one vector per file, whatever the others do", "[sim_disk]") {
  constexpr int kDisks = 3;
  uint64_t taken = 0;
  for (uint64_t seed = 1; seed <= 8; seed++) {
    INFO("seed " << seed);
    auto share = std::make_shared<sim::PageShare>();
    std::vector<std::unique_ptr<SimDisk>> disks;
    std::vector<ReferenceDisk> refs;
    std::vector<Rng> faults_disk, faults_ref;
    for (int k = 0; k < kDisks; k++) {
      disks.push_back(std::make_unique<SimDisk>());
      disks.back()->share_pages(share);
      refs.emplace_back(UINT64_MAX);
      faults_disk.emplace_back(seed * 31 + static_cast<uint64_t>(k));
      faults_ref.emplace_back(seed * 31 + static_cast<uint64_t>(k));
    }
    Rng ops(seed);
    const std::vector<std::string> paths = {"d/orders-0/0.log", "d/orders-0/0.index"};
    std::vector<std::pair<SharedBytes, Bytes>> views;
    for (int step = 0; step < 600; step++) {
      const size_t k = static_cast<size_t>(ops.uniform(kDisks));
      SimDisk& disk = *disks[k];
      ReferenceDisk& ref = refs[k];
      const std::string& path = paths[ops.uniform(paths.size())];
      switch (ops.uniform(12)) {
        case 0:
          REQUIRE(disk.create(path).is_ok());
          ref.create(path);
          break;
        case 1:
        case 2: {  // a leader's append: new bytes, up to a third of a page
          if (!ref.has(path)) break;
          const Bytes data = random_bytes(ops, ops.uniform(SimDisk::kDefaultPageBytes / 3));
          REQUIRE(disk.append(path, as_view(data)).is_ok());
          ref.append(path, as_view(data));
          break;
        }
        case 3:
        case 4:
        case 5: {  // a follower's append: what another disk has at this disk's end of the file
          const size_t from = static_cast<size_t>(ops.uniform(kDisks));
          if (from == k || !ref.has(path) || !refs[from].has(path)) break;
          const Bytes& source = refs[from].data(path);
          const size_t end = ref.data(path).size();
          if (source.size() <= end) break;
          const size_t n = std::min<size_t>(source.size() - end, 1 + ops.uniform(SimDisk::kDefaultPageBytes));
          // As a fetch gets them: a view of the other disk's page when they lie in one, else a copy.
          auto got = disks[from]->read_shared(path, end, n);
          REQUIRE(got.is_ok());
          REQUIRE(got->size() == n);
          REQUIRE(disk.append(path, got->view()).is_ok());
          ref.append(path, got->view());
          break;
        }
        case 6: {
          if (!ref.has(path)) break;
          const uint64_t to = ops.uniform(ref.data(path).size() + 1);
          REQUIRE(disk.truncate(path, to).is_ok());
          ref.truncate(path, to);
          break;
        }
        case 7:
          if (!ref.has(path)) break;
          REQUIRE(disk.fsync(path).is_ok());
          ref.fsync(path);
          break;
        case 8: {
          if (!ref.has(path)) break;
          const Bytes& d = ref.data(path);
          const uint64_t at = ops.uniform(d.size() + 1);
          const size_t len = static_cast<size_t>(ops.uniform(5000));
          auto view = disk.read_shared(path, at, len);
          REQUIRE(view.is_ok());
          const size_t lo = static_cast<size_t>(at);
          const size_t n = std::min(len, d.size() - lo);
          views.emplace_back(*view, Bytes(d.begin() + static_cast<std::ptrdiff_t>(lo), d.begin() + static_cast<std::ptrdiff_t>(lo + n)));
          break;
        }
        case 9:
          if (ops.chance(0.4)) {
            disk.power_loss(faults_disk[k]);
            ref.power_loss(faults_ref[k]);
          } else {
            CHECK(disk.corrupt_bit(faults_disk[k]) == ref.corrupt_bit(faults_ref[k]));
          }
          break;
        case 10:
          if (!ref.has(path) || !ops.chance(0.2)) break;
          REQUIRE(disk.remove(path).is_ok());
          ref.remove(path);
          break;
        default:
          break;
      }
      for (int j = 0; j < kDisks; j++)
        for (const auto& p : paths) {
          REQUIRE(disks[j]->exists(p) == refs[j].has(p));
          if (refs[j].has(p)) REQUIRE(*disks[j]->read_all(p) == refs[j].data(p));
        }
      for (int j = 0; j < kDisks; j++) CHECK(disks[j]->unsynced_bytes() == refs[j].unsynced_bytes());
    }
    for (const auto& [view, seen] : views) CHECK(view.to_bytes() == seen);
    for (const auto& d : disks) taken += d->stats().pages_taken;
  }
  CHECK(taken >= 10);  // the followers did take pages: the sharing was exercised
}

TEST_CASE("SimDisk: a follower's disk takes the leader's page, and a flipped bit stays on its own disk", "[sim_disk]") {
  auto share = std::make_shared<sim::PageShare>();
  SimDisk leader, follower;
  leader.share_pages(share);
  follower.share_pages(share);
  const std::string path = "d/orders-0/0.log";
  REQUIRE(leader.create(path).is_ok());
  REQUIRE(follower.create(path).is_ok());
  Rng rng(3);
  const Bytes first = random_bytes(rng, 1000), second = random_bytes(rng, 500);
  REQUIRE(leader.append(path, as_view(first)).is_ok());
  REQUIRE(follower.append(path, as_view(first)).is_ok());  // equal bytes at the same position
  REQUIRE(leader.append(path, as_view(second)).is_ok());
  REQUIRE(follower.append(path, as_view(second)).is_ok());  // the next bytes of the same page
  CHECK(follower.stats().pages_taken == 1);
  CHECK(leader.stats().pages_copied == 0);
  CHECK(follower.stats().pages_copied == 0);
  Bytes both = first;
  both.insert(both.end(), second.begin(), second.end());
  // The leader flips a bit: it copies the page first, and the follower keeps its bytes.
  Rng flip(9);
  leader.corrupt_bit(flip, path);
  CHECK(leader.stats().pages_copied == 1);
  CHECK(*follower.read_all(path) == both);
  CHECK(*leader.read_all(path) != both);
  // The follower writes other bytes than the leader's: it copies too, and the leader is unchanged.
  const Bytes leader_now = *leader.read_all(path);
  const Bytes other = random_bytes(rng, 100);
  REQUIRE(follower.truncate(path, 700).is_ok());
  REQUIRE(follower.append(path, as_view(other)).is_ok());
  CHECK(*leader.read_all(path) == leader_now);
  Bytes expected(both.begin(), both.begin() + 700);
  expected.insert(expected.end(), other.begin(), other.end());
  CHECK(*follower.read_all(path) == expected);
}
