// Strong ids, Time and Duration, format_time.
#include <catch2/catch.hpp>

#include <sstream>
#include <type_traits>
#include <unordered_set>

#include "engine/core/types.h"

using namespace gregor;

TEST_CASE("strong ids do not convert into each other") {
  static_assert(!std::is_convertible_v<Offset, LeaderEpoch>);
  static_assert(!std::is_convertible_v<LeaderEpoch, Offset>);
  static_assert(!std::is_convertible_v<NodeId, PartitionId>);
  static_assert(!std::is_convertible_v<int32_t, NodeId>);
  static_assert(!std::is_convertible_v<int64_t, Offset>);
  CHECK(NodeId{1} < NodeId{2});
  CHECK(NodeId{3} == NodeId{3});
  std::unordered_set<NodeId> ids{NodeId{1}, NodeId{1}, NodeId{2}};
  CHECK(ids.size() == 2);
  std::ostringstream os;
  os << NodeId{7} << " " << Offset{42};
  CHECK(os.str() == "7 42");
}

TEST_CASE("Offset arithmetic") {
  Offset o{10};
  CHECK((o + 5) == Offset{15});
  CHECK((o - 3) == Offset{7});
  CHECK((Offset{15} - o) == 5);
}

TEST_CASE("Time and Duration arithmetic") {
  CHECK(Duration::millis(3).us == 3000);
  CHECK(Duration::seconds(2).us == 2'000'000);
  CHECK(Duration::micros(1500).ms() == 1);
  CHECK((Duration::millis(1) + Duration::micros(1)).us == 1001);
  CHECK((Duration::millis(1) * 3).us == 3000);
  CHECK((Duration::millis(3) / 2).us == 1500);
  Time t{1000};
  CHECK((t + Duration::millis(1)).us == 2000);
  CHECK((t - Duration::micros(1)).us == 999);
  CHECK((Time{5000} - t) == Duration::micros(4000));
  CHECK(Time{2500}.ms() == 2);
  CHECK(Time{1} < Time{2});
}

TEST_CASE("format_time: seconds with six decimals") {
  CHECK(format_time(Time{0}) == "0.000000s");
  CHECK(format_time(Time{1}) == "0.000001s");
  CHECK(format_time(Time{12'345'678}) == "12.345678s");
  CHECK(format_time(Time{1'250'000}) == "1.250000s");
  CHECK(format_time(Time{-1'500'000}) == "-1.500000s");
  CHECK(format_time(Time{-1}) == "-0.000001s");
  CHECK(format_time(Time{INT64_MAX}) == "9223372036854.775807s");
  CHECK(format_time(Time{INT64_MIN}) == "-9223372036854.775808s");
}
