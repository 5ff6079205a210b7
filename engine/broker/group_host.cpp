#include "engine/broker/group_host.h"

#include "engine/log/log_validator.h"

#include "engine/group/offsets_topic.h"

namespace gregor::broker {

namespace {
// Kafka creates __consumer_offsets with 100 MB segments (offsets.topic.segment.bytes); it is also
// compacted there, which Gregor's logs do not model.
constexpr const char* kOffsetsTopicSegmentBytes = "104857600";
}  // namespace

int32_t GroupHost::partition_count(const std::string& topic) const {
  // Counted in place: topic_partitions would copy every partition's metadata (three vectors each),
  // and the coordinator asks on every group request (which __consumer_offsets partition holds a group).
  const auto& partitions = metadata_.partitions();
  int32_t count = 0;
  for (auto it = partitions.lower_bound(TopicPartition{topic, INT32_MIN}); it != partitions.end() && it->first.topic == topic; ++it)
    count++;
  return count;
}

std::optional<group::BrokerAddress> GroupHost::partition_leader(const TopicPartition& tp) const {
  const PartitionMetadata* pm = metadata_.partition(tp);
  if (!pm || pm->leader < 0) return std::nullopt;
  auto b = metadata_.brokers().find(pm->leader);
  if (b == metadata_.brokers().end()) return std::nullopt;
  return group::BrokerAddress{pm->leader, b->second.host, b->second.port};
}

void GroupHost::create_offsets_topic(int32_t partitions, int32_t replication_factor, std::function<void(ErrorCode)> done) {
  admin_.create_topic(group::kOffsetsTopic, partitions, replication_factor, {{"segment.bytes", kOffsetsTopicSegmentBytes}},
                      [done](ErrorCode code, std::string) { done(code); });
}

std::optional<int32_t> GroupHost::local_leader_epoch(const TopicPartition& tp) const {
  const Partition* p = replicas_.partition(tp);
  if (!p || !p->is_leader()) return std::nullopt;
  return p->leader_epoch().value;
}

group::OffsetsAppend GroupHost::append_as_leader(const TopicPartition& tp, Bytes batch) {
  Partition* p = replicas_.partition(tp);
  if (!p || !p->is_leader()) return {ErrorCode::NOT_LEADER_OR_FOLLOWER, Offset{-1}};
  LeaderAppend a = p->append_as_leader(SharedBytes(std::move(batch)), -1, log::kProduceVersionLatest, rt_.now());
  return {a.error, a.last_offset};
}

ErrorCode GroupHost::check_replicated(const TopicPartition& tp, Offset required) const {
  const Partition* p = replicas_.partition(tp);
  return p ? p->check_enough_replicas_reach(required) : ErrorCode::NOT_LEADER_OR_FOLLOWER;
}

log::Log* GroupHost::local_log(const TopicPartition& tp) {
  Partition* p = replicas_.partition(tp);
  return p ? &p->log() : nullptr;
}

}  // namespace gregor::broker
