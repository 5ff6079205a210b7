#include "engine/coord/zk_client.h"

#include <algorithm>

#include "engine/core/assert.h"

namespace gregor::coord {

ZkClient::ZkClient(Runtime& rt, ZkClientConfig config) : rt_(rt), config_(std::move(config)) {
  GREGOR_ASSERT_MSG(!config_.servers.empty(), "a zk client needs at least one server");
  for (NodeId s : config_.servers) GREGOR_ASSERT_MSG(s.value > 0, "zk servers are named by node id");
  GREGOR_ASSERT(config_.session_timeout.us > 0 && config_.connect_backoff.us > 0);
  GREGOR_ASSERT_MSG(config_.chroot.empty() || (config_.chroot != "/" && valid_path(config_.chroot)),
                    "a chroot is a path other than /: " + config_.chroot);
}

std::string ZkClient::server_path(const std::string& path) const {
  // ZooKeeper's prependChroot: "/" is the chroot itself.
  if (config_.chroot.empty()) return path;
  return path == "/" ? config_.chroot : config_.chroot + path;
}

std::string ZkClient::client_path(const std::string& path) const {
  const std::string& root = config_.chroot;
  if (root.empty()) return path;
  if (path == root) return "/";
  if (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/')
    return path.substr(root.size());
  return path;  // not under the chroot (ZooKeeper's client logs and keeps it too)
}

ZkClient::~ZkClient() {
  cancel_connection_timers();
  rt_.cancel(backoff_timer_);
  rt_.cancel(deferred_timer_);
  for (auto& r : queued_) rt_.cancel(r.timer);
  for (auto& r : outstanding_) rt_.cancel(r.timer);
}

bool ZkClient::owns_peer(NodeId from) const {
  return std::find(config_.servers.begin(), config_.servers.end(), from) != config_.servers.end();
}

std::optional<NodeId> ZkClient::server() const {
  if (phase_ != Phase::kConnected) return std::nullopt;
  return server_;
}

SessionState ZkClient::state() const { return state_; }

void ZkClient::set_session_listener(std::function<void(SessionState)> listener) {
  session_listener_ = std::move(listener);
}

void ZkClient::set_watch_listener(std::function<void(const WatchEvent&)> listener) {
  watch_listener_ = std::move(listener);
}

int32_t ZkClient::next_xid() {
  // Positive xids only: the negative ones are reserved (notifications, pings, SetWatches).
  last_xid_ = last_xid_ == INT32_MAX ? 1 : last_xid_ + 1;
  return last_xid_;
}

void ZkClient::set_state(SessionState s, bool notify) {
  if (state_ == s) return;
  state_ = s;
  rt_.emit(ev::ZkClientState{.session = session_id_, .state = session_state_name(s), .server = server_ ? server_->value : 0});
  if (notify && session_listener_) session_listener_(s);
}

// ---- Session lifecycle ------------------------------------------------------------------------

void ZkClient::start() {
  if (started_ && !closed_) return;  // already has (or is opening) a session
  cancel_connection_timers();
  rt_.cancel(backoff_timer_);
  started_ = true;
  closed_ = false;
  session_id_ = 0;
  password_.clear();
  last_zxid_seen_ = 0;
  attempts_ = 0;
  data_watches_.clear();
  exist_watches_.clear();
  child_watches_.clear();
  // Servers in a shuffled order, as ZooKeeper's client does, so clients spread over an ensemble.
  order_ = config_.servers;
  for (size_t i = order_.size(); i > 1; i--) std::swap(order_[i - 1], order_[rt_.rng().uniform(i)]);
  next_server_ = 0;
  set_state(SessionState::kConnecting, false);
  phase_ = Phase::kBackoff;
  backoff_timer_ = rt_.after(Duration{0}, [this] { connect_attempt(); });
}

void ZkClient::connect_attempt() {
  if (phase_ != Phase::kBackoff || closed_) return;
  phase_ = Phase::kHandshake;
  generation_++;
  server_ = order_[next_server_++ % order_.size()];
  wire::ConnectRequest q;
  q.last_zxid_seen = last_zxid_seen_;
  q.timeout_ms = static_cast<int32_t>(config_.session_timeout.ms());
  q.session_id = session_id_;
  // ZooKeeper's client sends 16 zero bytes until it has a session's password.
  q.password = password_.empty() ? Bytes(wire::kPasswordBytes, 0) : password_;
  if (!rt_.send(*server_, wire::encode_connect_request(q))) return connection_lost("cannot connect");
  // ZooKeeper's connect timeout: the session timeout shared among the servers to try.
  const Duration connect_timeout = config_.session_timeout / static_cast<int64_t>(order_.size());
  connect_timer_ = rt_.after(connect_timeout, [this] { connection_lost("connect timed out"); });
}

void ZkClient::schedule_reconnect() {
  // Exponential backoff with jitter in [d/2, d], bounded by connect_backoff_max.
  Duration d = config_.connect_backoff;
  for (int i = 0; i < attempts_ && d < config_.connect_backoff_max; i++) d = d * 2;
  if (d > config_.connect_backoff_max) d = config_.connect_backoff_max;
  attempts_++;
  const int64_t half = d.us / 2;
  d = Duration::micros(half + static_cast<int64_t>(rt_.rng().uniform(static_cast<uint64_t>(d.us - half) + 1)));
  backoff_timer_ = rt_.after(d, [this] { connect_attempt(); });
}

void ZkClient::handle_connect_reply(const wire::ConnectResponse& reply) {
  rt_.cancel(connect_timer_);
  // A timeout of 0 is how a server says the session is gone (expired, closed, or the password
  // does not match).
  if (reply.timeout_ms <= 0) return session_expired();
  if (session_id_ != 0 && reply.session_id != session_id_)
    return connection_lost("the server answered for another session");
  if (reply.session_id == 0) return connection_lost("malformed connect reply");
  session_id_ = reply.session_id;
  password_ = reply.password;
  negotiated_timeout_ = Duration::millis(reply.timeout_ms);
  phase_ = Phase::kConnected;
  attempts_ = 0;
  last_heard_ = rt_.now();
  ping_timer_ = rt_.after(negotiated_timeout_ / 3, [this] { ping(); });
  arm_read_timer();
  // Watches first (the server fires what was missed), then the requests that waited.
  if (!data_watches_.empty() || !exist_watches_.empty() || !child_watches_.empty()) {
    wire::Request q;
    q.xid = wire::kSetWatchesXid;
    q.op = wire::OpCode::kSetWatches;
    q.set_watches.relative_zxid = last_zxid_seen_;
    for (const auto& p : data_watches_) q.set_watches.data_watches.push_back(server_path(p));
    for (const auto& p : exist_watches_) q.set_watches.exist_watches.push_back(server_path(p));
    for (const auto& p : child_watches_) q.set_watches.child_watches.push_back(server_path(p));
    send_frame(wire::encode_request(q));
  }
  std::deque<Request> waiting = std::move(queued_);
  queued_.clear();
  for (auto& r : waiting) send_request(r);
  set_state(SessionState::kConnected, true);
}

void ZkClient::drop_connection() {
  // Every attempt and every session resumption is a new connection (its first frame is the
  // handshake), so the old one is closed, and nothing more is read from it.
  if (server_) rt_.close_connection(*server_);
  server_.reset();
}

void ZkClient::connection_lost(const std::string& reason) {
  if (phase_ != Phase::kHandshake && phase_ != Phase::kConnected) return;
  if (closed_) return shut_down();  // closing: no point in reconnecting
  rt_.log("zk client: connection to " + std::to_string(server_ ? server_->value : 0) + " lost: " + reason);
  const bool was_connected = phase_ == Phase::kConnected;
  cancel_connection_timers();
  phase_ = Phase::kBackoff;
  drop_connection();
  schedule_reconnect();
  if (was_connected) set_state(SessionState::kDisconnected, false);
  // Callbacks last: they may call back into the client (close, start, new requests).
  fail_all(ZkError::kConnectionLoss);
  if (was_connected && state_ == SessionState::kDisconnected && session_listener_)
    session_listener_(SessionState::kDisconnected);
}

void ZkClient::session_expired() {
  shut_down();
  if (state_ == SessionState::kExpired && session_listener_) session_listener_(SessionState::kExpired);
}

void ZkClient::close(std::function<void()> closed) {
  if (!started_ || closed_) {
    if (closed) closed();
    return;
  }
  closed_ = true;  // from now on requests fail with kSessionExpired
  if (phase_ != Phase::kConnected) {
    shut_down();
    if (closed) closed();
    return;
  }
  Request r;
  r.xid = next_xid();
  r.op = wire::OpCode::kCloseSession;
  wire::Request q;
  q.xid = r.xid;
  q.op = wire::OpCode::kCloseSession;
  r.frame = wire::encode_request(q);
  // The answer (or a lost connection) ends the session here; shut_down closes the connection, as
  // ZooKeeper's client does after closeSession.
  r.done = [this, closed = std::move(closed)](ZkError, wire::Reply&) {
    shut_down();
    if (closed) closed();
  };
  const int32_t xid = r.xid;
  r.timer = rt_.after(config_.request_timeout, [this, xid] { on_request_timeout(xid); });
  send_request(r);
}

void ZkClient::shut_down() {
  cancel_connection_timers();
  rt_.cancel(backoff_timer_);
  phase_ = Phase::kIdle;
  drop_connection();
  closed_ = true;
  data_watches_.clear();
  exist_watches_.clear();
  child_watches_.clear();
  set_state(SessionState::kExpired, false);
  fail_all(ZkError::kSessionExpired);
}

void ZkClient::cancel_connection_timers() {
  rt_.cancel(connect_timer_);
  rt_.cancel(ping_timer_);
  rt_.cancel(read_timer_);
}

void ZkClient::ping() {
  if (phase_ != Phase::kConnected) return;
  wire::Request q;
  q.xid = wire::kPingXid;
  q.op = wire::OpCode::kPing;
  if (!rt_.send(*server_, wire::encode_request(q))) return connection_lost("send failed");
  ping_timer_ = rt_.after(negotiated_timeout_ / 3, [this] { ping(); });
}

void ZkClient::arm_read_timer() {
  // ZooKeeper's read timeout: 2/3 of the session timeout without a frame from the server. The
  // timer is re-armed lazily, for what is left of the window, instead of on every frame.
  const Duration read_timeout = negotiated_timeout_ * 2 / 3;
  const Duration left = (last_heard_ + read_timeout) - rt_.now();
  read_timer_ = rt_.after(left.us > 0 ? left : Duration{0}, [this, read_timeout] {
    if (phase_ != Phase::kConnected) return;
    if (rt_.now() - last_heard_ >= read_timeout)
      return connection_lost("nothing heard from the server for " + std::to_string(read_timeout.ms()) + " ms");
    arm_read_timer();
  });
}

void ZkClient::on_disconnect(NodeId peer) {
  if (server_ && peer == *server_) connection_lost("disconnected");
}

// ---- Frames from the server -------------------------------------------------------------------

void ZkClient::on_message(NodeId from, Bytes frame) {
  if (!server_ || from != *server_) return;  // not the current connection's server
  if (phase_ == Phase::kHandshake) {
    // The simulator keeps one connection state per pair of nodes, so a server can still send a
    // frame meant for the connection this client just closed, ahead of the ConnectResponse.
    // Such a frame starts with an xid, never 0 (this client numbers from 1, the reserved xids are
    // negative); a ConnectResponse starts with protocol version 0.
    ByteReader peek(as_view(frame));
    if (peek.i32() != wire::kProtocolVersion || !peek.ok()) return;
    wire::ConnectResponse reply;
    if (!wire::decode_connect_response(as_view(frame), &reply)) return connection_lost("malformed connect reply");
    last_heard_ = rt_.now();
    return handle_connect_reply(reply);
  }
  if (phase_ != Phase::kConnected) return;
  wire::ReplyHeader header;
  if (!wire::decode_reply_header(as_view(frame), &header)) return connection_lost("malformed frame");
  last_heard_ = rt_.now();
  // Only the replies to requests (and to SetWatches) move the last zxid seen, as in ZooKeeper's
  // ClientCnxn: a notification or a ping reply carries the server's newest zxid without the
  // events leading up to it. Taking that one would make the SetWatches sent right after a
  // reconnect start after the changes made while this client was away, and the server would
  // register their watches again instead of firing them.
  if (header.xid != wire::kNotificationXid && header.xid != wire::kPingXid)
    last_zxid_seen_ = std::max(last_zxid_seen_, header.zxid);
  switch (header.xid) {
    case wire::kNotificationXid:
      return handle_notification(as_view(frame));
    case wire::kPingXid:
    case wire::kSetWatchesXid:
    case wire::kAuthXid:
      if (header.err == ZkError::kSessionExpired) session_expired();
      return;
    default:
      return handle_reply(header, as_view(frame));
  }
}

void ZkClient::handle_notification(ByteView frame) {
  wire::Reply reply;
  if (!wire::decode_notification(frame, &reply)) return connection_lost("malformed notification");
  WatchEvent e = reply.event;
  e.path = client_path(e.path);
  switch (e.type) {
    case WatchType::kNodeCreated:
    case WatchType::kNodeDataChanged:
      data_watches_.erase(e.path);
      exist_watches_.erase(e.path);
      break;
    case WatchType::kNodeDeleted:
      data_watches_.erase(e.path);
      exist_watches_.erase(e.path);
      child_watches_.erase(e.path);
      break;
    case WatchType::kNodeChildrenChanged:
      child_watches_.erase(e.path);
      break;
    default:
      return;  // an event type this client never asks for (persistent watches, watch removal)
  }
  if (watch_listener_) watch_listener_(e);
}

void ZkClient::handle_reply(const wire::ReplyHeader& header, ByteView frame) {
  if (outstanding_.empty() || outstanding_.front().xid != header.xid) return connection_lost("reply out of order");
  Request r = std::move(outstanding_.front());
  outstanding_.pop_front();
  rt_.cancel(r.timer);
  wire::Reply reply;
  bool decoded = wire::decode_reply(frame, r.op, &reply);
  if (decoded && r.op == wire::OpCode::kMulti && reply.header.err == ZkError::kOk) {
    // A multi answers one result per op; an ErrorResult does not say its op, the request does.
    decoded = reply.results.size() == r.op_types.size();
    for (size_t i = 0; decoded && i < reply.results.size(); i++) {
      ZkOpResult& res = reply.results[i];
      res.type = r.op_types[i];
      // A failed multi is Ok in its header; its error is the first op's that is not Ok.
      if (reply.header.err == ZkError::kOk && res.error != ZkError::kOk) reply.header.err = res.error;
      if (is_create(res.type)) res.created_path = client_path(res.created_path);
    }
  }
  if (decoded && (r.op == wire::OpCode::kCreate || r.op == wire::OpCode::kCreate2) && reply.header.err == ZkError::kOk)
    reply.path = client_path(reply.path);
  if (!decoded) {
    reply = wire::Reply{};
    reply.header = header;
    reply.header.err = ZkError::kMarshallingError;
  }
  const ZkError err = reply.header.err;
  if (r.watch) {
    // The server left the watch: remember it to register it again after a reconnect.
    if (err == ZkError::kOk && r.op == wire::OpCode::kGetChildren) child_watches_.insert(r.path);
    if (err == ZkError::kOk && (r.op == wire::OpCode::kGetData || r.op == wire::OpCode::kExists))
      data_watches_.insert(r.path);
    if (err == ZkError::kNoNode && r.op == wire::OpCode::kExists) exist_watches_.insert(r.path);
  }
  if (!r.timed_out && r.done) r.done(err, reply);
  if (!decoded) return connection_lost("malformed reply");
  if (err == ZkError::kSessionExpired && !closed_) session_expired();
}

// ---- Requests ---------------------------------------------------------------------------------

void ZkClient::defer(std::function<void()> fn) {
  deferred_.push_back(std::move(fn));
  if (deferred_scheduled_) return;
  deferred_scheduled_ = true;
  deferred_timer_ = rt_.after(Duration{0}, [this] { run_deferred(); });
}

void ZkClient::run_deferred() {
  deferred_scheduled_ = false;
  auto work = std::move(deferred_);
  deferred_.clear();
  for (auto& fn : work) fn();
}

void ZkClient::submit(wire::Request q, Done done, bool absolute) {
  auto fail = [this, &done](ZkError err) {
    defer([done = std::move(done), err] {
      wire::Reply empty;
      empty.header.err = err;
      done(err, empty);
    });
  };
  if (!started_) return fail(ZkError::kConnectionLoss);
  if (closed_) return fail(ZkError::kSessionExpired);
  if (pending_requests() >= config_.max_pending_requests) return fail(ZkError::kSystemError);
  // Only what the wire cannot carry is refused here; every other bad argument is the server's to judge.
  auto too_long = [](const std::string& p) { return p.size() > ZkLimits::kMaxPathBytes; };
  if (too_long(q.args.path)) return fail(ZkError::kBadArguments);
  if (q.ops.size() > ZkLimits::kMaxOpsPerMulti) return fail(ZkError::kBadArguments);
  for (const auto& op : q.ops)
    if (too_long(op.path)) return fail(ZkError::kBadArguments);
  Request r;
  r.xid = next_xid();
  q.xid = r.xid;
  r.op = q.op;
  r.watch = q.watch;
  r.path = q.args.path;
  for (const auto& op : q.ops) r.op_types.push_back(op.type);
  if (!absolute && !config_.chroot.empty()) {
    // A relative path ("", "a") stays as it is, so that the server refuses it as ZooKeeper would.
    if (!q.args.path.empty() && q.args.path.front() == '/') q.args.path = server_path(q.args.path);
    for (auto& op : q.ops)
      if (!op.path.empty() && op.path.front() == '/') op.path = server_path(op.path);
  }
  r.frame = wire::encode_request(q);
  if (r.frame.size() > ZkLimits::kMaxFrameBytes) return fail(ZkError::kBadArguments);
  r.done = std::move(done);
  const int32_t xid = r.xid;
  r.timer = rt_.after(config_.request_timeout, [this, xid] { on_request_timeout(xid); });
  if (phase_ == Phase::kConnected)
    send_request(r);
  else
    queued_.push_back(std::move(r));
}

void ZkClient::send_request(Request& r) {
  Bytes frame = std::move(r.frame);
  r.frame.clear();
  outstanding_.push_back(std::move(r));
  send_frame(std::move(frame));
}

void ZkClient::send_frame(Bytes frame) {
  if (rt_.send(*server_, std::move(frame))) return;
  // Called from a user's request or from the handshake: fail the connection a moment later,
  // outside the caller's stack (and only if it is still the same connection).
  const uint64_t generation = generation_;
  defer([this, generation] {
    if (generation_ == generation) connection_lost("send failed");
  });
}

void ZkClient::on_request_timeout(int32_t xid) {
  for (auto it = queued_.begin(); it != queued_.end(); ++it) {
    if (it->xid != xid) continue;
    Request r = std::move(*it);
    queued_.erase(it);
    wire::Reply empty;
    empty.header.err = ZkError::kOperationTimeout;
    if (r.done) r.done(ZkError::kOperationTimeout, empty);
    return;
  }
  for (auto& r : outstanding_) {
    if (r.xid != xid || r.timed_out) continue;
    // Keep the entry: the reply, if it comes, must still match this xid.
    r.timed_out = true;
    Done done = std::move(r.done);
    r.done = nullptr;
    wire::Reply empty;
    empty.header.err = ZkError::kOperationTimeout;
    if (done) done(ZkError::kOperationTimeout, empty);
    return;
  }
}

void ZkClient::fail_all(ZkError err) {
  std::deque<Request> failed = std::move(outstanding_);
  outstanding_.clear();
  for (auto& r : queued_) failed.push_back(std::move(r));
  queued_.clear();
  for (auto& r : failed) {
    rt_.cancel(r.timer);
    if (r.timed_out || !r.done) continue;
    wire::Reply empty;
    empty.header.err = err;
    r.done(err, empty);
  }
}

void ZkClient::create(std::string path, std::optional<Bytes> data, CreateMode mode,
                      std::function<void(ZkError, std::string)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kCreate;
  q.args = ZkOp::create(std::move(path), std::move(data), mode);
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply& r) { cb(e, std::move(r.path)); });
}

