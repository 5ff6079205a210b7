#include "sim/scenario/swarm.h"

#include <algorithm>

#include "engine/core/rng.h"
#include "sim/scenario/duration.h"
#include "sim/scenario/scenario_run.h"

namespace gregor::sim {

namespace {

// The shape of every generated run: setup, then faults in the chaos window, then a quiet phase in
// which everything is healed and restarted, then the end-of-run checks.
constexpr int64_t kChaosStartMs = 8000;
constexpr int64_t kChaosEndMs = 42000;
constexpr int64_t kQuietAtMs = 45000;
constexpr int64_t kLengthMs = 60000;
constexpr int kFaultsMax = 8;
constexpr int kTriggeredFaultsMax = 3;

const std::vector<std::string> kSafeChecks = {"single-leader", "epoch-monotonic",  "hw-monotonic",     "hw-within-isr",
                                              "log-matching",  "acked-write-lost", "replicas-converge"};

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  GREGOR_ASSERT(!v.empty());
  return v[rng.uniform(v.size())];
}

Time at_ms(int64_t ms) { return Time{ms * 1000}; }

FaultAction fault(Time at, FaultKind kind, std::vector<std::string> targets) {
  FaultAction f;
  f.at = at;
  f.kind = kind;
  f.targets = std::move(targets);
  return f;
}

class Generator {
 public:
  Generator(std::string profile, uint64_t seed) : profile_(std::move(profile)), seed_(seed), rng_(Rng::derive(seed, "swarm")) {}

