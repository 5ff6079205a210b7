// SimDisk: the Disk contract, and what survives a process crash versus a power loss.
#include <catch2/catch.hpp>

#include <bitset>

#include "engine/core/rng.h"
#include "sim/sim_disk.h"
#include "probe_node.h"

using namespace gregor;
using gregor::sim::SimDisk;

namespace {
Bytes read_all(Disk& d, const std::string& path) {
  auto r = d.read_all(path);
  REQUIRE(r.is_ok());
  return *r;
}
std::string read_text(Disk& d, const std::string& path) { return to_string(as_view(read_all(d, path))); }

void append(Disk& d, const std::string& path, const std::string& s) {
  auto r = d.append(path, as_view(s));
  REQUIRE(r.is_ok());
}
}  // namespace

TEST_CASE("SimDisk: create, append, read, size, truncate, remove") {
  SimDisk d;
  CHECK_FALSE(d.exists("a.log"));
  CHECK(d.append("a.log", as_view(std::string("x"))).status().code() == StatusCode::kNotFound);
  CHECK(d.read("a.log", 0, 1).status().code() == StatusCode::kNotFound);
  CHECK(d.size("a.log").status().code() == StatusCode::kNotFound);
  CHECK(d.fsync("a.log").code() == StatusCode::kNotFound);
  CHECK(d.truncate("a.log", 0).code() == StatusCode::kNotFound);
  CHECK(d.remove("a.log").code() == StatusCode::kNotFound);
  CHECK(d.rename("a.log", "b.log").code() == StatusCode::kNotFound);

  REQUIRE(d.create("a.log").is_ok());
  CHECK(d.exists("a.log"));
  CHECK(*d.size("a.log") == 0);
  auto pos = d.append("a.log", as_view(std::string("hello")));
  REQUIRE(pos.is_ok());
  CHECK(*pos == 0);
  pos = d.append("a.log", as_view(std::string(" world")));
  CHECK(*pos == 5);
  CHECK(*d.size("a.log") == 11);
  CHECK(to_string(as_view(*d.read("a.log", 6, 100))) == "world");
  CHECK(to_string(as_view(*d.read("a.log", 0, 5))) == "hello");
  CHECK(d.read("a.log", 11, 4)->empty());
  CHECK(d.read("a.log", 1000, 4)->empty());
  // create on an existing file leaves it alone.
  REQUIRE(d.create("a.log").is_ok());
  CHECK(read_text(d, "a.log") == "hello world");

  REQUIRE(d.truncate("a.log", 5).is_ok());
  CHECK(read_text(d, "a.log") == "hello");
  REQUIRE(d.truncate("a.log", 7).is_ok());  // zero-extends
  CHECK(read_all(d, "a.log") == Bytes{'h', 'e', 'l', 'l', 'o', 0, 0});
  CHECK(d.used_bytes() == 7);

  REQUIRE(d.remove("a.log").is_ok());
  CHECK_FALSE(d.exists("a.log"));
  CHECK(d.used_bytes() == 0);
}

TEST_CASE("SimDisk: list returns the names directly inside a directory, sorted") {
  SimDisk d;
  for (const char* p : {"orders-1/00000000000000000000.log", "orders-0/00000000000000000010.log",
                        "orders-0/00000000000000000000.log", "orders-0/00000000000000000000.index",
                        "meta.properties", "orders-0x", "deep/a/b/c"})
    REQUIRE(d.create(p).is_ok());
  auto root = d.list("");
  REQUIRE(root.is_ok());
  CHECK(*root == std::vector<std::string>{"deep", "meta.properties", "orders-0", "orders-0x", "orders-1"});
  auto p0 = d.list("orders-0");
  REQUIRE(p0.is_ok());
  CHECK(*p0 == std::vector<std::string>{"00000000000000000000.index", "00000000000000000000.log",
                                        "00000000000000000010.log"});
  CHECK(*d.list("orders-0/") == *p0);
  CHECK(*d.list("deep") == std::vector<std::string>{"a"});
  CHECK(*d.list("deep/a") == std::vector<std::string>{"b"});
  CHECK(d.list("nothing-here")->empty());
}

