// The "consumer" embedded protocol: what consumers put in JoinGroup's protocol metadata and
// SyncGroup's assignments (Kafka's ConsumerProtocolSubscription and ConsumerProtocolAssignment).
// The coordinator relays these bytes without reading them; the group leader's assignor reads every
// member's subscription and writes every member's assignment.
//
//   Subscription  version int16, topics [STRING], user_data NULLABLE_BYTES,
//                 owned_partitions [topic STRING, partitions [int32]] (v1+),
//                 generation_id int32 (v2+), rack_id NULLABLE_STRING (v3+)
//   Assignment    version int16, assigned_partitions [topic STRING, partitions [int32]],
//                 user_data NULLABLE_BYTES
//
// Gregor writes subscription v1 (owned partitions, which cooperative-sticky needs) and assignment
// v1; it reads v0 to v3.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"

namespace gregor::protocol {

inline constexpr const char* kConsumerProtocolType = "consumer";

// Partitions by topic, sorted: {"orders": [0, 3]}.
using PartitionsByTopic = std::map<std::string, std::vector<int32_t>>;

struct Subscription {
  std::vector<std::string> topics;
  std::optional<Bytes> user_data;
  PartitionsByTopic owned_partitions;
  int32_t generation_id = -1;  // v2+; from user_data for cooperative-sticky at v1
};

struct Assignment {
  PartitionsByTopic partitions;
  std::optional<Bytes> user_data;
};

Bytes encode_subscription(const Subscription& s);
Result<Subscription> decode_subscription(ByteView data);
Bytes encode_assignment(const Assignment& a);
Result<Assignment> decode_assignment(ByteView data);

// "orders-0,orders-3" (for trace events); "" when empty.
std::string format_partitions(const PartitionsByTopic& p);
size_t count_partitions(const PartitionsByTopic& p);

}  // namespace gregor::protocol
