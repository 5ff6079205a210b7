#include "engine/broker/replica_manager.h"

#include <algorithm>

#include "engine/broker/async_steps.h"
#include "engine/broker/hw_checkpoint.h"
#include "engine/broker/zk_data.h"
#include "engine/core/json.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;

namespace {
constexpr int64_t kRetentionCheckIntervalMs = 300000;  // log.retention.check.interval.ms
constexpr int64_t kFileDeleteDelayMs = 60000;          // file.delete.delay.ms
constexpr const char* kPartitionMetadataFile = "partition.metadata";
constexpr const char* kDeletedDirSuffix = "-delete";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
// In a damaged replica's directory (ReplicaManager's header): where its log ended and why.
constexpr const char* kDamagedReplicaFile = "replica-damaged";

std::string damaged_path(const TopicPartition& tp) { return tp.str() + "/" + kDamagedReplicaFile; }

// The topic a thread's last partition() found, and its slots: a fetch names its partitions topic by
// topic, so most lookups are of the topic just looked up, and comparing the name is cheaper than
// hashing it and searching the bucket. Valid while index_generation is what it was when filled:
// every change to an index_ (and every new ReplicaManager, which may live where a destroyed one
// did) moves it on.
thread_local uint64_t index_generation = 0;
struct LastTopic {
  const void* owner = nullptr;
  uint64_t generation = 0;
  std::string topic;
  const std::vector<Partition*>* slots = nullptr;
};
thread_local LastTopic last_topic;

}  // namespace

ReplicaManager::ReplicaManager(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk, protocol::NetworkClient& net)
    : rt_(rt),
      config_(config),
      zk_(zk),
      disk_(rt),
      fetcher_(rt, config, net, [this](const TopicPartition& tp) { return partition(tp); }),
      produce_purgatory_(rt),
      fetch_purgatory_(rt),
      delete_records_purgatory_(rt),
      fetch_sessions_(rt.rng()) {
  index_generation++;
}

Partition* ReplicaManager::partition(std::string_view topic, int32_t partition) {
  const std::vector<Partition*>* slots = nullptr;
  if (last_topic.owner == this && last_topic.generation == index_generation && last_topic.topic == topic) {
    slots = last_topic.slots;
  } else {
    auto it = index_.find(topic);
    if (it == index_.end()) return nullptr;
    slots = &it->second;
    last_topic.owner = this;
    last_topic.generation = index_generation;
    last_topic.topic.assign(topic);
    last_topic.slots = slots;
  }
  if (partition < 0 || static_cast<size_t>(partition) >= slots->size()) return nullptr;
  return (*slots)[static_cast<size_t>(partition)];
}

// ---------------------------------------------------------------------------------------------
// Periodic work.

void ReplicaManager::load_checkpoint() {
  auto hws = read_hw_checkpoint(disk_);
  if (hws)
    checkpointed_hw_ = *hws;
  else
    rt_.log("ignoring " + std::string(kHwCheckpointFile) + ": " + hws.status().to_string());
  auto names = disk_.list("");
  if (names)
    for (const auto& name : *names)
      if (ends_with(name, kDeletedDirSuffix)) {
        Status s = log::Log::remove_all(disk_, name);
        if (!s.is_ok()) rt_.log("cannot remove " + name + ": " + s.to_string());
      }
}

void ReplicaManager::check_logs() {
  auto names = disk_.list("");
  if (!names) {
    rt_.log("cannot list the data directory: " + names.status().to_string());
    return;
  }
  for (const std::string& name : *names) {
    std::string topic;
    int32_t partition = 0;
    if (!log::parse_log_dir_name(name, &topic, &partition)) continue;
    const TopicPartition tp{topic, partition};
    if (disk_.exists(damaged_path(tp))) {
      damaged_.insert(tp);
      rt_.log("replica " + tp.str() + " is still damaged (" + kDamagedReplicaFile + ")");
      continue;
    }
    // The topic's own config is not known yet (it is read from zk at the first LeaderAndIsr); the
    // broker's defaults open the log as well, and this Log is closed again at once.
    log::RecoveryReport report;
    log::OpenOptions options;
    options.verify_all_segments = true;
    options.repair_corruption = true;
    auto lg = log::Log::load(disk_, name, config_.topic_defaults.log_config(), rt_.now(), &report, options);
    if (!lg) {
      rt_.log("cannot open log " + tp.str() + ": " + lg.status().to_string());
      continue;
    }
    if (report.damaged) mark_damaged(tp, report);
  }
}

