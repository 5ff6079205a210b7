// Kafka's default partitioner: murmur2 of the key bytes (Utils.murmur2, seed 0x9747b28c), made
// positive and taken modulo the partition count, so a key lands where a Java or librdkafka
// "murmur2_random" producer would put it. Null keys use a sticky partition (KIP-480), chosen at
// random among partitions with a leader and changed when a batch for it is sent.
#pragma once

#include <cstdint>

#include "engine/core/bytes.h"

namespace gregor::client {

int32_t murmur2(ByteView data);
inline int32_t to_positive(int32_t n) { return n & 0x7fffffff; }
inline int32_t partition_for_key(ByteView key, int32_t num_partitions) {
  return to_positive(murmur2(key)) % num_partitions;
}

}  // namespace gregor::client
