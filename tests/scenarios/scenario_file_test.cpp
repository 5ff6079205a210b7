// The scenario file format: durations with units, errors that name file, line and key, writing a
// scenario back (to_yaml) and reading it again, variants.
#include <catch2/catch.hpp>

#include "sim/scenario/duration.h"
#include "sim/scenario/scenario.h"

using namespace gregor;
using namespace gregor::sim;

namespace {

const char* kMinimal = R"(name: t
cluster:
  brokers: 3
topics:
  - name: orders
    partitions: 2
producers:
  - name: producer-1
    topic: orders
    rate: 50/s
faults:
  - at: 10s
    crash: leader of orders-1
    as: victim
  - at: 12s
    restart: victim
length: 30s
)";

std::string error_of(const std::string& text) {
  auto s = parse_scenario(text, "x.yaml");
  REQUIRE_FALSE(s.is_ok());
  return s.status().message();
}

}  // namespace

TEST_CASE("durations need a unit and keep microseconds exact", "[scenario]") {
  CHECK(parse_duration("500ms")->us == 500'000);
  CHECK(parse_duration("30s")->us == 30'000'000);
  CHECK(parse_duration("2m")->us == 120'000'000);
  CHECK(parse_duration("1.5s")->us == 1'500'000);
  CHECK(parse_duration("250us")->us == 250);
  CHECK(parse_duration("1h")->us == 3'600'000'000);
  CHECK_FALSE(parse_duration("10").is_ok());
  CHECK_FALSE(parse_duration("10 s").is_ok());
  CHECK_FALSE(parse_duration("ms").is_ok());
  CHECK_FALSE(parse_duration("").is_ok());
  CHECK_FALSE(parse_duration("0.5us").is_ok());
  CHECK_FALSE(parse_duration("100000h").is_ok());
  CHECK(parse_duration("10").status().message().find("unit") != std::string::npos);
  CHECK(format_duration(Duration::millis(1500)) == "1500ms");
  CHECK(format_duration(Duration::seconds(120)) == "2m");
  CHECK(format_duration(Duration::micros(250)) == "250us");
  for (const char* t : {"1500ms", "2m", "250us", "7s", "1h"}) CHECK(format_duration(*parse_duration(t)) == t);
}

TEST_CASE("a minimal scenario parses with its defaults", "[scenario]") {
  auto s = parse_scenario(kMinimal, "x.yaml");
  REQUIRE(s.is_ok());
  CHECK(s->name == "t");
  CHECK(s->brokers == 3);
  CHECK(s->zk_servers == 1);
  REQUIRE(s->topics.size() == 1);
  CHECK(s->topics[0].partitions == 2);
  CHECK(s->topics[0].replication_factor == 3);
  REQUIRE(s->producers.size() == 1);
  CHECK(s->producers[0].rate_per_sec == 50);
  REQUIRE(s->faults.size() == 2);
  CHECK(s->faults[0].kind == FaultKind::kCrash);
  CHECK(s->faults[0].targets == std::vector<std::string>{"leader of orders-1"});
  CHECK(s->faults[0].label == "victim");
  CHECK(s->faults[0].line == 12);
  CHECK(s->length == Duration::seconds(30));
  CHECK(s->expect.pass_all);  // no expect: nothing may break
}

TEST_CASE("errors name the file, the line and the key", "[scenario]") {
  // An unknown key, on line 3.
  CHECK(error_of("name: t\ncluster:\n  brokerz: 3\n") == "x.yaml:3: cluster.brokerz: unknown key (expected one of: brokers, "
                                                        "zookeeper, network, controller, start)");
  // A time without a unit.
  std::string e = error_of("name: t\nfaults:\n  - at: 10\n    crash: broker-1\n");
  CHECK(e.rfind("x.yaml:3: faults[0].at: '10' is not a duration", 0) == 0);
  // A target that does not exist.
  e = error_of("name: t\nfaults:\n  - at: 1s\n    crash: broker-9\n");
  CHECK(e.rfind("x.yaml:4: faults[0].crash: unknown target 'broker-9'", 0) == 0);
  // A role on a topic the scenario does not have.
  e = error_of("name: t\nfaults:\n  - at: 1s\n    crash: leader of payments-0\n");
  CHECK(e.find("no topic 'payments'") != std::string::npos);
  CHECK(e.rfind("x.yaml:4:", 0) == 0);
  // A Kafka config key that does not exist, at its own line.
  e = error_of("name: t\nbroker-config:\n  replica.lag.time.max.ms: 100\n  replica.lag.max.messages: 4000\n");
  CHECK(e.rfind("x.yaml:4: broker-config.replica.lag.max.messages: unknown broker config", 0) == 0);
  // A bad value of a good key.
  e = error_of("name: t\ntopics:\n  - name: o\n    config:\n      min.insync.replicas: two\n");
  CHECK(e.rfind("x.yaml:5: topics[0].config.min.insync.replicas:", 0) == 0);
  // A checker that does not exist.
  e = error_of("name: t\nexpect:\n  fail: [acked-write-gone]\n");
  CHECK(e.rfind("x.yaml:3: expect.fail: unknown checker 'acked-write-gone'", 0) == 0);
  // A label used before it is defined.
  e = error_of("name: t\nfaults:\n  - at: 1s\n    restart: victim\n  - at: 2s\n    crash: broker-1\n    as: victim\n");
  CHECK(e.rfind("x.yaml:4: faults[0].restart: unknown target 'victim'", 0) == 0);
  // A group's consumer configs: each key by the consumer's own declarations (a key the consumer
  // does not know was accepted here before and then failed the run), and the keys together.
  const std::string group = "name: t\ntopics:\n  - name: o\ngroups:\n  - name: g\n    topics: o\n    config:\n";
  e = error_of(group + "      interceptor.classes: com.example.Audit\n");
  CHECK(e.rfind("x.yaml:8: groups[0].config.interceptor.classes: unknown consumer config", 0) == 0);
  // isolation.level is one (issue 19a: read_committed consumers), with its two values.
  CHECK(parse_scenario(group + "      isolation.level: read_committed\n", "x.yaml").is_ok());
  CHECK_FALSE(parse_scenario(group + "      isolation.level: committed\n", "x.yaml").is_ok());
  e = error_of(group + "      session.timeout.ms: 500\n");
  CHECK(e.rfind("x.yaml:8: groups[0].config: heartbeat.interval.ms must be lower than session.timeout.ms", 0) == 0);
  CHECK(parse_scenario(group + "      session.timeout.ms: 4000\n", "x.yaml").is_ok());
  // Two actions in one fault.
  e = error_of("name: t\nfaults:\n  - at: 1s\n    crash: broker-1\n    pause: broker-2\n");
  CHECK(e.find("one action per fault") != std::string::npos);
  // Not YAML at all.
  e = error_of("name: t\ncluster: [brokers: 3\n");
  CHECK(e.find("not valid YAML") != std::string::npos);
  CHECK(e.rfind("x.yaml:", 0) == 0);
  // A fault after the end of the run.
  e = error_of("name: t\nlength: 10s\nfaults:\n  - at: 11s\n    crash: broker-1\n");
  CHECK(e.rfind("x.yaml:4: faults[0].at: after the end of the run", 0) == 0);
  // A producer of a topic that is not declared.
  e = error_of("name: t\nproducers:\n  - topic: payments\n");
  CHECK(e.rfind("x.yaml:3: producers[0].topic: no topic 'payments'", 0) == 0);
  // set-config: a topic key that does not exist, a producer key that cannot change while it runs,
  // a producer or topic that is not declared, both at once.
  const std::string sc = "name: t\ntopics:\n  - name: o\nproducers:\n  - name: p\n    topic: o\nfaults:\n  - at: 1s\n";
  e = error_of(sc + "    set-config: {topic: o, config: {min.insync.replica: 2}}\n");
  CHECK(e.rfind("x.yaml:9: faults[0].set-config.config.min.insync.replica:", 0) == 0);
  e = error_of(sc + "    set-config: {producer: p, config: {enable.idempotence: true}}\n");
  CHECK(e.find("cannot change in a running producer") != std::string::npos);
  e = error_of(sc + "    set-config: {producer: q, config: {acks: 1}}\n");
  CHECK(e.rfind("x.yaml:9: faults[0].set-config.producer: no producer 'q'", 0) == 0);
  e = error_of(sc + "    set-config: {topic: x, config: {min.insync.replicas: 1}}\n");
  CHECK(e.rfind("x.yaml:9: faults[0].set-config.topic: no topic 'x'", 0) == 0);
  e = error_of(sc + "    set-config: {topic: o, producer: p, config: {acks: 1}}\n");
  CHECK(e.find("not both") != std::string::npos);
  e = error_of(sc + "    set-config: {topic: o}\n");
  CHECK(e.rfind("x.yaml:9: faults[0].set-config.config:", 0) == 0);
  // A missing file.
  auto missing = load_scenario("/nonexistent/scenario.yaml");
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message().find("/nonexistent/scenario.yaml") != std::string::npos);
}

TEST_CASE("faults come out in time order, same-time faults in file order", "[scenario]") {
  auto s = parse_scenario(
      "name: t\nfaults:\n  - at: 5s\n    crash: broker-2\n  - at: 1s\n    pause: broker-1\n  - at: 5s\n    crash: broker-3\n",
      "x.yaml");
  REQUIRE(s.is_ok());
  REQUIRE(s->faults.size() == 3);
  CHECK(s->faults[0].kind == FaultKind::kPause);
  CHECK(s->faults[1].targets[0] == "broker-2");
  CHECK(s->faults[2].targets[0] == "broker-3");
}

TEST_CASE("to_yaml writes a scenario that reads back the same", "[scenario]") {
  const char* text = R"(name: everything
story: |
  Two lines
  of story.
seed: 7
cluster:
  brokers: 4
  zookeeper: 1
  network: {latency: 2ms, jitter: 1ms}
  controller: broker-1
broker-config:
  replication.truncation: high-watermark
  zookeeper.session.timeout.ms: 6000
topics:
  - name: orders
    replica-assignment: "2:3:4,3:4:2"
    config: {min.insync.replicas: 2}
  - name: events
    partitions: 3
    replication-factor: 2
producers:
  - name: p
    topic: orders
    rate: 12.5
    keys: mod:4
    value-bytes: 64
    records: 100
    start: 3s
    stop: 20s
    config: {acks: "1", linger.ms: 0}
groups:
  - name: readers
    topics: [orders, events]
    members: 2
    delivery: exactly-once
    config: {session.timeout.ms: 10000}
faults:
  - at: 5s
    partition: [[leader of orders-0, p], [others]]
    one-way: true
  - at: 6s
    clog: {from: broker-2, to: [broker-3, zk-1], for: 1500ms, both-ways: true}
  - at: 7s
    latency: {from: all, to: all, base: 20ms, jitter: 5ms}
  - at: 8s
    disk-corrupt: {target: broker-3, path: orders-0/00000000000000000000.log}
  - at: 9s
    power-loss: [broker-2, broker-3]
    as: down
  - at: 10s
    heal: all
  - at: 11s
    restart: down
  - at: 12s
    pause: readers
  - at: 13s
    shutdown: controller
  - at: 14s
    set-config: {topic: [orders, events], config: {min.insync.replicas: 1, unclean.leader.election.enable: true}}
  - at: 15s
    set-config: {producer: p, config: {acks: 1}}
length: 2m
expect:
  pass: [single-leader, log-matching]
  fail: [acked-write-lost]
  min-acked: 10
variants:
  fixed:
    description: the fix
    broker-config: {replication.truncation: leader-epoch}
    producer-config: {acks: all}
    delivery: at-least-once
    expect: {pass: all}
)";
  auto a = parse_scenario(text, "a.yaml");
  REQUIRE(a.is_ok());
  const std::string written = to_yaml(*a);
  auto b = parse_scenario(written, "b.yaml");
  INFO(written);
  REQUIRE(b.is_ok());
  CHECK(b->story == a->story);
  CHECK(b->seed == 7);
  CHECK(b->brokers == 4);
  CHECK(b->zk_servers == 1);
  CHECK(b->latency.base == Duration::millis(2));
  CHECK(b->controller == "broker-1");
  CHECK(b->broker_config == a->broker_config);
  REQUIRE(b->topics.size() == 2);
  CHECK(b->topics[0].replica_assignment == a->topics[0].replica_assignment);
  CHECK(b->topics[0].config == a->topics[0].config);
  CHECK(b->topics[1].partitions == 3);
  CHECK(b->topics[1].replication_factor == 2);
  REQUIRE(b->producers.size() == 1);
  CHECK(b->producers[0].rate_per_sec == 12.5);
  CHECK(b->producers[0].keys == "mod:4");
  CHECK(b->producers[0].records == 100);
  CHECK(b->producers[0].stop == Time{20'000'000});
  CHECK(b->producers[0].config == a->producers[0].config);
  REQUIRE(b->groups.size() == 1);
  CHECK(b->groups[0].topics == a->groups[0].topics);
  CHECK(b->groups[0].delivery == DeliveryMode::kExactlyOnce);
  REQUIRE(b->faults.size() == a->faults.size());
  for (size_t i = 0; i < a->faults.size(); i++) {
    CHECK(b->faults[i].describe() == a->faults[i].describe());
    CHECK(b->faults[i].at == a->faults[i].at);
    CHECK(b->faults[i].label == a->faults[i].label);
    CHECK(b->faults[i].topics == a->faults[i].topics);
    CHECK(b->faults[i].config == a->faults[i].config);
  }
  CHECK(a->faults[9].describe() == "set-config [orders, events] min.insync.replicas=1 unclean.leader.election.enable=true");
  CHECK(a->faults[10].describe() == "set-config p acks=1");
  CHECK(b->length == Duration::seconds(120));
  CHECK(b->expect.pass == a->expect.pass);
  CHECK(b->expect.fail == a->expect.fail);
  CHECK(b->expect.min_acked == 10);
  REQUIRE(b->variants.size() == 1);
  CHECK(b->variants[0].broker_config == a->variants[0].broker_config);
  CHECK(b->variants[0].expect->pass_all);
  // Written twice, the text is the same: to_yaml is a function of the scenario.
  CHECK(to_yaml(*b) == written);
}