void ReplicaManager::mark_damaged(const TopicPartition& tp, const log::RecoveryReport& report) {
  // The detail names the file and byte already when the scan found the bad batch itself.
  const std::string detail = report.corruption_detail.rfind(report.corruption_path, 0) == 0
                                 ? report.corruption_detail
                                 : report.corruption_path + " at byte " + std::to_string(report.corruption_position) + ": " +
                                       report.corruption_detail;
  Status s = disk_.write_file_atomic(damaged_path(tp), as_view(to_bytes(std::to_string(report.log_end_offset.value) +
                                                                                " " + detail + "\n")));
  if (!s.is_ok()) rt_.log("cannot write " + damaged_path(tp) + ": " + s.to_string());
  damaged_.insert(tp);
  rt_.log("replica " + tp.str() + " is damaged: its log ends at " + std::to_string(report.log_end_offset.value) +
          " (recovery point " + std::to_string(report.recovery_point.value) + "), " + detail +
          "; it may not lead until it is out of the ISR and has caught up");
  rt_.emit(ev::ReplicaDamaged{.topic = tp.topic,
                              .partition = tp.partition,
                              .leo = report.log_end_offset.value,
                              .recovery_point = report.recovery_point.value,
                              .detail = detail});
}

void ReplicaManager::clear_damage(const TopicPartition& tp, int32_t leader_epoch, const char* reason) {
  if (!damaged_.erase(tp)) return;
  late_damage_.erase(tp);
  Status s = disk_.remove(damaged_path(tp));
  if (!s.is_ok() && s.code() != StatusCode::kNotFound) rt_.log("cannot remove " + damaged_path(tp) + ": " + s.to_string());
  rt_.log("replica " + tp.str() + " is no longer damaged (" + reason + ")");
  rt_.emit(ev::ReplicaDamageCleared{.topic = tp.topic, .partition = tp.partition, .leader_epoch = leader_epoch, .reason = reason});
  if (damage_listener_) damage_listener_();
}

void ReplicaManager::flush_all() {
  for (auto& [tp, p] : partitions_) {
    Status s = p->log().flush();
    if (!s.is_ok()) rt_.log("flush of " + tp.str() + " failed: " + s.to_string());
    // Kafka's clean shutdown: a producer snapshot at the log end, so the next start scans nothing.
    if (s.is_ok()) p->take_producer_snapshot();
  }
  write_high_watermarks();
}

void ReplicaManager::write_high_watermarks() {
  std::map<TopicPartition, int64_t> hws = checkpointed_hw_;
  for (const auto& [tp, p] : partitions_) hws[tp] = p->high_watermark().value;
  Status s = write_hw_checkpoint(disk_, hws);
  if (s.is_ok())
    checkpointed_hw_ = std::move(hws);
  else
    rt_.log("high watermark checkpoint failed: " + s.to_string());
}

void ReplicaManager::start_ticks() {
  rt_.after(Duration::millis(config_.replica_high_watermark_checkpoint_interval_ms), [this] { checkpoint_high_watermarks(); });
  rt_.after(Duration::millis(std::max<int64_t>(1, config_.replica_lag_time_max_ms / 2)), [this] { shrink_isr_tick(); });
  rt_.after(Duration::millis(kRetentionCheckIntervalMs), [this] { retention_tick(); });
}

void ReplicaManager::checkpoint_high_watermarks() {
  write_high_watermarks();
  rt_.after(Duration::millis(config_.replica_high_watermark_checkpoint_interval_ms), [this] { checkpoint_high_watermarks(); });
}

