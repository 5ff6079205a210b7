#include "sim/scenario/scenario_run.h"

#include <algorithm>

#include "engine/client/consumer_node.h"
#include "engine/client/producer_node.h"
#include "engine/client/transactional_sink.h"
#include "engine/client/zk_group_consumer.h"
#include "sim/scenario/duration.h"
#include "sim/scenario/scenario_checks.h"

namespace gregor::sim {

namespace {

// How often the runner looks whether the cluster is ready for its topics, and they for producers.
constexpr Duration kSetupPoll = Duration::millis(10);
// A controlled `controller: broker-1` start: the others start this much later.
constexpr Duration kControllerHeadStart = Duration::millis(500);

std::string join_names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

const char* checker_state_name(CheckerState s) {
  switch (s) {
    case CheckerState::kPending: return "pending";
    case CheckerState::kPass: return "pass";
    case CheckerState::kFail: return "FAIL";
  }
  return "?";
}

bool Verdicts::all_hold() const {
  for (const auto& e : expectations)
    if (!e.holds || !*e.holds) return false;
  return true;
}

ScenarioRun::ScenarioRun(const Scenario& s, uint64_t seed, RunOptions opts)
    : scenario_(s),
      seed_(seed),
      options_(opts),
      end_(Time{0} + (opts.until ? *opts.until : s.length)),
      timeline_([this](int32_t node) { return name_of(NodeId{node}); }) {
  SimConfig config;
  config.latency = s.latency;
  config.verbose = opts.verbose;
  if (opts.event_limit > 0) config.event_limit = opts.event_limit;
  sim_ = std::make_unique<Simulator>(seed, config);
  add_scenario_checkers(checkers_);
  reported_.assign(checkers_.checkers().size(), false);
  sim_->add_listener([this](const TraceEvent& e) { on_event(e); });

  ClusterSpec spec;
  spec.brokers = s.brokers;
  spec.zk_servers = s.zk_servers;
  spec.broker_config = s.broker_config;
  for (int32_t b = 1; b <= s.brokers; b++) {
    const std::string name = "broker-" + std::to_string(b);
    Duration delay{0};
    if (!s.controller.empty() && s.controller != name) delay = kControllerHeadStart;
    if (auto it = s.broker_start.find(name); it != s.broker_start.end()) delay = it->second - Time{0};
    if (delay.us > 0) spec.broker_start_delay[b] = delay;
  }
  cluster_ = std::make_unique<Cluster>(*sim_, spec);
  for (NodeId b : cluster_->broker_ids()) names_[sim_->node_name(b)] = b;
  for (NodeId z : cluster_->zk_ids()) names_[sim_->node_name(z)] = z;

  // Clients: producers first, then group members, from node 2001 on.
  std::vector<NodeId> bootstrap = cluster_->broker_ids();
  int32_t next_id = kFirstClientNodeId;
  for (const auto& p : s.producers) {
    client::ProducerConfig pc;
    Status ok = pc.apply(p.config);
    GREGOR_ASSERT_MSG(ok.is_ok(), ok.to_string());
    pc.client_id = p.name;
    pc.bootstrap_servers = bootstrap;
    client::ProducerWorkload w;
    w.topic = p.topic;
    w.rate_per_sec = p.rate_per_sec;
    w.value_bytes = p.value_bytes;
    w.key_pattern = p.keys;
    w.max_records = p.records;
    w.start_at = p.start;
    w.stop_at = p.stop;
    w.transaction_records = p.transaction_records;
    w.abort_every = p.abort_every;
    const NodeId id{next_id++};
    producer_configs_[id] = pc;
    sim_->add_node(
        id, p.name, [this, id, w](Runtime& rt) { return std::make_unique<client::ProducerNode>(rt, producer_configs_.at(id), w); },
        false);
    names_[p.name] = id;
    client_ids_.push_back(id);
  }
  // Consumer groups: members <group>-1.. run engine/client's consumer with the group's delivery
  // mode. Exactly-once groups write through one transactional sink node ("sink", after the members),
  // which stores their output and offsets atomically (engine/client/transactional_sink.h).
  bool need_sink = false;
  for (const auto& g : s.groups) need_sink |= g.delivery == DeliveryMode::kExactlyOnce;
  const NodeId sink_id{kFirstClientNodeId + 900};
  std::vector<std::pair<std::string, std::vector<NodeId>>> group_members;
  for (const auto& g : s.groups) {
    ConfigMap settings = group_consumer_config(g);
    std::vector<NodeId> members;
    for (int32_t m = 1; m <= g.members; m++) {
      client::ConsumerConfig cc;
      settings["client.id"] = g.name + "-" + std::to_string(m);
      Status ok = cc.apply(client::without_zk_consumer_keys(settings));
      GREGOR_ASSERT_MSG(ok.is_ok(), ok.to_string());
      cc.bootstrap_servers = bootstrap;
      client::ConsumerWorkload w;
      w.topics = g.topics;
      w.mode = g.delivery;
      w.processing_time = Duration::millis(5);
      w.poll_idle = Duration::millis(20);
      w.start_at = g.start;
      if (w.mode == client::DeliveryMode::kExactlyOnce) w.sink = sink_id;
      if (w.mode == client::DeliveryMode::kExactlyOnceTxn) {
        // Each member's own transactional producer (Kafka Streams' exactly_once_v2: one per
        // member, its transactional.id stable across restarts so a new instance fences the old).
        ConfigMap producer_settings = g.producer_config;
        producer_settings["transactional.id"] =
            (g.transactional_id_prefix.empty() ? g.name : g.transactional_id_prefix) + "-" + std::to_string(m);
        producer_settings["enable.idempotence"] = "true";
        producer_settings["acks"] = "all";
        Status produced = w.producer.apply(producer_settings);
        GREGOR_ASSERT_MSG(produced.is_ok(), produced.to_string());
        w.producer.client_id = cc.client_id + "-producer";
        w.producer.bootstrap_servers = bootstrap;
        w.output_topic = g.output;
      }
      const NodeId id{next_id++};
      if (g.zookeeper) {
        // Kafka 0.8's consumer: the group lives in zk (engine/client/zk_group_consumer.h).
        client::ZkConsumerSettings zs;
        Status zok = zs.apply(settings);
        GREGOR_ASSERT_MSG(zok.is_ok(), zok.to_string());
        coord::ZkClientConfig zc;
        zc.servers = cluster_->zk_ids();
        sim_->add_node(id, cc.client_id, [cc, zs, zc, w](Runtime& rt) { return std::make_unique<client::ZkGroupConsumerNode>(rt, cc, zs, zc, w); },
                       false);
      } else {
        sim_->add_node(id, cc.client_id, [cc, w](Runtime& rt) { return std::make_unique<client::ConsumerNode>(rt, cc, w); }, false);
      }
      names_[cc.client_id] = id;
      client_ids_.push_back(id);
      members.push_back(id);
    }
    group_members.emplace_back(g.name, std::move(members));
  }
  if (need_sink) {
    sim_->add_node(sink_id, "sink", [](Runtime& rt) { return std::make_unique<client::TransactionalSinkNode>(rt); }, false);
    names_["sink"] = sink_id;
    client_ids_.push_back(sink_id);
  }
  std::vector<std::string> topic_names;
  for (const auto& t : s.topics) topic_names.push_back(t.name);
  std::vector<AvailabilityMonitor::Producer> watched;
  for (const auto& p : s.producers) watched.push_back({names_.at(p.name).value, p.topic, p.start, p.stop, p.records});
  availability_ = std::make_unique<AvailabilityMonitor>(std::move(topic_names), std::move(watched));
  resolver_ = std::make_unique<TargetResolver>(*sim_, *cluster_, checkers_.model(), names_);
  for (auto& [group, members] : group_members) {
    resolver_->set_label(group, members);
    labels_.insert(group);
  }

  trigger_left_.assign(scenario_.faults.size(), 0);
  bool messages = false;
  for (size_t i = 0; i < scenario_.faults.size(); i++) {
    const FaultAction& f = scenario_.faults[i];
    messages |= f.kind == FaultKind::kIntercept || (f.when && f.when->match.event.empty());
    if (f.when)
      sim_->loop().schedule(f.at, [this, i] { arm(i); });
    else
      sim_->loop().schedule(f.at, [this, i] { fire(scenario_.faults[i]); });
  }
  // Installed before anything is sent, so that responses find the requests they answer.
  if (messages) message_faults();
  sim_->loop().schedule(Time{0} + kSetupPoll, [this] { setup_tick(); });
}

ScenarioRun::~ScenarioRun() {
  // Nodes destroyed with the simulator may still send: not through message faults that are gone.
  if (sim_) sim_->set_frame_interceptor(nullptr);
}

std::string ScenarioRun::name_of(NodeId id) const {
  if (id.value == 0) return "world";
  if (sim_->has_node(id)) return sim_->node_name(id);
  return "node-" + std::to_string(id.value);
}

std::optional<NodeId> ScenarioRun::node_named(const std::string& name) const {
  auto it = names_.find(name);
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

MessageFaults& ScenarioRun::message_faults() {
  if (!message_faults_) {
    std::set<int32_t> brokers;
    for (NodeId b : cluster_->broker_ids()) brokers.insert(b.value);
    message_faults_ = std::make_unique<MessageFaults>(
        std::move(brokers), [this](ev::MessageIntercept m) { sim_->emit(Simulator::kWorld, std::move(m)); },
        [this] { return sim_->now(); });
    sim_->set_frame_interceptor(message_faults_.get());
  }
  return *message_faults_;
}

MessageFaults::Selector ScenarioRun::selector(const std::string& api, bool response, const std::vector<std::string>* from,
                                              const std::vector<std::string>* to) const {
  MessageFaults::Selector s;
  auto key = api_key_named(api);
  GREGOR_ASSERT_MSG(key.has_value(), "an API the reader checked: " + api);
  s.api = *key;
  s.response = response;
  auto ids = [this](const std::vector<std::string>& targets) {
    std::set<int32_t> out;
    for (NodeId n : resolve_list(targets)) out.insert(n.value);
    return out;
  };
  if (from && !from->empty()) s.from = ids(*from);
  if (to && !to->empty()) s.to = ids(*to);
  return s;
}

void ScenarioRun::arm(size_t i) {
  const FaultAction& f = scenario_.faults[i];
  GREGOR_ASSERT(f.when.has_value());
  trigger_left_[i] = f.when->count;
  const EventMatch& m = f.when->match;
  if (m.event.empty()) {
    const std::vector<std::string>* from = nullptr;
    const std::vector<std::string>* to = nullptr;
    for (const auto& [k, v] : m.fields) (k == "from" ? from : to) = &v;
    message_faults().add_watch(selector(m.api, m.response, from, to), [this, i] { triggered(i); });
    return;
  }
  auto matcher = EventMatcher::compile(m, [this](const std::string& name) { return node_named(name); });
  if (!matcher) {
    timeline_.add(sim_->now(), "fault", "trigger ignored (" + f.describe() + "): " + matcher.status().message());
    return;
  }
  event_triggers_.push_back(ArmedTrigger{i, std::move(*matcher)});
}

// A match of fault i's trigger: it fires after its delay, in an event of its own, so that the
// node whose event or message matched finishes what it was doing first (at the same virtual time
// when there is no delay).
void ScenarioRun::triggered(size_t i) {
  if (trigger_left_[i] <= 0) return;
  if (scenario_.faults[i].until && sim_->now() > *scenario_.faults[i].until) return;
  trigger_left_[i]--;
  sim_->loop().schedule_after(scenario_.faults[i].when->delay, [this, i] { fire(scenario_.faults[i]); });
}

void ScenarioRun::on_event(const TraceEvent& e) {
  checkers_.on_event(e);
  if (availability_) availability_->on_event(e);  // made once the clients are known
  for (size_t t = 0; t < event_triggers_.size(); t++)
    if (trigger_left_[event_triggers_[t].fault] > 0 && event_triggers_[t].matcher.matches(e)) triggered(event_triggers_[t].fault);
  if (const auto* a = e.as<ev::ProduceAck>()) acked_ += std::max<int64_t>(1, a->count);
  timeline_.on_event(e);
  const auto& cs = checkers_.checkers();
  for (size_t i = 0; i < cs.size(); i++)
    if (!reported_[i] && cs[i]->violation()) {
      reported_[i] = true;
      timeline_.add(cs[i]->violation()->time, "violation", "VIOLATION " + std::string(cs[i]->name()) + ": " + cs[i]->violation()->message);
    }
}

void ScenarioRun::setup_tick() {
  if (!topics_requested_) {
    if (cluster_->ready()) create_topics();
  } else if (!topics_ready_) {
    bool ready = true;
    for (const auto& t : scenario_.topics)
      if (!cluster_->topic_ready(t.name, t.partitions)) ready = false;
    if (ready) {
      topics_ready_ = true;
      std::vector<std::string> what;
      for (const auto& t : scenario_.topics) what.push_back(t.name);
      sim_->emit(Simulator::kWorld,
                 ev::ScenarioReady{.what = scenario_.topics.empty() ? std::string("cluster ready")
                                                                    : "topics ready: " + join_names(what)});
      start_clients();
      return;
    }
  }
  if (sim_->now() + kSetupPoll <= end_) sim_->loop().schedule_after(kSetupPoll, [this] { setup_tick(); });
}

void ScenarioRun::create_topics() {
  auto c = cluster_->controller();
  if (!c) return;
  broker::Broker* b = cluster_->broker(*c);
  topics_requested_ = true;
  for (const auto& t : scenario_.topics) {
    auto done = [this, name = t.name](protocol::ErrorCode err, std::string message) {
      if (err != protocol::ErrorCode::NONE)
        timeline_.add(sim_->now(), "setup", "topic " + name + " could not be created: " + protocol::error_name(err) + " " + message);
    };
    if (!t.replica_assignment.empty())
      b->create_topic_with_assignment(t.name, t.replica_assignment, t.config, done);
    else
      b->create_topic(t.name, t.partitions, t.replication_factor, t.config, done);
  }
}

void ScenarioRun::start_clients() {
  for (NodeId id : client_ids_)
    if (sim_->state(id) == NodeState::kCrashed && sim_->incarnation(id) == 0) sim_->start(id);
}

std::vector<NodeId> ScenarioRun::resolve_list(const std::vector<std::string>& targets, const std::set<NodeId>& exclude) const {
  std::set<std::string> names;
  for (const auto& [n, id] : names_) names.insert(n);
  const std::map<std::string, int32_t> partitions = target_partitions(scenario_.topics, scenario_.broker_config);
  std::vector<NodeId> out;
  for (const auto& text : targets) {
    auto spec = parse_target(text, names, labels_, partitions);
    if (!spec) continue;  // checked before firing
    for (NodeId id : resolver_->resolve(*spec, exclude))
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  return out;
}

Status ScenarioRun::check_targets(const FaultAction& a) const {
  std::set<std::string> names;
  for (const auto& [n, id] : names_) names.insert(n);
  const std::map<std::string, int32_t> partitions = target_partitions(scenario_.topics, scenario_.broker_config);
  auto check = [&](const std::string& t) -> Status {
    auto spec = parse_target(t, names, labels_, partitions);
    return spec ? Status::ok() : spec.status();
  };
  for (const auto& t : a.targets) GREGOR_RETURN_IF_ERROR(check(t));
  for (const auto& t : a.to) GREGOR_RETURN_IF_ERROR(check(t));
  for (const auto& t : a.intercept.from) GREGOR_RETURN_IF_ERROR(check(t));
  for (const auto& t : a.intercept.to) GREGOR_RETURN_IF_ERROR(check(t));
  if (a.kind == FaultKind::kIntercept && !api_key_named(a.intercept.api))
    return Status::error(StatusCode::kInvalidArgument, "no Kafka API '" + a.intercept.api + "'");
  for (const auto& g : a.groups)
    for (const auto& t : g) GREGOR_RETURN_IF_ERROR(check(t));
  return Status::ok();
}

ScenarioRun::Hit ScenarioRun::resolve(const FaultAction& a) const {
  Hit hit;
  if (a.kind == FaultKind::kIntercept) {
    hit.nodes = resolve_list(a.intercept.from);
    hit.to = resolve_list(a.intercept.to);
    return hit;
  }
  if (a.groups.empty()) {
    hit.nodes = resolve_list(a.targets);
    hit.to = resolve_list(a.to);
    return hit;
  }
  // "others" means every node named in no other group, so it resolves last.
  std::set<NodeId> named;
  std::vector<size_t> others_at;
  for (size_t i = 0; i < a.groups.size(); i++) {
    if (a.groups[i].size() == 1 && a.groups[i][0] == "others") {
      others_at.push_back(i);
      hit.sides.emplace_back();
      continue;
    }
    hit.sides.push_back(resolve_list(a.groups[i]));
    for (NodeId n : hit.sides.back()) named.insert(n);
  }
  for (size_t i : others_at) hit.sides[i] = resolve_list({"others"}, named);
  for (const auto& side : hit.sides)
    for (NodeId n : side)
      if (std::find(hit.nodes.begin(), hit.nodes.end(), n) == hit.nodes.end()) hit.nodes.push_back(n);
  return hit;
}

// "[broker-1] | [broker-2, zk-1]", "broker-2 -> broker-3", "through broker-1": what a fault hit.
std::string ScenarioRun::describe_hit(FaultAction& a, const Hit& hit) {
  auto names = [this](const std::vector<NodeId>& ids) {
    std::vector<std::string> out;
    for (NodeId n : ids) out.push_back(name_of(n));
    return out;
  };
  std::string text;
  a.resolved.clear();
  // `heal: all` names no nodes: it lifts every cut, which its own text says.
  if (a.kind == FaultKind::kHeal && a.groups.empty()) return a.describe();
  if (a.kind == FaultKind::kIntercept) {
    // "[broker-2] -> [broker-1]", "any -> [broker-1]": the senders and receivers it watches.
    auto side = [&](const std::vector<std::string>& spec, const std::vector<NodeId>& ids) {
      return spec.empty() ? std::string("any") : "[" + join_names(names(ids)) + "]";
    };
    a.resolved = names(hit.nodes);
    for (const auto& n : names(hit.to)) a.resolved.push_back(n);
    return side(a.intercept.from, hit.nodes) + " -> " + side(a.intercept.to, hit.to);
  }
  if (!hit.sides.empty()) {
    for (size_t i = 0; i < hit.sides.size(); i++) text += (i ? " | [" : "[") + join_names(names(hit.sides[i])) + "]";
  } else {
    a.resolved = names(hit.nodes);
    text = join_names(a.resolved);
    if (a.kind == FaultKind::kSetConfig && !a.topics.empty()) {
      auto via = config_broker();
      text = via ? "through " + name_of(*via) : "no running broker";
    }
    if (!hit.to.empty()) text += " -> " + join_names(names(hit.to));
  }
  for (NodeId n : hit.nodes)
    if (std::find(a.resolved.begin(), a.resolved.end(), name_of(n)) == a.resolved.end()) a.resolved.push_back(name_of(n));
  return text;
}

Status ScenarioRun::resolve_and_apply(FaultAction& a) {
  GREGOR_RETURN_IF_ERROR(check_targets(a));  // a bad action changes nothing
  const Hit hit = resolve(a);
  if (a.kind == FaultKind::kSetConfig) GREGOR_RETURN_IF_ERROR(check_set_config(a, hit.nodes));
  const std::string hit_text = describe_hit(a, hit);
  if (!a.label.empty()) {
    resolver_->set_label(a.label, hit.nodes);
    labels_.insert(a.label);
  }
  a.at = sim_->now();
  applied_.push_back(a);
  sim_->emit(Simulator::kWorld, ev::ScenarioFault{.fault = a.describe(), .hit = hit_text});
  apply(a, hit);
  return Status::ok();
}

void ScenarioRun::apply(const FaultAction& a, const Hit& hit) {
  switch (a.kind) {
    case FaultKind::kCrash:
      for (NodeId n : hit.nodes) sim_->crash(n);
      return;
    case FaultKind::kRestart:
      for (NodeId n : hit.nodes) sim_->restart(n);
      return;
    case FaultKind::kPowerLoss:
      for (NodeId n : hit.nodes) sim_->power_loss(n);
      return;
    case FaultKind::kPause:
      for (NodeId n : hit.nodes) sim_->pause(n);
      return;
    case FaultKind::kResume:
      for (NodeId n : hit.nodes) sim_->resume(n);
      return;
    case FaultKind::kShutdown:
      for (NodeId n : hit.nodes)
        if (n.value >= 1 && n.value <= scenario_.brokers) cluster_->shutdown_broker(n.value);
      return;
    case FaultKind::kIsolate:
      for (NodeId n : hit.nodes) sim_->isolate(n);
      return;
    case FaultKind::kDiskCorrupt:
      for (NodeId n : hit.nodes) sim_->corrupt_disk(n, a.path);
      return;
    case FaultKind::kDiskFull:
      for (NodeId n : hit.nodes)
        sim_->fill_disk(n, a.capacity ? std::optional<uint64_t>(static_cast<uint64_t>(*a.capacity)) : std::nullopt);
      return;
    case FaultKind::kIoError:
      for (NodeId n : hit.nodes) sim_->fail_disk_writes(n, a.writes);
      return;
    case FaultKind::kDiskFree:
      for (NodeId n : hit.nodes) sim_->free_disk(n);
      return;
    case FaultKind::kSetConfig: return set_config(a, hit.nodes);
    case FaultKind::kReassign: return reassign(a, hit.nodes);
    case FaultKind::kPartition:
    case FaultKind::kHeal: return apply_cut(a, hit);
    case FaultKind::kClog:
      for (NodeId f : hit.nodes)
        for (NodeId t : hit.to) {
          if (f == t) continue;
          sim_->clog(f, t, a.duration);
          if (!a.one_way) sim_->clog(t, f, a.duration);
        }
      return;
    case FaultKind::kLatency: return apply_latency(a, hit);
    case FaultKind::kIntercept: {
      MessageFaults::Selector sel = selector(a.intercept.api, a.intercept.response, nullptr, nullptr);
      auto ids = [](const std::vector<NodeId>& v) {
        std::set<int32_t> out;
        for (NodeId n : v) out.insert(n.value);
        return out;
      };
      if (!a.intercept.from.empty()) sel.from = ids(hit.nodes);
      if (!a.intercept.to.empty()) sel.to = ids(hit.to);
      message_faults().add_rule(std::move(sel), a.intercept.action, a.intercept.delay, a.intercept.count,
                                a.until.value_or(Time{INT64_MAX}));
      return;
    }
  }
}

void ScenarioRun::apply_cut(const FaultAction& a, const Hit& hit) {
  if (a.kind == FaultKind::kHeal && hit.sides.empty()) return sim_->heal_all();
  for (size_t i = 0; i < hit.sides.size(); i++)
    for (size_t j = i + 1; j < hit.sides.size(); j++) {
      std::set<NodeId> from(hit.sides[i].begin(), hit.sides[i].end()), other(hit.sides[j].begin(), hit.sides[j].end());
      if (from.empty() || other.empty()) continue;
      if (a.kind == FaultKind::kPartition)
        sim_->partition(from, other, !a.one_way);
      else
        sim_->heal(from, other, !a.one_way);
    }
}

void ScenarioRun::apply_latency(const FaultAction& a, const Hit& hit) {
  const bool everywhere = a.targets == std::vector<std::string>{"all"} && a.to == std::vector<std::string>{"all"};
  const LinkLatency l{a.base, a.jitter};
  if (everywhere) return sim_->set_latency(Simulator::kWorld, Simulator::kWorld, l);
  for (NodeId f : hit.nodes)
    for (NodeId t : hit.to)
      if (f != t) sim_->set_latency(f, t, l);
}

void ScenarioRun::fire(FaultAction a) {
  Status s = resolve_and_apply(a);
  if (!s.is_ok()) timeline_.add(sim_->now(), "fault", "fault ignored (" + a.describe() + "): " + s.message());
}

Status ScenarioRun::check_set_config(const FaultAction& a, const std::vector<NodeId>& hit) const {
  if (a.config.empty()) return Status::error(StatusCode::kInvalidArgument, "set-config: nothing to set");
  if (a.topics.empty() == a.targets.empty())
    return Status::error(StatusCode::kInvalidArgument, "set-config: name topics or producers (not both)");
  for (const auto& t : a.topics) {
    if (std::none_of(scenario_.topics.begin(), scenario_.topics.end(), [&](const TopicSpec& s) { return s.name == t; }))
      return Status::error(StatusCode::kInvalidArgument, "set-config: no topic '" + t + "' in this scenario");
  }
  if (!a.topics.empty()) {
    broker::TopicConfig check;
    return check.apply(a.config);
  }
  if (hit.empty()) return Status::error(StatusCode::kInvalidArgument, "set-config: no producer");
  for (NodeId n : hit) {
    auto it = producer_configs_.find(n);
    if (it == producer_configs_.end())
      return Status::error(StatusCode::kInvalidArgument, "set-config: " + name_of(n) + " is not a producer");
    auto next = client::Producer::reconfigured(it->second, a.config);
    if (!next) return Status::error(StatusCode::kInvalidArgument, "set-config " + name_of(n) + ": " + next.status().message());
  }
  return Status::ok();
}

std::optional<NodeId> ScenarioRun::config_broker() {
  if (auto c = cluster_->controller(); c && sim_->state(NodeId{*c}) == NodeState::kRunning) return NodeId{*c};
  for (NodeId b : cluster_->broker_ids())
    if (sim_->state(b) == NodeState::kRunning) return b;
  return std::nullopt;
}

void ScenarioRun::set_config(const FaultAction& a, const std::vector<NodeId>& hit) {
  if (a.topics.empty()) {
    // Producers: the running one changes now (Producer::reconfigure), a restarted one starts so.
    for (NodeId n : hit) {
      auto next = client::Producer::reconfigured(producer_configs_.at(n), a.config);
      GREGOR_ASSERT_MSG(next.is_ok(), next.status().to_string());  // checked by check_set_config
      producer_configs_[n] = std::move(*next);
      if (sim_->state(n) == NodeState::kCrashed) continue;
      if (auto* p = sim_->node_as<client::ProducerNode>(n)) {
        Status r = p->producer().reconfigure(a.config);
        if (!r.is_ok()) timeline_.add(sim_->now(), "fault", "set-config " + name_of(n) + ": " + r.message());
      }
    }
    return;
  }
  // Topics: as kafka-configs --alter does, through a broker (the controller if it runs), which
  // writes /config/topics/T and a /config/changes notification; every broker then applies it.
  const std::optional<NodeId> via = config_broker();
  if (!via) {
    timeline_.add(sim_->now(), "fault", "set-config " + a.describe() + ": no running broker to take the change");
    return;
  }
  broker::Broker* b = cluster_->broker(via->value);
  std::map<std::string, std::optional<std::string>> changes;
  for (const auto& [k, v] : a.config) changes[k] = v;
  for (const auto& topic : a.topics) {
    b->alter_topic_config(topic, changes, [this, topic, via](protocol::ErrorCode code, std::string msg) {
      if (code == protocol::ErrorCode::NONE) return;
      timeline_.add(sim_->now(), "fault",
                    "set-config " + topic + " via " + name_of(*via) + " failed: " + protocol::error_name(code) + " " + msg);
    });
  }
}

void ScenarioRun::reassign(const FaultAction& a, const std::vector<NodeId>& hit) {
  const std::string what = "reassign " + a.partition;
  const auto dash = a.partition.rfind('-');
  const TopicPartition tp{a.partition.substr(0, dash), static_cast<int32_t>(std::strtol(a.partition.c_str() + dash + 1, nullptr, 10))};
  std::vector<int32_t> replicas;
  for (NodeId n : hit) {
    if (!cluster_->broker(n.value)) {
      timeline_.add(sim_->now(), "fault", what + ": " + name_of(n) + " is not a broker");
      return;
    }
    replicas.push_back(n.value);
  }
  const std::optional<int32_t> controller = cluster_->controller();
  broker::Broker* b = controller ? cluster_->broker(*controller) : nullptr;
  if (!b || !b->controller().is_active()) {
    timeline_.add(sim_->now(), "fault", what + ": no active controller to take it");
    return;
  }
  broker::Controller::ReassignmentTargets targets;
  targets[tp] = replicas;
  b->controller().alter_partition_reassignments(
      std::move(targets), [this, what](protocol::ErrorCode code, broker::Controller::PartitionResults results) {
        if (code != protocol::ErrorCode::NONE)
          timeline_.add(sim_->now(), "fault", what + " failed: " + protocol::error_name(code));
        for (const auto& [moved, r] : results)
          if (r.error != protocol::ErrorCode::NONE)
            timeline_.add(sim_->now(), "fault", what + " failed: " + protocol::error_name(r.error) + " " + r.message);
      });
}

void ScenarioRun::apply(const FaultAction& a) { (void)try_apply(a); }

Status ScenarioRun::try_apply(const FaultAction& a) {
  FaultAction copy = a;
  Status s = resolve_and_apply(copy);
  if (!s.is_ok()) timeline_.add(sim_->now(), "fault", "action ignored (" + a.describe() + "): " + s.message());
  return s;
}

Scenario ScenarioRun::recorded_scenario() const {
  Scenario out = scenario_;
  out.faults.clear();
  for (const auto& a : applied_) out.faults.push_back(a.concrete());
  out.file.clear();
  return out;
}

void ScenarioRun::run_until(Time t) {
  if (finished_) return;
  const Time target = std::min(t, end_);
  RunOutcome o = sim_->run_until(target);
  if (o == RunOutcome::kEventLimitHit) {
    event_limit_hit_ = true;
    timeline_.add(sim_->now(), "violation", "the run hit the simulator's event limit: a livelock or a timer storm");
    finish();
    return;
  }
  if (sim_->now() >= end_) finish();
}

void ScenarioRun::finish() {
  if (finished_) return;
  finished_ = true;
  checkers_.finish(sim_->now());
  timeline_.flush();
  const auto& cs = checkers_.checkers();
  for (size_t i = 0; i < cs.size(); i++)
    if (!reported_[i] && cs[i]->violation()) {
      reported_[i] = true;
      timeline_.add(cs[i]->violation()->time, "violation",
                    "VIOLATION " + std::string(cs[i]->name()) + " (end of run): " + cs[i]->violation()->message);
    }
}

Verdicts ScenarioRun::verdicts() const {
  Verdicts v;
  v.finished = finished_;
  v.acked = acked_;
  std::map<std::string, CheckerState> state;
  for (const auto& c : checkers_.checkers()) {
    CheckerVerdict cv;
    cv.name = c->name();
    cv.description = c->description();
    cv.violation = c->violation();
    cv.state = cv.violation ? CheckerState::kFail : (finished_ && !event_limit_hit_ ? CheckerState::kPass : CheckerState::kPending);
    state[cv.name] = cv.state;
    v.checkers.push_back(std::move(cv));
  }
  const Expectations& e = scenario_.expect;
  std::vector<std::string> pass = e.pass;
  if (e.pass_all)
    for (const auto& c : checkers_.checkers())
      if (std::find(e.fail.begin(), e.fail.end(), c->name()) == e.fail.end() &&
          std::find(pass.begin(), pass.end(), c->name()) == pass.end())
        pass.push_back(c->name());
  auto decided = [&](const std::string& name, CheckerState want) -> std::optional<bool> {
    auto it = state.find(name);
    if (it == state.end()) return false;  // a checker this build does not have
    if (it->second == CheckerState::kPending) return std::nullopt;
    return it->second == want;
  };
  for (const auto& name : pass) v.expectations.push_back({name + " must pass", decided(name, CheckerState::kPass)});
  for (const auto& name : e.fail)
    v.expectations.push_back({name + " must find a violation", state.count(name) && state[name] == CheckerState::kFail
                                                                    ? std::optional<bool>(true)
                                                                    : (finished_ ? std::optional<bool>(false) : std::nullopt)});
  if (e.min_acked > 0)
    v.expectations.push_back({"at least " + std::to_string(e.min_acked) + " records acknowledged",
                              acked_ >= e.min_acked ? std::optional<bool>(true)
                                                    : (finished_ ? std::optional<bool>(false) : std::nullopt)});
  v.availability = availability_->figures(sim_->now());
  auto bounds = [&](const std::vector<AvailabilityBound>& list, const char* what, Duration AvailabilityFigures::*field) {
    for (const auto& b : list) {
      Duration worst{0};
      std::string where;
      for (const auto& [topic, f] : v.availability) {
        if (!b.topic.empty() && topic != b.topic) continue;
        if (f.*field >= worst) worst = f.*field, where = topic;
      }
      const std::string text = std::string(what) + (b.topic.empty() ? " (any topic)" : " of " + b.topic) + " at most " +
                               format_duration(b.at_most) + ": " + format_duration(worst) +
                               (b.topic.empty() && !where.empty() ? " (" + where + ")" : "");
      // Exceeded is decided at once; within the bound only at the end.
      std::optional<bool> holds;
      if (worst > b.at_most) holds = false;
      else if (finished_) holds = true;
      v.expectations.push_back({text, holds});
    }
  };
  bounds(e.max_unavailable, "longest time without an acknowledgement", &AvailabilityFigures::unavailable_max);
  bounds(e.max_leaderless, "longest time a partition had no leader", &AvailabilityFigures::leaderless_max);
  bounds(e.max_under_replicated, "longest time a partition was under-replicated", &AvailabilityFigures::under_replicated_max);
  if (event_limit_hit_) v.expectations.push_back({"the run completes within the event limit", false});
  return v;
}

}  // namespace gregor::sim
