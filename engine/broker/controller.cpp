#include "engine/broker/controller.h"

#include <algorithm>
#include <cstdlib>

#include "engine/broker/async_steps.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/core/json.h"
#include "engine/protocol/leader_and_isr.h"
#include "engine/protocol/stop_replica.h"
#include "engine/protocol/update_metadata.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;
using coord::ZkOp;

namespace {
bool contains(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }
}  // namespace

Controller::Controller(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk, protocol::NetworkClient& net)
    : rt_(rt), config_(config), zk_(zk), channel_(rt, net, Duration::millis(config.controller_socket_timeout_ms)) {}

// ---------------------------------------------------------------------------------------------
// The event queue.

void Controller::enqueue(const char* name, Step step) {
  queue_.emplace_back(name, std::move(step));
  if (!busy_) run_next();
}

void Controller::run_next() {
  if (busy_ || queue_.empty()) return;
  auto [name, step] = std::move(queue_.front());
  queue_.pop_front();
  busy_ = true;
  uint64_t gen = generation_;
  step([this, gen] {
    if (gen != generation_) return;
    busy_ = false;
    // Continue on a fresh stack: a long queue must not nest its steps.
    rt_.after(Duration{0}, [this, gen] {
      if (gen == generation_) run_next();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Becoming (and ceasing to be) the controller.

void Controller::elect() {
  if (active_ || electing_) return;
  electing_ = true;
  const std::string path = zk_paths::controller_epoch();
  zk_.get_data(path, false, [this, path](ZkError err, Bytes data, coord::Stat stat) {
    if (err == ZkError::kNoNode) {
      // The first election of a cluster: Kafka's maybeCreateControllerEpochZNode writes epoch 0.
      zk_.create(path, to_bytes("0"), CreateMode::kPersistent, [this](ZkError e2, std::string) {
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
  zk_.multi(std::move(ops), [this, new_epoch](ZkError err, std::vector<coord::ZkOpResult> results) {
    if (err == ZkError::kOk && results.size() == 2) {
      electing_ = false;
      const int32_t version = results[1].stat.version;
      enqueue("elected", [this, new_epoch, version](Done done) { on_elected(new_epoch, version, std::move(done)); });
      return;
    }
    if (err == ZkError::kNodeExists || err == ZkError::kBadVersion) return check_controller(new_epoch);
    // Connection loss or an expired session: try again later.
    electing_ = false;
    retry_elect_later();
  });
}

void Controller::check_controller(int32_t new_epoch) {
  zk_.get_data(zk_paths::controller(), true, [this, new_epoch](ZkError err, Bytes data, coord::Stat stat) {
    if (err == ZkError::kNoNode) {
      electing_ = false;
      return elect();  // gone meanwhile
    }
    auto holder = err == ZkError::kOk ? decode_controller(as_view(data)) : Result<int32_t>(Status::error(StatusCode::kUnavailable, ""));
    if (!holder || *holder != config_.broker_id || stat.ephemeral_owner != zk_.session_id()) {
      // Someone else is controller (or zk is unreachable): the watch on /controller starts the
      // next election when it goes; an unreachable zk is tried again.
      electing_ = false;
      if (err != ZkError::kOk) retry_elect_later();
      return;
    }
    // /controller is ours: our multi went through. Its epoch is the one we wrote.
    zk_.get_data(zk_paths::controller_epoch(), false, [this, new_epoch](ZkError e2, Bytes epoch_data, coord::Stat st) {
      electing_ = false;
      const int32_t epoch = static_cast<int32_t>(std::strtol(to_string(as_view(epoch_data)).c_str(), nullptr, 10));
      if (e2 != ZkError::kOk || epoch != new_epoch) return retry_elect_later();
      const int32_t version = st.version;
      enqueue("elected", [this, new_epoch, version](Done done) { on_elected(new_epoch, version, std::move(done)); });
    });
  });
}

void Controller::retry_elect_later() {
  rt_.after(Duration::millis(500), [this] { elect(); });
}

void Controller::on_elected(int32_t epoch, int32_t epoch_zk_version, Done done) {
  active_ = true;
  epoch_ = epoch;
  epoch_zk_version_ = epoch_zk_version;
  rt_.emit("controller_elected", {{"broker", config_.broker_id}, {"controller_epoch", epoch_}});
  load_cluster(done);
}

void Controller::resign(const char* why) {
  bool was_active = active_;
  active_ = false;
  electing_ = false;
  generation_++;
  busy_ = false;
  queue_.clear();
  channel_.clear();
  live_.clear();
  broker_czxid_.clear();
  topics_.clear();
  topic_configs_.clear();
  partitions_.clear();
  shutting_down_.clear();
  deleting_.clear();
  if (rebalance_timer_.value) rt_.cancel(rebalance_timer_);
  rebalance_timer_ = TimerId{0};
  if (was_active) rt_.emit("controller_resigned", {{"broker", config_.broker_id}, {"reason", why}});
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
  if (e.type != coord::WatchType::kNodeChildrenChanged) return;
  if (e.path == zk_paths::broker_ids())
    enqueue("broker change", [this](Done d) { on_broker_change(std::move(d)); });
  else if (e.path == zk_paths::topics())
    enqueue("topic change", [this](Done d) { on_topic_change(std::move(d)); });
  else if (e.path == zk_paths::delete_topics())
    enqueue("topic deletion", [this](Done d) { on_topic_deletion(std::move(d)); });
  else if (e.path == zk_paths::isr_change_notification())
    enqueue("isr change", [this](Done d) { on_isr_change_notification(std::move(d)); });
}

void Controller::on_topic_config(const std::string& topic, const TopicConfig& config) {
  if (!active_ || !topic_configs_.count(topic)) return;
  const bool was_unclean = topic_configs_[topic].unclean_leader_election_enable;
  topic_configs_[topic] = config;
  if (was_unclean || !config.unclean_leader_election_enable) return;
  enqueue("unclean leader election enable", [this](Done done) {
    write_changes(elect_offline(shutting_down_, "unclean_leader_election_enable"), std::move(done));
  });
}

// ---------------------------------------------------------------------------------------------
// Reading the cluster.

void Controller::load_cluster(Done done) {
  uint64_t gen = generation_;
  // Brokers first, then topics, then the notifications: each read sets its watch.
  on_broker_change([this, gen, done] {
    if (gen != generation_) return done();
    on_topic_change([this, gen, done] {
      if (gen != generation_) return done();
      zk_.get_children(zk_paths::delete_topics(), true, [this, gen](ZkError err, std::vector<std::string> kids) {
        if (gen == generation_ && err == ZkError::kOk && !kids.empty())
          enqueue("topic deletion", [this](Done d) { on_topic_deletion(std::move(d)); });
      });
      zk_.get_children(zk_paths::isr_change_notification(), true,
                       [this, gen](ZkError err, std::vector<std::string> kids) {
                         if (gen == generation_ && err == ZkError::kOk && !kids.empty())
                           enqueue("isr change", [this](Done d) { on_isr_change_notification(std::move(d)); });
                       });
      // A new controller tells everyone everything it knows.
      std::set<TopicPartition> all;
      for (const auto& [tp, p] : partitions_) all.insert(tp);
      send_leader_and_isr(all, live_ids());
      send_update_metadata(live_ids());
      if (config_.auto_leader_rebalance_enable) {
        rebalance_timer_ = rt_.after(Duration::seconds(config_.leader_imbalance_check_interval_seconds), [this, gen] {
          if (gen == generation_) enqueue("auto leader rebalance", [this](Done d) { check_preferred_leaders(std::move(d)); });
        });
      }
      done();
    });
  });
}

std::set<int32_t> Controller::live_ids() const {
  std::set<int32_t> ids;
  for (const auto& [id, r] : live_) ids.insert(id);
  return ids;
}

void Controller::on_broker_change(Done done) {
  uint64_t gen = generation_;
  zk_.get_children(zk_paths::broker_ids(), true, [this, gen, done](ZkError err, std::vector<std::string> kids) {
    if (gen != generation_) return;
    if (err != ZkError::kOk) return done();
    auto fresh = std::make_shared<std::map<int32_t, std::pair<BrokerRegistration, int64_t>>>();
    sequentially<std::string>(
        kids,
        [this, gen, fresh](const std::string& kid, std::function<void()> next) {
          int32_t id = static_cast<int32_t>(std::strtol(kid.c_str(), nullptr, 10));
          zk_.get_data(zk_paths::broker(id), false, [this, gen, fresh, id, next](ZkError e2, Bytes data, coord::Stat st) {
            if (gen != generation_) return;
            if (e2 == ZkError::kOk) {
              auto reg = BrokerRegistration::decode(id, as_view(data));
              if (reg) (*fresh)[id] = {*reg, st.czxid};
            }
            next();
          });
        },
        [this, gen, fresh, done] {
          if (gen != generation_) return;
          std::set<int32_t> dead, added;
          for (const auto& [id, reg] : live_) {
            auto it = fresh->find(id);
            if (it == fresh->end() || it->second.second != broker_czxid_[id]) dead.insert(id);
          }
          for (const auto& [id, entry] : *fresh) {
            if (!live_.count(id) || entry.second != broker_czxid_[id]) added.insert(id);
          }
          for (int32_t id : dead) {
            live_.erase(id);
            broker_czxid_.erase(id);
            shutting_down_.erase(id);
            channel_.remove_broker(id);
          }
          for (int32_t id : added) {
            live_[id] = (*fresh)[id].first;
            broker_czxid_[id] = (*fresh)[id].second;
            shutting_down_.erase(id);
            channel_.add_broker(id);
            rt_.learn_address(NodeId{id}, live_[id].host, live_[id].port);
          }
          if (dead.empty() && added.empty()) return done();
          std::string live_list;
          for (const auto& [id, r] : live_) live_list += (live_list.empty() ? "" : ",") + std::to_string(id);
          std::string dead_list, added_list;
          for (int32_t id : dead) dead_list += (dead_list.empty() ? "" : ",") + std::to_string(id);
          for (int32_t id : added) added_list += (added_list.empty() ? "" : ",") + std::to_string(id);
          rt_.emit("broker_change", {{"live", live_list}, {"dead", dead_list}, {"added", added_list}});
          auto changes = elect_offline(shutting_down_, dead.empty() ? "broker_startup" : "leader_failure");
          write_changes(std::move(changes), [this, gen, added, done] {
            if (gen != generation_) return;
            // A (re)started broker learns every partition it hosts, and everyone the new metadata.
            std::set<TopicPartition> hosted;
            for (const auto& [tp, p] : partitions_)
              for (int32_t r : p.replicas)
                if (added.count(r)) hosted.insert(tp);
            send_leader_and_isr(hosted, added);
            send_update_metadata(live_ids());
            done();
          });
        });
  });
}

void Controller::on_topic_change(Done done) {
  uint64_t gen = generation_;
  zk_.get_children(zk_paths::topics(), true, [this, gen, done](ZkError err, std::vector<std::string> kids) {
    if (gen != generation_) return;
    if (err != ZkError::kOk) return done();
    std::vector<std::string> fresh;
    for (const auto& t : kids)
      if (!topics_.count(t)) fresh.push_back(t);
    if (fresh.empty()) return done();
    auto new_tps = std::make_shared<std::vector<TopicPartition>>();
    sequentially<std::string>(
        fresh,
        [this, gen, new_tps](const std::string& topic, std::function<void()> next) {
          zk_.get_data(zk_paths::topic(topic), false, [this, gen, topic, new_tps, next](ZkError e2, Bytes data, coord::Stat) {
            if (gen != generation_) return;
            if (e2 != ZkError::kOk) return next();
            auto a = TopicAssignment::decode(as_view(data));
            if (!a) return next();
            topics_[topic] = *a;
            for (const auto& [p, replicas] : a->partitions) {
              TopicPartition tp{topic, p};
              partitions_[tp].replicas = replicas;
              new_tps->push_back(tp);
            }
            // Elections follow the topic's own unclean.leader.election.enable, if it sets one.
            topic_configs_[topic] = config_.topic_defaults;
            zk_.get_data(zk_paths::topic_config(topic), false, [this, gen, topic, next](ZkError e3, Bytes cfg, coord::Stat) {
              if (gen != generation_) return;
              if (e3 == ZkError::kOk) {
                auto overrides = decode_topic_config(as_view(cfg));
                if (overrides) (void)topic_configs_[topic].apply(*overrides);
              }
              next();
            });
          });
        },
        [this, gen, new_tps, fresh, done] {
          if (gen != generation_) return;
          // Existing state znodes (a controller failover) are read; missing ones are created.
          read_partition_states(*new_tps, [this, gen, fresh, done] {
            if (gen != generation_) return;
            for (const auto& t : fresh)
              if (topics_.count(t))
                rt_.emit("topic_created", {{"topic", t}, {"partitions", static_cast<int64_t>(topics_[t].partitions.size())}});
            auto changes = elect_offline(shutting_down_, "new_partition");
            write_changes(std::move(changes), done);
          });
        });
  });
}

void Controller::read_partition_states(std::vector<TopicPartition> tps, Done done) {
  uint64_t gen = generation_;
  sequentially<TopicPartition>(
      std::move(tps),
      [this, gen](const TopicPartition& tp, std::function<void()> next) {
        zk_.get_data(zk_paths::partition_state(tp.topic, tp.partition), false,
                     [this, gen, tp, next](ZkError err, Bytes data, coord::Stat st) {
                       if (gen != generation_) return;
                       if (err == ZkError::kOk) {
                         auto s = LeaderIsrState::decode(as_view(data));
                         if (s) {
                           partitions_[tp].state = *s;
                           partitions_[tp].zk_version = st.version;
                         }
                       }
                       next();
                     });
      },
      std::move(done));
}

// ---------------------------------------------------------------------------------------------
// Leader election.

std::vector<Controller::Change> Controller::elect_offline(const std::set<int32_t>& shutting_down, const char* reason) {
  std::vector<Change> changes;
  const std::set<int32_t> live = live_ids();
  for (const auto& [tp, p] : partitions_) {
    auto cfg_it = topic_configs_.find(tp.topic);
    const bool unclean_allowed = cfg_it != topic_configs_.end() ? cfg_it->second.unclean_leader_election_enable
                                                                : config_.topic_defaults.unclean_leader_election_enable;
    const LeaderIsrState& cur = p.state;
    auto is_candidate = [&](int32_t r) { return live.count(r) && !shutting_down.count(r); };
    if (p.zk_version < 0) {
      // A new partition: the first live replica leads, every live replica is in sync.
      std::vector<int32_t> isr;
      for (int32_t r : p.replicas)
        if (live.count(r)) isr.push_back(r);
      if (isr.empty()) continue;
      LeaderIsrState s;
      s.leader = isr.front();
      s.leader_epoch = 0;
      s.isr = isr;
      s.controller_epoch = epoch_;
      changes.push_back({tp, s, "new_partition"});
      continue;
    }
    const bool leader_ok = cur.leader >= 0 && live.count(cur.leader);
    std::vector<int32_t> isr_live;
    for (int32_t r : cur.isr)
      if (live.count(r)) isr_live.push_back(r);
    if (leader_ok) {
      if (isr_live.size() != cur.isr.size()) {
        // Replicas died: they leave the ISR (the leader stays, so the ISR is not empty).
        LeaderIsrState s = cur;
        s.isr = isr_live;
        s.leader_epoch = cur.leader_epoch + 1;
        s.controller_epoch = epoch_;
        changes.push_back({tp, s, "replica_offline"});
      }
      continue;
    }
    // The leader is gone (or there is none): clean election first.
    int32_t chosen = -1;
    for (int32_t r : p.replicas)
      if (is_candidate(r) && contains(cur.isr, r)) {
        chosen = r;
        break;
      }
    LeaderIsrState s = cur;
    s.controller_epoch = epoch_;
    if (chosen >= 0) {
      s.leader = chosen;
      s.isr = isr_live;
      s.leader_epoch = cur.leader_epoch + 1;
      changes.push_back({tp, s, reason});
      continue;
    }
    if (unclean_allowed) {
      for (int32_t r : p.replicas)
        if (is_candidate(r)) {
          chosen = r;
          break;
        }
      if (chosen >= 0) {
        s.leader = chosen;
        s.isr = {chosen};
        s.leader_epoch = cur.leader_epoch + 1;
        changes.push_back({tp, s, "unclean"});
        continue;
      }
    }
    if (cur.leader != -1) {
      // Offline: no leader; the last ISR member is kept so that it can come back as leader.
      s.leader = -1;
      s.isr = isr_live.empty() ? cur.isr : isr_live;
      s.leader_epoch = cur.leader_epoch + 1;
      changes.push_back({tp, s, "offline"});
    }
  }
  return changes;
}

void Controller::emit_leader_change(const TopicPartition& tp, const LeaderIsrState& s, const char* reason) {
  rt_.emit(s.leader < 0 ? "partition_offline" : "leader_change",
           {{"topic", tp.topic},
            {"partition", tp.partition},
            {"leader", s.leader},
            {"leader_epoch", s.leader_epoch},
            {"isr", int_list(s.isr)},
            {"controller_epoch", s.controller_epoch},
            {"reason", reason}});
}

void Controller::write_changes(std::vector<Change> changes, Done done) {
  if (changes.empty()) return done();
  uint64_t gen = generation_;
  auto written = std::make_shared<std::set<TopicPartition>>();
  auto retry = std::make_shared<std::vector<TopicPartition>>();
  sequentially<Change>(
      std::move(changes),
      [this, gen, written, retry](const Change& c, std::function<void()> next) {
        auto& p = partitions_[c.tp];
        const std::string path = zk_paths::partition_state(c.tp.topic, c.tp.partition);
        std::vector<ZkOp> ops;
        ops.push_back(ZkOp::check(zk_paths::controller_epoch(), epoch_zk_version_));
        const bool create = p.zk_version < 0;
        if (create) {
          // Parents may exist already (a failed earlier attempt); create them outside the multi.
          zk_.create(zk_paths::partitions(c.tp.topic), {}, CreateMode::kPersistent, [](ZkError, std::string) {});
          zk_.create(zk_paths::partition(c.tp.topic, c.tp.partition), {}, CreateMode::kPersistent, [](ZkError, std::string) {});
          ops.push_back(ZkOp::create(path, c.state.encode(), CreateMode::kPersistent));
        } else {
          ops.push_back(ZkOp::set_data(path, c.state.encode(), p.zk_version));
        }
        zk_.multi(ops, [this, gen, c, create, written, retry, next](ZkError err, std::vector<coord::ZkOpResult> results) {
          if (gen != generation_) return;
          if (err == ZkError::kOk) {
            auto& part = partitions_[c.tp];
            part.state = c.state;
            part.zk_version = create ? 0 : results.at(1).stat.version;
            written->insert(c.tp);
            emit_leader_change(c.tp, c.state, c.reason);
            return next();
          }
          if (!results.empty() && results[0].error != ZkError::kOk) {
            // /controller_epoch moved on: another controller exists. Stop here.
            resign("controller epoch changed (fenced)");
            return;
          }
          // The state changed under us (a leader shrank or grew the ISR): read it and decide again.
          retry->push_back(c.tp);
          next();
        });
      },
      [this, gen, written, retry, done] {
        if (gen != generation_) return;
        auto finish = [this, gen, written, done] {
          if (gen != generation_) return;
          send_leader_and_isr(*written, live_ids());
          send_update_metadata(live_ids());
          done();
        };
        if (retry->empty()) return finish();
        read_partition_states(*retry, [this, gen, retry, finish] {
          if (gen != generation_) return;
          auto again = elect_offline(shutting_down_, "leader_failure");
          std::vector<Change> filtered;
          for (auto& c : again)
            if (std::find(retry->begin(), retry->end(), c.tp) != retry->end()) filtered.push_back(c);
          write_changes(std::move(filtered), finish);
        });
      });
}

// ---------------------------------------------------------------------------------------------
// Requests to brokers.

void Controller::send_leader_and_isr(const std::set<TopicPartition>& tps, const std::set<int32_t>& to_brokers) {
  for (int32_t b : to_brokers) {
    protocol::LeaderAndIsrRequest req;
    req.controller_id = config_.broker_id;
    req.controller_epoch = epoch_;
    std::set<int32_t> leaders;
    for (const auto& tp : tps) {
      const auto& p = partitions_.at(tp);
      if (!contains(p.replicas, b) || p.zk_version < 0) continue;
      if (req.topic_states.empty() || req.topic_states.back().topic_name != tp.topic)
        req.topic_states.push_back({tp.topic, {}});
      protocol::LeaderAndIsrRequest::LeaderAndIsrPartitionState ps;
      ps.partition_index = tp.partition;
      ps.controller_epoch = p.state.controller_epoch;
      ps.leader = p.state.leader;
      ps.leader_epoch = p.state.leader_epoch;
      ps.isr = p.state.isr;
      ps.zk_version = p.zk_version;
      ps.replicas = p.replicas;
      req.topic_states.back().partition_states.push_back(ps);
      if (p.state.leader >= 0) leaders.insert(p.state.leader);
    }
    if (req.topic_states.empty()) continue;
    for (int32_t l : leaders) {
      auto it = live_.find(l);
      if (it != live_.end()) req.live_leaders.push_back({l, it->second.host, it->second.port});
    }
    channel_.enqueue(b, req, protocol::kLeaderAndIsrVersion);
  }
}

void Controller::send_update_metadata(const std::set<int32_t>& to_brokers) {
  protocol::UpdateMetadataRequest req;
  req.controller_id = config_.broker_id;
  req.controller_epoch = epoch_;
  const std::set<int32_t> live = live_ids();
  for (const auto& [tp, p] : partitions_) {
    if (p.zk_version < 0) continue;
    if (req.topic_states.empty() || req.topic_states.back().topic_name != tp.topic)
      req.topic_states.push_back({tp.topic, {}});
    protocol::UpdateMetadataRequest::UpdateMetadataPartitionState ps;
    ps.partition_index = tp.partition;
    ps.controller_epoch = p.state.controller_epoch;
    ps.leader = p.state.leader;
    ps.leader_epoch = p.state.leader_epoch;
    ps.isr = p.state.isr;
    ps.zk_version = p.zk_version;
    ps.replicas = p.replicas;
    for (int32_t r : p.replicas)
      if (!live.count(r)) ps.offline_replicas.push_back(r);
    req.topic_states.back().partition_states.push_back(ps);
  }
  for (const auto& [id, reg] : live_) {
    protocol::UpdateMetadataRequest::UpdateMetadataBroker b;
    b.id = id;
    b.endpoints.push_back({reg.port, reg.host, "PLAINTEXT", protocol::kSecurityProtocolPlaintext});
    req.live_brokers.push_back(b);
  }
  for (int32_t b : to_brokers) channel_.enqueue(b, req, protocol::kUpdateMetadataVersion);
}

void Controller::send_stop_replica(int32_t broker, const std::vector<TopicPartition>& tps, bool delete_partitions) {
  if (tps.empty() || !live_.count(broker)) return;
  protocol::StopReplicaRequest req;
  req.controller_id = config_.broker_id;
  req.controller_epoch = epoch_;
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
  uint64_t gen = generation_;
  zk_.get_children(zk_paths::delete_topics(), true, [this, gen, done](ZkError err, std::vector<std::string> kids) {
    if (gen != generation_) return;
    if (err != ZkError::kOk || kids.empty()) return done();
    sequentially<std::string>(
        kids,
        [this, gen](const std::string& topic, std::function<void()> next) {
          std::vector<std::string> paths;  // deepest first
          auto it = topics_.find(topic);
          if (it != topics_.end()) {
            std::map<int32_t, std::vector<TopicPartition>> per_broker;
            for (const auto& [p, replicas] : it->second.partitions) {
              TopicPartition tp{topic, p};
              for (int32_t r : replicas) per_broker[r].push_back(tp);
              paths.push_back(zk_paths::partition_state(topic, p));
              paths.push_back(zk_paths::partition(topic, p));
              partitions_.erase(tp);
            }
            for (const auto& [b, tps] : per_broker) send_stop_replica(b, tps, true);
            paths.push_back(zk_paths::partitions(topic));
            paths.push_back(zk_paths::topic(topic));
            paths.push_back(zk_paths::topic_config(topic));
            topics_.erase(it);
            topic_configs_.erase(topic);
            rt_.emit("topic_deleted", {{"topic", topic}});
          }
          paths.push_back(zk_paths::delete_topic(topic));
          sequentially<std::string>(
              paths,
              [this, gen](const std::string& path, std::function<void()> next2) {
                zk_.remove(path, -1, [this, gen, next2](ZkError) {
                  if (gen == generation_) next2();
                });
              },
              next);
        },
        [this, gen, done] {
          if (gen != generation_) return;
          send_update_metadata(live_ids());
          done();
        });
  });
}

void Controller::on_isr_change_notification(Done done) {
  uint64_t gen = generation_;
  zk_.get_children(zk_paths::isr_change_notification(), true, [this, gen, done](ZkError err, std::vector<std::string> kids) {
    if (gen != generation_) return;
    if (err != ZkError::kOk || kids.empty()) return done();
    auto changed = std::make_shared<std::set<TopicPartition>>();
    sequentially<std::string>(
        kids,
        [this, gen, changed](const std::string& kid, std::function<void()> next) {
          const std::string path = zk_paths::isr_change_notification() + "/" + kid;
          zk_.get_data(path, false, [this, gen, path, changed, next](ZkError e2, Bytes data, coord::Stat) {
            if (gen != generation_) return;
            if (e2 == ZkError::kOk) {
              auto j = Json::parse(to_string(as_view(data)));
              if (j)
                for (const auto& p : (*j)["partitions"].as_array())
                  changed->insert(TopicPartition{p["topic"].as_string(), static_cast<int32_t>(p["partition"].as_int())});
            }
            zk_.remove(path, -1, [this, gen, next](ZkError) {
              if (gen == generation_) next();
            });
          });
        },
        [this, gen, changed, done] {
          if (gen != generation_) return;
          std::vector<TopicPartition> tps;
          for (const auto& tp : *changed)
            if (partitions_.count(tp)) tps.push_back(tp);
          read_partition_states(tps, [this, gen, done] {
            if (gen != generation_) return;
            send_update_metadata(live_ids());
            done();
          });
        });
  });
}

void Controller::controlled_shutdown(int32_t id,
                                     std::function<void(protocol::ErrorCode, std::vector<TopicPartition>)> reply) {
  if (!active_) return reply(protocol::ErrorCode::NOT_CONTROLLER, {});
  enqueue("controlled shutdown", [this, id, reply](Done done) {
    if (!live_.count(id)) {
      reply(protocol::ErrorCode::BROKER_NOT_AVAILABLE, {});
      return done();
    }
    shutting_down_.insert(id);
    rt_.emit("controlled_shutdown", {{"broker", id}});
    const std::set<int32_t> live = live_ids();
    std::vector<Change> changes;
    std::vector<TopicPartition> followed;
    for (const auto& [tp, p] : partitions_) {
      const LeaderIsrState& cur = p.state;
      if (p.zk_version < 0 || !contains(p.replicas, id)) continue;
      if (cur.leader == id) {
        int32_t chosen = -1;
        for (int32_t r : p.replicas)
          if (r != id && live.count(r) && !shutting_down_.count(r) && contains(cur.isr, r)) {
            chosen = r;
            break;
          }
        if (chosen < 0) continue;  // nobody else can lead: it stays (and goes offline on stop)
        LeaderIsrState s = cur;
        s.leader = chosen;
        s.isr.erase(std::remove(s.isr.begin(), s.isr.end(), id), s.isr.end());
        s.leader_epoch = cur.leader_epoch + 1;
        s.controller_epoch = epoch_;
        changes.push_back({tp, s, "controlled_shutdown"});
      } else if (contains(cur.isr, id) && cur.isr.size() > 1) {
        LeaderIsrState s = cur;
        s.isr.erase(std::remove(s.isr.begin(), s.isr.end(), id), s.isr.end());
        s.leader_epoch = cur.leader_epoch + 1;
        s.controller_epoch = epoch_;
        changes.push_back({tp, s, "controlled_shutdown"});
        followed.push_back(tp);
      }
    }
    uint64_t gen = generation_;
    write_changes(std::move(changes), [this, gen, id, followed, reply, done] {
      if (gen != generation_) return;
      send_stop_replica(id, followed, false);
      std::vector<TopicPartition> remaining;
      for (const auto& [tp, p] : partitions_)
        if (p.state.leader == id) remaining.push_back(tp);
      reply(protocol::ErrorCode::NONE, remaining);
      done();
    });
  });
}

void Controller::preferred_leader_election(std::vector<TopicPartition> tps) {
  if (!active_) return;
  enqueue("preferred leader election", [this, tps](Done done) {
    const std::set<int32_t> live = live_ids();
    std::vector<Change> changes;
    for (const auto& [tp, p] : partitions_) {
      if (!tps.empty() && std::find(tps.begin(), tps.end(), tp) == tps.end()) continue;
      if (p.zk_version < 0 || p.replicas.empty()) continue;
      int32_t preferred = p.replicas.front();
      if (p.state.leader == preferred || !live.count(preferred) || shutting_down_.count(preferred) ||
          !contains(p.state.isr, preferred))
        continue;
      LeaderIsrState s = p.state;
      s.leader = preferred;
      s.leader_epoch = p.state.leader_epoch + 1;
      s.controller_epoch = epoch_;
      changes.push_back({tp, s, "preferred"});
    }
    write_changes(std::move(changes), done);
  });
}

void Controller::check_preferred_leaders(Done done) {
  // leader.imbalance.per.broker.percentage = 10: a broker whose preferred partitions are led
  // elsewhere more than 10% of the time gets them back.
  std::map<int32_t, std::pair<int, int>> per_broker;  // preferred count, not-leading count
  for (const auto& [tp, p] : partitions_) {
    if (p.replicas.empty() || p.zk_version < 0) continue;
    auto& c = per_broker[p.replicas.front()];
    c.first++;
    if (p.state.leader != p.replicas.front()) c.second++;
  }
  std::vector<TopicPartition> tps;
  for (const auto& [b, c] : per_broker)
    if (c.first > 0 && c.second * 10 > c.first)
      for (const auto& [tp, p] : partitions_)
        if (!p.replicas.empty() && p.replicas.front() == b && p.state.leader != b) tps.push_back(tp);
  uint64_t gen = generation_;
  rebalance_timer_ = rt_.after(Duration::seconds(config_.leader_imbalance_check_interval_seconds), [this, gen] {
    if (gen == generation_) enqueue("auto leader rebalance", [this](Done d) { check_preferred_leaders(std::move(d)); });
  });
  if (!tps.empty()) preferred_leader_election(tps);
  done();
}

}  // namespace gregor::broker
