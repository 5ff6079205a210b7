// Typed trace events: accessors and renderings, reading them back from JSON, the fingerprint's
// encoding, and the documentation of every kind.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "engine/core/trace_event.h"

using namespace gregor;

namespace {
std::vector<TraceEvent> sample_events() {
  return {
      TraceEvent{Time{0}, NodeId{0}, ev::NodeStart{.target = 1, .name = "b1", .incarnation = 1}},
      TraceEvent{Time{1'250'000}, NodeId{2},
                 ev::LeaderChange{.topic = "orders",
                                  .partition = 0,
                                  .leader = 2,
                                  .leader_epoch = 7,
                                  .isr = {2, 3},
                                  .controller_epoch = 1,
                                  .reason = "leader_failure"}},
      TraceEvent{Time{2'000'000}, NodeId{1},
                 ev::LogTruncate{.topic = "orders", .partition = 0, .offset = 5, .old_leo = 9, .reason = "leader_epoch", .full = true}},
      TraceEvent{Time{3}, NodeId{-5}, ev::Generic{"tick", {{"n", int64_t{3}}, {"note", "hi"}}}},
  };
}

std::string fingerprint_of(const std::vector<TraceEvent>& events) {
  Fingerprint f;
  for (const auto& e : events) f.add(e);
  return f.hex();
}

// One event of every kind, its fields set to values that differ from the defaults (so a field the
// JSON loses or mixes up shows): integers count up, strings name their field, lists hold two items.
struct Filler {
  int64_t n = 1;
  void operator()(const char* key, int32_t& v) { v = static_cast<int32_t>(n++); (void)key; }
  void operator()(const char* key, int64_t& v) { v = -1000 * n++; (void)key; }
  void operator()(const char*, bool& v) { v = true; }
  void operator()(const char* key, std::string& v) { v = std::string(key) + " \"x\"\n" + std::to_string(n++); }
  void operator()(const char*, IntList& v) { v = {static_cast<int32_t>(n++), -static_cast<int32_t>(n++)}; }
  void operator()(const char*, ReplicaAssignment& v) { v = {{1, 2, 3}, {static_cast<int32_t>(n++)}, {}, {3, 1}}; }
  void operator()(const char*, NameList& v) { v = {"a-" + std::to_string(n++), "b"}; }
  void operator()(const char*, PartitionList& v) { v = {{"t-x", static_cast<int32_t>(n++)}, {"u", 0}}; }
  void operator()(const char*, MemberAssignments& v) {
    v = {{"m1-uuid", PartitionList{{"t", 1}, {"t", 2}}}, {"m2", std::nullopt}, {"m3", PartitionList{}}};
  }
  template <typename T>
  void operator()(const char* key, std::optional<T>& v) {
    v.emplace();
    (*this)(key, *v);
  }
};

template <size_t... I>
std::vector<TraceBody> every_kind(std::index_sequence<I...>) {
  std::vector<TraceBody> out;
  (
      [&] {
        using T = std::variant_alternative_t<I + 1, TraceBody>;
        T t;
        T::fields(t, Filler{});
        out.emplace_back(std::move(t));
      }(),
      ...);
  return out;
}
std::vector<TraceBody> every_kind() { return every_kind(std::make_index_sequence<std::variant_size_v<TraceBody> - 1>()); }
}  // namespace

TEST_CASE("TraceEvent: typed access, field lookup by name with fallbacks") {
  TraceEvent e = sample_events()[1];
  REQUIRE(e.as<ev::LeaderChange>() != nullptr);
  CHECK(e.as<ev::LeaderChange>()->isr == IntList{2, 3});
  CHECK(e.as<ev::HwAdvance>() == nullptr);
  CHECK(e.is<ev::LeaderChange>());
  CHECK(e.kind() == "leader_change");
  REQUIRE(e.has("topic"));
  CHECK_FALSE(e.has("missing"));
  CHECK(e.get_int("leader") == 2);
  CHECK(e.get_int("leader_epoch") == 7);
  CHECK(e.get_string("isr") == "2,3");   // a list reads as its text
  CHECK(e.get_int("topic", 99) == 99);  // a string field is not an int
  CHECK(e.get_int("missing", 7) == 7);
  CHECK(e.get_string("topic") == "orders");
  CHECK(e.get_string("leader", "none") == "none");
  // An absent optional field is no field at all.
  TraceEvent partial{Time{0}, NodeId{1},
                     ev::LogTruncate{.topic = "t", .partition = 0, .offset = 1, .old_leo = 2, .reason = "x", .full = std::nullopt}};
  CHECK_FALSE(partial.has("full"));
  CHECK(sample_events()[2].get_int("full") == 1);
}

