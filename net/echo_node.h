// EchoNode: the smallest useful Node, an example for run_node and a fixture for transport tests.
//
// It answers every request (a frame from an inbound connection, negative id) with the same bytes on
// the same connection, and counts what it saw. It keeps nothing on disk. Run one on real sockets:
//   net::run_node(config, [](Runtime& rt) { return std::make_unique<net::EchoNode>(rt); });
// then any client that speaks Kafka's size-prefixed framing gets its frames back.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/runtime.h"

namespace gregor::net {

class EchoNode final : public Node {
 public:
  explicit EchoNode(Runtime& runtime) : runtime_(runtime) {}

  void start() override;
  void on_message(NodeId from, Bytes frame) override;
  void on_disconnect(NodeId peer) override;

  uint64_t requests() const { return requests_; }
  uint64_t echo_failures() const { return echo_failures_; }
  // Every connection id seen in a request, in order of first appearance.
  const std::vector<NodeId>& clients() const { return clients_; }
  const std::vector<NodeId>& disconnects() const { return disconnects_; }

 private:
  static constexpr size_t kTrackedIdsMax = 10000;
  Runtime& runtime_;
  uint64_t requests_ = 0;
  uint64_t echo_failures_ = 0;
  std::vector<NodeId> clients_;
  std::vector<NodeId> disconnects_;
};

}  // namespace gregor::net
