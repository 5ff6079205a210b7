// GroupHost: the broker's side of group::CoordinatorHost: the group coordinator's view of this
// broker's metadata cache and of its replicas of __consumer_offsets, and the creation of that topic.
#pragma once

#include "engine/broker/admin_manager.h"
#include "engine/broker/metadata_cache.h"
#include "engine/broker/replica_manager.h"
#include "engine/group/coordinator_host.h"

namespace gregor::broker {

class GroupHost final : public group::CoordinatorHost {
 public:
  GroupHost(Runtime& rt, const MetadataCache& metadata, ReplicaManager& replicas, AdminManager& admin)
      : rt_(rt), metadata_(metadata), replicas_(replicas), admin_(admin) {}

  int32_t live_broker_count() const override { return static_cast<int32_t>(metadata_.brokers().size()); }
  int32_t partition_count(const std::string& topic) const override;
  std::optional<group::BrokerAddress> partition_leader(const TopicPartition& tp) const override;
  void create_offsets_topic(int32_t partitions, int32_t replication_factor, std::function<void(ErrorCode)> done) override;
  std::optional<int32_t> local_leader_epoch(const TopicPartition& tp) const override;
  group::OffsetsAppend append_as_leader(const TopicPartition& tp, Bytes batch) override;
  ErrorCode check_replicated(const TopicPartition& tp, Offset required) const override;
  log::Log* local_log(const TopicPartition& tp) override;

 private:
  Runtime& rt_;
  const MetadataCache& metadata_;
  ReplicaManager& replicas_;
  AdminManager& admin_;
};

}  // namespace gregor::broker