TEST_CASE("TraceEvent: JSON fields and one-line rendering") {
  const auto events = sample_events();
  CHECK(events[1].fields_json() ==
        R"({"topic":"orders","partition":0,"leader":2,"leader_epoch":7,"isr":"2,3","controller_epoch":1,"reason":"leader_failure"})");
  CHECK(events[1].to_string() ==
        "1.250000s node 2 leader_change topic=orders partition=0 leader=2 leader_epoch=7 isr=2,3 controller_epoch=1 "
        "reason=leader_failure");
  CHECK(events[2].fields_json() == R"({"topic":"orders","partition":0,"offset":5,"old_leo":9,"reason":"leader_epoch","full":1})");
  CHECK(TraceEvent{Time{5}, NodeId{0}, ev::HealAll{}}.fields_json() == "{}");
  TraceEvent tricky{Time{0}, NodeId{1}, ev::Generic{"k", {{"s", std::string("a\"b\\c\nd\te\x01")}, {"big", INT64_MIN}}}};
  CHECK(tricky.kind() == "k");
  CHECK(tricky.fields_json() == R"({"s":"a\"b\\c\nd\te\u0001","big":-9223372036854775808})");
  TraceEvent group{Time{0}, NodeId{1},
                   ev::GroupStable{.group = "g",
                                   .generation = 3,
                                   .state = "Stable",
                                   .members = {"m1", "m2"},
                                   .leader = "m1",
                                   .protocol = "range",
                                   .assignment = {{"m1", PartitionList{{"orders", 0}, {"orders", 1}}}, {"m2", std::nullopt}}}};
  CHECK(group.get_string("members") == "m1,m2");
  CHECK(group.get_string("assignment") == "m1=orders-0,orders-1;m2=?");
}

TEST_CASE("TraceField: integer widths and bools become int64") {
  TraceField a("a", int32_t{-5}), b("b", uint32_t{7}), c("c", uint64_t{9}), d("d", true);
  CHECK(std::get<int64_t>(a.value) == -5);
  CHECK(std::get<int64_t>(b.value) == 7);
  CHECK(std::get<int64_t>(c.value) == 9);
  CHECK(std::get<int64_t>(d.value) == 1);
  TraceField s("s", std::string("v"));
  CHECK(std::get<std::string>(s.value) == "v");
}

TEST_CASE("every kind reads back from its JSON exactly, fingerprint included") {
  const auto bodies = every_kind();
  REQUIRE(bodies.size() == trace_kind_names().size());
  std::set<std::string_view> names;
  for (const TraceBody& body : bodies) {
    const TraceEvent e{Time{42}, NodeId{3}, body};
    INFO(e.to_string());
    CHECK(names.insert(e.kind()).second);  // every name once
    auto back = trace_body_from_json(e.kind(), e.fields_json());
    REQUIRE(back.is_ok());
    const TraceEvent again{Time{42}, NodeId{3}, *back};
    CHECK(again == e);
    Fingerprint f1, f2;
    f1.add(e);
    f2.add(again);
    CHECK(f1.value() == f2.value());
  }
}