TEST_CASE("a variant merges its configs and replaces the expectations", "[scenario]") {
  auto s = parse_scenario(std::string(kMinimal) + R"(expect:
  fail: [acked-write-lost]
variants:
  fixed:
    broker-config: {unclean.leader.election.enable: "false"}
    topic-config: {min.insync.replicas: 2}
    producer-config: {acks: all}
    expect: {pass: all}
)",
                          "x.yaml");
  REQUIRE(s.is_ok());
  auto v = apply_variant(*s, "fixed");
  REQUIRE(v.is_ok());
  CHECK(v->variant == "fixed");
  CHECK(v->broker_config.at("unclean.leader.election.enable") == "false");
  CHECK(v->topics[0].config.at("min.insync.replicas") == "2");
  CHECK(v->producers[0].config.at("acks") == "all");
  CHECK(v->expect.pass_all);
  CHECK(v->expect.fail.empty());
  auto missing = apply_variant(*s, "nope");
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message().find("variants: fixed") != std::string::npos);
}

// Regression (issue 17): `or/ders` and `..` were accepted and the run failed later instead of the
// file being refused with its line.
TEST_CASE("topic names are checked as Kafka checks them, with file and line", "[scenario]") {
  auto topics = [](const std::string& a, const std::string& b) {
    return "name: t\ncluster:\n  brokers: 3\ntopics:\n  - name: \"" + a + "\"\n  - name: \"" + b + "\"\n";
  };
  CHECK(error_of(topics("orders", "or/ders")).rfind("x.yaml:6: topics[1].name: Topic name \"or/ders\" is illegal", 0) == 0);
  CHECK(error_of(topics("..", "b")).rfind("x.yaml:5: topics[0].name: Topic name cannot be \".\" or \"..\"", 0) == 0);
  CHECK(error_of(topics(std::string(250, 'x'), "b")).find("longer than 249") != std::string::npos);
  const std::string collide = error_of(topics("du.p", "du_p"));
  CHECK(collide.rfind("x.yaml:6: topics[1].name: topic 'du_p' collides with topic 'du.p'", 0) == 0);
  CHECK(parse_scenario(topics("a.b-c_9", std::string(249, 'y')), "x.yaml").is_ok());
}