  Scenario generate() {
    Scenario s;
    s.name = "swarm-" + profile_ + "-" + std::to_string(seed_);
    s.seed = seed_;
    s.brokers = static_cast<int32_t>(3 + rng_.uniform(3));
    // A single zk server, but for the zk-ensemble profile: a replicated ensemble of three.
    s.zk_servers = profile_ == "zk-ensemble" ? 3 : 1;
    const int64_t base_us = pick(rng_, std::vector<int64_t>{200, 500, 1000, 2000, 5000});
    s.latency = LinkLatency{Duration::micros(base_us), Duration::micros(base_us / 2)};
    s.broker_config["zookeeper.session.timeout.ms"] = pick(rng_, std::vector<std::string>{"2000", "4000", "6000", "10000"});
    s.broker_config["replica.lag.time.max.ms"] = pick(rng_, std::vector<std::string>{"1000", "3000", "10000", "30000"});
    s.broker_config["replica.fetch.wait.max.ms"] = pick(rng_, std::vector<std::string>{"50", "200", "500"});
    s.broker_config["replica.high.watermark.checkpoint.interval.ms"] =
        pick(rng_, std::vector<std::string>{"100", "1000", "5000"});
    s.broker_config["leader.imbalance.check.interval.seconds"] = pick(rng_, std::vector<std::string>{"5", "30", "300"});
    if (profile_ == "hw-truncation") s.broker_config["replication.truncation"] = "high-watermark";
    const bool txn = transactions();
    if (txn) {
      // Small internal topics (as the stories s12-s14), and KIP-890 part 2 or the protocol before it.
      s.broker_config["transaction.state.log.num.partitions"] = "4";
      s.broker_config["offsets.topic.num.partitions"] = "4";
      s.broker_config["group.initial.rebalance.delay.ms"] = "0";
      s.broker_config["transaction.version"] = profile_ == "transactions-v1" ? "1" : "2";
    }

    TopicSpec orders;
    orders.name = "orders";
    orders.partitions = static_cast<int32_t>(1 + rng_.uniform(3));
    orders.replication_factor = 3;
    orders.config["min.insync.replicas"] = profile_ == "unclean" ? "1" : "2";
    if (profile_ == "unclean") orders.config["unclean.leader.election.enable"] = "true";
    s.topics.push_back(orders);
    partitions_ = orders.partitions;

    const int producers = static_cast<int>(1 + rng_.uniform(2));
    for (int i = 0; i < producers; i++) {
      ProducerSpec p;
      p.name = "producer-" + std::to_string(i + 1);
      p.topic = "orders";
      p.rate_per_sec = pick(rng_, std::vector<double>{20, 100, 300});
      p.keys = pick(rng_, std::vector<std::string>{"none", "seq", "mod:16"});
      p.start = at_ms(2000);
      p.stop = at_ms(kQuietAtMs + 5000);
      p.config["acks"] = profile_ == "acks1" ? "1" : "all";
      p.config["linger.ms"] = pick(rng_, std::vector<std::string>{"0", "5", "20"});
      if (profile_ != "acks1" && rng_.chance(0.5)) p.config["enable.idempotence"] = "true";
      if (txn) {
        // From a stream of its own, so that the draws above stay those of the other profiles.
        p.config["transactional.id"] = "tx-" + std::to_string(i + 1);
        p.transaction_records = pick(txn_rng_, std::vector<int64_t>{5, 20, 40, 100});
        p.abort_every = pick(txn_rng_, std::vector<int64_t>{0, 2, 3, 5});
      }
      s.producers.push_back(p);
    }
    if (txn) {
      // read_committed groups (one or two), and one read_uncommitted group now and then.
      const int groups = static_cast<int>(1 + txn_rng_.uniform(2));
      for (int i = 0; i <= groups; i++) {
        const bool committed = i < groups;
        if (!committed && !txn_rng_.chance(0.5)) break;
        GroupSpec g;
        g.name = committed ? "audit-" + std::to_string(i + 1) : "raw";
        g.topics = {"orders"};
        g.members = static_cast<int32_t>(1 + txn_rng_.uniform(2));
        g.start = at_ms(3000);
        if (committed) g.config["isolation.level"] = "read_committed";
        s.groups.push_back(g);
      }
    }

    brokers_ = s.brokers;
    zk_ = s.zk_servers;
    const int n = static_cast<int>(1 + rng_.uniform(kFaultsMax));
    for (int i = 0; i < n; i++) add_fault(s);
    // Triggered and message faults come from a stream of their own, so that the faults above are
    // the ones every earlier build drew for the seed.
    const int m = static_cast<int>(more_.uniform(kTriggeredFaultsMax + 1));
    for (int i = 0; i < m; i++) add_triggered_or_message_fault(s);
    // Storage faults (issue 17), from a stream of their own too.
    if (profile_ == "safe" || profile_ == "zk-ensemble") add_disk_faults(s);
    // The ensemble's own failures, from a stream of their own too.
    if (profile_ == "zk-ensemble") add_zk_faults(s);
    // The transaction coordinator's messages, from a stream of their own too.
    if (txn) add_txn_faults(s);
    // The quiet phase.
    s.faults.push_back(fault(at_ms(kQuietAtMs), FaultKind::kHeal, {}));
    s.faults.push_back(fault(at_ms(kQuietAtMs), FaultKind::kResume, {"paused"}));
    s.faults.push_back(fault(at_ms(kQuietAtMs), FaultKind::kRestart, {"crashed"}));
    FaultAction calm = fault(at_ms(kQuietAtMs), FaultKind::kLatency, {"all"});
    calm.to = {"all"};
    calm.base = s.latency.base;
    calm.jitter = s.latency.jitter;
    s.faults.push_back(calm);
    std::stable_sort(s.faults.begin(), s.faults.end(), [](const FaultAction& a, const FaultAction& b) { return a.at < b.at; });
    s.length = Duration::millis(kLengthMs);
    s.expect.pass = kSafeChecks;
    if (profile_ == "acks1") s.expect.pass.push_back("acks1-write-lost");
    if (txn)
      for (const char* c : {"read-committed-no-aborted", "txn-atomic", "txn-outcome"}) s.expect.pass.push_back(c);
    s.story = "Generated by gregor swarm, profile " + profile_ + ", seed " + std::to_string(seed_) +
              ": a random cluster, configuration and fault schedule, then a quiet phase (heal, resume, restart "
              "everything) from " + format_duration(Duration::millis(kQuietAtMs)) + " and the end-of-run checks.";
    return s;
  }

