#include "sim/check/replica_model.h"

#include <algorithm>
#include <cstdlib>

namespace gregor::sim {

std::vector<int32_t> parse_int_list(const std::string& s) {
  std::vector<int32_t> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    if (j > i) out.push_back(static_cast<int32_t>(std::strtol(s.substr(i, j - i).c_str(), nullptr, 10)));
    i = j + 1;
  }
  return out;
}

PartitionKey partition_key(const TraceEvent& e) {
  return {e.get_string("topic"), static_cast<int32_t>(e.get_int("partition"))};
}

const ReplicaLog* ReplicaModel::replica(int32_t broker, const PartitionKey& tp) const {
  auto it = replicas_.find({broker, tp});
  return it == replicas_.end() ? nullptr : &it->second;
}

const PartitionView* ReplicaModel::partition(const PartitionKey& tp) const {
  auto it = partitions_.find(tp);
  return it == partitions_.end() ? nullptr : &it->second;
}

bool ReplicaModel::holds(int32_t broker, const PartitionKey& tp, int64_t base_offset, int64_t crc) const {
  const ReplicaLog* r = replica(broker, tp);
  if (!r) return false;
  auto it = r->batches.find(base_offset);
  return it != r->batches.end() && it->second.crc == crc;
}

bool ReplicaModel::apply(const TraceEvent& e) {
  const std::string_view k = e.kind();
  const int32_t node = e.node.value;
  if (k == "log_open") {
    // What survived on disk: the model keeps batches below the recovered LEO.
    auto& r = replicas_[{node, partition_key(e)}];
    int64_t leo = e.get_int("leo");
    r.batches.erase(r.batches.lower_bound(leo), r.batches.end());
    if (!r.batches.empty() && r.batches.rbegin()->second.last_offset >= leo) r.batches.erase(std::prev(r.batches.end()));
    int64_t start = e.get_int("log_start");
    r.batches.erase(r.batches.begin(), r.batches.lower_bound(start));
    r.leo = leo;
    r.hw = 0;
    r.leader = false;
    r.leader_epoch = -1;
    return true;
  }
  if (k == "log_append") {
    auto& r = replicas_[{node, partition_key(e)}];
    int64_t base = e.get_int("base_offset");
    BatchRecord b{e.get_int("last_offset"), e.get_int("crc"), static_cast<int32_t>(e.get_int("epoch"))};
    r.batches[base] = b;
    r.leo = b.last_offset + 1;
    return true;
  }
  if (k == "log_truncate") {
    auto& r = replicas_[{node, partition_key(e)}];
    int64_t off = e.get_int("offset");
    if (e.get_int("full", 0)) {
      r.batches.clear();
    } else {
      r.batches.erase(r.batches.lower_bound(off), r.batches.end());
    }
    r.leo = off;
    if (r.hw > off) r.hw = off;
    return true;
  }
  if (k == "hw_advance") {
    auto& r = replicas_[{node, partition_key(e)}];
    r.hw = e.get_int("hw");
    return true;
  }
  if (k == "become_leader") {
    auto tp = partition_key(e);
    auto& r = replicas_[{node, tp}];
    r.leader = true;
    r.leader_epoch = static_cast<int32_t>(e.get_int("leader_epoch"));
    auto& p = partitions_[tp];
    if (r.leader_epoch >= p.leader_epoch) {
      p.leader = node;
      p.leader_epoch = r.leader_epoch;
      p.isr = parse_int_list(e.get_string("isr"));
    }
    return true;
  }
  if (k == "become_follower") {
    auto tp = partition_key(e);
    auto& r = replicas_[{node, tp}];
    r.leader = false;
    r.leader_epoch = static_cast<int32_t>(e.get_int("leader_epoch"));
    return true;
  }
  if (k == "isr_change") {
    auto tp = partition_key(e);
    auto& p = partitions_[tp];
    if (p.leader == node && e.get_int("leader_epoch") == p.leader_epoch) p.isr = parse_int_list(e.get_string("isr"));
    return true;
  }
  if (k == "leader_change") {
    auto& p = partitions_[partition_key(e)];
    p.elected_epoch = std::max(p.elected_epoch, static_cast<int32_t>(e.get_int("leader_epoch")));
    return true;
  }
  if (k == "partition_offline") {
    // The controller found no leader. (A leader_change is followed by the new leader's
    // become_leader, which carries the ISR as the leader sees it; the model takes it from there.)
    auto tp = partition_key(e);
    auto& p = partitions_[tp];
    if (static_cast<int32_t>(e.get_int("leader_epoch")) >= p.leader_epoch) p.leader = -1;
    return true;
  }
  return false;
}

}  // namespace gregor::sim
