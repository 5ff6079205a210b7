// SmallVector (engine/core/small_vector.h): up to N elements inside, the heap beyond, the same
// elements either way through growth, copies and moves.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "engine/core/small_vector.h"

using gregor::SmallVector;

namespace {

template <size_t N>
std::vector<int> items(const SmallVector<int, N>& v) {
  return std::vector<int>(v.begin(), v.end());
}

struct Pair {
  const int* p;
  long n;
};

}  // namespace

TEST_CASE("small vector: inline up to N, then on the heap, keeping every element in order") {
  SmallVector<int, 3> v;
  CHECK(v.empty());
  CHECK(v.capacity() == 3);
  for (int i = 0; i < 3; i++) v.push_back(i * 10);
  CHECK_FALSE(v.on_heap());
  v.push_back(30);
  CHECK(v.on_heap());
  for (int i = 4; i < 100; i++) v.push_back(i * 10);
  REQUIRE(v.size() == 100);
  for (int i = 0; i < 100; i++) CHECK(v[static_cast<size_t>(i)] == i * 10);
  CHECK(v.back() == 990);
  v.clear();
  CHECK(v.empty());
  CHECK(v.on_heap());  // clear keeps the room
}

TEST_CASE("small vector: copies and moves, inline and on the heap, leave independent equal vectors") {
  for (int n : {2, 3, 4, 17}) {
    SmallVector<int, 3> a;
    for (int i = 0; i < n; i++) a.push_back(i + 1);
    const std::vector<int> want = items(a);

    SmallVector<int, 3> copy(a);
    CHECK(items(copy) == want);
    copy.push_back(99);
    CHECK(items(a) == want);

    SmallVector<int, 3> assigned;
    assigned.push_back(7);
    assigned = a;
    CHECK(items(assigned) == want);

    SmallVector<int, 3> moved(std::move(a));
    CHECK(items(moved) == want);
    CHECK(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from vector is empty
    CHECK_FALSE(a.on_heap());
    a.push_back(5);  // and usable
    CHECK(items(a) == std::vector<int>{5});

    SmallVector<int, 3> target;
    for (int i = 0; i < 10; i++) target.push_back(-i);
    target = std::move(moved);
    CHECK(items(target) == want);
    CHECK(moved.empty());  // NOLINT(bugprone-use-after-move)
  }
}

TEST_CASE("small vector: resize, assign, reserve and plain structs") {
  SmallVector<bool, 4> flags;
  flags.assign(6, false);
  REQUIRE(flags.size() == 6);
  flags[4] = true;
  CHECK(std::count(flags.begin(), flags.end(), true) == 1);
  flags.resize(8, true);
  CHECK(std::count(flags.begin(), flags.end(), true) == 3);
  flags.assign(2, true);
  CHECK(flags.size() == 2);
  CHECK(flags[0]);
  CHECK(flags[1]);

  SmallVector<Pair, 2> pairs;
  const int x = 1, y = 2, z = 3;
  pairs.reserve(1);
  CHECK_FALSE(pairs.on_heap());
  pairs.emplace_back(&x, 10L);
  pairs.emplace_back(&y, 20L);
  pairs.emplace_back(&z, 30L);
  REQUIRE(pairs.size() == 3);
  long sum = 0;
  for (const auto& [p, n] : pairs) sum += *p * n;
  CHECK(sum == 10 + 40 + 90);
}
