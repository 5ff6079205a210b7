// Scenario: a parsed scenario file (scenarios/*.yaml), the input of a reproducible run.
//
// A scenario names the cluster (brokers, zk servers, network latency), the broker and topic
// configs with Kafka's keys, the topics, the workloads (producers; consumer groups), a fault
// schedule at virtual times, the run length and the expectations: which checkers must pass and,
// for teaching stories, which must fail. Library scenarios carry a `story`: what happens, why,
// what to look for, and the fix. A scenario may define variants: named overrides of configs and
// expectations, so that one file holds both the historical behaviour and its fix.
//
// docs/scenarios.md describes the file format key by key. The loader (load_scenario) rejects
// unknown keys and bad values with "file:line: key: problem"; every time is written with a unit.
// Names: brokers are broker-1..broker-N, zk servers zk-1..zk-M, producers and groups are named in
// the file; group members are <group>-1, <group>-2, ...
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/client/consumer_node.h"
#include "engine/core/types.h"
#include "sim/simulator.h"

namespace gregor::sim {

// Limits on what a file may ask for: a scenario is a teaching or test artefact, not a load test.
inline constexpr int kScenarioBrokersMax = 16;
// zk servers: one, or a replicated ensemble (ZAB, engine/coord/zk_ensemble.cpp) of up to five.
inline constexpr int kScenarioZkServersMax = 5;
inline constexpr int kScenarioTopicsMax = 16;
inline constexpr int kScenarioPartitionsMax = 64;
inline constexpr int kScenarioProducersMax = 16;
inline constexpr int kScenarioGroupsMax = 8;
inline constexpr int kScenarioGroupMembersMax = 16;
inline constexpr int kScenarioFaultsMax = 1000;
inline constexpr double kScenarioRateMax = 100000;  // records per second per producer

using ConfigMap = std::map<std::string, std::string>;

struct TopicSpec {
  std::string name;
  int32_t partitions = 1;
  int32_t replication_factor = 3;
  // Manual placement (kafka-topics --replica-assignment "2:3,3:1"): partition -> broker ids, the
  // first being the preferred leader. Empty: Kafka's spread over the live brokers.
  std::map<int32_t, std::vector<int32_t>> replica_assignment;
  ConfigMap config;  // topic-level configs (min.insync.replicas, unclean.leader.election.enable, ...)
  int line = 0;
};

struct ProducerSpec {
  std::string name;
  std::string topic;
  double rate_per_sec = 100;
  std::string keys = "none";  // none | seq | mod:N (see engine/client/producer_node.h)
  int32_t value_bytes = 100;
  int64_t records = -1;  // -1: until stop
  Time start{0};
  Time stop{INT64_MAX};
  ConfigMap config;  // producer configs with Kafka's keys (acks, enable.idempotence, linger.ms, ...)
  // A producer with transactional.id in its config runs transactions of this many records; every
  // abort_every-th one aborts (0: none). See engine/client/producer_node.h.
  int64_t transaction_records = 100;
  int64_t abort_every = 0;
  int line = 0;
};

// How a group's members consume (engine/client/consumer_node.h): at-most-once, at-least-once or
// exactly-once.
using client::DeliveryMode;
using client::delivery_mode_name;
using client::parse_delivery_mode;

struct GroupSpec {
  std::string name;  // group.id; members are <name>-1 .. <name>-<members>
  std::vector<std::string> topics;
  int32_t members = 1;
  DeliveryMode delivery = DeliveryMode::kAtLeastOnce;
  Time start{0};
  ConfigMap config;  // consumer configs with Kafka's keys (session.timeout.ms, max.poll.interval.ms, ...)
  // `coordination: zookeeper`: Kafka 0.8's consumer, coordinated through zk
  // (engine/client/zk_group_consumer.h) instead of the brokers' group coordinator; its config may
  // use 0.8's keys too (rebalance.max.retries, zookeeper.session.timeout.ms, ...).
  bool zookeeper = false;
  // exactly-once-txn: the topic the members write to, their transactional.id prefix (member m has
  // "<prefix>-<m>"; the group's name when empty), and configs of the members' producers.
  std::string output;
  std::string transactional_id_prefix;
  ConfigMap producer_config;
  int line = 0;
};

// The faults a scenario schedules and a dashboard user applies, by the names files give them: one
// list that the parser, the runner, the swarm generator and the dashboard share.
enum class FaultKind {
  kCrash,
  kRestart,
  kPowerLoss,
  kPause,
  kResume,
  kShutdown,
  kIsolate,
  kPartition,
  kHeal,
  kClog,
  kLatency,
  kDiskCorrupt,
  kSetConfig,
  kIntercept,
  kDiskFull,
  kIoError,
  kDiskFree,
  kReassign,
};
const std::vector<FaultKind>& fault_kinds();  // every kind, in the order above
const char* fault_kind_name(FaultKind kind);  // "crash", "power-loss", "set-config", ...
std::optional<FaultKind> parse_fault_kind(const std::string& name);
// The kinds whose operand is a list of targets (crash: broker-1): crash through isolate.
bool takes_targets(FaultKind kind);

// The consumer configs a group's members run with: the scenario's defaults (short timeouts, so that
// stories move quickly), then the group's own. client.id is set per member.
ConfigMap group_consumer_config(const GroupSpec& g);

// The partitions fault targets may name (`leader of orders-0`): the scenario's topics, and the
// internal __consumer_offsets with its offsets.topic.num.partitions (`leader of __consumer_offsets-7`).
std::map<std::string, int32_t> target_partitions(const std::vector<TopicSpec>& topics, const ConfigMap& broker_config);

// The most times one trigger fires, and the most messages one intercept acts on.
inline constexpr int64_t kTriggerCountMax = 10000;
inline constexpr int64_t kInterceptCountMax = 1000000;

// `when:` what a triggered fault waits for: a trace event (`event: leader_change` and fields of that
// kind) or a Kafka message (`request: LeaderAndIsr` or `response: Fetch`, with `from` and `to`).
// Values are kept as written and checked against the kind's fields when the file is read
// (sim/scenario/triggers.h says how each is matched).
struct EventMatch {
  std::string event;     // a trace event kind ("leader_change"); empty for a message
  std::string api;       // a message: Kafka's name of the API ("LeaderAndIsr")
  bool response = false;  // a message: the response (else the request)
  // key -> the values written (one, or a list); `node`, `partition` and the kind's own fields.
  std::vector<std::pair<std::string, std::vector<std::string>>> fields;
  bool operator==(const EventMatch&) const = default;
  // "leader_change partition=orders-0 leader_epoch=1", "request LeaderAndIsr to=broker-3".
  std::string describe() const;
};

struct Trigger {
  EventMatch match;
  Duration delay{0};  // fire this long after the match (0: at once, right after the matching event)
  int64_t count = 1;  // how many matches fire it
  bool operator==(const Trigger&) const = default;
};

// `intercept:` a message fault on the requests or responses of one Kafka API.
struct Intercept {
  // kDuplicate: delivered as usual, and a copy arrives `delay` later outside the connection's
  // order (message_faults.h).
  enum class Action { kDrop, kDelay, kHold, kDuplicate };
  std::string api;        // Kafka's name of the API ("Fetch")
  bool response = false;  // the API's responses (else its requests)
  std::vector<std::string> from, to;  // targets (sender, receiver); empty: any node
  Action action = Action::kDrop;
  Duration delay{0};  // kDelay, kDuplicate
  int64_t count = 1;  // how many messages it acts on
  bool operator==(const Intercept&) const = default;
};
const char* intercept_action_name(Intercept::Action a);

// One entry of the fault schedule, or a user action in the dashboard.
//
// Actions and their operands:
//   crash, restart, power-loss, pause, resume, shutdown (controlled), isolate, disk-corrupt: targets
//   disk-full (targets, capacity), io-error (targets, writes), disk-free: targets; a heal of every
//   link (heal with no groups) frees every disk too
//   partition, heal: groups (sides whose links are cut or healed); heal with no groups heals all
//   clog: targets (from) -> to, for `duration`;  latency: targets (from) -> to, base + jitter
// Targets are names (broker-2, zk-1, producer-1, readers-1) or roles resolved when the fault fires:
// "leader of orders-0", "follower of orders-0" (the first in-sync follower), "followers of
// orders-0", "replicas of orders-0", "controller", "brokers", "zookeeper", "clients", "all",
// "crashed", "paused", "others" (in partition groups: every node in no other group), or a label
// given to an earlier fault with `as`.
struct FaultAction {
  Time at;
  FaultKind kind = FaultKind::kCrash;
  std::vector<std::string> targets;
  std::vector<std::vector<std::string>> groups;
  std::vector<std::string> to;
  Duration duration{0};  // clog
  Duration base{0}, jitter{0};  // latency
  bool one_way = false;  // partition, heal, clog: only from the first group (or targets) to the others
  std::string path;  // disk-corrupt: a file to hit (empty: any)
  std::optional<int64_t> capacity;  // disk-full: the disk's size in bytes (none: what it holds when the fault fires)
  int64_t writes = -1;  // io-error: how many writes fail (-1: every one until a disk-free)
  std::string label;  // `as`: later faults may name the nodes this one hit
  // set-config: topic-level keys for these topics (kafka-configs --alter, through a live broker),
  // or, with producers as targets, producer keys (acks, linger.ms, ...) for those producers.
  std::vector<std::string> topics;
  ConfigMap config;
  // `when:` fire when this matches (armed from `at`), instead of at `at`.
  std::optional<Trigger> when;
  // `until:` a trigger fires, and an intercept acts on messages, only until then.
  std::optional<Time> until;
  Intercept intercept;  // kIntercept
  // reassign: this partition ("orders-0") moves to the brokers of `targets` (names or roles), in
  // that order, as kafka-reassign-partitions --execute (AlterPartitionReassignments to the controller).
  std::string partition;
  int line = 0;  // in the file it came from (0: added by a user or a generator)
  // Filled when it fires: the nodes it hit, by name, in the order they were hit.
  std::vector<std::string> resolved;