TEST_CASE("SimDisk: rename replaces the target atomically") {
  SimDisk d;
  REQUIRE(d.create("cp.tmp").is_ok());
  append(d, "cp.tmp", "new");
  REQUIRE(d.create("cp").is_ok());
  append(d, "cp", "old-contents");
  REQUIRE(d.rename("cp.tmp", "cp").is_ok());
  CHECK_FALSE(d.exists("cp.tmp"));
  CHECK(read_text(d, "cp") == "new");
  CHECK(d.used_bytes() == 3);
  REQUIRE(d.rename("cp", "cp").is_ok());  // onto itself: nothing changes
  CHECK(read_text(d, "cp") == "new");
  CHECK(d.used_bytes() == 3);
}

TEST_CASE("SimDisk: a full disk fails append with kDiskFull and changes nothing") {
  SimDisk d(10);
  REQUIRE(d.create("a").is_ok());
  append(d, "a", "123456");
  auto r = d.append("a", as_view(std::string("12345")));
  CHECK(r.status().code() == StatusCode::kDiskFull);
  CHECK(read_text(d, "a") == "123456");
  CHECK(d.used_bytes() == 6);
  CHECK(d.truncate("a", 11).code() == StatusCode::kDiskFull);
  CHECK(*d.size("a") == 6);
  append(d, "a", "1234");  // exactly full is fine
  CHECK(d.used_bytes() == 10);
  CHECK(d.append("a", as_view(std::string("x"))).status().code() == StatusCode::kDiskFull);
  REQUIRE(d.truncate("a", 4).is_ok());  // shrinking frees room
  append(d, "a", "xy");
  CHECK(read_text(d, "a") == "1234xy");
  d.set_capacity(UINT64_MAX);
  append(d, "a", std::string(100, 'z'));
  CHECK(d.used_bytes() == 106);
}

TEST_CASE("SimDisk: injected I/O errors fail the next N writes with kIoError, change nothing, and leave reads alone") {
  SimDisk d;
  REQUIRE(d.create("a").is_ok());
  append(d, "a", "abc");
  d.fail_writes(3);
  CHECK(d.append("a", as_view(std::string("x"))).status().code() == StatusCode::kIoError);
  CHECK(d.fsync("a").code() == StatusCode::kIoError);
  CHECK(d.create("b").code() == StatusCode::kIoError);
  CHECK_FALSE(d.exists("b"));
  CHECK(read_text(d, "a") == "abc");  // reads still work
  CHECK(d.failing_writes() == 0);
  append(d, "a", "d");  // the fourth write succeeds
  CHECK(read_text(d, "a") == "abcd");
  d.fail_writes(-1);  // every write, until ended
  for (int i = 0; i < 5; i++) CHECK(d.truncate("a", 1).code() == StatusCode::kIoError);
  CHECK(d.rename("a", "c").code() == StatusCode::kIoError);
  CHECK(read_text(d, "a") == "abcd");
  d.fail_writes(0);
  REQUIRE(d.rename("a", "c").is_ok());
  CHECK(read_text(d, "c") == "abcd");
}