 private:
  std::string random_broker() { return "broker-" + std::to_string(1 + rng_.uniform(static_cast<uint64_t>(brokers_))); }
  std::string random_partition() { return "orders-" + std::to_string(rng_.uniform(static_cast<uint64_t>(partitions_))); }
  std::string random_broker_role() {
    switch (rng_.uniform(4)) {
      case 0: return "leader of " + random_partition();
      case 1: return "controller";
      case 2: return "follower of " + random_partition();
      default: return random_broker();
    }
  }
  std::string random_node() {
    if (zk_ > 1 && rng_.chance(0.15)) return "zk-" + std::to_string(1 + rng_.uniform(static_cast<uint64_t>(zk_)));
    return random_broker_role();
  }
  std::string label() { return "f" + std::to_string(++labels_); }
  Time when() { return at_ms(kChaosStartMs + static_cast<int64_t>(rng_.uniform(kChaosEndMs - kChaosStartMs))); }
  Time later(Time t, int64_t min_ms, int64_t max_ms) {
    int64_t ms = t.us / 1000 + min_ms + static_cast<int64_t>(rng_.uniform(static_cast<uint64_t>(max_ms - min_ms + 1)));
    return at_ms(std::min<int64_t>(ms, kQuietAtMs - 500));
  }

  void add_fault(Scenario& s) {
    const bool power = profile_ == "power-loss";
    const uint64_t kind = rng_.uniform(power ? 110 : 100);
    const Time t = when();
    if (kind < 25 || kind >= 100) {
      // crash (or power loss) and restart later
      FaultAction f = fault(t, kind >= 100 ? FaultKind::kPowerLoss : FaultKind::kCrash, {random_broker_role()});
      f.label = label();
      s.faults.push_back(f);
      s.faults.push_back(fault(later(t, 500, 15000), FaultKind::kRestart, {f.label}));
    } else if (kind < 37) {
      FaultAction f = fault(t, FaultKind::kPause, {random_node()});
      f.label = label();
      s.faults.push_back(f);
      s.faults.push_back(fault(later(t, 100, 8000), FaultKind::kResume, {f.label}));
    } else if (kind < 57) {
      // a random split of the servers into two sides; clients stay connected to both
      std::vector<std::string> a, b;
      for (int i = 1; i <= brokers_; i++) (rng_.chance(0.5) ? a : b).push_back("broker-" + std::to_string(i));
      for (int i = 1; i <= zk_; i++) (rng_.chance(0.5) ? a : b).push_back("zk-" + std::to_string(i));
      if (a.empty()) a.push_back(b.back()), b.pop_back();
      if (b.empty()) b.push_back(a.back()), a.pop_back();
      FaultAction f = fault(t, FaultKind::kPartition, {});
      f.groups = {a, b};
      f.one_way = rng_.chance(0.2);
      s.faults.push_back(f);
      FaultAction h = fault(later(t, 500, 15000), FaultKind::kHeal, {});
      h.groups = f.groups;
      h.one_way = f.one_way;
      s.faults.push_back(h);
    } else if (kind < 67) {
      // the leader cut off from everything, or from everything but the clients (a zombie)
      FaultAction f = fault(t, FaultKind::kPartition, {});
      std::vector<std::string> side = {"leader of " + random_partition()};
      if (rng_.chance(0.5)) side.push_back("clients");
      f.groups = {side, {"others"}};
      f.label = label();
      s.faults.push_back(f);
      FaultAction h = fault(later(t, 500, 15000), FaultKind::kHeal, {});
      s.faults.push_back(h);
    } else if (kind < 79) {
      FaultAction f = fault(t, FaultKind::kClog, {random_node()});
      f.to = {random_node()};
      f.duration = Duration::millis(50 + static_cast<int64_t>(rng_.uniform(3000)));
      f.one_way = rng_.chance(0.5);
      s.faults.push_back(f);
    } else if (kind < 87) {
      FaultAction f = fault(t, FaultKind::kLatency, {random_node()});
      f.to = {rng_.chance(0.5) ? std::string("all") : random_node()};
      f.base = Duration::millis(5 + static_cast<int64_t>(rng_.uniform(100)));
      f.jitter = f.base / 2;
      s.faults.push_back(f);
      FaultAction back = f;
      back.at = later(t, 500, 10000);
      back.base = s.latency.base;
      back.jitter = s.latency.jitter;
      s.faults.push_back(back);
    } else if (kind < 95) {
      FaultAction f = fault(t, FaultKind::kShutdown, {random_broker_role()});
      f.label = label();
      s.faults.push_back(f);
      s.faults.push_back(fault(later(t, 3000, 15000), FaultKind::kRestart, {f.label}));
    } else {
      FaultAction f = fault(t, FaultKind::kCrash, {"zk-" + std::to_string(1 + rng_.uniform(static_cast<uint64_t>(zk_)))});
      f.label = label();
      s.faults.push_back(f);
      s.faults.push_back(fault(later(t, 200, 5000), FaultKind::kRestart, {f.label}));
    }
  }