  // This action with its role targets replaced by the names they resolved to (for "save as").
  FaultAction concrete() const;
  // One line a person reads: "crash leader of orders-0", "partition [broker-1] | [broker-2, zk-1]".
  std::string describe() const;
};

// An availability bound (expect: max-unavailable, max-leaderless, max-under-replicated): the
// longest stretch of the measure on `topic` (every topic when empty) must be at most `at_most`.
struct AvailabilityBound {
  std::string topic;
  Duration at_most{0};
  int line = 0;
  bool operator==(const AvailabilityBound&) const = default;
};

struct Expectations {
  // Checkers that must pass (`pass: all` fills every checker but the ones listed in `fail`).
  std::vector<std::string> pass;
  bool pass_all = false;
  // Checkers that must find a violation: the teaching stories' "this is how it breaks".
  std::vector<std::string> fail;
  // At least this many records acknowledged by all producers together (a run where nothing was
  // written would pass every checker without showing anything).
  int64_t min_acked = 0;
  // Availability (sim/scenario/availability.h): the longest time a topic's producers ran without an
  // acknowledgement, a partition had no leader, a partition's ISR was short of its replicas.
  std::vector<AvailabilityBound> max_unavailable, max_leaderless, max_under_replicated;
  int line = 0;
};

// Named overrides: `gregor run FILE --variant fixed`.
struct Variant {
  std::string name;
  std::string description;
  ConfigMap broker_config;    // merged into broker-config
  ConfigMap topic_config;     // merged into every topic's config
  ConfigMap producer_config;  // merged into every producer's config
  ConfigMap group_config;     // merged into every group's config
  std::optional<DeliveryMode> delivery;  // every group's delivery mode
  std::optional<Expectations> expect;    // replaces expect
  std::optional<std::vector<FaultAction>> faults;  // replaces the fault schedule
  int line = 0;
};

struct Scenario {
  std::string name;
  std::string story;
  std::string file;     // where it was loaded from ("" when built in code)
  std::string variant;  // the variant applied, "" for the file as written
  uint64_t seed = 1;    // the seed `gregor run` uses without --seed

