// MetadataCache: a broker's view of the cluster, as the controller last told it (UpdateMetadata):
// live brokers and their addresses, every partition's leader, epoch, replicas, ISR. Metadata
// requests from clients are answered from here. Each UpdateMetadata replaces the whole view.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/topic_partition.h"
#include "engine/core/uuid.h"

namespace gregor::broker {

// A live broker: its address on the listener other brokers use (host, port), and its address on
// every listener by name (a Metadata request is answered with the listener it came on).
struct BrokerEndpoint {
  int32_t id = 0;
  std::string host;
  int32_t port = 0;
  std::map<std::string, std::pair<std::string, int32_t>> listeners;
};

struct PartitionMetadata {
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  std::vector<int32_t> offline_replicas;
};

class MetadataCache {
 public:
  int32_t controller_id() const { return controller_id_; }
  int32_t controller_epoch() const { return controller_epoch_; }
  const std::map<int32_t, BrokerEndpoint>& brokers() const { return brokers_; }
  const std::map<TopicPartition, PartitionMetadata>& partitions() const { return partitions_; }
  std::vector<std::string> topics() const;
  bool has_topic(const std::string& topic) const;
  std::vector<std::pair<int32_t, PartitionMetadata>> topic_partitions(const std::string& topic) const;
  const PartitionMetadata* partition(const TopicPartition& tp) const;

  // A topic's id (KIP-516; zero when the controller sent none) and the topic an id names.
  Uuid topic_id(const std::string& topic) const;
  std::optional<std::string> topic_name(const Uuid& id) const;

  void update(int32_t controller_id, int32_t controller_epoch, std::map<int32_t, BrokerEndpoint> brokers,
              std::map<TopicPartition, PartitionMetadata> partitions, std::map<std::string, Uuid> topic_ids = {});
  void set_controller(int32_t id, int32_t epoch) {
    controller_id_ = id;
    controller_epoch_ = epoch;
  }

 private:
  int32_t controller_id_ = -1;
  int32_t controller_epoch_ = 0;
  std::map<int32_t, BrokerEndpoint> brokers_;
  std::map<TopicPartition, PartitionMetadata> partitions_;
  std::map<std::string, Uuid> topic_ids_;
  std::map<Uuid, std::string> topic_names_;
};

}  // namespace gregor::broker