// Regression (issue 17): `gregor run /dev/zero` read until memory ran out.
TEST_CASE("a scenario file is read with a bound: /dev/zero is refused, not read forever", "[scenario]") {
  auto s = sim::load_scenario("/dev/zero");
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.status().message() == "/dev/zero: larger than 1 MiB");
}

TEST_CASE("targets: a group's coordinator and the partitions of __consumer_offsets", "[scenario]") {
  const std::string base = "name: t\nbroker-config:\n  offsets.topic.num.partitions: 5\ntopics:\n  - name: o\n"
                           "groups:\n  - name: billing\n    topics: o\nfaults:\n  - at: 1s\n";
  CHECK(parse_scenario(base + "    crash: coordinator of billing\n", "x.yaml").is_ok());
  CHECK(parse_scenario(base + "    crash: leader of __consumer_offsets-4\n", "x.yaml").is_ok());
  // Only a group of the scenario has a coordinator; a member or another label does not.
  std::string e = error_of(base + "    crash: coordinator of payments\n");
  CHECK(e.rfind("x.yaml:11: faults[0].crash: no group 'payments'", 0) == 0);
  e = error_of(base + "    crash: coordinator of billing-1\n");
  CHECK(e.find("no group 'billing-1'") != std::string::npos);
  // The internal topic has offsets.topic.num.partitions partitions (50 by default).
  e = error_of(base + "    crash: leader of __consumer_offsets-5\n");
  CHECK(e.find("has 5 partition(s); there is no __consumer_offsets-5") != std::string::npos);
  CHECK(parse_scenario("name: t\nfaults:\n  - at: 1s\n    crash: leader of __consumer_offsets-49\n", "x.yaml").is_ok());
  CHECK_FALSE(parse_scenario("name: t\nfaults:\n  - at: 1s\n    crash: leader of __consumer_offsets-50\n", "x.yaml").is_ok());
}

