#include "engine/broker/controller_channel.h"

namespace gregor::broker {

void ControllerChannel::remove_broker(int32_t broker) {
  live_.erase(broker);
  queues_.erase(broker);
}

void ControllerChannel::clear() {
  generation_++;
  queues_.clear();
  busy_.clear();
  live_.clear();
}

void ControllerChannel::pump(int32_t broker) {
  if (busy_[broker] || !live_.count(broker)) return;
  auto qit = queues_.find(broker);
  if (qit == queues_.end() || qit->second.empty()) return;
  busy_[broker] = true;
  const Item& item = qit->second.front();
  uint64_t gen = generation_;
  const uint64_t sent_id = item.id;
  // On the controller's own connection (its lane), as Kafka's ControllerChannelManager has a
  // NetworkClient of its own: never queued behind this broker's replica fetches to that broker.
  net_.send_raw(lane_connection(NodeId{broker}, Lane::kController), item.key, item.version, item.body, timeout_,
                [this, broker, gen, sent_id](protocol::ErrorCode error, ByteReader*) {
                  if (gen != generation_) return;
                  busy_[broker] = false;
                  if (error == protocol::ErrorCode::NONE) {
                    Answered answered;
                    auto it = queues_.find(broker);
                    // Only the request this answers leaves the queue. A broker that died with a
                    // request in flight and registered again has a new queue; the old request's
                    // answer (a connection that came back after a network cut) must not take the
                    // new queue's first request, a LeaderAndIsr it then never gets.
                    if (it != queues_.end() && !it->second.empty() && it->second.front().id == sent_id) {
                      answered = std::move(it->second.front().answered);
                      it->second.pop_front();
                    }
                    pump(broker);
                    if (answered) answered();
                    return;
                  }
                  // Retry while the broker is live; its session expiry will remove it otherwise.
                  rt_.after(Duration::millis(100), [this, broker, gen] {
                    if (gen == generation_) pump(broker);
                  });
                },
                true);
}

}  // namespace gregor::broker
