// TraceEvent accessors and renderings, and the run fingerprint.
#include <catch2/catch.hpp>

#include "engine/core/trace_event.h"

using namespace gregor;

namespace {
std::vector<TraceEvent> sample_events() {
  return {
      TraceEvent{Time{0}, NodeId{0}, "node_start", {{"target", 1}, {"name", "b1"}, {"incarnation", uint64_t{1}}}},
      TraceEvent{Time{1'250'000},
                 NodeId{2},
                 "leader_change",
                 {{"topic", "orders"}, {"partition", 0}, {"leader", 2}, {"epoch", -1}}},
  };
}

std::string fingerprint_of(const std::vector<TraceEvent>& events) {
  Fingerprint f;
  for (const auto& e : events) f.add(e);
  return f.hex();
}
}  // namespace

TEST_CASE("TraceEvent: field lookup with fallbacks") {
  TraceEvent e = sample_events()[1];
  REQUIRE(e.find("topic") != nullptr);
  CHECK(e.find("missing") == nullptr);
  CHECK(e.get_int("leader") == 2);
  CHECK(e.get_int("epoch") == -1);
  CHECK(e.get_int("topic", 99) == 99);  // a string field is not an int
  CHECK(e.get_int("missing", 7) == 7);
  CHECK(e.get_string("topic") == "orders");
  CHECK(e.get_string("leader", "none") == "none");
}

TEST_CASE("TraceEvent: JSON fields and one-line rendering") {
  TraceEvent e = sample_events()[1];
  CHECK(e.fields_json() == R"({"topic":"orders","partition":0,"leader":2,"epoch":-1})");
  CHECK(e.to_string() == "1.250000s node 2 leader_change topic=orders partition=0 leader=2 epoch=-1");
  TraceEvent empty{Time{5}, NodeId{0}, "heal_all", {}};
  CHECK(empty.fields_json() == "{}");
  TraceEvent tricky{Time{0}, NodeId{1}, "k", {{"s", std::string("a\"b\\c\nd\te\x01")}, {"big", INT64_MIN}}};
  CHECK(tricky.fields_json() == R"({"s":"a\"b\\c\nd\te\u0001","big":-9223372036854775808})");
}

TEST_CASE("TraceField: integer widths and bools become int64") {
  TraceField a("a", int32_t{-5}), b("b", uint32_t{7}), c("c", uint64_t{9}), d("d", true);
  CHECK(std::get<int64_t>(a.value) == -5);
  CHECK(std::get<int64_t>(b.value) == 7);
  CHECK(std::get<int64_t>(c.value) == 9);
  CHECK(std::get<int64_t>(d.value) == 1);
  TraceField s("s", std::string_view("v"));
  CHECK(std::get<std::string>(s.value) == "v");
}

TEST_CASE("Fingerprint: known answers") {
  // Computed with an independent FNV-1a over the canonical encoding documented in docs/trace.md.
  CHECK(Fingerprint().hex() == "cbf29ce484222325");
  CHECK(fingerprint_of(sample_events()) == "6b300be880cb98f9");
  Fingerprint f;
  for (const auto& e : sample_events()) f.add(e);
  CHECK(f.value() == 0x6b300be880cb98f9ull);
}

TEST_CASE("Fingerprint: any change to an event changes it") {
  const std::string base = fingerprint_of(sample_events());
  auto mutate = [&](auto change) {
    auto events = sample_events();
    change(events);
    return fingerprint_of(events);
  };
  CHECK(mutate([](auto& v) { v[1].time.us++; }) != base);
  CHECK(mutate([](auto& v) { v[1].node = NodeId{3}; }) != base);
  CHECK(mutate([](auto& v) { v[1].kind = "leader_chang"; }) != base);
  CHECK(mutate([](auto& v) { v[1].fields[2].value = int64_t{3}; }) != base);
  CHECK(mutate([](auto& v) { v[1].fields[0].value = std::string("order"); }) != base);
  CHECK(mutate([](auto& v) { v[1].fields[0].key = "topik"; }) != base);
  CHECK(mutate([](auto& v) { std::swap(v[1].fields[1], v[1].fields[2]); }) != base);
  CHECK(mutate([](auto& v) { std::swap(v[0], v[1]); }) != base);
  CHECK(mutate([](auto& v) { v.pop_back(); }) != base);
  // An integer 0 and a string "" are different values; so are the key/value boundaries.
  auto one = [](TraceField f) { return fingerprint_of({TraceEvent{Time{0}, NodeId{1}, "k", {std::move(f)}}}); };
  CHECK(one(TraceField("a", int64_t{0})) != one(TraceField("a", std::string())));
  CHECK(fingerprint_of({TraceEvent{Time{0}, NodeId{1}, "ab", {}}}) !=
        fingerprint_of({TraceEvent{Time{0}, NodeId{1}, "a", {TraceField("b", std::string())}}}));
}
