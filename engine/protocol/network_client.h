// NetworkClient: sends Kafka requests to other nodes and matches their responses, as Kafka's
// NetworkClient does, on top of Runtime::send.
//
// Each request gets a correlation id; its callback runs exactly once: with the response body, or
// with a transport error (NETWORK_EXCEPTION when the connection could not be used or broke,
// REQUEST_TIMED_OUT when no answer came in time). Responses arrive on this node's outbound
// connections (positive ids, see engine/core/runtime.h); the owning node hands every frame from a
// positive id to on_message, and every disconnect to on_disconnect.
//
// Limits: a bounded number of requests in flight per peer (max.in.flight.requests.per.connection
// is the caller's business; this caps the total at kMaxInFlightPerPeer as a safety net).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "engine/core/runtime.h"
#include "engine/protocol/errors.h"
#include "engine/protocol/header.h"

namespace gregor::protocol {


class NetworkClient {
 public:
  static constexpr size_t kMaxInFlightPerPeer = 1000;
  // NONE with the response body, or a transport error with nullptr.
  using Callback = std::function<void(ErrorCode transport_error, ByteReader* body)>;

  NetworkClient(Runtime& rt, std::string client_id) : rt_(rt), client_id_(std::move(client_id)) {}
  ~NetworkClient();

  // Encodes and sends `request` (a protocol struct with kApiKey and encode(w, version)). With
  // expect_response false (Produce with acks=0) the callback runs at once with NONE and nullptr.
  template <typename Request>
  void send(NodeId to, const Request& request, int16_t version, Duration timeout, Callback cb,
            bool expect_response = true) {
    ByteWriter body;
    request.encode(body, version);
    send_raw(to, Request::kApiKey, version, body.take(), timeout, std::move(cb), expect_response);
  }
  void send_raw(NodeId to, ApiKey key, int16_t version, Bytes body, Duration timeout, Callback cb,
                bool expect_response);

  void on_message(NodeId from, const Bytes& frame);
  void on_disconnect(NodeId peer);
  size_t in_flight(NodeId peer) const;
  size_t in_flight_total() const { return pending_.size(); }
  // Fails every pending request (the node is shutting down).
  void fail_all();

 private:
  struct Pending {
    NodeId peer;
    ApiKey key;
    int16_t version;
    TimerId timer;
    Callback cb;
  };
  void complete(int32_t correlation_id, ErrorCode error, ByteReader* body);

  Runtime& rt_;
  std::string client_id_;
  int32_t next_correlation_id_ = 1;
  std::map<int32_t, Pending> pending_;  // by correlation id
};

}  // namespace gregor::protocol
