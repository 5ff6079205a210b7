#include "engine/broker/admin_manager.h"

#include <algorithm>
#include <set>

#include "engine/protocol/topic_name.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;
using protocol::ErrorCode;

namespace {
std::string zk_failure(ZkError e) { return std::string("zk: ") + coord::zk_error_name(e); }

// Limits on partitions, checked before anything is allocated or written: one request for
// 2,147,483,647 partitions made the controller allocate until the kernel killed it, and 100,000
// made an assignment znode larger than ZooKeeper accepts. Kafka has neither limit (KIP-578 proposed
// them); Gregor refuses what it could not hold. A topic's assignment of this many partitions stays
// well inside one znode (jute.maxbuffer, 1 MiB).
constexpr int64_t kTopicPartitionsMax = 10000;
constexpr int64_t kClusterPartitionsMax = 100000;
}  // namespace

bool valid_topic_name(const std::string& t) { return protocol::valid_topic_name(t); }

std::optional<std::string> AdminManager::colliding_topic(const std::string& name) const {
  const std::string key = protocol::topic_collision_key(name);
  for (const auto& existing : metadata_.topics())
    if (existing != name && protocol::topic_collision_key(existing) == key) return existing;
  return std::nullopt;
}

std::pair<ErrorCode, std::string> AdminManager::partition_limit_problem(int64_t partitions, int64_t planned) const {
  if (partitions < 1) return {ErrorCode::INVALID_PARTITIONS, "Number of partitions must be larger than 0."};
  if (partitions > kTopicPartitionsMax)
    return {ErrorCode::INVALID_PARTITIONS, "Number of partitions " + std::to_string(partitions) + " is more than " +
                                               std::to_string(kTopicPartitionsMax) + ", the most one topic may have."};
  const int64_t total = static_cast<int64_t>(metadata_.partitions().size()) + planned + partitions;
  if (total > kClusterPartitionsMax)
    return {ErrorCode::POLICY_VIOLATION, "The cluster would have " + std::to_string(total) + " partitions, more than " +
                                             std::to_string(kClusterPartitionsMax) + "."};
  return {ErrorCode::NONE, ""};
}

// ---------------------------------------------------------------------------------------------
// Topics.

std::vector<int32_t> AdminManager::live_broker_ids() const {
  std::vector<int32_t> brokers;
  if (controller_.is_active())
    for (const auto& [id, reg] : controller_.live_brokers()) brokers.push_back(id);
  else
    for (const auto& [id, b] : metadata_.brokers()) brokers.push_back(id);
  if (brokers.empty()) brokers.push_back(config_.broker_id);
  return brokers;
}

std::map<int32_t, std::vector<int32_t>> place_replicas_from(const std::vector<int32_t>& brokers, int32_t first_partition,
                                                            int32_t partitions, int32_t replication_factor,
                                                            int32_t start_index, int32_t next_shift) {
  const int32_t n = static_cast<int32_t>(brokers.size());
  GREGOR_ASSERT(replication_factor >= 1 && replication_factor <= n);
  // Kafka's rack-unaware assignment: replicas shifted per round of brokers.
  std::map<int32_t, std::vector<int32_t>> assignment;
  for (int32_t i = 0; i < partitions; i++) {
    if (i > 0 && i % n == 0) next_shift++;
    const int32_t first = (i + start_index) % n;
    std::vector<int32_t> replicas{brokers[static_cast<size_t>(first)]};
    for (int32_t j = 0; j < replication_factor - 1; j++) {
      int32_t shift = 1 + (next_shift + j) % (n - 1);
      replicas.push_back(brokers[static_cast<size_t>((first + shift) % n)]);
    }
    assignment[first_partition + i] = replicas;
  }
  return assignment;
}

std::map<int32_t, std::vector<int32_t>> AdminManager::place_replicas(const std::vector<int32_t>& brokers,
                                                                     int32_t first_partition, int32_t partitions,
                                                                     int32_t replication_factor) {
  const int32_t n = static_cast<int32_t>(brokers.size());
  GREGOR_ASSERT(replication_factor >= 1 && replication_factor <= n);
  // A random start and shift, as Kafka draws them.
  const int32_t start_index = static_cast<int32_t>(rt_.rng().uniform(static_cast<uint64_t>(n)));
  const int32_t next_shift = static_cast<int32_t>(rt_.rng().uniform(static_cast<uint64_t>(n)));
  return place_replicas_from(brokers, first_partition, partitions, replication_factor, start_index, next_shift);
}

