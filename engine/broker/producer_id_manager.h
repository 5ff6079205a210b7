// ProducerIdManager: hands out producer ids for InitProducerId, as ZooKeeper-era Kafka's
// ProducerIdManager does. Each broker claims blocks of 1000 ids at a time by a conditional write
// of /latest_producer_id_block ({"version":1,"broker":N,"block_start":"1000","block_end":"1999"});
// a write that loses the race (BadVersion, NodeExists) reads the znode again and claims the next
// block, so no two brokers ever hand out the same id, even across restarts.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "engine/coord/zk_client.h"
#include "engine/core/runtime.h"
#include "engine/protocol/errors.h"

namespace gregor::broker {

inline constexpr const char* kProducerIdBlockPath = "/latest_producer_id_block";
inline constexpr int64_t kProducerIdBlockSize = 1000;
inline constexpr size_t kProducerIdWaitersMax = 10000;

struct ProducerIdBlock {
  int32_t broker = -1;
  int64_t first = 0;
  int64_t last = -1;  // inclusive
  Bytes encode() const;
  static Result<ProducerIdBlock> decode(ByteView data);
};

class ProducerIdManager {
 public:
  ProducerIdManager(Runtime& rt, int32_t broker_id, coord::ZkClient& zk) : rt_(rt), broker_id_(broker_id), zk_(zk) {}

  // done(NONE, id), or done(COORDINATOR_NOT_AVAILABLE, -1) when no block could be claimed.
  void generate(std::function<void(protocol::ErrorCode, int64_t)> done);

 private:
  void claim_block(int attempts_left);
  void write_block(const ProducerIdBlock& block, int32_t expected_version, int attempts_left);
  void take_block(const ProducerIdBlock& block);
  void finish_claim(bool ok);

  Runtime& rt_;
  int32_t broker_id_;
  coord::ZkClient& zk_;
  int64_t next_ = 0;
  int64_t last_ = -1;  // the current block is [next_, last_]
  bool claiming_ = false;
  std::deque<std::function<void(protocol::ErrorCode, int64_t)>> waiting_;
};

}  // namespace gregor::broker