  // Message faults: Kafka APIs whose loss, delay or hold a cluster must survive.
  std::string random_api() {
    static const std::vector<std::string> apis = {"Fetch",        "Fetch",          "Produce",  "Produce",
                                                  "LeaderAndIsr", "UpdateMetadata", "Metadata", "OffsetForLeaderEpoch",
                                                  "ControlledShutdown", "StopReplica"};
    return pick(more_, apis);
  }
  std::string random_target() {
    switch (more_.uniform(4)) {
      case 0: return "leader of orders-" + std::to_string(more_.uniform(static_cast<uint64_t>(partitions_)));
      case 1: return "controller";
      case 2: return "follower of orders-" + std::to_string(more_.uniform(static_cast<uint64_t>(partitions_)));
      default: return "broker-" + std::to_string(1 + more_.uniform(static_cast<uint64_t>(brokers_)));
    }
  }
  EventMatch random_match() {
    EventMatch m;
    const std::string partition = "orders-" + std::to_string(more_.uniform(static_cast<uint64_t>(partitions_)));
    switch (more_.uniform(5)) {
      case 0:
        m.event = "leader_change";
        m.fields = {{"partition", {partition}}};
        break;
      case 1:
        m.event = "isr_change";
        m.fields = {{"partition", {partition}}, {"direction", {more_.chance(0.5) ? "shrink" : "expand"}}};
        break;
      case 2:
        m.event = "become_follower";
        m.fields = {{"partition", {partition}}};
        break;
      case 3:
        m.event = "log_truncate";
        break;
      default:
        m.api = pick(more_, std::vector<std::string>{"LeaderAndIsr", "OffsetForLeaderEpoch", "UpdateMetadata"});
        break;
    }
    return m;
  }