void ReplicaManager::retention_tick() {
  for (auto& [tp, p] : partitions_) {
    auto deleted = p->log().apply_retention(rt_.now());
    if (deleted && *deleted > 0)
      rt_.emit(ev::LogRetention{.topic = tp.topic,
                                .partition = tp.partition,
                                .segments_deleted = *deleted,
                                .log_start = p->log_start_offset().value});
  }
  rt_.after(Duration::millis(kRetentionCheckIntervalMs), [this] { retention_tick(); });
}

void ReplicaManager::shrink_isr_tick() {
  for (auto& [tp, p] : partitions_) p->maybe_shrink_isr(rt_.now());
  rt_.after(Duration::millis(std::max<int64_t>(1, config_.replica_lag_time_max_ms / 2)), [this] { shrink_isr_tick(); });
}

// ---------------------------------------------------------------------------------------------
// Requests from the controller.

bool ReplicaManager::accept_controller_epoch(int32_t controller_epoch) {
  if (controller_epoch < highest_controller_epoch_) return false;
  highest_controller_epoch_ = controller_epoch;
  return true;
}

Partition* ReplicaManager::get_or_create_partition(const TopicPartition& tp) {
  if (Partition* p = partition(tp)) return p;
  TopicConfig tc = config_.topic_defaults;
  auto cit = topic_configs_.find(tp.topic);
  if (cit != topic_configs_.end()) tc = cit->second;
  log::RecoveryReport report;
  log::OpenOptions options;
  options.repair_corruption = true;
  auto lg = log::Log::load(disk_, tp.str(), tc.log_config(), rt_.now(), &report, options);
  if (lg && report.damaged && !damaged_.count(tp)) {
    mark_damaged(tp, report);
    if (broker_epoch_source_ && broker_epoch_source_() >= 0) {
      late_damage_[tp] = -1;
      if (damage_listener_) damage_listener_();  // the registration now names it
    }
  }
  if (!lg) {
    rt_.log("cannot open log " + tp.str() + ": " + lg.status().to_string());
    rt_.emit(ev::LogError{.topic = tp.topic, .partition = tp.partition, .error = lg.status().to_string()});
    return nullptr;
  }
  auto p = std::make_unique<Partition>(rt_, *this, tp, NodeId{config_.broker_id}, std::move(*lg), tc, config_);
  auto hw = checkpointed_hw_.find(tp);
  if (hw != checkpointed_hw_.end()) p->restore_high_watermark(Offset{hw->second});
  Partition* raw = p.get();
  raw->log().set_event_listener([this](const log::LogEvent& e) {
    if (e.kind == log::LogEvent::Kind::kLogStartOffsetChanged) log_start_changes_++;
  });
  partitions_[tp] = std::move(p);
  if (tp.partition >= 0) {
    index_generation++;
    std::vector<Partition*>& slots = index_[tp.topic];
    if (slots.size() <= static_cast<size_t>(tp.partition)) slots.resize(static_cast<size_t>(tp.partition) + 1, nullptr);
    slots[static_cast<size_t>(tp.partition)] = raw;
  }
  return raw;
}

void ReplicaManager::become_leader_or_follower(std::shared_ptr<const protocol::LeaderAndIsrRequest> request,
                                               std::function<void(protocol::LeaderAndIsrResponse)> done) {
  // Topics this broker has not hosted yet: read their config overrides first, so their logs and
  // partitions open with them (min.insync.replicas, segment.bytes, ...).
  std::vector<std::string> unknown;
  for (const auto& ts : request->topic_states)
    if (!topic_configs_.count(ts.topic_name)) unknown.push_back(ts.topic_name);
  sequentially<std::string>(
      unknown,
      [this](const std::string& topic, std::function<void()> next) {
        zk_.get_data(zk_paths::topic_config(topic), false, [this, topic, next](ZkError err, Bytes data, coord::Stat) {
          TopicConfig tc = config_.topic_defaults;
          if (err == ZkError::kOk) {
            auto overrides = decode_topic_config(as_view(data));
            if (overrides) {
              Status s = tc.apply(*overrides);
              if (!s.is_ok()) rt_.log("topic " + topic + ": " + s.to_string());
            }
          }
          topic_configs_[topic] = tc;
          next();
        });
      },
      [this, request, done] {
        protocol::LeaderAndIsrResponse resp;
        for (const auto& ts : request->topic_states) {
          resp.topics.push_back({});
          resp.topics.back().topic_id = ts.topic_id;
          for (const auto& ps : ts.partition_states) {
            TopicPartition tp{ts.topic_name, ps.partition_index};
            const ErrorCode code = become(tp, ts.topic_id, ps, request->broker_epoch);
            resp.partition_errors.push_back({tp.topic, tp.partition, code});  // v0-4
            resp.topics.back().partition_errors.push_back({tp.topic, tp.partition, code});  // v5+
          }
        }
        recheck_all_waiting();  // leaders that became followers fail their waiting produces
        done(std::move(resp));
      });
}

