#include "engine/protocol/network_client.h"

#include <algorithm>
#include <vector>

#include "engine/protocol/records_field.h"

#include "engine/protocol/api_versions.h"
#include "generated/protocol/sasl_authenticate.h"
#include "generated/protocol/sasl_handshake.h"

namespace gregor::protocol {

NetworkClient::PendingList::iterator NetworkClient::find_pending(int32_t correlation_id) {
  auto it = std::lower_bound(pending_.begin(), pending_.end(), correlation_id,
                             [](const auto& e, int32_t id) { return e.first < id; });
  return it != pending_.end() && it->first == correlation_id ? it : pending_.end();
}

void NetworkClient::add_pending(int32_t correlation_id, Pending p) {
  deadline_.ensure(p.deadline);
  // Ids grow (until they wrap at INT32_MAX): almost always at the end.
  auto at = pending_.end();
  if (!pending_.empty() && pending_.back().first > correlation_id)
    at = std::upper_bound(pending_.begin(), pending_.end(), correlation_id,
                          [](int32_t id, const auto& e) { return id < e.first; });
  pending_.emplace(at, correlation_id, std::move(p));
}

void NetworkClient::expire_due() {
  const Time now = rt_.now();
  std::vector<int32_t> due;
  for (const auto& [id, p] : pending_)
    if (p.deadline <= now) due.push_back(id);
  // In correlation id order, as their own timers would have fired; a callback may complete others.
  for (int32_t id : due) complete(id, ErrorCode::REQUEST_TIMED_OUT, nullptr);
  if (pending_.empty()) return;
  Time next = pending_.front().second.deadline;
  for (const auto& [id, p] : pending_) next = std::min(next, p.deadline);
  deadline_.ensure(next);
}

void NetworkClient::set_sasl(std::optional<SaslCredentials> credentials) {
  GREGOR_ASSERT(pending_.empty() && connections_.empty());
  sasl_ = std::move(credentials);
}

int32_t NetworkClient::next_correlation_id() {
  int32_t correlation_id = next_correlation_id_++;
  if (next_correlation_id_ == INT32_MAX) next_correlation_id_ = 1;
  return correlation_id;
}

void NetworkClient::fail_later(Callback cb, ErrorCode error) {
  rt_.after(Duration{0}, [cb = std::move(cb), error] { cb(error, nullptr); });
}

bool NetworkClient::write_request(NodeId to, int32_t correlation_id, ApiKey key, int16_t version, Bytes body,
                                  std::vector<FrameView> views) {
  RequestHeader h;
  h.api_key = key;
  h.api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = client_id_;
  ByteWriter w;
  h.encode(w);
  // Header and body leave as one frame without the body being copied behind the header.
  if (!views.empty()) return rt_.send_gather_views(to, w.take(), std::move(body), std::move(views));
  return rt_.send_gather(to, w.take(), std::move(body));
}

void NetworkClient::send_raw(NodeId to, ApiKey key, int16_t version, Bytes body, Duration timeout, Callback cb,
                             bool expect_response, std::vector<FrameView> views) {
  GREGOR_ASSERT(to.value > 0);
  if (in_flight(to) >= kMaxInFlightPerPeer) return fail_later(std::move(cb), ErrorCode::NETWORK_EXCEPTION);
  if (sasl_ && node_of_connection(to) != rt_.self() && !(plaintext_lanes_ & (1u << static_cast<unsigned>(lane_of(to))))) {
    Connection& c = connections_[to.value];
    if (c.state == Connection::State::kFailed && rt_.now() < c.retry_at) return fail_later(std::move(cb), c.error);
    if (c.state != Connection::State::kReady) {
      // Waits, with its timeout running, until the connection has authenticated.
      const int32_t correlation_id = next_correlation_id();
      add_pending(correlation_id, Pending{to, key, version, rt_.now() + timeout, std::move(cb), true, expect_response,
                                          std::move(body), std::move(views)});
      if (c.state == Connection::State::kNew || c.state == Connection::State::kFailed) start_authentication(to);
      return;
    }
  }
  const int32_t correlation_id = next_correlation_id();
  if (!write_request(to, correlation_id, key, version, std::move(body), std::move(views)))
    return fail_later(std::move(cb), ErrorCode::NETWORK_EXCEPTION);
  if (!expect_response) return fail_later(std::move(cb), ErrorCode::NONE);
  add_pending(correlation_id, Pending{to, key, version, rt_.now() + timeout, std::move(cb), false, true, {}, {}});
}

void NetworkClient::complete(int32_t correlation_id, ErrorCode error, ByteReader* body) {
  auto it = find_pending(correlation_id);
  if (it == pending_.end()) return;
  Pending p = std::move(it->second);
  pending_.erase(it);
  // Its deadline stays with the timer, which finds nothing due if it fires for it (DeadlineTimer).
  p.cb(error, body);
}

void NetworkClient::on_message(NodeId from, Bytes&& frame) {
  const SharedBytes shared(std::move(frame));
  const RecordsSource source(shared);
  on_response(from, shared.view());
}

void NetworkClient::on_message(NodeId from, const Bytes& frame) { on_response(from, as_view(frame)); }

void NetworkClient::on_response(NodeId from, ByteView frame) {
  ByteReader peek(frame);
  int32_t correlation_id = peek.i32();
  if (!peek.ok()) return;
  auto it = find_pending(correlation_id);
  if (it == pending_.end() || it->second.peer != from || it->second.waiting) {
    rt_.log("dropping a response with unknown correlation id " + std::to_string(correlation_id));
    return;
  }
  ByteReader r(frame);
  auto header = ResponseHeader::decode(r, protocol::response_header_version(it->second.key, it->second.version));
  if (!header) {
    complete(correlation_id, ErrorCode::NETWORK_EXCEPTION, nullptr);
    return;
  }
  complete(correlation_id, ErrorCode::NONE, &r);
}

void NetworkClient::on_disconnect(NodeId peer) {
  // A new connection authenticates again; one that failed keeps its backoff.
  auto c = connections_.find(peer.value);
  if (c != connections_.end() && c->second.state != Connection::State::kFailed) connections_.erase(c);
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

// ---- SASL ------------------------------------------------------------------------------------

void NetworkClient::start_authentication(NodeId to) {
  Connection& c = connections_[to.value];
  c.state = Connection::State::kAuthenticating;
  // SCRAM's client nonce from the node's RNG: a simulated run stays deterministic.
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string nonce;
  for (int i = 0; i < 24; i++) nonce += kAlphabet[rt_.rng().uniform(sizeof(kAlphabet) - 1)];
  c.session = std::make_unique<SaslSession>(*sasl_, std::move(nonce));
  ApiVersionsRequest versions;
  versions.client_software_name = "gregor";
  versions.client_software_version = "1.0";
  ByteWriter w;
  versions.encode(w, 3);
  send_authentication_request(to, ApiKey::API_VERSIONS, 3, w.take(), [this, to](ErrorCode err, ByteReader* body) {
    if (err != ErrorCode::NONE) return authentication_failed(to, err, "ApiVersions before SASL failed");
    auto resp = ApiVersionsResponse::decode(*body, 3);
    if (!resp || resp->error_code != ErrorCode::NONE)
      return authentication_failed(to, ErrorCode::NETWORK_EXCEPTION, "ApiVersions before SASL: no usable answer");
    int16_t handshake_max = -1;
    int16_t authenticate_max = -1;
    for (const auto& v : resp->api_keys) {
      if (v.api_key == ApiKey::SASL_HANDSHAKE) handshake_max = v.max_version;
      if (v.api_key == ApiKey::SASL_AUTHENTICATE) authenticate_max = v.max_version;
    }
    Connection& conn = connections_[to.value];
    auto outcome = conn.session->on_api_versions(handshake_max, authenticate_max);
    if (outcome.error != ErrorCode::NONE) return authentication_failed(to, outcome.error, outcome.message);
    SaslHandshakeRequest handshake;
    handshake.mechanism = conn.session->mechanism();
    ByteWriter hw;
    handshake.encode(hw, 1);
    send_authentication_request(to, ApiKey::SASL_HANDSHAKE, 1, hw.take(), [this, to](ErrorCode err2, ByteReader* body2) {
      if (err2 != ErrorCode::NONE) return authentication_failed(to, err2, "SaslHandshake failed");
      auto hs = SaslHandshakeResponse::decode(*body2, 1);
      if (!hs) return authentication_failed(to, ErrorCode::NETWORK_EXCEPTION, "malformed SaslHandshake response");
      SaslSession& session = *connections_[to.value].session;
      auto step = session.on_handshake(hs->error_code, hs->mechanisms);
      if (step.error != ErrorCode::NONE) return authentication_failed(to, step.error, step.message);
      send_authenticate_token(to, session.first_token());
    });
  });
}

void NetworkClient::send_authentication_request(NodeId to, ApiKey key, int16_t version, Bytes body,
                                                std::function<void(ErrorCode, ByteReader*)> on_answer) {
  const int32_t correlation_id = next_correlation_id();
  if (!write_request(to, correlation_id, key, version, std::move(body))) {
    // No connection: the waiting requests fail as a refused send would, and the next send tries again.
    rt_.after(Duration{0}, [this, to] {
      auto c = connections_.find(to.value);
      if (c != connections_.end() && c->second.state == Connection::State::kAuthenticating) on_disconnect(to);
    });
    return;
  }
  add_pending(correlation_id, Pending{to, key, version, rt_.now() + kAuthenticationTimeout, std::move(on_answer), false, true, {}, {}});
}

void NetworkClient::send_authenticate_token(NodeId to, Bytes token) {
  const int16_t version = connections_[to.value].session->authenticate_version();
  SaslAuthenticateRequest req;
  req.auth_bytes = std::move(token);
  ByteWriter w;
  req.encode(w, version);
  send_authentication_request(to, ApiKey::SASL_AUTHENTICATE, version, w.take(), [this, to, version](ErrorCode err, ByteReader* body) {
    if (err != ErrorCode::NONE) return authentication_failed(to, err, "SaslAuthenticate failed");
    auto resp = SaslAuthenticateResponse::decode(*body, version);
    if (!resp) return authentication_failed(to, ErrorCode::NETWORK_EXCEPTION, "malformed SaslAuthenticate response");
    SaslSession& session = *connections_[to.value].session;
    std::optional<Bytes> next;
    auto step = session.on_authenticate(resp->error_code, resp->error_message, resp->auth_bytes, &next);
    if (step.error != ErrorCode::NONE) return authentication_failed(to, step.error, step.message);
    if (next) return send_authenticate_token(to, std::move(*next));
    GREGOR_ASSERT(session.ready());
    authentication_done(to);
  });
}

void NetworkClient::authentication_done(NodeId to) {
  Connection& c = connections_[to.value];
  rt_.log("SASL: authenticated to node " + std::to_string(to.value) + " as " + sasl_->username + " (" + c.session->mechanism() + ")");
  c.state = Connection::State::kReady;
  c.session.reset();
  // The waiting requests go out in the order they were sent.
  std::vector<int32_t> ids;
  for (const auto& [id, p] : pending_)
    if (p.peer == to && p.waiting) ids.push_back(id);
  for (int32_t id : ids) {
    auto it = find_pending(id);
    if (it == pending_.end()) continue;  // a callback above completed it
    Pending& p = it->second;
    p.waiting = false;
    if (!write_request(to, id, p.key, p.version, std::move(p.body), std::move(p.views))) {
      complete(id, ErrorCode::NETWORK_EXCEPTION, nullptr);
    } else if (!p.expect_response) {
      complete(id, ErrorCode::NONE, nullptr);
    }
  }
}

void NetworkClient::authentication_failed(NodeId to, ErrorCode error, const std::string& message) {
  const bool transport = error == ErrorCode::NETWORK_EXCEPTION || error == ErrorCode::REQUEST_TIMED_OUT;
  rt_.log("SASL: authentication to node " + std::to_string(to.value) + " failed: " + error_name(error) + ": " + message);
  if (transport) {
    // The connection broke or did not answer: the waiting requests fail as on any disconnect, and
    // the next send authenticates a new connection.
    rt_.close_connection(to);
    connections_.erase(to.value);
    on_disconnect(to);
    return;
  }
  Connection& c = connections_[to.value];
  c.state = Connection::State::kFailed;
  c.session.reset();
  c.error = error;
  c.retry_at = rt_.now() + kAuthenticationRetryBackoff;
  authentication_failure_ = AuthenticationFailure{to, error, message};
  std::vector<int32_t> ids;
  for (const auto& [id, p] : pending_)
    if (p.peer == to) ids.push_back(id);
  for (int32_t id : ids) complete(id, error, nullptr);
  rt_.close_connection(to);
}

}  // namespace gregor::protocol
