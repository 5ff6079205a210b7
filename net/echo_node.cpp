#include "net/echo_node.h"

#include <algorithm>

namespace gregor::net {

void EchoNode::start() { runtime_.log("echo node " + std::to_string(runtime_.self().value) + " up"); }

void EchoNode::on_message(NodeId from, Bytes frame) {
  if (!is_inbound_connection(from)) return;  // only requests are answered
  requests_++;
  if (clients_.size() < kTrackedIdsMax && std::find(clients_.begin(), clients_.end(), from) == clients_.end())
    clients_.push_back(from);
  if (!runtime_.send(from, std::move(frame))) echo_failures_++;
}

void EchoNode::on_disconnect(NodeId peer) {
  if (disconnects_.size() < kTrackedIdsMax) disconnects_.push_back(peer);
}

}  // namespace gregor::net
