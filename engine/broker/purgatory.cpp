#include "engine/broker/purgatory.h"

#include <algorithm>

namespace gregor::broker {

Purgatory::Key Purgatory::key_of_hash(uint64_t name_hash, int32_t partition) {
  // splitmix64's finalizer over the name's hash and the number.
  uint64_t x = name_hash ^ (static_cast<uint64_t>(static_cast<uint32_t>(partition)) * 0x9e3779b97f4a7c15ull);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void Purgatory::watch(std::unique_ptr<DelayedOperation> op, const std::vector<TopicPartition>& partitions, Duration timeout) {
  std::vector<Key> keys;
  keys.reserve(partitions.size());
  for (const TopicPartition& tp : partitions) keys.push_back(key(tp));
  watch(std::move(op), std::move(keys), timeout);
}

void Purgatory::watch(std::unique_ptr<DelayedOperation> op, std::span<const Key> keys, Duration timeout) {
  const uint64_t id = next_id_++;
  Entry& e = ops_[id];
  e.op = std::move(op);
  // Each key once: a request may name a partition twice (two markers of one WriteTxnMarkers, or a
  // Produce listing it twice), and remove() drops the watcher of each key once. This operation is
  // the newest: a list that ends with it has it already.
  e.watching.reserve(keys.size());
  for (const Key k : keys) {
    std::vector<uint64_t>& list = watchers_[k];
    if (!list.empty() && list.back() == id) continue;
    list.push_back(id);
    e.watching.push_back(&list);
  }
  e.deadline = rt_.now() + timeout;
  deadline_.ensure(e.deadline);
}

void Purgatory::expire_due() {
  const Time now = rt_.now();
  std::vector<uint64_t> due;
  for (const auto& [id, e] : ops_)
    if (e.deadline <= now) due.push_back(id);
  for (uint64_t id : due) {
    auto it = ops_.find(id);
    if (it == ops_.end()) continue;  // completed by an earlier one's answer
    std::unique_ptr<DelayedOperation> expired = std::move(it->second.op);
    remove(id);
    expired->try_complete(true);
  }
  if (ops_.empty()) return;
  Time next = ops_.begin()->second.deadline;
  for (const auto& [id, e] : ops_) next = std::min(next, e.deadline);
  deadline_.ensure(next);
}

void Purgatory::mark(const TopicPartition& tp) {
  // With nothing waiting there is nothing to try: an operation that arrives later has been tried
  // by its caller. Otherwise tp is marked even when nothing watches it yet, for an operation that
  // starts watching it before the try.
  if (!ops_.empty()) marked_.push_back(key(tp));
}

void Purgatory::try_marked() {
  std::vector<uint64_t> ids;
  ids.swap(spare_ids_);  // empty, with the capacity of an earlier list (a nested try finds none)
  const bool all = all_marked_;
  std::vector<Key> marked;
  marked.swap(marked_);
  marked_.swap(spare_);  // empty, with the capacity of an earlier list
  all_marked_ = false;
  std::sort(marked.begin(), marked.end());
  marked.erase(std::unique(marked.begin(), marked.end()), marked.end());
  if (all) {
    for (const auto& [id, e] : ops_) ids.push_back(id);
  } else {
    for (const Key k : marked)
      if (auto w = watchers_.find(k); w != watchers_.end()) ids.insert(ids.end(), w->second.begin(), w->second.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  }
  for (uint64_t id : ids) {
    auto it = ops_.find(id);
    if (it == ops_.end()) continue;  // completed by an earlier one's answer
    DelayedOperation& op = *it->second.op;
    if (!(all ? op.try_complete(false) : op.try_complete_marked(marked))) continue;
    remove(id);
  }
  marked.clear();
  spare_.swap(marked);
  ids.clear();
  spare_ids_.swap(ids);
}

void Purgatory::remove(uint64_t id) {
  auto it = ops_.find(id);
  // An emptied list stays: the partition is usually watched again soon (and the lists do not move).
  for (std::vector<uint64_t>* list : it->second.watching) std::erase(*list, id);
  ops_.erase(it);
}

}  // namespace gregor::broker
