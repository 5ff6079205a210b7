// The leader-epoch cache against the KIP-101 / KIP-279 rules (kafka-replication.md section 1 and
// the scenarios S2 and S3 there), and its checkpoint file.
#include <catch2/catch.hpp>

#include "engine/log/checkpoint_file.h"
#include "engine/log/leader_epoch_cache.h"
#include "sim/sim_disk.h"

using namespace gregor;
using namespace gregor::log;

namespace {

using EpochOffset = std::pair<LeaderEpoch, Offset>;
EpochOffset eo(int32_t e, int64_t o) { return {LeaderEpoch{e}, Offset{o}}; }

LeaderEpochCache cache_of(std::initializer_list<std::pair<int32_t, int64_t>> entries) {
  LeaderEpochCache c;
  for (auto [e, o] : entries) REQUIRE(c.assign(LeaderEpoch{e}, Offset{o}).is_ok());
  return c;
}

}  // namespace

TEST_CASE("epoch cache: endOffsetFor follows KIP-101 and KIP-279", "[log][epoch]") {
  // Epochs 1 at 0, 3 at 21, 5 at 40; LEO 50.
  LeaderEpochCache c = cache_of({{1, 0}, {3, 21}, {5, 40}});
  const Offset leo{50};
  CHECK(c.end_offset_for(LeaderEpoch{5}, leo) == eo(5, 50));  // the latest epoch: LEO
  CHECK(c.end_offset_for(LeaderEpoch{3}, leo) == eo(3, 40));  // a known epoch: the next one's start
  CHECK(c.end_offset_for(LeaderEpoch{1}, leo) == eo(1, 21));
  CHECK(c.end_offset_for(LeaderEpoch{4}, leo) == eo(3, 40));  // unknown: the largest epoch below it
  CHECK(c.end_offset_for(LeaderEpoch{2}, leo) == eo(1, 21));
  CHECK(c.end_offset_for(LeaderEpoch{6}, leo) == eo(-1, -1));   // above every epoch
  CHECK(c.end_offset_for(LeaderEpoch{-1}, leo) == eo(-1, -1));  // UNDEFINED_EPOCH asked
  CHECK(c.end_offset_for(LeaderEpoch{0}, leo) == eo(-1, -1));   // below the first epoch
  c.set_below_first_rule(EpochBelowFirst::kFirstStartOffset);  // Kafka 2.1+
  CHECK(c.end_offset_for(LeaderEpoch{0}, leo) == eo(0, 0));
  CHECK(LeaderEpochCache().end_offset_for(LeaderEpoch{0}, leo) == eo(-1, -1));
  CHECK(c.epoch_for_offset(Offset{20}) == LeaderEpoch{1});
  CHECK(c.epoch_for_offset(Offset{21}) == LeaderEpoch{3});
  CHECK(c.epoch_for_offset(Offset{99}) == LeaderEpoch{5});
  CHECK_FALSE(cache_of({{2, 5}}).epoch_for_offset(Offset{4}).has_value());
}

TEST_CASE("epoch cache: S3, the fast double failover of KIP-279, answers (e1, 21)", "[log][epoch]") {
  // B led at e1 and wrote 0..20; only 0..10 reached A. A led at e2 and wrote 11 onwards. A died; B
  // was elected at e3 with LEO 21 and has no e2 entry.
  LeaderEpochCache b = cache_of({{1, 0}, {3, 21}});
  LeaderEpochCache a = cache_of({{1, 0}, {2, 11}});
  const Offset b_leo{21};
  const Offset a_leo{30};
  // A, now a follower, asks B for the end of its last epoch, e2.
  auto [epoch, end] = b.end_offset_for(LeaderEpoch{2}, b_leo);
  CHECK(epoch == LeaderEpoch{1});
  CHECK(end == Offset{21});
  // A does not know what B meant by e1's end beyond its own: it truncates to
  // min(own end for e1, leader's end, own LEO) = min(11, 21, 30) = 11.
  auto [own_epoch, own_end] = a.end_offset_for(epoch, a_leo);
  CHECK(own_epoch == LeaderEpoch{1});
  CHECK(own_end == Offset{11});
  CHECK(std::min({own_end, end, a_leo}) == Offset{11});
}

TEST_CASE("epoch cache: S2, divergence after unflushed data is lost", "[log][epoch]") {
  // 100 led at e0 with 0..9 replicated to 101; 100 lost 5..9 in a crash, became leader at e1 and
  // wrote 5..14. 101 asks for the end of e0: 5, and truncates its old 5..9.
  LeaderEpochCache leader = cache_of({{0, 0}, {1, 5}});
  CHECK(leader.end_offset_for(LeaderEpoch{0}, Offset{15}) == eo(0, 5));
}

