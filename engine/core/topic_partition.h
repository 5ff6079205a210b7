// TopicPartition: the name of one partition ("orders-0"), ordered so maps of partitions iterate
// deterministically. Every layer that names partitions (broker, group coordinator, clients) uses
// this one type.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace gregor {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
  // Kafka's directory name and log name: "<topic>-<partition>".
  std::string str() const { return topic + "-" + std::to_string(partition); }
};

}  // namespace gregor
