// Triggered faults (`when:`), message faults (`intercept:`), availability bounds and variant
// schedules: how the file says them (errors with file and line, written back the same) and what a
// run does with them.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_run.h"
#include "sim/scenario/swarm.h"

using namespace gregor;
using namespace gregor::sim;

namespace {

// A three-broker cluster with one partition on all three, a producer, and the faults given.
std::string scenario_with(const std::string& faults, const std::string& extra = "", const std::string& broker_config = "") {
  return R"(name: t
cluster:
  brokers: 3
  controller: broker-1
broker-config:
)" + broker_config + R"(  zookeeper.session.timeout.ms: 3000
topics:
  - name: orders
    replica-assignment: "2:3:1"
producers:
  - name: producer-1
    topic: orders
    rate: 50/s
    config: {acks: all}
faults:
)" + faults + R"(length: 30s
)" + extra;
}

std::string error_of(const std::string& text) {
  auto s = parse_scenario(text, "x.yaml");
  REQUIRE_FALSE(s.is_ok());
  return s.status().message();
}

Scenario parsed(const std::string& text) {
  auto s = parse_scenario(text, "x.yaml");
  INFO(s.status().to_string());
  REQUIRE(s.is_ok());
  return *s;
}

std::vector<std::string> fault_lines(ScenarioRun& run) {
  std::vector<std::string> out;
  for (const auto& e : run.timeline().entries())
    if (e.kind == "fault") out.push_back(format_time(e.time) + " " + e.text);
  return out;
}

}  // namespace