  void add_triggered_or_message_fault(Scenario& s) {
    const Time t = at_ms(kChaosStartMs + static_cast<int64_t>(more_.uniform(kChaosEndMs - 5000 - kChaosStartMs)));
    const uint64_t kind = more_.uniform(100);
    if (kind < 40) {
      // A crash, pause or controlled shutdown when something happens, undone by the same match later.
      Trigger trigger;
      trigger.match = random_match();
      trigger.delay = Duration::millis(static_cast<int64_t>(more_.uniform(2000)));
      const uint64_t action = more_.uniform(3);
      FaultAction f = fault(t, action == 0 ? FaultKind::kCrash : action == 1 ? FaultKind::kPause : FaultKind::kShutdown,
                            {random_target()});
      f.when = trigger;
      f.until = at_ms(kChaosEndMs - 5000);  // nothing fires into the quiet phase
      f.label = label();
      s.faults.push_back(f);
      FaultAction undo = fault(t, action == 1 ? FaultKind::kResume : FaultKind::kRestart, {f.label});
      undo.when = trigger;
      undo.when->delay = trigger.delay + Duration::millis(500 + static_cast<int64_t>(more_.uniform(4500)));
      undo.until = f.until;  // fires at the match that fired f
      s.faults.push_back(undo);
      return;
    }
    // A message fault at a time, or when something happens.
    FaultAction f = fault(t, FaultKind::kIntercept, {});
    Intercept& i = f.intercept;
    // Senders and receivers that the API's messages travel between, or any node.
    i.api = random_api();
    const std::string partition = "orders-" + std::to_string(more_.uniform(static_cast<uint64_t>(partitions_)));
    std::string client = "any", server = "any";
    if (i.api == "Fetch" || i.api == "OffsetForLeaderEpoch") {
      client = more_.chance(0.5) ? "follower of " + partition : "any";
      server = more_.chance(0.7) ? "leader of " + partition : "any";
    } else if (i.api == "Produce") {
      client = more_.chance(0.3) ? "clients" : "any";
      server = more_.chance(0.7) ? "leader of " + partition : "any";
    } else if (i.api == "LeaderAndIsr" || i.api == "UpdateMetadata" || i.api == "StopReplica") {
      client = more_.chance(0.5) ? "controller" : "any";
      server = more_.chance(0.5) ? random_target() : "any";
    } else if (i.api == "ControlledShutdown") {
      server = more_.chance(0.5) ? "controller" : "any";
    }
    i.response = more_.chance(0.3);
    if (i.response) std::swap(client, server);
    if (client != "any") i.from = {client};
    if (server != "any") i.to = {server};
    const uint64_t action = more_.uniform(3);
    i.action = action == 0 ? Intercept::Action::kDrop : action == 1 ? Intercept::Action::kDelay : Intercept::Action::kHold;
    if (i.action == Intercept::Action::kDelay) i.delay = Duration::millis(10 + static_cast<int64_t>(more_.uniform(3000)));
    i.count = static_cast<int64_t>(1 + more_.uniform(5));
    f.until = at_ms(kChaosEndMs - 5000);
    if (kind < 60) {
      f.when = Trigger{};
      f.when->match = random_match();
    }
    s.faults.push_back(f);
    // What is held waits for a heal: of every link a little later (the quiet phase heals anyway).
    if (i.action == Intercept::Action::kHold)
      s.faults.push_back(fault(t + Duration::millis(500 + static_cast<int64_t>(more_.uniform(10000))), FaultKind::kHeal, {}));
  }

  // A full disk or I/O errors on a broker (it takes its log directory offline and halts), its disk
  // healed and the broker restarted later; or the whole cluster stopped cleanly, one bit flipped in
  // one replica's log while it is down, and every broker started again (issue 17's story).
  // One or two of: the zk leader crashes, the ensemble loses its quorum (both followers crash),
  // the zk leader is cut off from its followers (a 2|1 split), a broker is cut off from every zk
  // server; each undone within 15s.
  void add_zk_faults(Scenario& s) {
    const int n = static_cast<int>(1 + zk_rng_.uniform(2));
    for (int i = 0; i < n; i++) {
      const Time t = at_ms(kChaosStartMs + static_cast<int64_t>(zk_rng_.uniform(kChaosEndMs - kChaosStartMs)));
      const Time back = at_ms(std::min<int64_t>(t.us / 1000 + 500 + static_cast<int64_t>(zk_rng_.uniform(14500)), kQuietAtMs - 500));
      FaultAction f;
      switch (zk_rng_.uniform(4)) {
        case 0:
        case 1:
          f = fault(t, FaultKind::kCrash, {zk_rng_.chance(0.5) ? "zk leader" : "zk followers"});
          f.label = label();
          s.faults.push_back(f);
          s.faults.push_back(fault(back, FaultKind::kRestart, {f.label}));
          break;
        case 2:
          f = fault(t, FaultKind::kPartition, {});
          f.groups = {{"zk leader"}, {"zk followers"}};
          s.faults.push_back(f);
          s.faults.push_back(fault(back, FaultKind::kHeal, {}));
          break;
        default:
          f = fault(t, FaultKind::kPartition, {});
          f.groups = {{"broker-" + std::to_string(1 + zk_rng_.uniform(static_cast<uint64_t>(brokers_)))}, {"zookeeper"}};
          s.faults.push_back(f);
          s.faults.push_back(fault(back, FaultKind::kHeal, {}));
          break;
      }
    }
  }

