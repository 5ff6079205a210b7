// A map key built from an event's topic in a per-thread buffer, for lookups that would otherwise copy
// the topic name into a new key on every event (a name longer than the small-string buffer, such
// as __consumer_offsets, is then allocated and freed each time). Use the reference at once, inside
// the lookup's own expression: the next call overwrites it.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/check/cluster_model.h"

namespace gregor::sim {

inline const PartitionKey& scratch_partition_key(std::string_view topic, int32_t partition) {
  thread_local PartitionKey key;
  key.first.assign(topic);
  key.second = partition;
  return key;
}

}  // namespace gregor::sim
