// TopicPartition: the name of one partition ("orders-0"), ordered so maps of partitions iterate
// deterministically.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace gregor::broker {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
  // Kafka's directory name and log name: "<topic>-<partition>".
  std::string str() const { return topic + "-" + std::to_string(partition); }
};

// The partition state a controller sends in LeaderAndIsr.
struct PartitionAssignmentState {
  int32_t controller_epoch = 0;
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  int32_t zk_version = 0;
  std::vector<int32_t> replicas;
  bool is_new = false;
};

}  // namespace gregor::broker
