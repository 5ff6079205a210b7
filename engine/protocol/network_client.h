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
//
// SASL (set_sasl; engine/protocol/sasl_client.h): every connection to another node authenticates
// before its first request, as Kafka's SaslClientAuthenticator does: ApiVersions, SaslHandshake v1,
// SaslAuthenticate. Requests sent meanwhile wait (their timeouts running) and go out in order once
// it succeeded. When it fails, the waiting requests fail with the error (SASL_AUTHENTICATION_FAILED,
// UNSUPPORTED_SASL_MECHANISM, ...), authentication_failure() keeps the server's message, the
// connection is closed, and further requests to that peer fail at once with the same error for
// kAuthenticationRetryBackoff (Kafka's reconnect backoff after an AuthenticationException): a bad
// password is not retried in a tight loop. A connection to this node itself (loopback) does not
// authenticate.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/deadline_timer.h"
#include "engine/core/runtime.h"
#include "engine/protocol/errors.h"
#include "engine/protocol/header.h"
#include "engine/protocol/records_field.h"
#include "engine/protocol/sasl_client.h"

namespace gregor::protocol {


class NetworkClient {
 public:
  static constexpr size_t kMaxInFlightPerPeer = 1000;
  // NONE with the response body, or a transport error with nullptr.
  using Callback = std::function<void(ErrorCode transport_error, ByteReader* body)>;

  static constexpr Duration kAuthenticationRetryBackoff = Duration::seconds(1);
  static constexpr Duration kAuthenticationTimeout = Duration::seconds(30);
  // A request header's bytes besides its client id (api key, version, correlation id, lengths, tags).
  static constexpr size_t kRequestHeaderRoom = 16;
  NetworkClient(Runtime& rt, std::string client_id)
      : rt_(rt), client_id_(std::move(client_id)), deadline_(rt, [this] { expire_due(); }) {}

  // Authenticate every connection with these credentials (nullopt: PLAINTEXT, the default).
  // REQUIRES: called before the first send.
  void set_sasl(std::optional<SaslCredentials> credentials);
  bool uses_sasl() const { return sasl_.has_value(); }
  // Connections on `lane` stay PLAINTEXT even with credentials set: the controller's lane when it
  // goes to a control-plane listener, which Gregor serves only as PLAINTEXT.
  void set_plaintext_lane(Lane lane) { plaintext_lanes_ |= 1u << static_cast<unsigned>(lane); }
  struct AuthenticationFailure {
    NodeId peer;
    ErrorCode error = ErrorCode::NONE;
    std::string message;
  };
  // The last failed authentication, if any (the CLI prints it and exits).
  const std::optional<AuthenticationFailure>& authentication_failure() const { return authentication_failure_; }

  // Encodes and sends `request` (a protocol struct with kApiKey and encode(w, version)). With
  // expect_response false (Produce with acks=0) the callback runs at once with NONE and nullptr.
  template <typename Request>
  void send(NodeId to, const Request& request, int16_t version, Duration timeout, Callback cb,
            bool expect_response = true) {
    // One buffer of the encoded size, and room for the request header in front of it (the simulated
    // network sends the two as one frame): a Produce request's records are not moved as it grows.
    Bytes buffer;
    buffer.reserve(request.encoded_size(version) + kRequestHeaderRoom + client_id_.size());
    ByteWriter body(std::move(buffer));
    // Records a shared buffer holds (a producer's batches) are noted as views of the body, which a
    // runtime may hand along with the frame (Runtime::send_gather_views). A request has no file
    // slices: its records are bytes.
    RecordsSink sink;
    request.encode(body, version);
    GREGOR_ASSERT(sink.take().empty());
    send_raw(to, Request::kApiKey, version, body.take(), timeout, std::move(cb), expect_response, sink.take_views());
  }
  void send_raw(NodeId to, ApiKey key, int16_t version, Bytes body, Duration timeout, Callback cb,
                bool expect_response, std::vector<FrameView> views = {});

  // A response frame. Given by value (moved), the frame becomes the shared owner of the records
  // decoded from it in the callback (a RecordsSource scope): a follower appends fetched batches
  // straight from the received frame, without copying them out first. Given as const&, records
  // are copied out as they are decoded.
  void on_message(NodeId from, Bytes&& frame);
  void on_message(NodeId from, const Bytes& frame);
  void on_disconnect(NodeId peer);
  size_t in_flight(NodeId peer) const;
  size_t in_flight_total() const { return pending_.size(); }
  // Fails every pending request (the node is shutting down).
  void fail_all();

 private:
  void on_response(NodeId from, ByteView frame);
  struct Pending {
    NodeId peer;
    ApiKey key;
    int16_t version;
    Time deadline;  // REQUEST_TIMED_OUT then
    Callback cb;
    // A request waiting for its connection's authentication: not yet written.
    bool waiting = false;
    bool expect_response = true;
    Bytes body;
    std::vector<FrameView> views;  // of body (send_raw)
  };
  // One connection's SASL state (only with set_sasl).
  struct Connection {
    enum class State { kNew, kAuthenticating, kReady, kFailed } state = State::kNew;
    std::unique_ptr<SaslSession> session;
    ErrorCode error = ErrorCode::NONE;  // kFailed: why
    Time retry_at{0};                   // kFailed: sends fail at once until then
  };
  void complete(int32_t correlation_id, ErrorCode error, ByteReader* body);
  // The pending requests, by correlation id: few at a time, so a sorted vector (no tree node per
  // request). find_pending: end() when none.
  using PendingList = std::vector<std::pair<int32_t, Pending>>;
  PendingList::iterator find_pending(int32_t correlation_id);
  void add_pending(int32_t correlation_id, Pending p);
  // Fails the requests whose deadline has passed (REQUEST_TIMED_OUT), then waits for the next one.
  void expire_due();
  // Writes one request frame; false when the runtime refused it.
  bool write_request(NodeId to, int32_t correlation_id, ApiKey key, int16_t version, Bytes body,
                     std::vector<FrameView> views = {});
  int32_t next_correlation_id();
  // Runs cb with `error` on a later turn (a caller never re-enters itself from inside send).
  void fail_later(Callback cb, ErrorCode error);
  // SASL.
  void start_authentication(NodeId to);
  void send_authentication_request(NodeId to, ApiKey key, int16_t version, Bytes body,
                                   std::function<void(ErrorCode, ByteReader*)> on_answer);
  void on_authentication_step(NodeId to, SaslSession::Outcome outcome);
  void send_authenticate_token(NodeId to, Bytes token);
  void authentication_done(NodeId to);
  void authentication_failed(NodeId to, ErrorCode error, const std::string& message);

  Runtime& rt_;
  std::string client_id_;
  int32_t next_correlation_id_ = 1;
  PendingList pending_;  // sorted by correlation id
  std::optional<SaslCredentials> sasl_;
  unsigned plaintext_lanes_ = 0;  // a bit per Lane
  std::map<int32_t, Connection> connections_;  // by peer id, with SASL only
  std::optional<AuthenticationFailure> authentication_failure_;
  // One timer for every pending request's timeout (DeadlineTimer); last, so that it goes first.
  DeadlineTimer deadline_;
};

}  // namespace gregor::protocol