TEST_CASE("reading events back: unknown kinds stay generic, bad fields are refused") {
  auto unknown = trace_body_from_json("from_the_future", R"({"a":1,"b":"x"})");
  REQUIRE(unknown.is_ok());
  const auto* g = std::get_if<ev::Generic>(&*unknown);
  REQUIRE(g != nullptr);
  CHECK(g->kind == "from_the_future");
  CHECK(g->fields.size() == 2);
  CHECK_FALSE(trace_body_from_json("hw_advance", R"({"topic":"t","partition":"zero","hw":1,"leader_epoch":0,"role":"leader"})").is_ok());
  CHECK_FALSE(trace_body_from_json("hw_advance", R"({"topic":"t","partition":0,"hw":1,"leader_epoch":0})").is_ok());
  CHECK_FALSE(
      trace_body_from_json("hw_advance", R"({"topic":"t","partition":0,"hw":1,"leader_epoch":0,"role":"x","extra":1})").is_ok());
  CHECK_FALSE(trace_body_from_json("isr_change", R"({"topic":"t","partition":0,"isr":"1,x","leader_epoch":0,"zk_version":0,"direction":"shrink"})").is_ok());
  CHECK_FALSE(trace_body_from_json("partition", R"({"from":"1","to":"2","both_ways":2})").is_ok());
  CHECK_FALSE(trace_body_from_json("heal_all", R"({)").is_ok());
}

TEST_CASE("Fingerprint: known answers") {
  // Computed with an independent implementation of the encoding docs/trace.md gives.
  CHECK(Fingerprint().hex() == "cbf29ce484222325");
  CHECK(fingerprint_of(sample_events()) == "44a35734545252a0");
}

TEST_CASE("Fingerprint: any change to an event changes it") {
  const std::string base = fingerprint_of(sample_events());
  auto mutate = [&](auto change) {
    auto events = sample_events();
    change(events);
    return fingerprint_of(events);
  };
  auto leader_change = [](std::vector<TraceEvent>& v) -> ev::LeaderChange& { return std::get<ev::LeaderChange>(v[1].body); };
  CHECK(mutate([](auto& v) { v[1].time.us++; }) != base);
  CHECK(mutate([](auto& v) { v[1].node = NodeId{3}; }) != base);
  CHECK(mutate([&](auto& v) {
          ev::LeaderChange c = leader_change(v);
          v[1].body = ev::PartitionOffline{c.topic, c.partition, c.leader, c.leader_epoch, c.isr, c.controller_epoch, c.reason};
        }) != base);
  CHECK(mutate([&](auto& v) { leader_change(v).leader = 3; }) != base);
  CHECK(mutate([&](auto& v) { leader_change(v).topic = "order"; }) != base);
  CHECK(mutate([&](auto& v) { leader_change(v).isr = {3, 2}; }) != base);
  CHECK(mutate([&](auto& v) { leader_change(v).isr = {2}; }) != base);
  CHECK(mutate([](auto& v) { std::get<ev::LogTruncate>(v[2].body).full = std::nullopt; }) != base);
  CHECK(mutate([](auto& v) { std::get<ev::LogTruncate>(v[2].body).full = false; }) != base);
  CHECK(mutate([](auto& v) { std::get<ev::Generic>(v[3].body).fields[0].key = "m"; }) != base);
  CHECK(mutate([](auto& v) { std::swap(v[0], v[1]); }) != base);
  CHECK(mutate([](auto& v) { v.pop_back(); }) != base);
  // An integer 0 and a string "" are different values; string boundaries are unambiguous.
  auto one = [](TraceField f) { return fingerprint_of({TraceEvent{Time{0}, NodeId{1}, ev::Generic{"k", {std::move(f)}}}}); };
  CHECK(one(TraceField("a", int64_t{0})) != one(TraceField("a", std::string())));
  auto names = [](NameList l) {
    return fingerprint_of({TraceEvent{Time{0}, NodeId{1}, ev::GroupEmpty{.group = "g", .generation = 0, .state = "Empty", .members = std::move(l)}}});
  };
  CHECK(names({"ab", "c"}) != names({"a", "bc"}));
  CHECK(names({"abcdefgh"}) != names({"abcdefgh", ""}));
}

TEST_CASE("docs/trace-events.md documents every kind") {
  std::ifstream in(std::string(GREGOR_SOURCE_DIR) + "/docs/trace-events.md");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  for (std::string_view kind : trace_kind_names()) {
    INFO(kind);
    CHECK(text.str().find("`" + std::string(kind) + "`") != std::string::npos);
  }
}