void AdminManager::create_topic(const std::string& name, int32_t num_partitions, int32_t replication_factor,
                                const std::map<std::string, std::string>& configs, Done done) {
  const std::vector<int32_t> brokers = live_broker_ids();
  const int32_t n = static_cast<int32_t>(brokers.size());
  if (auto [code, message] = partition_limit_problem(num_partitions, 0); code != ErrorCode::NONE) return done(code, message);
  if (replication_factor < 1 || replication_factor > n)
    return done(ErrorCode::INVALID_REPLICATION_FACTOR,
                "replication factor " + std::to_string(replication_factor) + " is larger than the " +
                    std::to_string(n) + " available brokers");
  create_topic_with_assignment(name, place_replicas(brokers, 0, num_partitions, replication_factor), configs, std::move(done));
}

void AdminManager::add_partitions(const std::string& topic, int32_t count,
                                  std::optional<std::vector<std::vector<int32_t>>> assignment, bool validate_only, Done done) {
  const std::string path = zk_paths::topic(topic);
  zk_.get_data(path, false, [this, topic, count, assignment, validate_only, path, done](ZkError err, Bytes data, coord::Stat stat) {
    if (err == ZkError::kNoNode) return done(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + topic + "' does not exist.");
    if (err != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(err));
    auto a = TopicAssignment::decode(as_view(data));
    if (!a || a->partitions.empty()) return done(ErrorCode::UNKNOWN_SERVER_ERROR, "unreadable assignment of " + topic);
    // As Kafka's AdminZkClient: a topic whose partitions are moving does not grow meanwhile.
    if (!a->adding.empty() || !a->removing.empty())
      return done(ErrorCode::REASSIGNMENT_IN_PROGRESS, "A partition reassignment is in progress.");
    const int32_t current = static_cast<int32_t>(a->partitions.size());
    if (count < current)
      return done(ErrorCode::INVALID_PARTITIONS, "Topic currently has " + std::to_string(current) +
                                                     " partitions, which is higher than the requested " +
                                                     std::to_string(count) + ".");
    if (count == current)
      return done(ErrorCode::INVALID_PARTITIONS, "Topic already has " + std::to_string(current) + " partitions.");
    if (auto [code, message] = partition_limit_problem(count, -current); code != ErrorCode::NONE) return done(code, message);
    const int32_t rf = static_cast<int32_t>(a->partitions.begin()->second.size());
    const std::vector<int32_t> brokers = live_broker_ids();
    std::map<int32_t, std::vector<int32_t>> added;
    if (assignment) {
      // Kafka's checks of a hand-made placement (AdminZkClient.validateReplicaAssignment).
      if (static_cast<int32_t>(assignment->size()) != count - current)
        return done(ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                    "Increasing the number of partitions by " + std::to_string(count - current) + " but " +
                        std::to_string(assignment->size()) + " assignments provided.");
      std::set<int32_t> known;
      for (const auto& [id, b] : metadata_.brokers()) known.insert(id);
      for (int32_t id : brokers) known.insert(id);
      for (size_t i = 0; i < assignment->size(); i++) {
        const auto& replicas = (*assignment)[i];
        const int32_t p = current + static_cast<int32_t>(i);
        if (replicas.empty())
          return done(ErrorCode::INVALID_REPLICA_ASSIGNMENT, "Cannot have replication factor of 0 for partition id " + std::to_string(p) + ".");
        if (std::set<int32_t>(replicas.begin(), replicas.end()).size() != replicas.size())
          return done(ErrorCode::INVALID_REPLICA_ASSIGNMENT, "Duplicate brokers not allowed in replica assignment: " +
                                                                 int_list(replicas) + " for partition id " + std::to_string(p) + ".");
        if (static_cast<int32_t>(replicas.size()) != rf)
          return done(ErrorCode::INVALID_REPLICA_ASSIGNMENT, "Inconsistent replication factor between partitions, partition 0 has " +
                                                                 std::to_string(rf) + " while partition " + std::to_string(p) +
                                                                 " has replication factor " + std::to_string(replicas.size()) + ".");
        for (int32_t r : replicas)
          if (!known.count(r))
            return done(ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                        "Unknown broker(s) in replica assignment: " + std::to_string(r) + ".");
        added[p] = replicas;
      }
    } else {
      if (rf > static_cast<int32_t>(brokers.size()))
        return done(ErrorCode::INVALID_REPLICATION_FACTOR, "Replication factor: " + std::to_string(rf) +
                                                               " larger than available brokers: " +
                                                               std::to_string(brokers.size()) + ".");
      added = place_replicas(brokers, current, count - current, rf);
    }
    if (validate_only) return done(ErrorCode::NONE, "");
    for (auto& [p, replicas] : added) a->partitions[p] = replicas;
    zk_.set_data(path, a->encode(), stat.version, [this, topic, count, assignment, done](ZkError e2, coord::Stat) {
      // Someone else changed the assignment meanwhile: decide again on what it is now.
      if (e2 == ZkError::kBadVersion) return add_partitions(topic, count, assignment, false, done);
      if (e2 == ZkError::kNoNode) return done(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + topic + "' does not exist.");
      if (e2 != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(e2));
      done(ErrorCode::NONE, "");
    });
  });
}