TEST_CASE("transactional producers and read_committed groups parse and write back", "[scenario]") {
  const std::string head = "name: t\ntopics:\n  - name: o\nproducers:\n  - name: p\n    topic: o\n";
  const std::string txn = head + "    config: {transactional.id: w}\n";
  auto a = parse_scenario(txn + "    transaction.records: 7\n    abort.every: 2\ngroups:\n  - name: g\n    topics: [o]\n"
                                "    config: {isolation.level: read_committed}\n",
                          "a.yaml");
  REQUIRE(a.is_ok());
  CHECK(a->producers[0].transaction_records == 7);
  CHECK(a->producers[0].abort_every == 2);
  CHECK(a->producers[0].config.at("transactional.id") == "w");
  CHECK(a->groups[0].config.at("isolation.level") == "read_committed");
  auto b = parse_scenario(to_yaml(*a), "b.yaml");
  REQUIRE(b.is_ok());
  CHECK(b->producers[0].transaction_records == 7);
  CHECK(b->producers[0].abort_every == 2);
  CHECK(b->groups[0].config == a->groups[0].config);
  // Defaults: 100 records a transaction, none aborted.
  auto d = parse_scenario(txn, "d.yaml");
  REQUIRE(d.is_ok());
  CHECK(d->producers[0].transaction_records == 100);
  CHECK(d->producers[0].abort_every == 0);
  // Errors name the file, the line and the key.
  CHECK(error_of(head + "    abort.every: 2\n") ==
        "x.yaml:7: producers[0].abort.every: abort.every needs a transactional.id under config:");
  CHECK(error_of(txn + "    transaction.records: 0\n").find("x.yaml:8: producers[0].transaction.records: must be between") == 0);
  CHECK(error_of(txn + "    abort.every: often\n").find("x.yaml:8: producers[0].abort.every:") == 0);
  CHECK(error_of(head + "groups:\n  - name: g\n    topics: [o]\n    config: {isolation.level: committed}\n")
            .find("x.yaml:10: groups[0].config.isolation.level:") == 0);
}