TEST_CASE("SimDisk: power loss keeps fsynced data, drops or tears only the unsynced appended tail") {
  int kept_none = 0, kept_all = 0, kept_part = 0, torn = 0;
  for (uint64_t seed = 0; seed < 300; seed++) {
    SimDisk d;
    REQUIRE(d.create("seg.log").is_ok());
    const std::string synced = "SYNCED-DATA:";
    const std::string unsynced = "0123456789abcdefghijklmnopqrstuvwxyz";
    append(d, "seg.log", synced);
    REQUIRE(d.fsync("seg.log").is_ok());
    append(d, "seg.log", unsynced);
    CHECK(d.unsynced_bytes() == unsynced.size());
    Rng rng(seed);
    d.power_loss(rng);
    std::string after = read_text(d, "seg.log");
    INFO("seed " << seed << " after: " << after);
    REQUIRE(after.size() >= synced.size());
    REQUIRE(after.size() <= synced.size() + unsynced.size());
    REQUIRE(after.substr(0, synced.size()) == synced);  // fsynced bytes are never touched
    std::string tail = after.substr(synced.size());
    // The surviving tail is a prefix of what was appended, except that its last bytes (at most 16)
    // may be garbage.
    size_t good = 0;
    while (good < tail.size() && tail[good] == unsynced[good]) good++;
    REQUIRE(tail.size() - good <= 16);
    if (tail.empty()) kept_none++;
    else if (tail == unsynced) kept_all++;
    else kept_part++;
    if (good < tail.size()) torn++;
    // What survived is now durable: a second power loss changes nothing.
    CHECK(d.unsynced_bytes() == 0);
    d.power_loss(rng);
    CHECK(read_text(d, "seg.log") == after);
    CHECK(d.used_bytes() == after.size());
  }
  CHECK(kept_none > 0);
  CHECK(kept_part > 0);
  CHECK(torn > 0);
  CHECK(kept_all + kept_part + kept_none == 300);
}

TEST_CASE("SimDisk: power loss reverts changes that are not appends to the fsynced image") {
  auto after_power_loss = [](uint64_t seed, auto change) {
    SimDisk d;
    Rng rng(seed);
    REQUIRE(d.create("a").is_ok());
    append(d, "a", "durable-content");
    REQUIRE(d.fsync("a").is_ok());
    change(d);
    d.power_loss(rng);
    return read_text(d, "a");
  };
  auto truncate_to_3 = [](SimDisk& d) { REQUIRE(d.truncate("a", 3).is_ok()); };
  auto truncate_then_longer = [](SimDisk& d) {
    REQUIRE(d.truncate("a", 7).is_ok());
    append(d, "a", "-rewritten-and-longer");
  };
  auto truncate_then_same_bytes = [](SimDisk& d) {
    REQUIRE(d.truncate("a", 7).is_ok());
    append(d, "a", "-content and more");
  };
  auto truncate_and_fsync = [](SimDisk& d) {
    REQUIRE(d.truncate("a", 7).is_ok());
    REQUIRE(d.fsync("a").is_ok());
  };
  for (uint64_t seed = 0; seed < 50; seed++) {
    INFO("seed " << seed);
    std::string truncated = after_power_loss(seed, truncate_to_3);
    CHECK(truncated == "durable-content");
    std::string rewritten = after_power_loss(seed, truncate_then_longer);
    CHECK(rewritten == "durable-content");
    // Appends after a truncation are not a pure append, even when they restore the same bytes.
    std::string restored = after_power_loss(seed, truncate_then_same_bytes);
    CHECK(restored == "durable-content");
    std::string synced = after_power_loss(seed, truncate_and_fsync);
    CHECK(synced == "durable");
  }
}

TEST_CASE("SimDisk: create, rename and remove are durable at once") {
  SimDisk d;
  Rng rng(1);
  REQUIRE(d.create("empty").is_ok());
  REQUIRE(d.create("gone").is_ok());
  REQUIRE(d.create("checkpoint.tmp").is_ok());
  append(d, "checkpoint.tmp", "v2");
  REQUIRE(d.fsync("checkpoint.tmp").is_ok());
  REQUIRE(d.rename("checkpoint.tmp", "checkpoint").is_ok());
  REQUIRE(d.remove("gone").is_ok());
  d.power_loss(rng);
  CHECK(d.exists("empty"));
  CHECK_FALSE(d.exists("gone"));
  CHECK_FALSE(d.exists("checkpoint.tmp"));
  CHECK(read_text(d, "checkpoint") == "v2");
}

