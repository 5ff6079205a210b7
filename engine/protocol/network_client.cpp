#include "engine/protocol/network_client.h"

#include <vector>

namespace gregor::protocol {

NetworkClient::~NetworkClient() {
  for (auto& [id, p] : pending_) rt_.cancel(p.timer);
}

void NetworkClient::send_raw(NodeId to, ApiKey key, int16_t version, Bytes body, Duration timeout, Callback cb,
                             bool expect_response) {
  GREGOR_ASSERT(to.value > 0);
  int32_t correlation_id = next_correlation_id_++;
  if (next_correlation_id_ == INT32_MAX) next_correlation_id_ = 1;
  RequestHeader h;
  h.api_key = key;
  h.api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = client_id_;
  ByteWriter w;
  h.encode(w);
  // Header and body leave as one frame without the body being copied behind the header.
  if (in_flight(to) >= kMaxInFlightPerPeer || !rt_.send_gather(to, w.take(), std::move(body))) {
    // Report asynchronously, so a caller never re-enters itself from inside send.
    rt_.after(Duration{0}, [cb = std::move(cb)] { cb(ErrorCode::NETWORK_EXCEPTION, nullptr); });
    return;
  }
  if (!expect_response) {
    rt_.after(Duration{0}, [cb = std::move(cb)] { cb(ErrorCode::NONE, nullptr); });
    return;
  }
  TimerId timer = rt_.after(timeout, [this, correlation_id] { complete(correlation_id, ErrorCode::REQUEST_TIMED_OUT, nullptr); });
  pending_.emplace(correlation_id, Pending{to, key, version, timer, std::move(cb)});
}

void NetworkClient::complete(int32_t correlation_id, ErrorCode error, ByteReader* body) {
  auto it = pending_.find(correlation_id);
  if (it == pending_.end()) return;
  Pending p = std::move(it->second);
  pending_.erase(it);
  rt_.cancel(p.timer);
  p.cb(error, body);
}

void NetworkClient::on_message(NodeId from, const Bytes& frame) {
  ByteReader peek(as_view(frame));
  int32_t correlation_id = peek.i32();
  if (!peek.ok()) return;
  auto it = pending_.find(correlation_id);
  if (it == pending_.end() || it->second.peer != from) {
    rt_.log("dropping a response with unknown correlation id " + std::to_string(correlation_id));
    return;
  }
  ByteReader r(as_view(frame));
  auto header = ResponseHeader::decode(r, protocol::response_header_version(it->second.key, it->second.version));
  if (!header) {
    complete(correlation_id, ErrorCode::NETWORK_EXCEPTION, nullptr);
    return;
  }
  complete(correlation_id, ErrorCode::NONE, &r);
}

void NetworkClient::on_disconnect(NodeId peer) {
  std::vector<int32_t> ids;
  for (const auto& [id, p] : pending_)
    if (p.peer == peer) ids.push_back(id);
  for (int32_t id : ids) complete(id, ErrorCode::NETWORK_EXCEPTION, nullptr);
}

size_t NetworkClient::in_flight(NodeId peer) const {
  size_t n = 0;
  for (const auto& [id, p] : pending_)
    if (p.peer == peer) n++;
  return n;
}

void NetworkClient::fail_all() {
  while (!pending_.empty()) complete(pending_.begin()->first, ErrorCode::NETWORK_EXCEPTION, nullptr);
}

}  // namespace gregor::protocol
