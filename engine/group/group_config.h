// GroupConfig: the broker settings the group coordinator reads, with Kafka's keys and defaults.
// They are broker configs: BrokerConfig extends this struct, and engine/broker/broker_config.cpp
// declares the keys with the broker's other configs.
#pragma once

#include <cstdint>

namespace gregor::group {

struct GroupConfig {
  int32_t offsets_topic_num_partitions = 50;
  int16_t offsets_topic_replication_factor = 3;
  int64_t group_initial_rebalance_delay_ms = 3000;
  int64_t group_min_session_timeout_ms = 6000;
  int64_t group_max_session_timeout_ms = 1800000;
  int64_t offsets_retention_minutes = 10080;
};

}  // namespace gregor::group
