// ReplicaModel: the cluster's replica logs and partition states, rebuilt from trace events alone
// (log_open, log_append, log_truncate, become_leader, become_follower, hw_advance, isr_change,
// leader_change). Checkers read it; because it needs nothing but the trace, the same checks run on
// a live simulation and on a recorded trace file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/trace_event.h"

namespace gregor::sim {

struct BatchRecord {
  int64_t last_offset = 0;
  int64_t crc = 0;
  int32_t epoch = 0;
};

struct ReplicaLog {
  std::map<int64_t, BatchRecord> batches;  // by base offset
  int64_t leo = 0;
  int64_t hw = 0;
  int32_t leader_epoch = -1;  // the epoch this replica last accepted (leader or follower)
  bool leader = false;
};

struct PartitionView {
  int32_t leader = -1;        // the broker that became leader at the highest epoch
  int32_t leader_epoch = -1;
  std::vector<int32_t> isr;   // as its leader or the controller last set it
  int32_t elected_epoch = -1; // the newest leader epoch the controller elected (leader_change); a
                              // become_leader below it acts on a superseded LeaderAndIsr
};

using PartitionKey = std::pair<std::string, int32_t>;  // topic, partition

class ReplicaModel {
 public:
  // Applies one event; returns true when it touched replica or partition state.
  bool apply(const TraceEvent& e);

  const ReplicaLog* replica(int32_t broker, const PartitionKey& tp) const;
  const PartitionView* partition(const PartitionKey& tp) const;
  const std::map<std::pair<int32_t, PartitionKey>, ReplicaLog>& replicas() const { return replicas_; }
  const std::map<PartitionKey, PartitionView>& partitions() const { return partitions_; }
  // Does the replica hold exactly this batch (same base offset and CRC)?
  bool holds(int32_t broker, const PartitionKey& tp, int64_t base_offset, int64_t crc) const;

 private:
  std::map<std::pair<int32_t, PartitionKey>, ReplicaLog> replicas_;
  std::map<PartitionKey, PartitionView> partitions_;
};

std::vector<int32_t> parse_int_list(const std::string& s);
PartitionKey partition_key(const TraceEvent& e);

}  // namespace gregor::sim