void ZkClient::create2(std::string path, std::optional<Bytes> data, CreateMode mode,
                       std::function<void(ZkError, std::string, Stat)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kCreate2;
  q.args = ZkOp::create(std::move(path), std::move(data), mode);
  q.args.type = ZkOpType::kCreate2;
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply& r) { cb(e, std::move(r.path), r.stat); });
}

void ZkClient::create_chroot(std::function<void(ZkError)> cb) {
  GREGOR_ASSERT_MSG(!config_.chroot.empty(), "create_chroot without a chroot");
  // Each prefix of the chroot in turn, from the top ("/a", "/a/b"); requests on one connection
  // are answered in order, so the last answer tells the outcome.
  std::vector<std::string> prefixes;
  for (size_t slash = config_.chroot.find('/', 1); slash != std::string::npos; slash = config_.chroot.find('/', slash + 1))
    prefixes.push_back(config_.chroot.substr(0, slash));
  prefixes.push_back(config_.chroot);
  for (size_t i = 0; i < prefixes.size(); i++) {
    wire::Request q;
    q.op = wire::OpCode::kCreate;
    q.args = ZkOp::create(prefixes[i], std::nullopt, CreateMode::kPersistent);
    const bool last = i + 1 == prefixes.size();
    submit(std::move(q), [cb, last](ZkError e, wire::Reply&) {
      if (last) cb(e == ZkError::kNodeExists ? ZkError::kOk : e);
    }, /*absolute=*/true);
  }
}

