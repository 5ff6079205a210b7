// GroupHost: the broker's side of group::CoordinatorHost: the group coordinator's view of this
// broker's metadata cache and of its replicas of __consumer_offsets.
#pragma once

#include <functional>

#include "engine/broker/metadata_cache.h"
#include "engine/broker/partition.h"
#include "engine/group/coordinator_host.h"

namespace gregor::broker {

class GroupHost final : public group::CoordinatorHost {
 public:
  using PartitionLookup = std::function<Partition*(const TopicPartition&)>;
  using CreateTopic = std::function<void(int32_t partitions, int32_t replication_factor, std::function<void(ErrorCode)> done)>;
  GroupHost(Runtime& rt, const MetadataCache& metadata, PartitionLookup lookup, CreateTopic create_offsets_topic)
      : rt_(rt), metadata_(metadata), lookup_(std::move(lookup)), create_offsets_topic_(std::move(create_offsets_topic)) {}

  int32_t live_broker_count() const override { return static_cast<int32_t>(metadata_.brokers().size()); }
  int32_t partition_count(const std::string& topic) const override;
  std::optional<group::BrokerAddress> partition_leader(const TopicPartition& tp) const override;
  void create_offsets_topic(int32_t partitions, int32_t replication_factor, std::function<void(ErrorCode)> done) override {
    create_offsets_topic_(partitions, replication_factor, std::move(done));
  }
  std::optional<int32_t> local_leader_epoch(const TopicPartition& tp) const override;
  group::OffsetsAppend append_as_leader(const TopicPartition& tp, Bytes batch) override;
  ErrorCode check_replicated(const TopicPartition& tp, Offset required) const override;
  log::Log* local_log(const TopicPartition& tp) override;

 private:
  Runtime& rt_;
  const MetadataCache& metadata_;
  PartitionLookup lookup_;
  CreateTopic create_offsets_topic_;
};

}  // namespace gregor::broker