TEST_CASE("when: parses events and messages, and writes back the same", "[scenario][triggers]") {
  const Scenario s = parsed(scenario_with(R"(  - when: {event: leader_change, partition: orders-0, leader_epoch: ">=1", leader: [broker-2, broker-3]}
    delay: 2s
    count: 2
    crash: leader of orders-0
  - at: 5s
    when: {event: isr_change, isr: [broker-2, broker-3], direction: shrink}
    restart: crashed
  - when: {request: LeaderAndIsr, to: broker-3}
    pause: broker-3
  - at: 3s
    until: 20s
    intercept: {response: Produce, from: brokers, to: producer-1, action: delay, for: 2s, count: 4}
)"));
  REQUIRE(s.faults.size() == 4);
  const FaultAction& first = s.faults[0];
  REQUIRE(first.when);
  CHECK(first.when->match.event == "leader_change");
  CHECK(first.when->delay == Duration::seconds(2));
  CHECK(first.when->count == 2);
  CHECK(first.at == Time{0});
  // In time order: a trigger without `at` is armed from 0s.
  REQUIRE(s.faults[1].when);
  CHECK(s.faults[1].when->match.api == "LeaderAndIsr");
  CHECK(s.faults[2].kind == FaultKind::kIntercept);
  CHECK(s.faults[2].intercept.response);
  CHECK(s.faults[2].intercept.action == Intercept::Action::kDelay);
  CHECK(s.faults[2].intercept.count == 4);
  CHECK(s.faults[2].until == Time{0} + Duration::seconds(20));
  REQUIRE(s.faults[3].when);
  CHECK(s.faults[3].when->match.event == "isr_change");
  CHECK(s.faults[3].at == Time{0} + Duration::seconds(5));
  const Scenario again = parsed(to_yaml(s));
  REQUIRE(again.faults.size() == s.faults.size());
  for (size_t i = 0; i < s.faults.size(); i++) {
    INFO(i);
    CHECK(again.faults[i].when == s.faults[i].when);
    CHECK(again.faults[i].intercept == s.faults[i].intercept);
    CHECK(again.faults[i].at == s.faults[i].at);
    CHECK(again.faults[i].until == s.faults[i].until);
  }
}

TEST_CASE("a malformed when: or intercept: is an error with file, line and key", "[scenario][triggers]") {
  CHECK(error_of(scenario_with("  - when: {event: leader_chnage}\n    crash: broker-1\n")) ==
        "x.yaml:16: faults[0].when: no trace event kind 'leader_chnage' (docs/trace-events.md lists them)");
  CHECK(error_of(scenario_with("  - when: {event: leader_change, epoch: 1}\n    crash: broker-1\n"))
            .find("x.yaml:16: faults[0].when: a leader_change event has no field 'epoch' (its fields: node, topic,") == 0);
  CHECK(error_of(scenario_with("  - when: {event: leader_change, leader: broker-9}\n    crash: broker-1\n"))
            .find("broker-9") != std::string::npos);
  CHECK(error_of(scenario_with("  - when: {event: leader_change, leader_epoch: \">=x\"}\n    crash: broker-1\n"))
            .find("comparison") != std::string::npos);
  CHECK(error_of(scenario_with("  - when: {event: leader_change, partition: orders}\n    crash: broker-1\n"))
            .find("not a topic partition") != std::string::npos);
  CHECK(error_of(scenario_with("  - when: {request: LeaderAndIsr, event: x}\n    crash: broker-1\n"))
            .find("name one of event, request or response") != std::string::npos);
  CHECK(error_of(scenario_with("  - when: {request: LeaderAndIsr, to: leader of orders-0}\n    crash: broker-1\n"))
            .find("a trigger on messages names nodes") != std::string::npos);
  CHECK(error_of(scenario_with("  - when: {request: LeaderAndISR}\n    crash: broker-1\n")).find("no Kafka API 'LeaderAndISR'") !=
        std::string::npos);
  CHECK(error_of(scenario_with("  - at: 1s\n    delay: 1s\n    crash: broker-1\n")) ==
        "x.yaml:17: faults[0].delay: only a triggered fault (when:) has a delay or a count");
  CHECK(error_of(scenario_with("  - at: 1s\n    until: 2s\n    crash: broker-1\n")).find("faults[0].until") != std::string::npos);
  CHECK(error_of(scenario_with("  - crash: broker-1\n")).find("every fault needs a time (at: 10s) or a trigger") !=
        std::string::npos);
  CHECK(error_of(scenario_with("  - when: {event: node_crash}\n    count: 0\n    crash: broker-1\n")).find("faults[0].count") !=
        std::string::npos);
  CHECK(error_of(scenario_with("  - at: 1s\n    intercept: {request: Fetch, action: lose}\n")) ==
        "x.yaml:17: faults[0].intercept.action: expected drop, delay, hold or duplicate, got 'lose'");
  CHECK(error_of(scenario_with("  - at: 1s\n    intercept: {request: Fetch, action: delay}\n"))
            .find("faults[0].intercept.for") != std::string::npos);
  CHECK(error_of(scenario_with("  - at: 1s\n    intercept: {request: Fetch, to: broker-7, action: drop}\n"))
            .find("faults[0].intercept.to") != std::string::npos);
}

TEST_CASE("a trigger fires at the event it matches, once by default, and after its delay", "[scenario][triggers]") {
  // The controller elects a new leader (epoch 1) once broker-2, the first leader, is gone.
  const Scenario s = parsed(scenario_with(R"(  - at: 5s
    crash: broker-2
  - when: {event: leader_change, partition: orders-0, leader_epoch: 1}
    delay: 1s
    crash: leader of orders-0
    as: second
  - when: {event: node_crash, target: [broker-2, broker-3, broker-1]}
    count: 5
    restart: broker-2
)"));
  ScenarioRun run(s, 1);
  run.run_to_end();
  Time elected{-1};
  for (const auto& e : run.timeline().entries())
    if (e.kind == "leader" && e.text.find("epoch 1,") != std::string::npos && elected.us < 0) elected = e.time;
  REQUIRE(elected.us > 0);
  int second = 0, restarts = 0;
  for (const auto& a : run.applied()) {
    if (a.kind == FaultKind::kCrash && a.label == "second") {
      second++;
      CHECK(a.at == elected + Duration::seconds(1));
      CHECK(a.resolved == std::vector<std::string>{"broker-3"});
    }
    if (a.kind == FaultKind::kRestart) restarts++;
  }
  CHECK(second == 1);
  // node_crash events: broker-2 at 5s, broker-3 at the trigger, then each restart of the running
  // broker-2 crashes it first, which matches again: the count bounds a trigger that matches what
  // it does.
  CHECK(restarts == 5);
  const auto lines = fault_lines(run);
  CAPTURE(lines);
  CHECK(std::any_of(lines.begin(), lines.end(),
                    [](const std::string& l) { return l.find("(when leader_change partition=orders-0 leader_epoch=1, after 1s)") != std::string::npos; }));
}

TEST_CASE("intercept drop breaks the connection: the follower's fetch is lost and it fetches again", "[scenario][triggers]") {
  const Scenario s = parsed(scenario_with(R"(  - at: 5s
    intercept: {request: Fetch, from: broker-3, to: leader of orders-0, action: drop, count: 2}
)"));
  ScenarioRun run(s, 1);
  int intercepts = 0;
  run.add_listener([&](const TraceEvent& e) {
    if (const auto* m = e.as<ev::MessageIntercept>()) {
      intercepts++;
      CHECK(m->api == "Fetch");
      CHECK(m->side == "request");
      CHECK(m->from == 3);
      CHECK(m->to == 2);
      CHECK(m->action == "drop");
      CHECK(e.time >= Time{0} + Duration::seconds(5));
    }
  });
  run.run_to_end();
  CHECK(intercepts == 2);
  const Verdicts v = run.verdicts();
  CHECK(v.all_hold());
  CHECK(v.acked > 1000);
}

TEST_CASE("intercept duplicate delivers a late copy: the leader appends a produce twice unless idempotent", "[scenario][triggers]") {
  for (const bool idempotent : {false, true}) {
    INFO("enable.idempotence " << idempotent);
    std::string text = scenario_with(R"(  - at: 5s
    intercept: {request: Produce, from: producer-1, to: leader of orders-0, action: duplicate, for: 1s}
)");
    if (idempotent) text.replace(text.find("{acks: all}"), 11, "{acks: all, enable.idempotence: true}");
    const Scenario s = parsed(text);
    ScenarioRun run(s, 1);
    std::map<int64_t, std::vector<Time>> appends;  // crc -> when the leader appended it
    int intercepts = 0;
    run.add_listener([&](const TraceEvent& e) {
      if (const auto* a = e.as<ev::LogAppend>(); a && a->topic == "orders" && a->role == "leader") appends[a->crc].push_back(e.time);
      if (const auto* m = e.as<ev::MessageIntercept>()) {
        intercepts++;
        CHECK(m->action == "duplicate");
        CHECK(m->delay_us == 1000000);
      }
    });
    run.run_to_end();
    CHECK(intercepts == 1);
    int twice = 0;
    for (const auto& [crc, times] : appends)
      if (times.size() == 2) {
        twice++;
        CHECK(times[1] - times[0] >= Duration::millis(990));
      }
    CHECK(twice == (idempotent ? 0 : 1));
    CHECK(run.verdicts().all_hold());
  }
}

TEST_CASE("intercept hold keeps a link's messages until a heal", "[scenario][triggers]") {
  // Holding broker-3's fetches from the leader: broker-3 falls out of the ISR (replica.lag.time.max.ms
  // 30s by default would be long: the file sets 2s) and rejoins after the heal.
  const std::string faults = R"(  - at: 5s
    intercept: {request: Fetch, from: broker-3, to: broker-2, action: hold}
  - at: 15s
    heal: all
)";
  const Scenario s = parsed(scenario_with(faults, "", "  replica.lag.time.max.ms: 2000\n"));
  ScenarioRun run(s, 1);
  std::vector<std::pair<Time, std::string>> isr;
  run.add_listener([&](const TraceEvent& e) {
    if (const auto* c = e.as<ev::IsrChange>(); c && c->topic == "orders") isr.emplace_back(e.time, c->direction);
  });
  run.run_to_end();
  REQUIRE(isr.size() >= 2);
  CHECK(isr[0].second == "shrink");
  CHECK(isr[0].first > Time{0} + Duration::seconds(6));
  CHECK(isr[0].first < Time{0} + Duration::seconds(15));
  CHECK(isr[1].second == "expand");
  CHECK(isr[1].first >= Time{0} + Duration::seconds(15));
  CHECK(isr[1].first < Time{0} + Duration::seconds(17));
  const Verdicts v = run.verdicts();
  CHECK(v.all_hold());
  REQUIRE(v.availability.count("orders"));
  const AvailabilityFigures& f = v.availability.at("orders");
  CHECK(f.under_replicated_max >= Duration::seconds(1));
  CHECK(f.under_replicated_max < Duration::seconds(10));
  CHECK(f.under_replicated_partition == "orders-0");
  CHECK(f.leaderless_max == Duration{0});
}

TEST_CASE("availability: a leader crash shows as time without acks and without a leader, and bounds decide", "[scenario][triggers]") {
  const Scenario s = parsed(scenario_with(R"(  - at: 5s
    crash: leader of orders-0
  - at: 20s
    restart: crashed
)",
                                          R"(expect:
  pass: all
  max-leaderless: {topic: orders, at-most: 1s}
  max-unavailable: 30s
)"));
  ScenarioRun run(s, 1);
  run.run_to_end();
  const Verdicts v = run.verdicts();
  const AvailabilityFigures& f = v.availability.at("orders");
  INFO(format_time(Time{0} + f.leaderless_max) << " " << format_time(f.leaderless_from) << " " << format_time(Time{0} + f.unavailable_max));
  // The crashed leader's session (3s) must expire before the controller elects another.
  CHECK(f.leaderless_max > Duration::seconds(2));
  CHECK(f.leaderless_max < Duration::seconds(8));
  CHECK(f.unavailable_max > Duration::seconds(2));
  CHECK(f.unavailable_max < Duration::seconds(8));
  CHECK(f.unavailable_from > Time{0} + Duration::millis(4900));
  int broken = 0;
  for (const auto& e : v.expectations)
    if (e.holds && !*e.holds) {
      broken++;
      CHECK(e.text.find("longest time a partition had no leader of orders at most 1s") == 0);
    }
  CHECK(broken == 1);
}

TEST_CASE("a variant replaces the fault schedule", "[scenario][triggers]") {
  const Scenario s = parsed(scenario_with("  - at: 5s\n    crash: broker-2\n    as: x\n  - at: 6s\n    restart: x\n",
                                          R"(variants:
  calm:
    faults: []
  other:
    faults:
      - at: 2s
        as: y
        crash: broker-3
      - when: {event: node_crash, target: broker-3}
        delay: 1s
        restart: y
)"));
  CHECK(s.faults.size() == 2);
  auto calm = apply_variant(s, "calm");
  REQUIRE(calm.is_ok());
  CHECK(calm->faults.empty());
  auto other = apply_variant(s, "other");
  REQUIRE(other.is_ok());
  REQUIRE(other->faults.size() == 2);
  CHECK(other->faults[0].when.has_value());  // armed from 0s: first in time order
  // Written back the same, and labels of the file's schedule are not the variant's.
  const Scenario again = parsed(to_yaml(s));
  REQUIRE(again.variants.size() == 2);
  CHECK(again.variants[0].faults->empty());
  CHECK(again.variants[1].faults->size() == 2);
  CHECK(error_of(scenario_with("  - at: 5s\n    crash: broker-2\n    as: x\n",
                               "variants:\n  v:\n    faults:\n      - at: 6s\n        restart: x\n"))
            .find("variants.v.faults[0].restart") != std::string::npos);
  ScenarioRun run(*other, 1);
  run.run_to_end();
  REQUIRE(run.applied().size() >= 2);
  CHECK(run.applied()[1].at == Time{0} + Duration::seconds(3));
}

TEST_CASE("the safe swarm draws triggered and message faults, valid and firing", "[scenario][triggers][swarm]") {
  int triggered = 0, intercepts = 0, fired = 0, acted = 0;
  for (uint64_t seed = 1; seed <= 30; seed++) {
    const Scenario s = generate_swarm_scenario("safe", seed);
    INFO("seed " << seed);
    REQUIRE(validate_scenario(s).is_ok());
    for (const auto& f : s.faults) {
      triggered += f.when.has_value();
      intercepts += f.kind == FaultKind::kIntercept;
      if (f.when || f.kind == FaultKind::kIntercept) CHECK(f.until.has_value());
    }
    if (seed > 10) continue;  // runs of the first ten: what fired
    ScenarioRun run(s, seed);
    run.add_listener([&](const TraceEvent& e) {
      if (e.is<ev::MessageIntercept>()) acted++;
    });
    run.run_to_end();
    for (const auto& a : run.applied()) fired += a.when.has_value();
  }
  CHECK(triggered >= 10);
  CHECK(intercepts >= 10);
  CHECK(fired >= 3);
  CHECK(acted >= 3);
}