void ZkClient::get_data(std::string path, bool watch, std::function<void(ZkError, Bytes, Stat)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kGetData;
  q.args.path = std::move(path);
  q.watch = watch;
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply& r) { cb(e, std::move(r.data), r.stat); });
}

void ZkClient::set_data(std::string path, Bytes data, int32_t expected_version, std::function<void(ZkError, Stat)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kSetData;
  q.args = ZkOp::set_data(std::move(path), std::move(data), expected_version);
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply& r) { cb(e, r.stat); });
}

void ZkClient::remove(std::string path, int32_t expected_version, std::function<void(ZkError)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kDelete;
  q.args = ZkOp::remove(std::move(path), expected_version);
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply&) { cb(e); });
}

void ZkClient::exists(std::string path, bool watch, std::function<void(ZkError, std::optional<Stat>)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kExists;
  q.args.path = std::move(path);
  q.watch = watch;
  // As ZooKeeper's synchronous exists(): a missing node is not an error, just no Stat.
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply& r) {
    if (e == ZkError::kNoNode) return cb(ZkError::kOk, std::nullopt);
    cb(e, e == ZkError::kOk ? std::optional<Stat>(r.stat) : std::nullopt);
  });
}

void ZkClient::sync(std::string path, std::function<void(ZkError)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kSync;
  q.args.path = std::move(path);
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply&) { cb(e); });
}

void ZkClient::get_children(std::string path, bool watch, std::function<void(ZkError, std::vector<std::string>)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kGetChildren;
  q.args.path = std::move(path);
  q.watch = watch;
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply& r) { cb(e, std::move(r.children)); });
}

void ZkClient::multi(std::vector<ZkOp> ops, std::function<void(ZkError, std::vector<ZkOpResult>)> cb) {
  wire::Request q;
  q.op = wire::OpCode::kMulti;
  q.ops = std::move(ops);
  submit(std::move(q), [cb = std::move(cb)](ZkError e, wire::Reply& r) { cb(e, std::move(r.results)); });
}

}  // namespace gregor::coord