  void add_disk_faults(Scenario& s) {
    const uint64_t kind = disk_.uniform(100);
    if (kind < 40) return;
    if (kind < 80) {
      const Time t = at_ms(kChaosStartMs + static_cast<int64_t>(disk_.uniform(kChaosEndMs - 5000 - kChaosStartMs)));
      std::string target;
      switch (disk_.uniform(3)) {
        case 0: target = "leader of orders-" + std::to_string(disk_.uniform(static_cast<uint64_t>(partitions_))); break;
        case 1: target = "follower of orders-" + std::to_string(disk_.uniform(static_cast<uint64_t>(partitions_))); break;
        default: target = "broker-" + std::to_string(1 + disk_.uniform(static_cast<uint64_t>(brokers_)));
      }
      FaultAction f = fault(t, kind < 60 ? FaultKind::kDiskFull : FaultKind::kIoError, {target});
      if (f.kind == FaultKind::kIoError && disk_.chance(0.5)) f.writes = static_cast<int64_t>(1 + disk_.uniform(5));
      f.label = label();
      s.faults.push_back(f);
      const Time back = t + Duration::millis(1000 + static_cast<int64_t>(disk_.uniform(10000)));
      s.faults.push_back(fault(back, FaultKind::kDiskFree, {f.label}));
      s.faults.push_back(fault(back + Duration::millis(500), FaultKind::kRestart, {f.label}));
      return;
    }
    // Every broker stopped cleanly, one after the other; a bit flips in one replica's first segment
    // while they are down (after the last one's controlled shutdown has run out of retries); then
    // every broker starts again.
    Time t = at_ms(kChaosStartMs + static_cast<int64_t>(disk_.uniform(6000)));
    for (int b = 1; b <= brokers_; b++) {
      s.faults.push_back(fault(t, FaultKind::kShutdown, {"broker-" + std::to_string(b)}));
      t = t + Duration::millis(1500);
    }
    t = t + Duration::millis(17000);
    FaultAction flip = fault(t, FaultKind::kDiskCorrupt, {"broker-" + std::to_string(1 + disk_.uniform(static_cast<uint64_t>(brokers_)))});
    flip.path = "orders-" + std::to_string(disk_.uniform(static_cast<uint64_t>(partitions_))) + "/00000000000000000000.log";
    s.faults.push_back(flip);
    s.faults.push_back(fault(t + Duration::millis(1000), FaultKind::kRestart, {"brokers"}));
  }

