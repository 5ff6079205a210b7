// Purgatory: requests waiting for something to happen on partitions (Kafka's
// DelayedOperationPurgatory): an acks=all produce waits for the high watermark, a long-polling
// fetch for data. Each waiting operation watches the partitions it depends on. When something
// changes on a partition the owner marks it (mark); at the next try_marked the operations watching
// a marked partition try to complete, in the order they arrived. An operation that has not
// completed when its timeout passes completes then, whatever its state.
//
// The owner decides when try_marked runs (engine/broker/replica_manager.h defers it to a fresh
// event: progress is reported from inside appends, and answers must not re-enter them).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/runtime.h"
#include "engine/core/topic_partition.h"

namespace gregor::broker {

class DelayedOperation {
 public:
  virtual ~DelayedOperation() = default;
  // Answers the request and returns true when the operation can complete now; when `expired` it
  // must complete.
  virtual bool try_complete(bool expired) = 0;
};

// The partitions a delayed operation's waits name, as Purgatory::watch takes them (it keeps each once)
// (a Wait has a `tp`).
template <typename Wait>
std::vector<TopicPartition> waited_partitions(const std::vector<Wait>& waits) {
  std::vector<TopicPartition> out;
  for (const auto& w : waits) out.push_back(w.tp);
  return out;
}

class Purgatory {
 public:
  explicit Purgatory(Runtime& rt) : rt_(rt) {}
  ~Purgatory();
  Purgatory(const Purgatory&) = delete;
  Purgatory& operator=(const Purgatory&) = delete;

  // Watches `op` under `keys` until a try completes it or `timeout` passes. The caller has tried
  // it once already (Kafka's tryCompleteElseWatch).
  void watch(std::unique_ptr<DelayedOperation> op, std::vector<TopicPartition> keys, Duration timeout);
  // Something changed on tp (or on every partition): its watchers try again at the next try_marked.
  void mark(const TopicPartition& tp);
  void mark_all() { all_marked_ = true; }
  // Tries every operation watching a marked partition, in arrival order; clears the marks.
  void try_marked();
  size_t waiting() const { return ops_.size(); }

 private:
  struct Entry {
    std::unique_ptr<DelayedOperation> op;
    std::vector<TopicPartition> keys;
    TimerId timer;
  };
  void remove(uint64_t id);

  Runtime& rt_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Entry> ops_;                         // by arrival
  // partition -> operations watching it. Looked up, never iterated (try_marked orders what it
  // tries by arrival), so a hash: a fetch watches every partition of its session.
  struct KeyHash {
    size_t operator()(const TopicPartition& tp) const {
      return std::hash<std::string>{}(tp.topic) * 31u + static_cast<uint32_t>(tp.partition);
    }
  };
  std::unordered_map<TopicPartition, std::vector<uint64_t>, KeyHash> watchers_;
  std::set<TopicPartition> marked_;
  bool all_marked_ = false;
};

}  // namespace gregor::broker
