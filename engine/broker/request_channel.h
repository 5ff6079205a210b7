// RequestChannel: the broker's connections from clients and other brokers, and the order of
// their requests (Kafka's SocketServer and RequestChannel).
//
// Requests on one connection are handled one at a time, in order, as Kafka mutes a channel until
// its response is sent: a request that arrives while another of its connection is being handled
// waits (at most kQueuedRequestsPerConnectionMax of them). A handler answers with respond (at once
// or later), or finish when there is no answer (Produce with acks=0); either lets the connection's
// next request run, on a fresh stack. A request that cannot be parsed or answered closes its
// connection (close): the broker lives on, and other connections are not affected.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/runtime.h"
#include "engine/protocol/errors.h"
#include "engine/protocol/header.h"
#include "engine/protocol/records_field.h"

namespace gregor::broker {

// A request being handled: who sent it and its header.
struct Request {
  NodeId from;
  protocol::RequestHeader header;
};

class RequestChannel {
 public:
  static constexpr size_t kQueuedRequestsPerConnectionMax = 1000;
  // Handles one request frame; answers through this channel.
  using Handler = std::function<void(NodeId from, Bytes frame)>;

  RequestChannel(Runtime& rt, Handler handler) : rt_(rt), handler_(std::move(handler)) {}

  // A frame from an inbound connection: handled now, or queued behind the connection's current one.
  void enqueue(NodeId from, Bytes frame);
  void on_disconnect(NodeId peer) { connections_.erase(peer.value); }

  // Sends the response and lets the connection take its next request.
  // Records that are file slices (a Fetch response read from the segment files) are not read: the
  // encoding leaves holes for them (protocol::RecordsSink) that the runtime fills as it sends.
  // Records held as shared buffers (read from the log as views of its pages) go along as views of
  // the frame (Runtime::send_gather_views).
  template <typename Response>
  void respond(const Request& req, const Response& response) {
    ByteWriter body;
    protocol::RecordsSink sink;
    response.encode(body, req.header.api_version);
    respond_raw(req, body.take(), protocol::response_header_version(req.header.api_key, req.header.api_version), sink.take(),
                sink.take_views());
  }
  // Callbacks for handlers whose answer comes later: one answers with the response it is given,
  // the other with a response that holds only an error code.
  template <typename Response>
  std::function<void(const Response&)> responder(const Request& req) {
    return [this, req](const Response& response) { respond(req, response); };
  }
  template <typename Response>
  std::function<void(protocol::ErrorCode)> error_responder(const Request& req) {
    return [this, req](protocol::ErrorCode code) {
      Response response;
      response.error_code = code;
      respond(req, response);
    };
  }
  // The same for a body already encoded, under a response header of the given version.
  void respond_raw(const Request& req, Bytes body, int16_t header_version, std::vector<FrameHole> holes = {},
                   std::vector<FrameView> views = {});
  // Sends a whole response (header included) and lets the connection take its next request.
  void respond_frame(NodeId to, Bytes frame);
  // No response (acks=0): the connection may take its next request.
  void finish(NodeId from);
  // Logs why and closes the connection, its queued requests with it, as Kafka does.
  void close(NodeId from, const std::string& why);

 private:
  struct Connection {
    bool busy = false;
    std::deque<Bytes> queued;
  };

  Runtime& rt_;
  Handler handler_;
  std::map<int32_t, Connection> connections_;
};

}  // namespace gregor::broker