ErrorCode ReplicaManager::become(const TopicPartition& tp, const Uuid& topic_id,
                                 const protocol::LeaderAndIsrRequest::LeaderAndIsrPartitionState& ps, int64_t broker_epoch) {
  if (std::find(ps.replicas.begin(), ps.replicas.end(), config_.broker_id) == ps.replicas.end())
    return ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  if (!topic_id.is_zero()) {
    // Data of another incarnation of this topic (deleted while this broker was away) never shows
    // through: it is retired before the partition opens.
    auto known = topic_ids_.find(tp);
    std::optional<Uuid> stored = known != topic_ids_.end() ? std::optional<Uuid>(known->second) : stored_topic_id(tp);
    if (stored && *stored != topic_id) {
      rt_.emit(ev::StaleTopicIncarnation{.topic = tp.topic,
                                         .partition = tp.partition,
                                         .stale_topic_id = stored->to_string(),
                                         .topic_id = topic_id.to_string()});
      delete_partition(tp);
    }
  }
  Partition* p = get_or_create_partition(tp);
  if (!p) return ErrorCode::KAFKA_STORAGE_ERROR;
  if (!topic_id.is_zero() && !topic_ids_.count(tp)) store_topic_id(tp, topic_id);
  if (damaged_.count(tp)) {
    const bool in_isr = std::find(ps.isr.begin(), ps.isr.end(), config_.broker_id) != ps.isr.end();
    // Only a controller that read this incarnation's registration knows the replica is damaged: a
    // request naming an older registration (its ephemeral znode outlives a crash until the session
    // expires) or sent before this broker registered proves nothing, and must not make it a leader.
    const int64_t mine = broker_epoch_source_ ? broker_epoch_source_() : -1;
    bool knows_damage = mine >= 0 && broker_epoch == mine;
    if (auto late = late_damage_.find(tp); late != late_damage_.end()) {
      if (late->second < 0) late->second = ps.leader_epoch;
      if (ps.leader_epoch <= late->second) knows_damage = false;  // sent before the damage was reported
    }
    if (!knows_damage) {
      if (ps.leader == config_.broker_id) {
        rt_.log("refusing leadership of damaged replica " + tp.str() + " from a controller that has not seen its registration");
        rt_.emit(ev::DamagedLeaderRefused{.topic = tp.topic, .partition = tp.partition, .leader_epoch = ps.leader_epoch, .isr = ps.isr});
        return ErrorCode::KAFKA_STORAGE_ERROR;
      }
    } else if (!in_isr) {
      clear_damage(tp, ps.leader_epoch, "out_of_isr");
    } else if (ps.leader == config_.broker_id && ps.isr.size() == 1) {
      clear_damage(tp, ps.leader_epoch, "unclean_leader");
    } else if (ps.leader == config_.broker_id) {
      // A controller that did not know made it a clean leader: followers would truncate to it.
      rt_.log("refusing leadership of damaged replica " + tp.str() + " at leader epoch " + std::to_string(ps.leader_epoch));
      rt_.emit(ev::DamagedLeaderRefused{.topic = tp.topic, .partition = tp.partition, .leader_epoch = ps.leader_epoch, .isr = ps.isr});
      return ErrorCode::KAFKA_STORAGE_ERROR;
    }
  }
  PartitionAssignmentState st;
  st.controller_epoch = ps.controller_epoch;
  st.leader = NodeId{ps.leader};
  st.leader_epoch = LeaderEpoch{ps.leader_epoch};
  st.isr = to_replicas(ps.isr);
  st.zk_version = ps.zk_version;
  st.replicas = to_replicas(ps.replicas);
  st.is_new = ps.is_new;
  if (ps.leader == config_.broker_id) {
    if (!p->make_leader(st, rt_.now())) return ErrorCode::STALE_CONTROLLER_EPOCH;
    fetcher_.remove_partition(tp);
    return ErrorCode::NONE;
  }
  const bool same_leader = p->role() == Role::kFollower && p->leader().value == ps.leader;
  if (!p->make_follower(st, rt_.now())) return ErrorCode::STALE_CONTROLLER_EPOCH;
  // Kafka 1.1 to 2.0 (KAFKA-7164): a follower whose leader did not change kept fetching, without
  // truncating, whatever epochs it missed. Kafka 2.1+ truncates on every epoch change.
  if (config_.truncate_on_leader_change_only && same_leader &&
      fetcher_.update_epoch_keeping_state(tp, ps.leader, ps.leader_epoch))
    return ErrorCode::NONE;
  fetcher_.remove_partition(tp);
  if (ps.leader >= 0) fetcher_.add_partition(tp, ps.leader, ps.leader_epoch);
  return ErrorCode::NONE;
}

