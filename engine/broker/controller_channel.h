// ControllerChannel: the controller's ordered request queues to brokers (Kafka's
// ControllerChannelManager). One request in flight per broker, in order: a LeaderAndIsr must not
// overtake the one before it. A failed send is retried after a backoff for as long as the broker
// is live; removing a broker drops its queue. An optional callback runs when the broker has
// answered (the request is done there: a later UpdateMetadata acknowledged means every earlier
// LeaderAndIsr to that broker was applied first).
#pragma once

#include <deque>
#include <functional>
#include <map>

#include "engine/protocol/network_client.h"

namespace gregor::broker {

class ControllerChannel {
 public:
  ControllerChannel(Runtime& rt, protocol::NetworkClient& net, Duration timeout) : rt_(rt), net_(net), timeout_(timeout) {}

  using Answered = std::function<void()>;

  template <typename Request>
  void enqueue(int32_t broker, const Request& request, int16_t version, Answered answered = {}) {
    ByteWriter w;
    request.encode(w, version);
    queues_[broker].push_back(Item{Request::kApiKey, version, w.take(), std::move(answered), ++last_item_id_});
    pump(broker);
  }
  void add_broker(int32_t broker) { live_[broker] = true; }
  void remove_broker(int32_t broker);
  void clear();

 private:
  struct Item {
    protocol::ApiKey key;
    int16_t version;
    Bytes body;
    Answered answered;
    uint64_t id = 0;  // which request an answer belongs to (a broker removed and added meanwhile has a new queue)
  };
  void pump(int32_t broker);

  Runtime& rt_;
  protocol::NetworkClient& net_;
  Duration timeout_;
  std::map<int32_t, std::deque<Item>> queues_;
  std::map<int32_t, bool> busy_;
  std::map<int32_t, bool> live_;
  uint64_t generation_ = 0;  // bumped by clear(): callbacks of an older generation do nothing
  uint64_t last_item_id_ = 0;
};

}  // namespace gregor::broker