  // EndTxn requests that reach the coordinator twice, the copy late (a retry on a new connection
  // overtaking its original: the stale EndTxn of KAFKA-17754), or that are delayed or lost; and the
  // other requests of a transaction delayed or lost. One to three such faults in the chaos window.
  void add_txn_faults(Scenario& s) {
    const int n = static_cast<int>(1 + txn_rng_.uniform(3));
    for (int k = 0; k < n; k++) {
      const Time t = at_ms(kChaosStartMs + static_cast<int64_t>(txn_rng_.uniform(kChaosEndMs - 5000 - kChaosStartMs)));
      FaultAction f = fault(t, FaultKind::kIntercept, {});
      Intercept& i = f.intercept;
      const uint64_t kind = txn_rng_.uniform(100);
      i.api = kind < 60 ? "EndTxn" : pick(txn_rng_, std::vector<std::string>{"AddPartitionsToTxn", "InitProducerId", "WriteTxnMarkers"});
      i.from = {i.api == "WriteTxnMarkers" ? "brokers" : "clients"};
      if (kind < 45) {
        i.action = Intercept::Action::kDuplicate;
        i.delay = Duration::millis(5 + static_cast<int64_t>(txn_rng_.uniform(1000)));
      } else {
        i.action = txn_rng_.chance(0.5) ? Intercept::Action::kDrop : Intercept::Action::kDelay;
        if (i.action == Intercept::Action::kDelay) i.delay = Duration::millis(10 + static_cast<int64_t>(txn_rng_.uniform(3000)));
      }
      i.count = static_cast<int64_t>(1 + txn_rng_.uniform(5));
      f.until = at_ms(kChaosEndMs - 5000);
      s.faults.push_back(f);
    }
  }

  bool transactions() const { return profile_ == "transactions" || profile_ == "transactions-v1"; }

  std::string profile_;
  uint64_t seed_;
  Rng rng_;
  Rng more_{Rng::derive(seed_, "swarm-triggers")};
  Rng disk_{Rng::derive(seed_, "swarm-disk")};
  Rng zk_rng_{Rng::derive(seed_, "swarm-zk")};
  Rng txn_rng_{Rng::derive(seed_, "swarm-txn")};
  int32_t brokers_ = 3, zk_ = 1, partitions_ = 1;
  int labels_ = 0;
};

bool mentions(const FaultAction& f, const std::string& label) {
  auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), label) != v.end(); };
  if (in(f.targets) || in(f.to)) return true;
  for (const auto& g : f.groups)
    if (in(g)) return true;
  return false;
}

// The scenario without fault i, and without the faults that name the nodes it hit.
Scenario without_fault(const Scenario& s, size_t i) {
  Scenario out = s;
  const std::string label = s.faults[i].label;
  out.faults.clear();
  for (size_t j = 0; j < s.faults.size(); j++) {
    if (j == i) continue;
    if (!label.empty() && mentions(s.faults[j], label)) continue;
    out.faults.push_back(s.faults[j]);
  }
  return out;
}

}  // namespace

const std::vector<SwarmProfile>& swarm_profiles() {
  static const std::vector<SwarmProfile> profiles = {
      {"safe", "RF=3, min.insync.replicas=2, acks=all, no unclean election: every checker must hold"},
      {"unclean", "unclean.leader.election.enable=true, min.insync.replicas=1: acknowledged writes get lost"},
      {"hw-truncation", "replication.truncation=high-watermark (before KIP-101): followers truncate acked records"},
      {"power-loss", "the safe profile plus power losses of brokers that never fsync"},
      {"acks1", "producers with acks=1, whose acknowledged writes must survive too"},
      {"zk-ensemble", "the safe profile on a three-server zk ensemble, with zk leader crashes, quorum losses and splits"},
      {"transactions",
       "the safe profile with transactional producers, read_committed groups and faults on the coordinator's messages "
       "(late EndTxn copies among them), on transaction.version 2: every transaction checker must hold"},
      {"transactions-v1",
       "the transactions profile on transaction.version 1 (before KIP-890): a late EndTxn ends the next transaction"},
  };
  return profiles;
}

bool is_swarm_profile(const std::string& name) {
  for (const auto& p : swarm_profiles())
    if (p.name == name) return true;
  return false;
}

