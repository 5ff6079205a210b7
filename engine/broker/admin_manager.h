// AdminManager: topic administration through zk, as any broker of the ZooKeeper era does it
// (Kafka's ZkAdminManager): creating a topic writes its config and assignment (the controller's
// watch does the rest), deleting one writes /admin/delete_topics/T, and a config change writes
// /config/topics/T and the notification every broker applies (engine/broker/config_change_listener.h).
//
// It also holds the requests that wait for this broker's metadata to catch up (Kafka's
// DelayedCreatePartitions): CreateTopics answers once the new topic's leaders are known here.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/broker/timed_waits.h"
#include "engine/broker/broker_config.h"
#include "engine/broker/controller.h"
#include "engine/broker/metadata_cache.h"
#include "engine/coord/zk_client.h"

namespace gregor::broker {

// Kafka's rule for topic names: 1 to 249 characters of [a-zA-Z0-9._-], not "." or ".."
// (engine/protocol/topic_name.h, which scenarios and clients use too).
bool valid_topic_name(const std::string& name);

// Kafka's rack-unaware replica placement (AdminUtils.assignReplicasToBrokers) of `partitions`
// partitions numbered from `first_partition` over `brokers`, from the given start index and shift
// (Kafka draws both at random). REQUIRES: 1 <= replication_factor <= brokers.size().
std::map<int32_t, std::vector<int32_t>> place_replicas_from(const std::vector<int32_t>& brokers, int32_t first_partition,
                                                            int32_t partitions, int32_t replication_factor,
                                                            int32_t start_index, int32_t next_shift);

class AdminManager {
 public:
  using Done = std::function<void(protocol::ErrorCode, std::string)>;
  // Edits a topic's overrides as read from zk (a Status error becomes INVALID_CONFIG).
  using TopicConfigEdit = std::function<Status(std::map<std::string, std::string>& overrides)>;

  AdminManager(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk, const Controller& controller,
               const MetadataCache& metadata)
      : rt_(rt), config_(config), zk_(zk), controller_(controller), metadata_(metadata), metadata_waits_(rt) {}

  // Creates a topic with replicas spread over the live brokers as Kafka's AdminUtils does.
  void create_topic(const std::string& name, int32_t partitions, int32_t replication_factor,
                    const std::map<std::string, std::string>& configs, Done done);
  // The same with the placement given by hand (kafka-topics --replica-assignment): partition ->
  // replica broker ids, the first of each the preferred leader. REQUIRES: partitions 0..n-1.
  void create_topic_with_assignment(const std::string& name, const std::map<int32_t, std::vector<int32_t>>& assignment,
                                    const std::map<std::string, std::string>& configs, Done done);
  // An existing topic whose name collides with `name` ('.' and '_' swapped: Kafka refuses such a
  // pair with INVALID_TOPIC_EXCEPTION), if any.
  std::optional<std::string> colliding_topic(const std::string& name) const;
  // INVALID_PARTITIONS (more than 10,000 in one topic) or POLICY_VIOLATION (more than 100,000 in
  // the cluster, counting `planned` ones a request already accepted) with its message, or NONE:
  // checked before anything is allocated. create_topic checks it too.
  std::pair<protocol::ErrorCode, std::string> partition_limit_problem(int64_t partitions, int64_t planned) const;

  // CreatePartitions: grows `topic` to `count` partitions; the new ones (partitions current..count-1)
  // get `assignment` when given (one replica list each), else Kafka's placement over the live
  // brokers with the topic's replication factor. The assignment znode is written with its version
  // (re-read when someone else wrote meanwhile); the controller's watch elects the new leaders.
  // UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS, INVALID_REPLICA_ASSIGNMENT, or NONE.
  void add_partitions(const std::string& topic, int32_t count, std::optional<std::vector<std::vector<int32_t>>> assignment,
                      bool validate_only, Done done);

  // Marks a topic for deletion (the controller deletes it): NONE, or UNKNOWN_SERVER_ERROR.
  void request_deletion(const std::string& topic, std::function<void(protocol::ErrorCode)> done);

  // A topic's overrides as stored in zk: UNKNOWN_TOPIC_OR_PARTITION when there is no such topic.
  void read_topic_config(const std::string& topic,
                         std::function<void(protocol::ErrorCode, std::string, std::map<std::string, std::string>)> done);
  // kafka-configs --alter --entity-type topics: merges `changes` into /config/topics/T (nullopt
  // deletes a key) after validating the result, then writes the change notification every broker
  // applies. UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG or NONE.
  void alter_topic_config(const std::string& topic, const std::map<std::string, std::optional<std::string>>& changes,
                          Done done);
  // The general form (AlterConfigs replaces the overrides, IncrementalAlterConfigs edits them): the
  // result of `edit` is validated, then written with the znode's version (re-read and re-edited
  // when someone else wrote meanwhile), unless validate_only.
  void edit_topic_config(const std::string& topic, TopicConfigEdit edit, bool validate_only, Done done);

  // Calls done(false) once ready() holds after an UpdateMetadata (or at once), or done(true) when
  // timeout passes first.
  void when_metadata(std::function<bool()> ready, Duration timeout, std::function<void(bool timed_out)> done);
  // This broker's metadata changed (UpdateMetadata): the waits whose condition holds complete.
  void on_metadata_update();

 private:
  // Kafka's rack-unaware placement of `partitions` new partitions starting at `first_partition`.
  // REQUIRES: 1 <= replication_factor <= brokers.size().
  std::map<int32_t, std::vector<int32_t>> place_replicas(const std::vector<int32_t>& brokers, int32_t first_partition,
                                                         int32_t partitions, int32_t replication_factor);
  std::vector<int32_t> live_broker_ids() const;

  Runtime& rt_;
  const BrokerConfig& config_;
  coord::ZkClient& zk_;
  const Controller& controller_;
  const MetadataCache& metadata_;
  TimedWaits metadata_waits_;
};

}  // namespace gregor::broker
