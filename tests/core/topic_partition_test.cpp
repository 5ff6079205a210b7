// TopicPartition's order: its own comparison must order exactly as (std::string, int32) would, or
// every map of partitions would iterate differently (and runs would not replay).
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "engine/core/topic_partition.h"

using namespace gregor;

TEST_CASE("TopicPartition compares as its (topic, partition) pair, bytes above 127 and prefixes included") {
  // Names that differ at each position of the eight-byte steps, in the tail, in length only, and
  // in bytes that a signed char comparison would order the other way.
  std::vector<std::string> names{"", "a", "b", "orders", "orders2", "__consumer_offsets", "__consumer_offsetz",
                                 "__transaction_state", "abcdefgh", "abcdefgi", "abcdefgh1", "abcdefghijklmnop",
                                 "abcdefghijklmnoq", "abcdefgg", std::string("a\x80", 2), std::string("a\x7f", 2),
                                 std::string("\xff\xff\xff\xff\xff\xff\xff\xff\x01", 9), std::string(8, '\0'),
                                 std::string(9, '\0')};
  int checked = 0;
  for (const auto& a : names)
    for (const auto& b : names)
      for (int32_t pa : {0, 1, 49})
        for (int32_t pb : {0, 1, 49}) {
          const TopicPartition x{a, pa}, y{b, pb};
          const auto expected = std::tie(a, pa) <=> std::tie(b, pb);
          INFO("'" << a << "'-" << pa << " vs '" << b << "'-" << pb);
          CHECK((x <=> y) == expected);
          CHECK((x == y) == (expected == 0));
          CHECK((x < y) == (expected < 0));
          checked++;
        }
  CHECK(checked == static_cast<int>(names.size() * names.size() * 9));
}