Scenario generate_swarm_scenario(const std::string& profile, uint64_t seed) {
  GREGOR_ASSERT_MSG(is_swarm_profile(profile), "unknown swarm profile " + profile);
  Scenario s = Generator(profile, seed).generate();
  Status valid = validate_scenario(s);
  GREGOR_ASSERT_MSG(valid.is_ok(), "generated scenario is invalid: " + valid.to_string());
  return s;
}

SeedOutcome run_seed(const Scenario& s, uint64_t seed) {
  ScenarioRun run(s, seed);
  run.run_to_end();
  SeedOutcome o;
  o.seed = seed;
  o.fingerprint = run.fingerprint();
  o.events = run.sim().events_emitted();
  o.virtual_end = run.now();
  const Verdicts v = run.verdicts();
  o.acked = v.acked;
  o.ok = v.all_hold();
  for (const auto& e : v.expectations) {
    if (e.holds && *e.holds) continue;
    o.broken = e.text;
    for (const auto& c : v.checkers)
      if (e.text.rfind(c.name + " must", 0) == 0) {
        o.checker = c.name;
        if (c.violation) {
          o.message = c.violation->message;
          o.violation_time = c.violation->time;
        }
      }
    if (o.message.empty()) o.message = e.text;
    break;
  }
  return o;
}

ShrinkResult shrink_scenario(const Scenario& failing, uint64_t seed, int max_runs) {
  ShrinkResult r;
  r.faults_before = failing.faults.size();
  r.length_before = failing.length;
  SeedOutcome base = run_seed(failing, seed);
  r.runs = 1;
  r.minimal = failing;
  r.outcome = base;
  if (base.ok) {
    r.faults_after = r.faults_before;
    r.length_after = r.length_before;
    return r;
  }
  r.still_fails = true;
  const std::string target = base.broken;
  Scenario cur = failing;
  auto keeps_failing = [&](const Scenario& cand, SeedOutcome* out) {
    if (r.runs >= max_runs || !validate_scenario(cand).is_ok()) return false;
    SeedOutcome o = run_seed(cand, seed);
    r.runs++;
    if (o.ok || o.broken != target) return false;
    *out = o;
    return true;
  };
  auto try_shorten = [&] {
    // A violation found during the run needs the run only up to it (and a little after, so that
    // the end-of-run checks see the same state).
    if (r.outcome.violation_time.us <= 0) return;
    Duration len = Duration::seconds((r.outcome.violation_time.us + 999'999) / 1'000'000 + 1);
    if (len >= cur.length) return;
    Scenario cand = cur;
    cand.length = len;
    cand.faults.clear();
    for (const auto& f : cur.faults)
      if (f.at <= Time{0} + len) cand.faults.push_back(f);
    SeedOutcome o;
    if (keeps_failing(cand, &o)) {
      cur = cand;
      r.outcome = o;
    }
  };
  try_shorten();
  bool changed = true;
  while (changed && r.runs < max_runs) {
    changed = false;
    for (size_t i = cur.faults.size(); i-- > 0;) {
      if (i >= cur.faults.size()) continue;
      Scenario cand = without_fault(cur, i);
      SeedOutcome o;
      if (keeps_failing(cand, &o)) {
        cur = cand;
        r.outcome = o;
        changed = true;
      }
    }
  }
  try_shorten();
  cur.name = failing.name + "-min";
  cur.story = "Shrunk by gregor swarm from " + failing.name + " (seed " + std::to_string(seed) + "): " +
              std::to_string(r.faults_before) + " faults -> " + std::to_string(cur.faults.size()) + ", " +
              format_duration(r.length_before) + " -> " + format_duration(cur.length) + ", in " + std::to_string(r.runs) +
              " runs. It still breaks: " + target + " (" + r.outcome.message + ").\n\n" + failing.story;
  r.minimal = cur;
  r.faults_after = cur.faults.size();
  r.length_after = cur.length;
  return r;
}

}  // namespace gregor::sim
