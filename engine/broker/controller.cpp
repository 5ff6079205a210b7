#include "engine/broker/controller.h"

#include <algorithm>
#include <cstdlib>

#include "engine/broker/async_steps.h"
#include "engine/core/json.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/protocol/leader_and_isr.h"
#include "engine/protocol/stop_replica.h"
#include "engine/protocol/update_metadata.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;
using coord::ZkOp;

namespace {
bool contains(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// A partition's state as LeaderAndIsr and UpdateMetadata carry it.
template <typename PartitionState>
PartitionState partition_state(const TopicPartition& tp, const ControllerPartition& p) {
  PartitionState ps;
  ps.partition_index = tp.partition;
  ps.controller_epoch = p.state.controller_epoch;
  ps.leader = p.state.leader;
  ps.leader_epoch = p.state.leader_epoch;
  ps.isr = p.state.isr;
  ps.zk_version = p.zk_version;
  ps.replicas = p.replicas;
  return ps;
}

// What every state the controller writes must satisfy: a leader is in the ISR, the ISR is within
// the replicas, and the leader epoch only rises (Partition::make_leader checks them again when a
// broker takes the state). A stale controller's epoch is not asserted: zk fences its write.
void check_state_change(const ControllerPartition& p, const LeaderIsrState& next) {
  GREGOR_ASSERT_MSG(next.leader < 0 || contains(next.isr, next.leader), "a leader outside its ISR: " + int_list(next.isr));
  for (int32_t r : next.isr)
    GREGOR_ASSERT_MSG(contains(p.replicas, r), "ISR member " + std::to_string(r) + " is not a replica");
  GREGOR_ASSERT_MSG(p.zk_version < 0 || next.leader_epoch > p.state.leader_epoch, "a leader epoch that does not rise");
}
}  // namespace

Controller::Controller(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk, protocol::NetworkClient& net)
    : rt_(rt),
      config_(config),
      raw_zk_(zk),
      queue_(rt),
      zk_(zk, queue_),
      channel_(rt, net, Duration::millis(config.controller_socket_timeout_ms)),
      propagation_waits_(rt) {}

Controller::~Controller() = default;

// ---------------------------------------------------------------------------------------------
// Becoming (and ceasing to be) the controller.

void Controller::elect() {
  if (active_ || electing_) return;
  electing_ = true;
  // Between terms: these answers go straight to the controller, not through the queue's guard.
  const std::string path = zk_paths::controller_epoch();
  raw_zk_.get_data(path, false, [this, path](ZkError err, Bytes data, coord::Stat stat) {
    if (err == ZkError::kNoNode) {
      // The first election of a cluster: Kafka's maybeCreateControllerEpochZNode writes epoch 0.
      raw_zk_.create(path, to_bytes("0"), CreateMode::kPersistent, [this](ZkError e2, std::string) {
        if (e2 == ZkError::kOk) return try_become_controller(0, 0);
        electing_ = false;
        if (e2 == ZkError::kNodeExists) return elect();  // someone else wrote it first: read it
        retry_elect_later();
      });
      return;
    }
    if (err != ZkError::kOk) {
      electing_ = false;
      return retry_elect_later();
    }
    const int32_t epoch = static_cast<int32_t>(std::strtol(to_string(as_view(data)).c_str(), nullptr, 10));
    try_become_controller(epoch, stat.version);
  });
}

void Controller::try_become_controller(int32_t epoch, int32_t epoch_zk_version) {
  const int32_t new_epoch = epoch + 1;
  std::vector<ZkOp> ops{
      ZkOp::create(zk_paths::controller(), encode_controller(config_.broker_id, rt_.wall_time_ms()), CreateMode::kEphemeral),
      ZkOp::set_data(zk_paths::controller_epoch(), to_bytes(std::to_string(new_epoch)), epoch_zk_version)};
  raw_zk_.multi(std::move(ops), [this, new_epoch](ZkError err, std::vector<coord::ZkOpResult> results) {
    if (err == ZkError::kOk && results.size() == 2) {
      electing_ = false;
      const int32_t version = results[1].stat.version;
      queue_.enqueue("elected", [this, new_epoch, version](Done done) { on_elected(new_epoch, version, std::move(done)); });
      return;
    }
    if (err == ZkError::kNodeExists || err == ZkError::kBadVersion) return check_controller(new_epoch);
    // Connection loss or an expired session: try again later.
    electing_ = false;
    retry_elect_later();
  });
}

void Controller::check_controller(int32_t new_epoch) {
  raw_zk_.get_data(zk_paths::controller(), true, [this, new_epoch](ZkError err, Bytes data, coord::Stat stat) {
    if (err == ZkError::kNoNode) {
      electing_ = false;
      return elect();  // gone meanwhile
    }
    auto holder = err == ZkError::kOk ? decode_controller(as_view(data)) : Result<int32_t>(Status::error(StatusCode::kUnavailable, ""));
    if (!holder || *holder != config_.broker_id || stat.ephemeral_owner != raw_zk_.session_id()) {
      // Someone else is controller (or zk is unreachable): the watch on /controller starts the
      // next election when it goes; an unreachable zk is tried again.
      electing_ = false;
      if (err != ZkError::kOk) retry_elect_later();
      return;
    }
    // /controller is ours: our multi went through. Its epoch is the one we wrote.
    raw_zk_.get_data(zk_paths::controller_epoch(), false, [this, new_epoch](ZkError e2, Bytes epoch_data, coord::Stat st) {
      electing_ = false;
      const int32_t epoch = static_cast<int32_t>(std::strtol(to_string(as_view(epoch_data)).c_str(), nullptr, 10));
      if (e2 != ZkError::kOk || epoch != new_epoch) return retry_elect_later();
      const int32_t version = st.version;
      queue_.enqueue("elected", [this, new_epoch, version](Done done) { on_elected(new_epoch, version, std::move(done)); });
    });
  });
}

void Controller::retry_elect_later() {
  rt_.after(Duration::millis(500), [this] { elect(); });
}

void Controller::on_elected(int32_t epoch, int32_t epoch_zk_version, Done done) {
  active_ = true;
  context_loaded_ = false;
  context_.epoch = epoch;
  context_.epoch_zk_version = epoch_zk_version;
  rt_.emit(ev::ControllerElected{.broker = config_.broker_id, .controller_epoch = context_.epoch});
  load_cluster(std::move(done));
}

void Controller::resign(const char* why) {
  const bool was_active = active_;
  active_ = false;
  context_loaded_ = false;
  electing_ = false;
  queue_.reset();
  channel_.clear();
  // Everything known as controller goes; the epoch stays, for the views.
  ControllerContext fresh;
  fresh.epoch = context_.epoch;
  fresh.epoch_zk_version = context_.epoch_zk_version;
  context_ = std::move(fresh);
  if (rebalance_timer_.value) rt_.cancel(rebalance_timer_);
  rebalance_timer_ = TimerId{0};
  metadata_acked_seq_.clear();
  propagation_waits_.fail_all();
  if (was_active) rt_.emit(ev::ControllerResigned{.broker = config_.broker_id, .reason = why});
}

void Controller::on_watch(const coord::WatchEvent& e) {
  if (e.path == zk_paths::controller()) {
    if (e.type == coord::WatchType::kNodeDeleted) {
      if (active_) resign("/controller deleted");
      elect();
    }
    return;
  }
  if (!active_) return;
  if (e.type == coord::WatchType::kNodeDataChanged && e.path.rfind(zk_paths::topics() + "/", 0) == 0) {
    // /brokers/topics/T changed: partitions were added (CreatePartitions). Kafka's
    // PartitionModifications event.
    const std::string topic = e.path.substr(zk_paths::topics().size() + 1);
    if (topic.find('/') == std::string::npos)
      queue_.enqueue("partition modifications", [this, topic](Done d) { on_partition_modification(topic, std::move(d)); });
    return;
  }
  if (e.type == coord::WatchType::kNodeDataChanged && e.path.rfind(zk_paths::broker_ids() + "/", 0) == 0) {
    queue_.enqueue("broker modification", [this](Done d) { on_broker_change(std::move(d)); });
    return;
  }
  if (e.type != coord::WatchType::kNodeChildrenChanged) return;
  if (e.path == zk_paths::broker_ids())
    queue_.enqueue("broker change", [this](Done d) { on_broker_change(std::move(d)); });
  else if (e.path == zk_paths::topics())
    queue_.enqueue("topic change", [this](Done d) { on_topic_change(std::move(d)); });
  else if (e.path == zk_paths::delete_topics())
    queue_.enqueue("topic deletion", [this](Done d) { on_topic_deletion(std::move(d)); });
  else if (e.path == zk_paths::isr_change_notification())
    queue_.enqueue("isr change", [this](Done d) { on_isr_change_notification(std::move(d)); });
}

void Controller::on_topic_config(const std::string& topic, const TopicConfig& config) {
  if (!active_ || !context_.topic_configs.count(topic)) return;
  const bool was_unclean = context_.topic_configs[topic].unclean_leader_election_enable;
  context_.topic_configs[topic] = config;
  if (was_unclean || !config.unclean_leader_election_enable) return;
  queue_.enqueue("unclean leader election enable", [this](Done done) {
    write_changes(elect_offline("unclean_leader_election_enable"), std::move(done));
  });
}

// ---------------------------------------------------------------------------------------------
// Reading the cluster.

void Controller::load_cluster(Done done) {
  // Brokers first, then topics, then the notifications: each read sets its watch.
  on_broker_change([this, done] {
    on_topic_change([this, done] {
      zk_.get_children(zk_paths::delete_topics(), true, [this](ZkError err, std::vector<std::string> kids) {
        if (err == ZkError::kOk && !kids.empty())
          queue_.enqueue("topic deletion", [this](Done d) { on_topic_deletion(std::move(d)); });
      });
      zk_.get_children(zk_paths::isr_change_notification(), true, [this](ZkError err, std::vector<std::string> kids) {
        if (err == ZkError::kOk && !kids.empty())
          queue_.enqueue("isr change", [this](Done d) { on_isr_change_notification(std::move(d)); });
      });
      // A new controller tells everyone everything it knows.
      context_loaded_ = true;
      std::set<TopicPartition> all;
      for (const auto& [tp, p] : context_.partitions) all.insert(tp);
      send_leader_and_isr(all, context_.live_ids());
      send_update_metadata(context_.live_ids());
      if (config_.auto_leader_rebalance_enable) schedule_rebalance_check();
      // Reassignments found in the znodes go on from where the last controller left them.
      std::vector<TopicPartition> moving = reassigning_partitions();
      if (!moving.empty())
        queue_.enqueue("resume partition reassignments", [this, moving](Done d) { check_reassignments(moving, std::move(d)); });
      done();
    });
  });
}

void Controller::schedule_rebalance_check() {
  rebalance_timer_ = queue_.after(Duration::seconds(config_.leader_imbalance_check_interval_seconds), [this] {
    queue_.enqueue("auto leader rebalance", [this](Done d) { check_preferred_leaders(std::move(d)); });
  });
}

void Controller::on_broker_change(Done done) {
  zk_.get_children(zk_paths::broker_ids(), true, [this, done](ZkError err, std::vector<std::string> kids) {
    if (err != ZkError::kOk) return done();
    read_registrations(std::move(kids), [this, done](Registrations fresh) { apply_broker_change(fresh, done); });
  });
}

void Controller::read_registrations(std::vector<std::string> ids, std::function<void(Registrations)> then) {
  auto fresh = std::make_shared<Registrations>();
  sequentially<std::string>(
      std::move(ids),
      [this, fresh](const std::string& kid, std::function<void()> next) {
        const int32_t id = static_cast<int32_t>(std::strtol(kid.c_str(), nullptr, 10));
        // With a data watch: a broker rewrites its registration when it finds a damaged replica
        // after registering (Kafka's controller watches each broker znode, BrokerModifications).
        zk_.get_data(zk_paths::broker(id), true, [fresh, id, next](ZkError err, Bytes data, coord::Stat st) {
          if (err == ZkError::kOk) {
            auto reg = BrokerRegistration::decode(id, as_view(data));
            if (reg) (*fresh)[id] = {*reg, st.czxid};
          }
          next();
        });
      },
      [fresh, then] { then(*fresh); });
}

void Controller::apply_broker_change(const Registrations& fresh, Done done) {
  std::set<int32_t> dead, added;
  for (const auto& [id, reg] : context_.live) {
    auto it = fresh.find(id);
    if (it == fresh.end() || it->second.second != context_.broker_czxid[id]) dead.insert(id);
  }
  for (const auto& [id, entry] : fresh)
    if (!context_.live.count(id) || entry.second != context_.broker_czxid[id]) added.insert(id);
  for (int32_t id : dead) {
    context_.damaged.erase(id);
    context_.live.erase(id);
    context_.broker_czxid.erase(id);
    context_.shutting_down.erase(id);
    channel_.remove_broker(id);
    metadata_acked_seq_.erase(id);  // a broker that comes back starts again from what it is sent
  }
  for (int32_t id : added) {
    const auto& [reg, czxid] = fresh.at(id);
    context_.live[id] = reg;
    context_.broker_czxid[id] = czxid;
    context_.shutting_down.erase(id);
    context_.damaged.erase(id);
    for (const auto& tp : reg.damaged_replicas) {
      context_.damaged[id].insert(tp);
      rt_.log("broker " + std::to_string(id) + " registered its replica of " + tp.str() +
              " as damaged: it leaves the ISR and may not lead until it has caught up");
    }
    channel_.add_broker(id);
    // The controller reaches brokers on the inter-broker listener (not reg.host/port, the first
    // PLAINTEXT endpoint's, which may be a client listener that refuses controller requests), and
    // sends its own requests on the control-plane listener when there is one.
    if (const ListenerEndpoint* e = inter_broker_endpoint(reg)) rt_.learn_address(NodeId{id}, e->host, e->port);
    if (const ListenerEndpoint* e = control_plane_endpoint(reg))
      rt_.learn_address(lane_connection(NodeId{id}, Lane::kController), e->host, e->port);
  }
  // A live broker that registered more damaged replicas since (it found them when it opened their
  // logs after registering): they leave the ISR and may not lead, as if registered at startup.
  bool damage_found = false;
  for (const auto& [id, entry] : fresh) {
    if (added.count(id) || !context_.live.count(id)) continue;
    const std::vector<TopicPartition> before = context_.live[id].damaged_replicas;
    context_.live[id] = entry.first;
    for (const auto& tp : entry.first.damaged_replicas) {
      if (std::find(before.begin(), before.end(), tp) != before.end()) continue;  // known (or cleared since)
      if (!context_.damaged[id].insert(tp).second) continue;
      damage_found = true;
      rt_.log("broker " + std::to_string(id) + " reported its replica of " + tp.str() +
              " as damaged: it leaves the ISR and may not lead until it has caught up");
    }
  }
  if (dead.empty() && added.empty()) {
    if (!damage_found) return done();
    return write_changes(elect_offline("replica_damaged"), done);
  }
  propagation_waits_.check();  // a dead broker is no longer waited for
  auto ids = [](const std::set<int32_t>& s) { return IntList(s.begin(), s.end()); };
  rt_.emit(ev::BrokerChange{.live = ids(context_.live_ids()), .dead = ids(dead), .added = ids(added)});
  write_changes(elect_offline(dead.empty() ? "broker_startup" : "leader_failure"), [this, added, done] {
    // A (re)started broker learns every partition it hosts, and everyone the new metadata.
    std::set<TopicPartition> hosted;
    for (const auto& [tp, p] : context_.partitions)
      for (int32_t r : p.replicas)
        if (added.count(r)) hosted.insert(tp);
    send_leader_and_isr(hosted, added);
    send_update_metadata(context_.live_ids());
    // A reassignment waiting for a target replica to be able to lead may finish now.
    check_reassignments(reassigning_partitions(), done);
  });
}

void Controller::on_topic_change(Done done) {
  zk_.get_children(zk_paths::topics(), true, [this, done](ZkError err, std::vector<std::string> kids) {
    if (err != ZkError::kOk) return done();
    std::vector<std::string> fresh;
    for (const auto& t : kids)
      if (!context_.topics.count(t)) fresh.push_back(t);
    if (fresh.empty()) return done();
    auto new_partitions = std::make_shared<std::vector<TopicPartition>>();
    sequentially<std::string>(
        fresh, [this, new_partitions](const std::string& topic, Done next) { read_topic(topic, new_partitions, next); },
        [this, new_partitions, fresh, done] {
          // Existing state znodes (a controller failover) are read; missing ones are created.
          read_partition_states(*new_partitions, [this, fresh, done] {
            // A topic is new when a partition of it has no state znode yet; at a controller
            // failover every topic is read here, and those that have state existed before.
            for (const auto& t : fresh) {
              auto it = context_.topics.find(t);
              if (it == context_.topics.end()) continue;
              bool created = false;
              for (const auto& [p, r] : it->second.partitions)
                created |= context_.partitions[TopicPartition{t, p}].zk_version < 0;
              if (!created) continue;
              ReplicaAssignment replicas;
              for (const auto& [p, r] : it->second.partitions) {
                if (p < 0) continue;
                // Partition p's replicas at index p (a hand-made znode may skip numbers).
                replicas.resize(std::max(replicas.size(), static_cast<size_t>(p) + 1));
                replicas[static_cast<size_t>(p)] = r;
              }
              rt_.emit(ev::TopicCreated{.topic = t,
                                        .partitions = static_cast<int64_t>(it->second.partitions.size()),
                                        .replicas = std::move(replicas)});
            }
            // Partitions without state get their first leader ("new_partition"); one whose leader
            // died before this controller took over is a leader failure, as in Kafka.
            write_changes(elect_offline("leader_failure"), done);
          });
        });
  });
}

void Controller::on_partition_modification(const std::string& topic, Done done) {
  auto known = context_.topics.find(topic);
  if (known == context_.topics.end()) return done();
  // Re-read the assignment (and set the watch again); partitions the controller does not know yet
  // get their first leader, as a new topic's do.
  zk_.get_data(zk_paths::topic(topic), true, [this, topic, done](ZkError err, Bytes data, coord::Stat) {
    if (err != ZkError::kOk) return done();
    auto a = TopicAssignment::decode(as_view(data));
    auto it = context_.topics.find(topic);
    if (!a || it == context_.topics.end()) return done();
    const int64_t before = static_cast<int64_t>(it->second.partitions.size());
    std::vector<TopicPartition> added;
    for (const auto& [p, replicas] : a->partitions) {
      TopicPartition tp{topic, p};
      if (context_.partitions.count(tp)) continue;  // existing partitions keep their replicas here
      context_.partitions[tp].replicas = replicas;
      it->second.partitions[p] = replicas;
      added.push_back(tp);
    }
    if (added.empty()) return done();
    rt_.emit(ev::PartitionsAdded{.topic = topic,
                                 .partitions_before = before,
                                 .partitions = static_cast<int64_t>(it->second.partitions.size())});
    // A partition whose state znode exists already (an earlier controller got that far) is read.
    read_partition_states(added, [this, done] { write_changes(elect_offline("new_partition"), done); });
  });
}

void Controller::read_topic(const std::string& topic, std::shared_ptr<std::vector<TopicPartition>> new_partitions, Done next) {
  // The watch on the assignment tells of partitions added later (CreatePartitions).
  zk_.get_data(zk_paths::topic(topic), true, [this, topic, new_partitions, next](ZkError err, Bytes data, coord::Stat) {
    if (err != ZkError::kOk) return next();
    auto a = TopicAssignment::decode(as_view(data));
    if (!a) return next();
    context_.topics[topic] = *a;
    for (const auto& [p, replicas] : a->partitions) {
      TopicPartition tp{topic, p};
      auto& part = context_.partitions[tp];
      part.replicas = replicas;
      // A reassignment an earlier controller started goes on (KIP-455: the znode is its record).
      auto adding = a->adding.find(p);
      auto removing = a->removing.find(p);
      part.adding = adding == a->adding.end() ? std::vector<int32_t>{} : adding->second;
      part.removing = removing == a->removing.end() ? std::vector<int32_t>{} : removing->second;
      new_partitions->push_back(tp);
    }
    // Elections follow the topic's own unclean.leader.election.enable, if it sets one.
    context_.topic_configs[topic] = config_.topic_defaults;
    zk_.get_data(zk_paths::topic_config(topic), false, [this, topic, next](ZkError e2, Bytes cfg, coord::Stat) {
      if (e2 == ZkError::kOk) {
        auto overrides = decode_topic_config(as_view(cfg));
        if (overrides) (void)context_.topic_configs[topic].apply(*overrides);
      }
      next();
    });
  });
}

void Controller::read_partition_states(std::vector<TopicPartition> tps, Done done) {
  sequentially<TopicPartition>(
      std::move(tps),
      [this](const TopicPartition& tp, Done next) {
        zk_.get_data(zk_paths::partition_state(tp.topic, tp.partition), false,
                     [this, tp, next](ZkError err, Bytes data, coord::Stat st) {
                       if (err == ZkError::kOk) {
                         auto s = LeaderIsrState::decode(as_view(data));
                         if (s) {
                           context_.partitions[tp].state = *s;
                           context_.partitions[tp].zk_version = st.version;
                         }
                       }
                       next();
                     });
      },
      std::move(done));
}

// ---------------------------------------------------------------------------------------------
// Leader election and state writes.

std::vector<Controller::PartitionChange> Controller::elect_offline(const char* reason) const {
  std::vector<PartitionChange> changes;
  const election::Brokers brokers = context_.brokers();
  for (const auto& [tp, p] : context_.partitions) {
    const bool unclean = context_.unclean_allowed(tp.topic, config_.topic_defaults);
    if (auto c = election::on_brokers_changed(p, brokers, unclean, context_.epoch, reason, context_.damaged_replicas(tp)))
      changes.push_back({tp, *c});
  }
  return changes;
}

void Controller::emit_leader_change(const TopicPartition& tp, const LeaderIsrState& s, const char* reason) {
  // partition_offline and leader_change carry the same fields; only the kind says which it was.
  auto fill = [&](auto event) {
    event.topic = tp.topic;
    event.partition = tp.partition;
    event.leader = s.leader;
    event.leader_epoch = s.leader_epoch;
    event.isr = s.isr;
    event.controller_epoch = s.controller_epoch;
    event.reason = reason;
    return event;
  };
  if (s.leader < 0)
    rt_.emit(fill(ev::PartitionOffline{}));
  else
    rt_.emit(fill(ev::LeaderChange{}));
}

void Controller::write_changes(std::vector<PartitionChange> changes, Done done) {
  if (changes.empty()) return done();
  auto written = std::make_shared<std::set<TopicPartition>>();
  auto retry = std::make_shared<std::vector<TopicPartition>>();
  sequentially<PartitionChange>(
      std::move(changes),
      [this, written, retry](const PartitionChange& c, Done next) { write_change(c, written, retry, next); },
      [this, written, retry, done] {
        auto finish = [this, written, done] {
          send_leader_and_isr(*written, context_.live_ids());
          send_update_metadata(context_.live_ids());
          done();
        };
        if (retry->empty()) return finish();
        // The state changed under us (a leader shrank or grew the ISR): read it and decide again.
        read_partition_states(*retry, [this, retry, finish] {
          std::vector<PartitionChange> again;
          for (auto& c : elect_offline("leader_failure"))
            if (std::find(retry->begin(), retry->end(), c.tp) != retry->end()) again.push_back(c);
          write_changes(std::move(again), finish);
        });
      });
}

void Controller::write_change(const PartitionChange& c, std::shared_ptr<std::set<TopicPartition>> written,
                              std::shared_ptr<std::vector<TopicPartition>> retry, Done next) {
  const ControllerPartition& p = context_.partitions.at(c.tp);
  check_state_change(p, c.change.state);
  const std::string path = zk_paths::partition_state(c.tp.topic, c.tp.partition);
  std::vector<ZkOp> ops;
  ops.push_back(ZkOp::check(zk_paths::controller_epoch(), context_.epoch_zk_version));
  const bool create = p.zk_version < 0;
  if (create) {
    // Parents may exist already (a failed earlier attempt); create them outside the multi.
    zk_.create(zk_paths::partitions(c.tp.topic), {}, CreateMode::kPersistent, [](ZkError, std::string) {});
    zk_.create(zk_paths::partition(c.tp.topic, c.tp.partition), {}, CreateMode::kPersistent, [](ZkError, std::string) {});
    ops.push_back(ZkOp::create(path, c.change.state.encode(), CreateMode::kPersistent));
  } else {
    ops.push_back(ZkOp::set_data(path, c.change.state.encode(), p.zk_version));
  }
  zk_.multi(ops, [this, c, create, written, retry, next](ZkError err, std::vector<coord::ZkOpResult> results) {
    if (err == ZkError::kOk) {
      auto& part = context_.partitions[c.tp];
      part.state = c.change.state;
      part.zk_version = create ? 0 : results.at(1).stat.version;
      written->insert(c.tp);
      emit_leader_change(c.tp, c.change.state, c.change.reason);
      return next();
    }
    // /controller_epoch moved on: another controller exists. Stop here.
    if (!results.empty() && results[0].error != ZkError::kOk) return resign("controller epoch changed (fenced)");
    retry->push_back(c.tp);
    next();
  });
}

// ---------------------------------------------------------------------------------------------
// Requests to brokers.

void Controller::send_leader_and_isr(const std::set<TopicPartition>& tps, const std::set<int32_t>& to_brokers) {
  for (int32_t b : to_brokers) {
    protocol::LeaderAndIsrRequest req;
    req.controller_id = config_.broker_id;
    req.controller_epoch = context_.epoch;
    std::set<int32_t> leaders;
    for (const auto& tp : tps) {
      const auto& p = context_.partitions.at(tp);
      if (!contains(p.replicas, b) || p.zk_version < 0) continue;
      if (req.topic_states.empty() || req.topic_states.back().topic_name != tp.topic) {
        req.topic_states.push_back({tp.topic, {}});
        // The topic's incarnation (KIP-516): a broker holding data of another one retires it.
        auto topic = context_.topics.find(tp.topic);
        if (topic != context_.topics.end())
          req.topic_states.back().topic_id = Uuid::parse(topic->second.topic_id).value_or(Uuid{});
      }
      req.topic_states.back().partition_states.push_back(
          partition_state<protocol::LeaderAndIsrRequest::LeaderAndIsrPartitionState>(tp, p));
      if (p.state.leader >= 0) leaders.insert(p.state.leader);
    }
    if (req.topic_states.empty()) continue;
    req.broker_epoch = broker_epoch_of(b);
    for (int32_t l : leaders) {
      // Followers reach their leaders on the inter-broker listener.
      auto it = context_.live.find(l);
      const ListenerEndpoint* e = it == context_.live.end() ? nullptr : inter_broker_endpoint(it->second);
      if (e) req.live_leaders.push_back({l, e->host, e->port});
    }
    channel_.enqueue(b, req, protocol::kLeaderAndIsrVersion);
  }
}

const ListenerEndpoint* Controller::inter_broker_endpoint(const BrokerRegistration& reg) const {
  const ListenerEndpoint* e = reg.endpoint(config_.inter_broker_listener());
  return e ? e : (reg.endpoints.empty() ? nullptr : &reg.endpoints.front());
}

const ListenerEndpoint* Controller::control_plane_endpoint(const BrokerRegistration& reg) const {
  if (config_.control_plane_listener_name.empty()) return inter_broker_endpoint(reg);
  const ListenerEndpoint* e = reg.endpoint(config_.control_plane_listener_name);
  return e ? e : inter_broker_endpoint(reg);
}

void Controller::set_broker_epoch(int64_t epoch) {
  broker_epoch_ = epoch;
  auto waiting = std::move(waiting_for_registration_);
  waiting_for_registration_.clear();
  for (auto& retry : waiting) retry();
}

bool Controller::defer_until_registered(int64_t epoch_in_request, const char* api, std::function<void()> retry) {
  if (broker_epoch_ != -1 || epoch_in_request == -1) return false;
  rt_.log(std::string(api) + " (broker epoch " + std::to_string(epoch_in_request) +
          ") waits: this broker has not registered yet");
  waiting_for_registration_.push_back(std::move(retry));
  return true;
}

int64_t Controller::broker_epoch_of(int32_t broker) const {
  auto it = context_.broker_czxid.find(broker);
  return it == context_.broker_czxid.end() ? -1 : it->second;
}

void Controller::send_update_metadata(const std::set<int32_t>& to_brokers) {
  if (!context_loaded_) return;  // load_cluster sends the first, with every partition
  protocol::UpdateMetadataRequest req;
  req.controller_id = config_.broker_id;
  req.controller_epoch = context_.epoch;
  const std::set<int32_t> live = context_.live_ids();
  for (const auto& [tp, p] : context_.partitions) {
    if (p.zk_version < 0) continue;
    if (req.topic_states.empty() || req.topic_states.back().topic_name != tp.topic) {
      // v7+: the topic's id (KIP-516), which brokers answer Metadata v10+ and Fetch v13+ with.
      Uuid topic_id;
      if (auto t = context_.topics.find(tp.topic); t != context_.topics.end())
        topic_id = Uuid::parse(t->second.topic_id).value_or(kZeroUuid);
      req.topic_states.push_back({.topic_name = tp.topic, .topic_id = topic_id, .partition_states = {}});
    }
    auto ps = partition_state<protocol::UpdateMetadataRequest::UpdateMetadataPartitionState>(tp, p);
    for (int32_t r : p.replicas)
      if (!live.count(r)) ps.offline_replicas.push_back(r);
    req.topic_states.back().partition_states.push_back(ps);
  }
  for (const auto& [id, reg] : context_.live) {
    protocol::UpdateMetadataRequest::UpdateMetadataBroker b;
    b.id = id;
    for (const auto& e : reg.endpoints) b.endpoints.push_back({e.port, e.host, e.name, security_protocol_id(e.security_protocol)});
    req.live_brokers.push_back(b);
  }
  const uint64_t seq = ++metadata_sent_seq_;
  for (int32_t b : to_brokers) {
    req.broker_epoch = broker_epoch_of(b);
    channel_.enqueue(b, req, protocol::kUpdateMetadataVersion, [this, b, seq] { on_metadata_acknowledged(b, seq); });
  }
}

// ---------------------------------------------------------------------------------------------
// Waiting for metadata to reach every broker.

void Controller::when_metadata_propagated(Duration timeout, std::function<void(bool)> done) {
  if (!active_) return done(true);
  const uint64_t seq = metadata_sent_seq_;
  propagation_waits_.add([this, seq] { return seq <= metadata_acked_everywhere(); }, timeout, std::move(done));
}

void Controller::on_metadata_acknowledged(int32_t broker, uint64_t seq) {
  uint64_t& acked = metadata_acked_seq_[broker];
  acked = std::max(acked, seq);
  propagation_waits_.check();
}

uint64_t Controller::metadata_acked_everywhere() const {
  uint64_t everywhere = metadata_sent_seq_;
  for (const auto& [id, reg] : context_.live) {
    auto it = metadata_acked_seq_.find(id);
    everywhere = std::min(everywhere, it == metadata_acked_seq_.end() ? 0 : it->second);
  }
  return everywhere;
}

void Controller::send_stop_replica(int32_t broker, const std::vector<TopicPartition>& tps, bool delete_partitions) {
  if (tps.empty() || !context_.live.count(broker)) return;
  protocol::StopReplicaRequest req;
  req.controller_id = config_.broker_id;
  req.controller_epoch = context_.epoch;
  req.broker_epoch = broker_epoch_of(broker);
  req.delete_partitions = delete_partitions;
  for (const auto& tp : tps) {
    if (req.topics.empty() || req.topics.back().name != tp.topic) req.topics.push_back({tp.topic, {}});
    req.topics.back().partition_indexes.push_back(tp.partition);
  }
  channel_.enqueue(broker, req, protocol::kStopReplicaVersion);
}

// ---------------------------------------------------------------------------------------------
// Other events.

void Controller::on_topic_deletion(Done done) {
  zk_.get_children(zk_paths::delete_topics(), true, [this, done](ZkError err, std::vector<std::string> kids) {
    if (err != ZkError::kOk || kids.empty()) return done();
    sequentially<std::string>(
        kids, [this](const std::string& topic, Done next) { delete_topic(topic, next); },
        [this, done] {
          send_update_metadata(context_.live_ids());
          done();
        });
  });
}

void Controller::delete_topic(const std::string& topic, Done next) {
  std::vector<std::string> paths;  // deepest first
  auto it = context_.topics.find(topic);
  if (it != context_.topics.end()) {
    std::map<int32_t, std::vector<TopicPartition>> per_broker;
    for (const auto& [p, replicas] : it->second.partitions) {
      TopicPartition tp{topic, p};
      for (int32_t r : replicas) per_broker[r].push_back(tp);
      paths.push_back(zk_paths::partition_state(topic, p));
      paths.push_back(zk_paths::partition(topic, p));
      context_.partitions.erase(tp);
    }
    for (const auto& [b, tps] : per_broker) send_stop_replica(b, tps, true);
    paths.push_back(zk_paths::partitions(topic));
    paths.push_back(zk_paths::topic(topic));
    paths.push_back(zk_paths::topic_config(topic));
    context_.topics.erase(it);
    context_.topic_configs.erase(topic);
    rt_.emit(ev::TopicDeleted{.topic = topic});
  }
  paths.push_back(zk_paths::delete_topic(topic));
  sequentially<std::string>(
      paths, [this](const std::string& path, Done removed) { zk_.remove(path, -1, [removed](ZkError) { removed(); }); },
      std::move(next));
}

void Controller::on_isr_change_notification(Done done) {
  zk_.get_children(zk_paths::isr_change_notification(), true, [this, done](ZkError err, std::vector<std::string> kids) {
    if (err != ZkError::kOk || kids.empty()) return done();
    auto changed = std::make_shared<std::set<TopicPartition>>();
    sequentially<std::string>(
        kids,
        [this, changed](const std::string& kid, Done next) {
          const std::string path = zk_paths::isr_change_notification() + "/" + kid;
          zk_.get_data(path, false, [this, path, changed, next](ZkError e2, Bytes data, coord::Stat) {
            if (e2 == ZkError::kOk) {
              auto j = Json::parse(to_string(as_view(data)));
              if (j)
                for (const auto& p : (*j)["partitions"].as_array())
                  changed->insert(TopicPartition{p["topic"].as_string(), static_cast<int32_t>(p["partition"].as_int())});
            }
            zk_.remove(path, -1, [next](ZkError) { next(); });
          });
        },
        [this, changed, done] {
          std::vector<TopicPartition> tps;
          for (const auto& tp : *changed)
            if (context_.partitions.count(tp)) tps.push_back(tp);
          read_partition_states(tps, [this, tps, done] {
            // A damaged replica the leader added back to the ISR has fetched what it lost.
            for (const auto& tp : tps)
              for (int32_t r : context_.partitions[tp].state.isr) {
                auto it = context_.damaged.find(r);
                if (it != context_.damaged.end()) it->second.erase(tp);
              }
            // Members a leader may not have added (a broker gone, or in controlled shutdown: the
            // old leader follows the new one in the moment before it stops) leave again.
            std::vector<PartitionChange> ineligible;
            const election::Brokers brokers = context_.brokers();
            for (const auto& tp : tps)
              if (auto c = election::on_isr_expanded(context_.partitions[tp], brokers, context_.epoch))
                ineligible.push_back({tp, *c});
            write_changes(std::move(ineligible), [this, tps, done] {
              send_update_metadata(context_.live_ids());
              // A partition under reassignment whose target replicas are all in sync now finishes.
              std::vector<TopicPartition> moving;
              for (const auto& tp : tps)
                if (context_.partitions[tp].reassigning()) moving.push_back(tp);
              check_reassignments(std::move(moving), done);
            });
          });
        });
  });
}

void Controller::controlled_shutdown(int32_t id, int64_t broker_epoch,
                                     std::function<void(protocol::ErrorCode, std::vector<TopicPartition>)> reply) {
  if (!active_) return reply(protocol::ErrorCode::NOT_CONTROLLER, {});
  queue_.enqueue("controlled shutdown", [this, id, broker_epoch, reply](Done done) {
    if (!context_.live.count(id)) {
      reply(protocol::ErrorCode::BROKER_NOT_AVAILABLE, {});
      return done();
    }
    // As Kafka's KafkaController.processControlledShutdown: a request from an older registration of
    // the broker (a forged or delayed one) is refused; -1 is a version without the field.
    if (broker_epoch != -1 && broker_epoch < broker_epoch_of(id)) {
      reply(protocol::ErrorCode::STALE_BROKER_EPOCH, {});
      return done();
    }
    context_.shutting_down.insert(id);
    rt_.emit(ev::ControlledShutdown{.broker = id});
    const election::Brokers brokers = context_.brokers();
    std::vector<PartitionChange> changes;
    std::vector<TopicPartition> followed;
    for (const auto& [tp, p] : context_.partitions) {
      auto sc = election::on_controlled_shutdown(p, id, brokers, context_.epoch);
      if (!sc) continue;
      changes.push_back({tp, sc->change});
      if (sc->follower) followed.push_back(tp);
    }
    write_changes(std::move(changes), [this, id, followed, reply, done] {
      send_stop_replica(id, followed, false);
      // What the broker still leads, of the partitions with more than one replica (Kafka's
      // replicatedPartitionsBrokerLeads): one with a single replica has nowhere to move.
      std::vector<TopicPartition> remaining;
      for (const auto& [tp, p] : context_.partitions)
        if (p.state.leader == id && p.replicas.size() > 1) remaining.push_back(tp);
      reply(protocol::ErrorCode::NONE, remaining);
      done();
    });
  });
}

void Controller::preferred_leader_election(std::vector<TopicPartition> tps) {
  if (!active_) return;
  queue_.enqueue("preferred leader election", [this, tps](Done done) {
    const election::Brokers brokers = context_.brokers();
    std::vector<PartitionChange> changes;
    for (const auto& [tp, p] : context_.partitions) {
      if (!tps.empty() && std::find(tps.begin(), tps.end(), tp) == tps.end()) continue;
      if (auto c = election::on_preferred_election(p, brokers, context_.epoch)) changes.push_back({tp, *c});
    }
    write_changes(std::move(changes), done);
  });
}

void Controller::elect_leaders(std::optional<std::vector<TopicPartition>> tps, bool unclean,
                               std::function<void(protocol::ErrorCode, ElectionResults)> reply) {
  if (!active_) return reply(protocol::ErrorCode::NOT_CONTROLLER, {});
  queue_.enqueue("replica leader election", [this, tps, unclean, reply](Done done) {
    using protocol::ErrorCode;
    const election::Brokers brokers = context_.brokers();
    auto results = std::make_shared<ElectionResults>();
    std::vector<PartitionChange> changes;
    std::vector<TopicPartition> asked;
    if (tps) {
      asked = *tps;
    } else {
      for (const auto& [tp, p] : context_.partitions) asked.push_back(tp);
    }
    const std::string strategy = unclean ? "OfflinePartitionLeaderElectionStrategy(true)"
                                         : "PreferredReplicaPartitionLeaderElectionStrategy";
    for (const auto& tp : asked) {
      auto it = context_.partitions.find(tp);
      if (it == context_.partitions.end() || it->second.zk_version < 0) {
        (*results)[tp] = {ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist."};
        continue;
      }
      const ControllerPartition& p = it->second;
      const bool leader_live = p.state.leader >= 0 && brokers.live.count(p.state.leader);
      if (unclean ? leader_live : (!p.replicas.empty() && p.state.leader == p.replicas.front())) {
        (*results)[tp] = {ErrorCode::ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."};
        continue;
      }
      std::optional<Change> c = unclean ? election::on_brokers_changed(p, brokers, true, context_.epoch, "unclean_election")
                                        : election::on_preferred_election(p, brokers, context_.epoch);
      if (!c || c->state.leader < 0) {
        (*results)[tp] = {unclean ? ErrorCode::ELIGIBLE_LEADERS_NOT_AVAILABLE : ErrorCode::PREFERRED_LEADER_NOT_AVAILABLE,
                          "Failed to elect leader for partition " + tp.str() + " under strategy " + strategy};
        continue;
      }
      changes.push_back({tp, *c});
      (*results)[tp] = {ErrorCode::NONE, ""};
    }
    std::map<TopicPartition, int32_t> wanted;
    for (const auto& c : changes) wanted[c.tp] = c.change.state.leader;
    write_changes(std::move(changes), [this, results, wanted, strategy, reply, done] {
      // A write that lost to a concurrent change (an ISR shrink) was decided again; report what
      // came of it.
      for (const auto& [tp, leader] : wanted) {
        auto it = context_.partitions.find(tp);
        if (it == context_.partitions.end() || it->second.state.leader != leader)
          (*results)[tp] = {protocol::ErrorCode::PREFERRED_LEADER_NOT_AVAILABLE,
                            "Failed to elect leader for partition " + tp.str() + " under strategy " + strategy};
      }
      reply(protocol::ErrorCode::NONE, *results);
      done();
    });
  });
}

void Controller::check_preferred_leaders(Done done) {
  std::vector<TopicPartition> tps = election::imbalanced_partitions(context_.partitions);
  schedule_rebalance_check();
  if (!tps.empty()) preferred_leader_election(tps);
  done();
}

}  // namespace gregor::broker