protocol::StopReplicaResponse ReplicaManager::stop_replicas(const protocol::StopReplicaRequest& request) {
  protocol::StopReplicaResponse resp;
  for (const auto& t : request.topics)
    for (int32_t pi : t.partition_indexes) {
      TopicPartition tp{t.name, pi};
      fetcher_.remove_partition(tp);
      Partition* p = partition(tp);
      if (p) p->make_offline();
      // A partition not open here (this broker restarted and was not told of it yet) has its
      // files deleted too: they would otherwise show through a new topic of the same name.
      auto files = disk_.list(tp.str());  // (the simulator has no directories, only files in them)
      if (request.delete_partitions && (p || (files && !files->empty()))) {
        delete_partition(tp);
        rt_.emit(ev::PartitionDeleted{.topic = tp.topic, .partition = tp.partition});
      }
      resp.partition_errors.push_back({tp.topic, tp.partition, ErrorCode::NONE});
    }
  if (request.delete_partitions)
    for (const auto& t : request.topics) topic_configs_.erase(t.name);
  recheck_all_waiting();
  return resp;
}

std::optional<Uuid> ReplicaManager::stored_topic_id(const TopicPartition& tp) {
  const std::string path = tp.str() + "/" + kPartitionMetadataFile;
  if (!disk_.exists(path)) return std::nullopt;
  auto bytes = disk_.read_all(path);
  if (!bytes) return std::nullopt;
  const std::string text = to_string(as_view(*bytes));
  const std::string key = "topic_id: ";
  const size_t at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  const size_t end = text.find('\n', at);
  return Uuid::parse(text.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size()));
}

void ReplicaManager::store_topic_id(const TopicPartition& tp, const Uuid& topic_id) {
  topic_ids_[tp] = topic_id;
  const std::string text = "version: 0\ntopic_id: " + topic_id.to_string() + "\n";
  Status s = disk_.write_file_atomic(tp.str() + "/" + kPartitionMetadataFile, as_view(to_bytes(text)));
  if (!s.is_ok()) rt_.log("cannot write " + tp.str() + "/" + kPartitionMetadataFile + ": " + s.to_string());
}

void ReplicaManager::delete_partition(const TopicPartition& tp) {
  fetcher_.remove_partition(tp);
  if (Partition* p = partition(tp)) p->make_offline();
  partitions_.erase(tp);
  if (auto it = index_.find(tp.topic); it != index_.end() && tp.partition >= 0 && static_cast<size_t>(tp.partition) < it->second.size()) {
    index_generation++;
    it->second[static_cast<size_t>(tp.partition)] = nullptr;
    if (std::all_of(it->second.begin(), it->second.end(), [](Partition* q) { return q == nullptr; })) index_.erase(it);
  }
  checkpointed_hw_.erase(tp);
  topic_ids_.erase(tp);
  retire_log_dir(tp);  // the damage mark goes with the data
  late_damage_.erase(tp);
  if (damaged_.erase(tp) && damage_listener_) damage_listener_();
}