TEST_CASE("exactly-once-txn groups parse with their output and write back", "[scenario]") {
  const std::string head = "name: t\ntopics:\n  - name: in\n  - name: out\ngroups:\n  - name: g\n    topics: [in]\n";
  const std::string txn = head + "    delivery: exactly-once-txn\n";
  auto a = parse_scenario(txn + "    output: out\n    transactional.id.prefix: app\n"
                                "    producer-config: {transaction.timeout.ms: 10000}\n",
                          "a.yaml");
  REQUIRE(a.is_ok());
  CHECK(a->groups[0].delivery == DeliveryMode::kExactlyOnceTxn);
  CHECK(a->groups[0].output == "out");
  CHECK(a->groups[0].transactional_id_prefix == "app");
  CHECK(a->groups[0].producer_config.at("transaction.timeout.ms") == "10000");
  auto b = parse_scenario(to_yaml(*a), "b.yaml");
  REQUIRE(b.is_ok());
  CHECK(b->groups[0].delivery == DeliveryMode::kExactlyOnceTxn);
  CHECK(b->groups[0].output == "out");
  CHECK(b->groups[0].transactional_id_prefix == "app");
  CHECK(b->groups[0].producer_config == a->groups[0].producer_config);
  // Errors name the file, the line and the key.
  CHECK(error_of(txn) == "x.yaml:6: groups[0].output: exactly-once-txn writes to a topic: output: <topic>");
  CHECK(error_of(head + "    output: out\n") == "x.yaml:8: groups[0].output: output is for delivery: exactly-once-txn");
  CHECK(error_of(txn + "    output: nowhere\n") == "x.yaml:9: groups[0].output: no topic 'nowhere' under topics:");
  CHECK(error_of(txn + "    output: in\n") == "x.yaml:9: groups[0].output: the group reads 'in': write to another topic");
  CHECK(error_of(txn + "    output: out\n    producer-config: {acks: 1}\n")
            .find("x.yaml:10: groups[0].producer-config: acks is set by exactly-once-txn") == 0);
  // A variant that switches to exactly-once-txn needs an output on every group.
  CHECK(error_of(head + "length: 10s\nvariants:\n  v:\n    delivery: exactly-once-txn\n")
            .find("x.yaml:11: variants.v.delivery: exactly-once-txn needs output: on every group") == 0);
}
