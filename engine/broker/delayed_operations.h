// The purgatory's entries (private to the broker): an acks=all produce waiting for the high
// watermark, and a fetch waiting for data (fetch.min.bytes) or its max wait.
#pragma once

#include "engine/broker/broker.h"

namespace gregor::broker {

struct Broker::DelayedProduce {
  struct Wait {
    size_t topic_index;
    size_t partition_index;
    TopicPartition tp;
    Offset required;
    bool done = false;
  };
  Request req;
  protocol::ProduceResponse response;
  std::vector<Wait> waits;
  TimerId timer;
};

struct Broker::DelayedFetch {
  Request req;
  protocol::FetchRequest fetch;
  TimerId timer;
};

}  // namespace gregor::broker