TEST_CASE("Disk::write_file_atomic survives a power loss whole") {
  for (uint64_t seed = 0; seed < 20; seed++) {
    SimDisk d;
    Rng rng(seed);
    REQUIRE(d.write_file_atomic("leader-epoch-checkpoint", as_view(std::string("0\n1\n0 0\n"))).is_ok());
    REQUIRE(d.write_file_atomic("leader-epoch-checkpoint", as_view(std::string("0\n2\n0 0\n1 5\n"))).is_ok());
    d.power_loss(rng);
    CHECK(read_text(d, "leader-epoch-checkpoint") == "0\n2\n0 0\n1 5\n");
    CHECK_FALSE(d.exists("leader-epoch-checkpoint.tmp"));
  }
}

TEST_CASE("SimDisk: corrupt_bit flips exactly one bit, in the page cache and on the medium") {
  for (uint64_t seed = 0; seed < 100; seed++) {
    SimDisk d;
    Rng rng(seed);
    REQUIRE(d.create("a").is_ok());
    REQUIRE(d.create("b").is_ok());
    REQUIRE(d.create("empty").is_ok());
    append(d, "a", "aaaaaaaaaaaaaaaa");
    append(d, "b", "bbbbbbbb");
    REQUIRE(d.fsync("a").is_ok());
    REQUIRE(d.fsync("b").is_ok());
    Bytes a0 = read_all(d, "a"), b0 = read_all(d, "b");
    auto [victim, position] = d.corrupt_bit(rng);
    REQUIRE((victim == "a" || victim == "b"));
    Bytes before = victim == "a" ? a0 : b0;
    Bytes after = read_all(d, victim);
    REQUIRE(after.size() == before.size());
    int bits = 0;
    for (size_t i = 0; i < after.size(); i++) {
      bits += static_cast<int>(std::bitset<8>(before[i] ^ after[i]).count());
      if (before[i] != after[i]) CHECK(i == position);
    }
    CHECK(bits == 1);
    CHECK(read_all(d, victim == "a" ? "b" : "a") == (victim == "a" ? b0 : a0));
    // It is on the medium: a power loss does not undo it.
    d.power_loss(rng);
    CHECK(read_all(d, victim) == after);
  }
  SimDisk d;
  Rng rng(1);
  CHECK(d.corrupt_bit(rng).first.empty());  // nothing to corrupt
  REQUIRE(d.create("only").is_ok());
  CHECK(d.corrupt_bit(rng, "only").first.empty());
  CHECK(d.corrupt_bit(rng, "missing").first.empty());
  append(d, "only", "x");
  CHECK(d.corrupt_bit(rng, "only").first == "only");
}

TEST_CASE("SimDisk: stats count appends, bytes, fsyncs and reads") {
  SimDisk d;
  REQUIRE(d.create("a").is_ok());
  append(d, "a", "abc");
  append(d, "a", "de");
  REQUIRE(d.fsync("a").is_ok());
  (void)d.read("a", 0, 2);
  CHECK(d.stats().appends == 2);
  CHECK(d.stats().bytes_appended == 5);
  CHECK(d.stats().fsyncs == 1);
  CHECK(d.stats().reads == 1);
}

TEST_CASE("Simulator: a process crash keeps the page cache; a power loss keeps only what was fsynced") {
  test::ProbeWorld w(5);
  w.add(1);
  w.add(2);
  for (int id : {1, 2}) {
    Disk& disk = w.probe(id).rt().disk();
    REQUIRE(disk.create("log").is_ok());
    append(disk, "log", "synced;");
    REQUIRE(disk.fsync("log").is_ok());
    append(disk, "log", std::string(4096, 'u'));
  }
  w.sim.crash(NodeId{1});
  w.sim.power_loss(NodeId{2});
  CHECK(w.sim.state(NodeId{2}) == sim::NodeState::kCrashed);
  w.sim.restart(NodeId{1});
  w.sim.restart(NodeId{2});
  CHECK(read_text(w.probe(1).rt().disk(), "log") == "synced;" + std::string(4096, 'u'));
  std::string after = read_text(w.probe(2).rt().disk(), "log");
  CHECK(after.substr(0, 7) == "synced;");
  CHECK(after.size() <= 7 + 4096);
  CHECK(&w.sim.disk(NodeId{2}) == &w.probe(2).rt().disk());
}