void ReplicaManager::retire_log_dir(const TopicPartition& tp) {
  const std::string dir = tp.str();
  auto files = disk_.list(dir);
  if (!files || files->empty()) return;
  // Kafka names it with a random Uuid without dashes: 32 hex digits.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string unique;
  for (int word = 0; word < 2; word++) {
    const uint64_t bits = rt_.rng().next_u64();
    for (int shift = 60; shift >= 0; shift -= 4) unique += kHex[(bits >> shift) & 0xF];
  }
  const std::string retired = dir + "." + unique + kDeletedDirSuffix;
  for (const auto& f : *files) {
    Status s = disk_.rename(dir + "/" + f, retired + "/" + f);
    if (!s.is_ok()) rt_.log("cannot move " + dir + "/" + f + ": " + s.to_string());
  }
  (void)disk_.remove(dir);  // the emptied directory on real files; the simulator has none
  rt_.after(Duration::millis(kFileDeleteDelayMs), [this, retired] {
    Status s = log::Log::remove_all(disk_, retired);
    if (!s.is_ok()) rt_.log("cannot remove " + retired + ": " + s.to_string());
  });
}

bool ReplicaManager::update_topic_config(const std::string& topic, const TopicConfig& config) {
  if (!topic_configs_.count(topic)) return false;
  topic_configs_[topic] = config;
  for (auto& [tp, p] : partitions_) {
    if (tp.topic != topic) continue;
    Status u = p->update_config(config);
    if (!u.is_ok()) rt_.log("topic " + topic + ": " + u.to_string());
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Partition progress, ISR writes, waiting requests.

void ReplicaManager::write_isr(Partition& p, const LeaderIsrState& new_state, int32_t expected_zk_version) {
  const TopicPartition tp = p.tp();
  zk_.set_data(zk_paths::partition_state(tp.topic, tp.partition), new_state.encode(), expected_zk_version,
               [this, tp, new_state](ZkError err, coord::Stat st) {
                 Partition* part = partition(tp);
                 if (!part) return;
                 part->on_isr_write_result(err == ZkError::kOk, new_state, st.version);
                 if (err != ZkError::kOk) return;
                 // Tell the controller, which propagates the new ISR with UpdateMetadata.
                 Json::Object entry;
                 entry["topic"] = Json(tp.topic);
                 entry["partition"] = Json(tp.partition);
                 Json::Object note;
                 note["version"] = Json(1);
                 note["partitions"] = Json(Json::Array{Json(std::move(entry))});
                 zk_.create(zk_paths::isr_change_prefix(), to_bytes(Json(std::move(note)).dump()),
                            CreateMode::kPersistentSequential, [](ZkError, std::string) {});
               });
}

void ReplicaManager::on_partition_progress(Partition& p) {
  produce_purgatory_.mark(p.tp());
  fetch_purgatory_.mark(p.tp());
  delete_records_purgatory_.mark(p.tp());
  schedule_waiting_check();
  if (progress_listener_) progress_listener_(p.tp());
}

void ReplicaManager::on_low_watermark_change(const TopicPartition& tp) {
  if (delete_records_purgatory_.waiting() == 0) return;
  delete_records_purgatory_.mark(tp);
  schedule_waiting_check();
}

void ReplicaManager::recheck_all_waiting() {
  produce_purgatory_.mark_all();
  fetch_purgatory_.mark_all();
  delete_records_purgatory_.mark_all();
  schedule_waiting_check();
}

void ReplicaManager::schedule_waiting_check() {
  if (waiting_check_scheduled_) return;
  if (produce_purgatory_.waiting() == 0 && fetch_purgatory_.waiting() == 0 && delete_records_purgatory_.waiting() == 0) return;
  waiting_check_scheduled_ = true;
  rt_.after(Duration{0}, [this] {
    waiting_check_scheduled_ = false;
    produce_purgatory_.try_marked();
    fetch_purgatory_.try_marked();
    delete_records_purgatory_.try_marked();
  });
}

}  // namespace gregor::broker
