// CoordinatorHost: what the group coordinator needs from the broker it lives in: its view of the
// cluster (Kafka's MetadataCache) and its replicas of __consumer_offsets (Kafka's ReplicaManager),
// narrowed to what groups use. The broker implements it (engine/broker/group_host.h), so that
// engine/group never sees the broker's classes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/topic_partition.h"
#include "engine/core/types.h"
#include "engine/log/log.h"
#include "engine/protocol/errors.h"

namespace gregor::group {

struct BrokerAddress {
  int32_t id = -1;
  std::string host;
  int32_t port = -1;
};

struct OffsetsAppend {
  protocol::ErrorCode error = protocol::ErrorCode::NONE;
  Offset last_offset{-1};
};

class CoordinatorHost {
 public:
  virtual ~CoordinatorHost() = default;

  // Cluster metadata, as this broker last heard it from the controller.
  virtual int32_t live_broker_count() const = 0;
  virtual int32_t partition_count(const std::string& topic) const = 0;  // 0: no such topic (yet)
  // The leader of a partition and its address, when it has a live one.
  virtual std::optional<BrokerAddress> partition_leader(const TopicPartition& tp) const = 0;
  // Creates __consumer_offsets (through zk, as any topic).
  virtual void create_offsets_topic(int32_t partitions, int32_t replication_factor,
                                    std::function<void(protocol::ErrorCode)> done) = 0;

  // This broker's replica of a partition: its leader epoch when it leads, nullopt otherwise.
  virtual std::optional<int32_t> local_leader_epoch(const TopicPartition& tp) const = 0;
  // Appends one batch as the partition's leader (the error NOT_LEADER_OR_FOLLOWER when it is not).
  virtual OffsetsAppend append_as_leader(const TopicPartition& tp, Bytes batch) = 0;
  // For an acks=all append: NONE once `required` (exclusive end) is replicated, REQUEST_TIMED_OUT
  // while waiting, or why it cannot be (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS_AFTER_APPEND).
  virtual protocol::ErrorCode check_replicated(const TopicPartition& tp, Offset required) const = 0;
  // The local replica's log, to load groups from; nullptr when there is none.
  virtual log::Log* local_log(const TopicPartition& tp) = 0;
};

}  // namespace gregor::group
