#include "engine/broker/metadata_cache.h"

namespace gregor::broker {

std::vector<std::string> MetadataCache::topics() const {
  std::vector<std::string> out;
  for (const auto& [tp, p] : partitions_)
    if (out.empty() || out.back() != tp.topic) out.push_back(tp.topic);
  return out;
}

bool MetadataCache::has_topic(const std::string& topic) const {
  auto it = partitions_.lower_bound(TopicPartition{topic, INT32_MIN});
  return it != partitions_.end() && it->first.topic == topic;
}

std::vector<std::pair<int32_t, PartitionMetadata>> MetadataCache::topic_partitions(const std::string& topic) const {
  std::vector<std::pair<int32_t, PartitionMetadata>> out;
  for (auto it = partitions_.lower_bound(TopicPartition{topic, INT32_MIN}); it != partitions_.end() && it->first.topic == topic; ++it)
    out.emplace_back(it->first.partition, it->second);
  return out;
}

const PartitionMetadata* MetadataCache::partition(const TopicPartition& tp) const {
  auto it = partitions_.find(tp);
  return it == partitions_.end() ? nullptr : &it->second;
}

void MetadataCache::update(int32_t controller_id, int32_t controller_epoch, std::map<int32_t, BrokerEndpoint> brokers,
                           std::map<TopicPartition, PartitionMetadata> partitions, std::map<std::string, Uuid> topic_ids) {
  controller_id_ = controller_id;
  controller_epoch_ = controller_epoch;
  brokers_ = std::move(brokers);
  partitions_ = std::move(partitions);
  topic_ids_ = std::move(topic_ids);
  topic_names_.clear();
  for (const auto& [name, id] : topic_ids_) topic_names_[id] = name;
}

Uuid MetadataCache::topic_id(const std::string& topic) const {
  auto it = topic_ids_.find(topic);
  return it == topic_ids_.end() ? kZeroUuid : it->second;
}

std::optional<std::string> MetadataCache::topic_name(const Uuid& id) const {
  auto it = topic_names_.find(id);
  if (it == topic_names_.end()) return std::nullopt;
  return it->second;
}

}  // namespace gregor::broker
