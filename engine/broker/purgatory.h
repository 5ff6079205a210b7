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
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/core/deadline_timer.h"
#include "engine/core/runtime.h"
#include "engine/core/small_vector.h"
#include "engine/core/topic_partition.h"

namespace gregor::broker {

// A partition as the purgatory keys it (Purgatory::key).
using PurgatoryKey = uint64_t;

class DelayedOperation {
 public:
  virtual ~DelayedOperation() = default;
  // Answers the request and returns true when the operation can complete now; when `expired` it
  // must complete.
  virtual bool try_complete(bool expired) = 0;
  // A try because partitions were marked: `marked` holds their keys, sorted, once each (not only
  // this operation's). Every change that may let an operation complete marks its partition, and
  // the operation was tried after the changes before, so an operation may look only at its marked
  // partitions to decide whether to complete. By default it tries as above.
  virtual bool try_complete_marked(std::span<const PurgatoryKey> marked) {
    (void)marked;
    return try_complete(false);
  }
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
  // A partition as the purgatory keys it: a 64-bit hash of its topic name and number, so that a
  // fetch watching every partition of its session copies no names. Two partitions with the same key
  // (as good as never) would wake each other's operations: that costs a try, and a try completes
  // an operation only when it can complete.
  using Key = PurgatoryKey;
  static Key key(std::string_view topic, int32_t partition) { return key_of_hash(name_hash(topic), partition); }
  static Key key(const TopicPartition& tp) { return key(tp.topic, tp.partition); }
  // The same in two steps, for many partitions of one topic: the name is hashed once.
  static uint64_t name_hash(std::string_view topic) { return std::hash<std::string_view>{}(topic); }
  static Key key_of_hash(uint64_t name_hash, int32_t partition);

  explicit Purgatory(Runtime& rt) : rt_(rt), deadline_(rt, [this] { expire_due(); }) {}
  Purgatory(const Purgatory&) = delete;
  Purgatory& operator=(const Purgatory&) = delete;

  // Watches `op` under `keys` (each once, whatever their order and repeats) until a try completes it
  // or `timeout` passes. The caller has tried it once already (Kafka's tryCompleteElseWatch).
  void watch(std::unique_ptr<DelayedOperation> op, std::span<const Key> keys, Duration timeout);
  void watch(std::unique_ptr<DelayedOperation> op, const std::vector<TopicPartition>& partitions, Duration timeout);
  // Something changed on tp (or on every partition): its watchers try again at the next try_marked.
  void mark(const TopicPartition& tp);
  void mark_all() { all_marked_ = true; }
  // Tries every operation watching a marked partition, in arrival order (try_complete_marked; after
  // mark_all, try_complete); clears the marks.
  void try_marked();
  size_t waiting() const { return ops_.size(); }

 private:
  struct Entry {
    std::unique_ptr<DelayedOperation> op;
    SmallVector<std::vector<uint64_t>*, 2> watching;  // its lists in watchers_, one per key
    Time deadline;                                    // it completes then, expired
  };
  void remove(uint64_t id);
  // Completes the operations whose timeout has passed, in arrival order, then waits for the next.
  void expire_due();

  Runtime& rt_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Entry> ops_;                         // by arrival
  // partition -> operations watching it. Looked up, never iterated (try_marked orders what it
  // tries by arrival), so a hash table; the keys are hashes already. Entries are never erased, so
  // an operation keeps pointers to its lists.
  struct KeyHash {
    size_t operator()(Key k) const { return static_cast<size_t>(k); }
  };
  std::unordered_map<Key, std::vector<uint64_t>, KeyHash> watchers_;
  std::vector<Key> marked_;  // may repeat
  std::vector<Key> spare_;   // try_marked's last list of marks, kept for its capacity
  std::vector<uint64_t> spare_ids_;  // try_marked's last list of operations, kept for its capacity
  bool all_marked_ = false;
  // One timer for every operation's timeout (engine/core/deadline_timer.h): most complete before
  // it, and a timer each was scheduled and cancelled for them. Last, so that it goes first.
  DeadlineTimer deadline_;
};

}  // namespace gregor::broker