  int32_t brokers = 3;
  int32_t zk_servers = 1;
  LinkLatency latency;
  // Brokers that start late: name -> start time. `controller: broker-1` starts the others 500ms
  // after broker-1, so that broker-1 wins the /controller election.
  std::map<std::string, Time> broker_start;
  std::string controller;
  ConfigMap broker_config;

  std::vector<TopicSpec> topics;
  std::vector<ProducerSpec> producers;
  std::vector<GroupSpec> groups;
  std::vector<FaultAction> faults;  // sorted by time (stable: same-time faults keep file order)
  Duration length = Duration::seconds(60);
  Expectations expect;
  std::vector<Variant> variants;

  const Variant* find_variant(const std::string& name) const;
};

// Parses a scenario. Errors: "file:line: key: problem" (kInvalidArgument).
Result<Scenario> parse_scenario(const std::string& text, const std::string& file_name);
Result<Scenario> load_scenario(const std::string& path);
// The file form of a scenario (to save an edited or generated one); parse_scenario(to_yaml(s))
// gives back s.
std::string to_yaml(const Scenario& s);
// The scenario with a variant's overrides applied. Error when it has no such variant.
Result<Scenario> apply_variant(const Scenario& s, const std::string& variant);

// Checks what the parser cannot see alone: names in targets, topics of producers, configs against
// Kafka's keys. parse_scenario calls it; code that builds a Scenario may call it too.
Status validate_scenario(const Scenario& s);

}  // namespace gregor::sim
