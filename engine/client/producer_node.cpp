#include "engine/client/producer_node.h"

#include <algorithm>
#include <cstdlib>

namespace gregor::client {

namespace {
constexpr Duration kTick = Duration::millis(10);  // records are released in 10 ms slices
}

ProducerNode::ProducerNode(Runtime& rt, ProducerConfig config, ProducerWorkload workload)
    : rt_(rt), workload_(std::move(workload)), producer_(rt, std::move(config)) {}

void ProducerNode::start() {
  producer_.start();
  Duration wait = workload_.start_at > rt_.now() ? workload_.start_at - rt_.now() : Duration{0};
  last_tick_ = rt_.now() + wait;
  rt_.after(wait, [this] { tick(); });
}

void ProducerNode::tick() {
  const Time now = rt_.now();
  if (now >= workload_.stop_at || (workload_.max_records >= 0 && sent_ >= workload_.max_records)) return;
  credit_ += workload_.rate_per_sec * static_cast<double>((now - last_tick_).us) / 1e6;
  last_tick_ = now;
  // Back-pressure, as buffer.memory does: do not queue without bound while brokers are away.
  const size_t max_pending = static_cast<size_t>(std::max(1000.0, workload_.rate_per_sec * 10));
  while (credit_ >= 1 && producer_.pending() < max_pending &&
         (workload_.max_records < 0 || sent_ < workload_.max_records)) {
    credit_ -= 1;
    const int64_t seq = sent_++;
    ProducerRecord r;
    r.topic = workload_.topic;
    std::string value = "p" + std::to_string(rt_.self().value) + "-" + std::to_string(seq);
    if (static_cast<int32_t>(value.size()) < workload_.value_bytes) value.resize(static_cast<size_t>(workload_.value_bytes), '.');
    r.value = to_bytes(value);
    if (workload_.key_pattern == "seq") {
      r.key = to_bytes(std::to_string(seq));
    } else if (workload_.key_pattern.rfind("mod:", 0) == 0) {
      long n = std::max(1L, std::strtol(workload_.key_pattern.c_str() + 4, nullptr, 10));
      r.key = to_bytes("k" + std::to_string(seq % n));
    }
    producer_.send(std::move(r), [this](const RecordMetadata& md) {
      if (md.error == protocol::ErrorCode::NONE)
        acked_++;
      else
        failed_++;
    });
  }
  if (credit_ > 1000) credit_ = 1000;  // do not build an unbounded backlog of credit
  rt_.after(kTick, [this] { tick(); });
}

}  // namespace gregor::client