void AdminManager::create_topic_with_assignment(const std::string& name,
                                                const std::map<int32_t, std::vector<int32_t>>& assignment,
                                                const std::map<std::string, std::string>& configs, Done done) {
  TopicAssignment a;
  a.partitions = assignment;
  a.topic_id = random_uuid(rt_.rng());  // Kafka 2.8+ names every new topic with an id
  // The config first, then the assignment (whose creation the controller watches).
  zk_.create(zk_paths::topic_config(name), encode_topic_config(configs), CreateMode::kPersistent,
             [this, name, a, done](ZkError err, std::string) {
               if (err != ZkError::kOk && err != ZkError::kNodeExists) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(err));
               zk_.create(zk_paths::topic(name), a.encode(), CreateMode::kPersistent, [done, name](ZkError e2, std::string) {
                 if (e2 == ZkError::kOk) return done(ErrorCode::NONE, "");
                 if (e2 == ZkError::kNodeExists) return done(ErrorCode::TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
                 done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(e2));
               });
             });
}

void AdminManager::request_deletion(const std::string& topic, std::function<void(ErrorCode)> done) {
  zk_.create(zk_paths::delete_topic(topic), {}, CreateMode::kPersistent, [done](ZkError err, std::string) {
    done(err == ZkError::kOk || err == ZkError::kNodeExists ? ErrorCode::NONE : ErrorCode::UNKNOWN_SERVER_ERROR);
  });
}

// ---------------------------------------------------------------------------------------------
// Topic configs.

void AdminManager::read_topic_config(
    const std::string& topic, std::function<void(ErrorCode, std::string, std::map<std::string, std::string>)> done) {
  zk_.get_data(zk_paths::topic_config(topic), false, [topic, done](ZkError err, Bytes data, coord::Stat) {
    if (err == ZkError::kNoNode) return done(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + topic + "' does not exist.", {});
    if (err != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(err), {});
    auto overrides = decode_topic_config(as_view(data));
    if (!overrides) return done(ErrorCode::UNKNOWN_SERVER_ERROR, overrides.status().to_string(), {});
    done(ErrorCode::NONE, "", std::move(*overrides));
  });
}

void AdminManager::alter_topic_config(const std::string& topic,
                                      const std::map<std::string, std::optional<std::string>>& changes, Done done) {
  edit_topic_config(
      topic,
      [changes](std::map<std::string, std::string>& overrides) {
        for (const auto& [k, v] : changes) {
          if (v)
            overrides[k] = *v;
          else
            overrides.erase(k);
        }
        return Status::ok();
      },
      /*validate_only=*/false, std::move(done));
}

void AdminManager::edit_topic_config(const std::string& topic, TopicConfigEdit edit, bool validate_only, Done done) {
  const std::string path = zk_paths::topic_config(topic);
  zk_.get_data(path, false, [this, topic, edit, validate_only, path, done](ZkError err, Bytes data, coord::Stat stat) {
    if (err == ZkError::kNoNode) return done(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + topic + "' does not exist.");
    if (err != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(err));
    auto current = decode_topic_config(as_view(data));
    if (!current) return done(ErrorCode::UNKNOWN_SERVER_ERROR, current.status().to_string());
    std::map<std::string, std::string> merged = *current;
    Status edited = edit(merged);
    if (!edited.is_ok()) return done(ErrorCode::INVALID_CONFIG, edited.message());
    TopicConfig check = config_.topic_defaults;
    Status valid = check.apply(merged);
    if (!valid.is_ok()) return done(ErrorCode::INVALID_CONFIG, valid.message());
    if (validate_only) return done(ErrorCode::NONE, "");
    zk_.set_data(path, encode_topic_config(merged), stat.version, [this, topic, edit, done](ZkError e2, coord::Stat) {
      // Someone else altered it meanwhile: edit theirs.
      if (e2 == ZkError::kBadVersion) return edit_topic_config(topic, edit, false, done);
      if (e2 != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(e2));
      zk_.create(zk_paths::config_change_prefix(), encode_config_change("topics/" + topic), CreateMode::kPersistentSequential,
                 [done](ZkError e3, std::string) {
                   if (e3 != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(e3));
                   done(ErrorCode::NONE, "");
                 });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Waiting for metadata.

void AdminManager::when_metadata(std::function<bool()> ready, Duration timeout, std::function<void(bool)> done) {
  metadata_waits_.add(std::move(ready), timeout, std::move(done));
}

void AdminManager::on_metadata_update() { metadata_waits_.check(); }

}  // namespace gregor::broker