TEST_CASE("epoch cache: assign ignores entries that do not increase", "[log][epoch]") {
  LeaderEpochCache c = cache_of({{2, 10}});
  REQUIRE(c.assign(LeaderEpoch{2}, Offset{20}).is_ok());  // same epoch
  REQUIRE(c.assign(LeaderEpoch{1}, Offset{30}).is_ok());  // lower epoch
  REQUIRE(c.assign(LeaderEpoch{3}, Offset{5}).is_ok());   // lower start offset
  CHECK(c.entries() == std::vector<EpochOffset>{eo(2, 10)});
  REQUIRE(c.assign(LeaderEpoch{3}, Offset{10}).is_ok());  // same start offset: an epoch with no data
  REQUIRE(c.assign(LeaderEpoch{7}, Offset{12}).is_ok());
  CHECK(c.entries() == std::vector<EpochOffset>{eo(2, 10), eo(3, 10), eo(7, 12)});
  CHECK(c.latest_epoch() == LeaderEpoch{7});
  CHECK(c.latest_entry() == eo(7, 12));
}

TEST_CASE("epoch cache: truncation from the end and from the start", "[log][epoch]") {
  LeaderEpochCache c = cache_of({{2, 6}, {3, 8}, {4, 11}});
  REQUIRE(c.truncate_from_end(Offset{12}).is_ok());  // nothing starts at or after 12
  CHECK(c.entries().size() == 3);
  REQUIRE(c.truncate_from_end(Offset{11}).is_ok());
  CHECK(c.entries() == std::vector<EpochOffset>{eo(2, 6), eo(3, 8)});

  LeaderEpochCache s = cache_of({{2, 6}, {3, 8}, {4, 11}});
  REQUIRE(s.truncate_from_start(Offset{5}).is_ok());  // before every entry: unchanged
  CHECK(s.entries().size() == 3);
  REQUIRE(s.truncate_from_start(Offset{8}).is_ok());  // exactly at an entry: it stays
  CHECK(s.entries() == std::vector<EpochOffset>{eo(3, 8), eo(4, 11)});
  REQUIRE(s.truncate_from_start(Offset{9}).is_ok());  // inside epoch 3: it moves to 9
  CHECK(s.entries() == std::vector<EpochOffset>{eo(3, 9), eo(4, 11)});
  REQUIRE(s.truncate_from_start(Offset{40}).is_ok());
  CHECK(s.entries() == std::vector<EpochOffset>{eo(4, 40)});
}

TEST_CASE("epoch cache: leader-epoch-checkpoint is Kafka's text format, written through", "[log][epoch]") {
  sim::SimDisk disk;
  LeaderEpochCache c(&disk, "t-0/leader-epoch-checkpoint");
  CHECK(c.load().code() == StatusCode::kNotFound);
  REQUIRE(c.assign(LeaderEpoch{1}, Offset{0}).is_ok());
  REQUIRE(c.assign(LeaderEpoch{3}, Offset{21}).is_ok());
  CHECK(to_string(as_view(*disk.read_all("t-0/leader-epoch-checkpoint"))) == "0\n2\n1 0\n3 21\n");
  REQUIRE(c.truncate_from_end(Offset{21}).is_ok());
  CHECK(to_string(as_view(*disk.read_all("t-0/leader-epoch-checkpoint"))) == "0\n1\n1 0\n");

  LeaderEpochCache reloaded(&disk, "t-0/leader-epoch-checkpoint");
  REQUIRE(reloaded.load().is_ok());
  CHECK(reloaded.entries() == std::vector<EpochOffset>{eo(1, 0)});

  for (const char* bad : {"1\n0\n", "0\n2\n1 0\n", "0\n1\n1 x\n", "0\n1\n1 0", "0\n2\n3 5\n2 9\n", "0\n1\n-1 0\n"}) {
    REQUIRE(disk.write_file_atomic("t-0/leader-epoch-checkpoint", as_view(std::string(bad))).is_ok());
    CHECK(reloaded.load().code() == StatusCode::kCorruption);
    CHECK(reloaded.entries().empty());
  }
}

TEST_CASE("checkpoint files: offset checkpoints name topic and partition", "[log][epoch]") {
  const Bytes file = format_offset_checkpoint("orders", 3, 1234);
  CHECK(to_string(as_view(file)) == "0\n1\norders 3 1234\n");
  CHECK(*parse_offset_checkpoint(as_view(file), "orders", 3) == 1234);
  CHECK(parse_offset_checkpoint(as_view(file), "orders", 4).status().code() == StatusCode::kNotFound);
  CHECK(parse_offset_checkpoint(as_view(std::string("0\n1\norders 3\n")), "orders", 3).status().code() ==
        StatusCode::kCorruption);
  CHECK(*parse_offset_checkpoint(as_view(std::string("0\n2\na 0 5\nmy-topic 1 9\n")), "my-topic", 1) == 9);
}
