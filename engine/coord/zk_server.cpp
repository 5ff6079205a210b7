#include "engine/coord/zk_server.h"

#include <algorithm>

#include "engine/core/assert.h"

namespace gregor::coord {

ZkServer::ZkServer(Runtime& rt, ZkServerConfig config)
    : rt_(rt), config_(std::move(config)), storage_(std::make_unique<ZkStorage>(rt.disk(), config_.storage)), sessions_(config_.tick_time) {
  GREGOR_ASSERT(config_.tick_time.us > 0);
}

ZkServer::~ZkServer() = default;

void ZkServer::start() {
  auto info = storage_->recover(db_);
  if (!info) {
    rt_.emit(ev::ZkRecoverFailed{.reason = info.status().to_string()});
    rt_.log("zk: recovery failed, not serving: " + info.status().to_string());
    return;
  }
  recovery_ = *info;
  prep_ = std::make_unique<ZkPrep>(db_);
  // A single server writes in epoch 1, as an ensemble after its first election (a data directory
  // of an older build, with epoch-0 zxids, goes on at counter 1 of epoch 1). An ensemble's epoch
  // is set by its leader once elected.
  if (!replicated() && zxid_epoch(db_.last_zxid()) < 1) prep_->start_epoch(1);
  // ZooKeeper starts its session ids at the server id in the top byte and the clock below it, so
  // that ids stay unique over restarts; here the start below the server id comes from the node's
  // RNG stream (deterministic in the simulator), and ids in use are skipped.
  session_counter_ = (rt_.rng().next_u64() & ((uint64_t{1} << 40) - 1)) << 16;
  durable_zxid_ = db_.last_zxid();
  serving_ = true;
  rt_.emit(ev::ZkRecover{.zxid = db_.last_zxid(),
                         .snapshot_zxid = recovery_.snapshot_zxid,
                         .txns_replayed = recovery_.txns_replayed,
                         .truncated_bytes = static_cast<int64_t>(recovery_.truncated_bytes),
                         .nodes = static_cast<int64_t>(db_.tree().node_count()),
                         .sessions = static_cast<int64_t>(db_.sessions().size())});
  for (const auto& [path, node] : db_.tree().nodes())
    rt_.emit(ev::ZkNode{.path = path,
                        .version = node.stat.version,
                        .cversion = node.stat.cversion,
                        .ephemeral_owner = node.stat.ephemeral_owner,
                        .data = printable_data(as_view(node.data))});
  // Restored sessions get a fresh window: their clients could not reach a server that was down.
  for (const auto& [id, record] : db_.sessions()) {
    sessions_.add(id, Duration::millis(record.timeout_ms), rt_.now());
    rt_.emit(ev::ZkSessionRestore{.session = id, .timeout_ms = record.timeout_ms});
  }
  schedule_tick();
  if (replicated()) ensemble_start();
}

// ---- Connections and requests ----------------------------------------------------------------

void ZkServer::on_message(NodeId from, Bytes frame) {
  if (!serving_) return;
  if (replicated()) {
    // Peers: on the connections this server opened to them, or on theirs into it (their frames
    // carry the quorum magic; a client's first frame is a ConnectRequest).
    const bool client = is_inbound_connection(from) && connections_.count(from.value) > 0;
    if (!client && (!is_inbound_connection(from) || is_quorum_frame(as_view(frame)))) {
      QuorumMessage m;
      if (decode_quorum_message(as_view(frame), &m) && known_peer(m.sender)) on_peer_message(from, m);
      return;
    }
    // A server that is not part of a serving quorum refuses clients: they try another server.
    if (!active_) return rt_.close_connection(from);
  }
  // The server only ever answers: a frame on a connection it opened cannot be a request.
  if (!is_inbound_connection(from)) return;
  const int32_t connection = from.value;
  if (frame.size() > config_.max_request_bytes()) return bad_frame(connection, "frame too large");
  Connection& conn = connection_entry(connection);
  switch (conn.state) {
    case ConnectionState::kHandshake: {
      wire::ConnectRequest request;
      if (!wire::decode_connect_request(as_view(frame), &request))
        return bad_frame(connection, "malformed ConnectRequest");
      return handle_connect(connection, request);
    }
    case ConnectionState::kDone:
      // ZooKeeper closes this connection after its last answer (an expired session's
      // ConnectResponse, closeSession's reply); the client closes it on reading that answer.
      // Frames it sent meanwhile (the Java client sends SetWatches right behind its
      // ConnectRequest) are dropped; closing here could lose the answer still in the pipeline.
      return;
    case ConnectionState::kConnected:
      break;
  }
  int32_t xid = 0, op = 0;
  if (!wire::decode_request_header(as_view(frame), &xid, &op)) return bad_frame(connection, "short header");
  Pending p;
  p.connection = connection;
  p.binding = conn.binding;
  p.xid = xid;
  p.op = wire::OpCode::kPing;  // an error reply has no record, whatever the op
  p.session = conn.session;
  if (!wire::served_op(op)) {
    // As ZooKeeper's UnimplementedRequestProcessor: the request's xid with Unimplemented.
    rt_.emit(ev::ZkBadFrame{.reason = "unimplemented op " + wire::op_name(op)});
    p.error = ZkError::kUnimplemented;
    return enqueue(std::move(p));
  }
  wire::Request request;
  if (!wire::decode_request(as_view(frame), &request)) {
    // The header is readable: answer this request with MarshallingError, in order.
    rt_.emit(ev::ZkBadFrame{.reason = "malformed " + wire::op_name(op) + " request"});
    p.error = ZkError::kMarshallingError;
    return enqueue(std::move(p));
  }
  handle_request(connection, std::move(request));
}

void ZkServer::bad_frame(int32_t connection, const std::string& reason) {
  // Nothing can be answered without an xid; ZooKeeper closes such a connection. It loses its
  // session binding and its watches; the session itself lives on until it expires or resumes.
  rt_.emit(ev::ZkBadFrame{.reason = reason});
  close(connection);
}

void ZkServer::close(int32_t connection) {
  unbind(connection);
  connections_.erase(connection);
  rt_.close_connection(NodeId{connection});
}

void ZkServer::on_disconnect(NodeId peer) {
  if (replicated()) on_peer_disconnect(peer);
  if (!is_inbound_connection(peer)) return;
  unbind(peer.value);
  connections_.erase(peer.value);
}

ZkServer::Connection& ZkServer::connection_entry(int32_t connection) {
  auto it = connections_.find(connection);
  if (it != connections_.end()) return it->second;
  // Bindings are unique over the server's life: a connection id the runtime reuses (the simulator
  // names a connection by its client) never receives what was meant for the earlier connection.
  Connection c;
  c.binding = next_binding_++;
  return connections_[connection] = c;
}

void ZkServer::unbind(int32_t connection) {
  auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  const int64_t session = it->second.session;
  auto sc = session_connection_.find(session);
  if (sc != session_connection_.end() && sc->second == connection) session_connection_.erase(sc);
  it->second.session = 0;
  it->second.binding = next_binding_++;
  watches_.remove_connection(connection);
}

void ZkServer::handle_request(int32_t connection, wire::Request request) {
  Connection& conn = connection_entry(connection);
  Pending p;
  p.connection = connection;
  p.binding = conn.binding;
  p.xid = request.xid;
  p.op = request.op;
  p.session = conn.session;
  if (conn.session == 0 || !sessions_.touch(conn.session, rt_.now())) {
    // The session expired or was closed since the handshake.
    p.error = ZkError::kSessionExpired;
    return enqueue(std::move(p));
  }
  if (peer_state_ == PeerState::kFollowing) touched_.insert(conn.session);  // reported to the leader
  const int64_t time_ms = rt_.wall_time_ms();
  switch (request.op) {
    case wire::OpCode::kPing:
      break;
    case wire::OpCode::kCloseSession: {
      sessions_.set_closing(conn.session);
      if (peer_state_ == PeerState::kFollowing) {
        QuorumMessage m;
        m.kind = ForwardKind::kCloseSession;
        m.session = conn.session;
        m.xid = request.xid;
        forward(p, std::move(m));
        conn.state = ConnectionState::kDone;
        break;
      }
      p.txn = prep_->close_session(conn.session, request.xid, false, time_ms).txn;
      // ZooKeeper closes the connection after this answer; the client closes it on reading it.
      conn.state = ConnectionState::kDone;
      break;
    }
    case wire::OpCode::kCreate:
    case wire::OpCode::kCreate2:
    case wire::OpCode::kDelete:
    case wire::OpCode::kSetData:
    case wire::OpCode::kCheck: {
      if (peer_state_ == PeerState::kFollowing) {
        forward_ops(p, conn.session, request);
        break;
      }
      PrepOutcome out = prep_->ops(conn.session, request.xid, time_ms, {request.args}, false);
      if (out.error != ZkError::kOk) emit_refused(request, out.results, out.error, conn.session);
      p.error = out.error;
      p.txn = std::move(out.txn);
      p.results = std::move(out.results);
      break;
    }
    case wire::OpCode::kMulti: {
      if (request.ops.empty()) break;  // nothing to do: an empty result list
      if (peer_state_ == PeerState::kFollowing) {
        forward_ops(p, conn.session, request);
        p.request = std::move(request);
        break;
      }
      PrepOutcome out = prep_->ops(conn.session, request.xid, time_ms, request.ops, true);
      if (out.error != ZkError::kOk) emit_refused(request, out.results, out.error, conn.session);
      // A failed multi answers with per-op results (and Ok in its header), as ZooKeeper does.
      p.results = std::move(out.results);
      p.txn = std::move(out.txn);
      p.request = std::move(request);
      break;
    }
    case wire::OpCode::kExists:
    case wire::OpCode::kGetData:
    case wire::OpCode::kGetChildren:
    case wire::OpCode::kGetChildren2:
    case wire::OpCode::kGetAcl:
    case wire::OpCode::kSync:
    case wire::OpCode::kGetAllChildrenNumber:
      if (!valid_path(request.args.path)) p.error = ZkError::kBadArguments;
      if (p.error == ZkError::kOk && request.op == wire::OpCode::kSync && peer_state_ == PeerState::kFollowing) {
        // The leader answers with its newest zxid; the reply waits until this server applied it.
        forward_ops(p, conn.session, request);
      }
      p.request = std::move(request);
      break;
    case wire::OpCode::kGetEphemerals:
      p.request = std::move(request);
      break;
    case wire::OpCode::kAuth:
      // ACLs are not enforced, so an identity changes nothing; the schemes ZooKeeper has built in
      // are accepted, any other fails as on a server without that provider.
      if (request.auth.scheme != "digest" && request.auth.scheme != "ip") p.error = ZkError::kAuthFailed;
      p.xid = wire::kAuthXid;
      break;
    case wire::OpCode::kSetWatches:
    case wire::OpCode::kSetWatches2:
      p.request = std::move(request);
      break;
    default:
      GREGOR_UNREACHABLE("decode_request accepts only served ops");
  }
  enqueue(std::move(p));
}

std::optional<std::string> ZkServer::refuse_new_session(int32_t connection) {
  if (sessions_.size() >= config_.max_sessions) return "too many sessions";
  if (config_.max_client_cnxns == 0) return std::nullopt;
  const std::string host = rt_.peer_host(NodeId{connection});
  if (host.empty()) return std::nullopt;
  std::set<int64_t>& mine = sessions_by_host_[host];
  std::erase_if(mine, [this](int64_t id) { return !sessions_.contains(id); });
  if (mine.size() >= config_.max_client_cnxns)
    return "too many sessions from " + host + " (maxClientCnxns=" + std::to_string(config_.max_client_cnxns) + ")";
  return std::nullopt;
}

void ZkServer::remember_session_host(const std::string& host, int64_t session) {
  sessions_by_host_[host].insert(session);
  // Ended sessions are pruned per address when it connects again; all of them once the table holds
  // twice as many as can be live, so addresses that never come back cannot make it grow for ever.
  if (++session_hosts_tracked_ <= 2 * config_.max_sessions) return;
  session_hosts_tracked_ = 0;
  for (auto it = sessions_by_host_.begin(); it != sessions_by_host_.end();) {
    std::erase_if(it->second, [this](int64_t id) { return !sessions_.contains(id); });
    session_hosts_tracked_ += it->second.size();
    it = it->second.empty() ? sessions_by_host_.erase(it) : std::next(it);
  }
}

int64_t ZkServer::next_session_id() {
  const uint64_t server_byte = static_cast<uint64_t>(rt_.self().value & 0xff) << 56;
  for (;;) {
    session_counter_ = (session_counter_ + 1) & ((uint64_t{1} << 56) - 1);
    const int64_t id = static_cast<int64_t>(server_byte | session_counter_);
    if (id != 0 && !db_.sessions().count(id) && !sessions_.contains(id)) return id;
  }
}

void ZkServer::handle_connect(int32_t connection, const wire::ConnectRequest& c) {
  Connection& conn = connection_entry(connection);
  conn.read_only_flag = c.has_read_only;
  const int64_t known_zxid = replicated() ? db_.last_zxid() : prep_->last_prepared_zxid();
  if (c.last_zxid_seen > known_zxid) {
    // The client has seen a newer state than this server has: never true of a single server
    // that recovers what it acknowledged. ZooKeeper closes such a connection, so that the client
    // tries another server.
    rt_.emit(ev::ZkConnectRefused{.session = c.session_id, .reason = "client saw zxid " + zxid_hex(c.last_zxid_seen)});
    return close(connection);
  }
  Pending p;
  p.connection = connection;
  p.binding = conn.binding;
  p.op = wire::OpCode::kCreateSession;
  p.connect.has_read_only = c.has_read_only;
  const int64_t min_ms = min_session_timeout().ms(), max_ms = max_session_timeout().ms();
  const int32_t timeout_ms = static_cast<int32_t>(std::clamp<int64_t>(c.timeout_ms, min_ms, max_ms));
  if (c.session_id == 0) {
    if (auto reason = refuse_new_session(connection)) {
      rt_.emit(ev::ZkConnectRefused{.session = 0, .reason = *reason});
      return close(connection);
    }
    const int64_t id = next_session_id();
    if (std::string host = rt_.peer_host(NodeId{connection}); !host.empty()) remember_session_host(host, id);
    Bytes password(wire::kPasswordBytes);
    for (auto& b : password) b = static_cast<uint8_t>(rt_.rng().next_u64());
    if (peer_state_ == PeerState::kFollowing) {
      QuorumMessage m;
      m.kind = ForwardKind::kCreateSession;
      m.session = id;
      m.timeout_ms = timeout_ms;
      m.password = password;
      forward(p, std::move(m));
    } else {
      p.txn = prep_->create_session(id, timeout_ms, password, rt_.wall_time_ms()).txn;
    }
    sessions_.add(id, Duration::millis(timeout_ms), rt_.now());
    p.session = id;
    p.connect.timeout_ms = timeout_ms;
    p.connect.session_id = id;
    p.connect.password = std::move(password);
  } else {
    auto record = db_.sessions().find(c.session_id);
    if (record == db_.sessions().end() || record->second.password != c.password ||
        !sessions_.touch(c.session_id, rt_.now())) {
      // ZooKeeper's answer to an unknown, expired or wrongly authenticated session: a
      // ConnectResponse with timeout 0 and a zeroed password, then nothing more on the connection.
      p.connect.timeout_ms = 0;
      p.connect.session_id = 0;
      p.connect.password = Bytes(wire::kPasswordBytes, 0);
      conn.state = ConnectionState::kDone;
      return enqueue(std::move(p));
    }
    if (peer_state_ == PeerState::kFollowing) touched_.insert(c.session_id);
    // The session moves to this connection; its previous one is closed.
    auto previous = session_connection_.find(c.session_id);
    if (previous != session_connection_.end() && previous->second != connection) close(previous->second);
    p.session = c.session_id;
    p.connect.timeout_ms = record->second.timeout_ms;
    p.connect.session_id = c.session_id;
    p.connect.password = record->second.password;
  }
  Connection& bound = connection_entry(connection);
  bound.state = ConnectionState::kConnected;
  bound.session = p.session;
  session_connection_[p.session] = connection;
  enqueue(std::move(p));
}

// ---- Session expiry ---------------------------------------------------------------------------

void ZkServer::schedule_tick() {
  // Ticks fall on multiples of tickTime, where the rounded expiry times are.
  const int64_t tick = config_.tick_time.us;
  const Time next{(rt_.now().us / tick + 1) * tick};
  tick_timer_ = rt_.after(next - rt_.now(), [this] {
    expire_sessions();
    schedule_tick();
  });
}

void ZkServer::expire_sessions() {
  if (!serving_) return;
  // In an ensemble the leader alone decides expiry (a proposal like any write).
  if (replicated() && !(active_ && peer_state_ == PeerState::kLeading)) return;
  for (int64_t session : sessions_.expired(rt_.now())) {
    sessions_.set_closing(session);
    Pending p;
    p.op = wire::OpCode::kCloseSession;
    p.session = session;
    p.txn = prep_->close_session(session, 0, true, rt_.wall_time_ms()).txn;
    enqueue(std::move(p));
  }
}

// ---- The pipeline -----------------------------------------------------------------------------

void ZkServer::enqueue(Pending p) {
  if (!serving_) return;
  if (replicated()) {
    if (!active_) return;
    if (p.txn) propose(*p.txn);
    if (!serving_) return;
    pipeline_.push_back(std::move(p));
    return drain();
  }
  if (p.txn) {
    Status s = storage_->append(*p.txn);
    if (!s.is_ok()) return halt("txn log append failed: " + s.to_string());
    schedule_flush();
  }
  pipeline_.push_back(std::move(p));
  drain();
}

void ZkServer::schedule_flush() {
  if (flush_scheduled_) return;
  flush_scheduled_ = true;
  // With no commit delay the flush runs after every message already queued for this instant, so
  // a batch of requests shares one fsync.
  flush_timer_ = rt_.after(config_.commit_delay, [this] { flush(); });
}

void ZkServer::flush() {
  flush_scheduled_ = false;
  if (!serving_) return;
  Status s = storage_->flush();
  if (!s.is_ok()) return halt("txn log fsync failed: " + s.to_string());
  durable_zxid_ = storage_->last_appended_zxid();
  if (replicated()) after_flush();
  drain();
  if (serving_ && storage_->snapshot_due() && !storage_->has_unflushed() &&
      db_.last_zxid() == storage_->last_appended_zxid()) {
    Status snap = storage_->snapshot(db_);
    if (snap.is_ok()) {
      rt_.emit(ev::ZkSnapshot{.zxid = db_.last_zxid(), .nodes = static_cast<int64_t>(db_.tree().node_count())});
    } else {
      // Not fatal: the log still holds everything. The next flush tries again.
      rt_.log("zk: snapshot failed: " + snap.to_string());
    }
  }
}

void ZkServer::drain() {
  if (replicated()) return drain_follower();
  while (serving_ && !pipeline_.empty()) {
    Pending& p = pipeline_.front();
    if (p.txn && p.txn->zxid > durable_zxid_) return;  // waits for its fsync
    finish(p);
    pipeline_.pop_front();
  }
}

bool ZkServer::binding_valid(int32_t connection, uint64_t binding) const {
  auto it = connections_.find(connection);
  return it != connections_.end() && it->second.binding == binding;
}

void ZkServer::reply(const Pending& p, Bytes frame) {
  if (p.connection == 0 || !binding_valid(p.connection, p.binding)) return;
  rt_.send(NodeId{p.connection}, std::move(frame));
}

void ZkServer::finish(Pending& p) {
  wire::Reply r;
  r.header.xid = p.xid;
  r.header.err = p.error;
  if (p.txn) {
    apply_txn(p, r);
  } else if (p.error == ZkError::kOk) {
    answer_read(p, r);
  }
  r.header.zxid = p.txn ? p.txn->zxid : db_.last_zxid();
  switch (p.op) {
    case wire::OpCode::kCreateSession:
      // The handshake's answer has no header; a session that could not be resumed gets timeout 0.
      return reply(p, wire::encode_connect_response(p.connect));
    case wire::OpCode::kMulti:
      if (!p.txn) r.results = p.results;  // a failed multi, or one of checks only
      // Each result says the op as the client sent it (a create2 answers with its Stat).
      for (size_t i = 0; i < r.results.size() && i < p.request.ops.size(); i++) r.results[i].type = p.request.ops[i].type;
      break;
    case wire::OpCode::kSetWatches:
    case wire::OpCode::kSetWatches2:
      r.header.xid = wire::kSetWatchesXid;
      break;
    case wire::OpCode::kPing:
      // An error reply (Unimplemented, MarshallingError) rides on the ping op but keeps its xid.
      if (p.error == ZkError::kOk) r.header.xid = wire::kPingXid;
      break;
    default:
      break;
  }
  if (r.header.err != ZkError::kOk) return reply(p, wire::encode_error_reply(r.header.xid, r.header.zxid, r.header.err));
  reply(p, wire::encode_reply(p.op, r));
}

void ZkServer::apply_txn(Pending& p, wire::Reply& r) {
  const Txn& txn = *p.txn;
  ApplyResult result;
  Status s = db_.apply(txn, &result);
  GREGOR_ASSERT_MSG(s.is_ok(), "a prepared txn does not apply: " + s.to_string());
  if (replicated() && peer_state_ != PeerState::kLeading) prep_->applied_elsewhere(txn.zxid);
  else prep_->applied(txn.zxid);
  emit_txn(txn, result);
  const TxnOp& first = txn.ops.front();
  // In an ensemble a session may open on another server: every server tracks it from its commit.
  if (replicated() && first.type == TxnType::kCreateSession && !sessions_.contains(txn.session))
    sessions_.add(txn.session, Duration::millis(first.timeout_ms), rt_.now());
  if (first.type == TxnType::kCloseSession) {
    sessions_.remove(txn.session);
    auto sc = session_connection_.find(txn.session);
    if (sc != session_connection_.end()) {
      const int32_t connection = sc->second;
      if (first.expired) {
        // ZooKeeper closes an expired session's connection: its client learns the news when it
        // reconnects (a ConnectResponse with timeout 0).
        close(connection);
      } else {
        // Closed by its client, which closes the connection on reading the answer to this txn.
        watches_.remove_connection(connection);
        session_connection_.erase(sc);
      }
    }
  }
  for (const WatchTrigger& t : result.triggers) fire(t.path, t.type, txn.zxid);
  // The reply's payload.
  if (txn.multi) {
    r.results = std::move(result.results);
  } else if (!result.results.empty()) {
    r.path = result.results.front().created_path;
    r.stat = result.results.front().stat;
  }
}

int32_t ZkServer::descendants(const std::string& path) const {
  // The nodes map is sorted by path, and "/a/" sorts every descendant of /a together.
  const std::string prefix = path == "/" ? "/" : path + "/";
  int32_t n = 0;
  for (auto it = db_.tree().nodes().lower_bound(prefix);
       it != db_.tree().nodes().end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    if (it->first != "/") n++;
  return n;
}

void ZkServer::answer_read(Pending& p, wire::Reply& r) {
  const bool can_watch = p.request.watch && binding_valid(p.connection, p.binding);
  const std::string& path = p.request.args.path;
  const Znode* node = nullptr;
  switch (p.op) {
    case wire::OpCode::kExists:
    case wire::OpCode::kGetData:
    case wire::OpCode::kGetChildren:
    case wire::OpCode::kGetChildren2:
    case wire::OpCode::kGetAcl:
    case wire::OpCode::kGetAllChildrenNumber:
      node = db_.tree().find(path);
      // A watch on a missing node waits for its creation (ZooKeeper's exists watch).
      if (p.op == wire::OpCode::kExists && can_watch) watches_.add_data_watch(path, p.connection);
      if (!node) {
        r.header.err = ZkError::kNoNode;
        return;
      }
      r.stat = node->stat;
      break;
    default:
      break;
  }
  switch (p.op) {
    case wire::OpCode::kGetData:
      if (can_watch) watches_.add_data_watch(path, p.connection);
      r.data = node->data;
      r.null_data = node->null_data;
      return;
    case wire::OpCode::kGetChildren:
    case wire::OpCode::kGetChildren2: {
      size_t bytes = 64 + wire::kStatBytes;
      for (const auto& child : node->children) bytes += 4 + child.size();
      if (bytes > ZkLimits::kMaxFrameBytes) {
        r.header.err = ZkError::kMarshallingError;
        return;
      }
      if (can_watch) watches_.add_child_watch(path, p.connection);
      r.children.assign(node->children.begin(), node->children.end());
      return;
    }
    case wire::OpCode::kGetAcl:
      r.acl = open_acl_unsafe();
      return;
    case wire::OpCode::kSync:
      // One server: every earlier write is applied already, so the answer is immediate. In an
      // ensemble a sync is forwarded like a write, so it is answered after every write the leader
      // committed before it (zk_ensemble.cpp).
      r.path = path;
      return;
    case wire::OpCode::kGetAllChildrenNumber:
      r.count = descendants(path);
      return;
    case wire::OpCode::kGetEphemerals: {
      // ZooKeeper's getEphemerals: the session's ephemerals, those under a prefix unless it is "/".
      const std::string& prefix = path;
      for (const auto& e : db_.tree().ephemerals(p.session))
        if (prefix == "/" || e.compare(0, prefix.size(), prefix) == 0) r.children.push_back(e);
      return;
    }
    case wire::OpCode::kSetWatches:
    case wire::OpCode::kSetWatches2:
      set_watches(p);
      return;
    default:
      return;  // ping, auth, an empty multi
  }
}

void ZkServer::set_watches(Pending& p) {
  if (!binding_valid(p.connection, p.binding)) return;
  const wire::SetWatchesRequest& w = p.request.set_watches;
  // Events fired here carry no zxid (-1), as in ZooKeeper 3.8: they summarise a gap.
  const int64_t zxid = -1;
  // ZooKeeper's DataTree.setWatches: a watch whose event already happened after the client's
  // last seen zxid fires at once; the others are registered. Persistent watches (setWatches2)
  // are not offered by this server: addWatch is unimplemented, so no client of it has any.
  for (const auto& path : w.data_watches) {
    if (!valid_path(path)) continue;
    const Znode* node = db_.tree().find(path);
    if (!node) notify(p.connection, path, WatchType::kNodeDeleted, zxid);
    else if (node->stat.mzxid > w.relative_zxid) notify(p.connection, path, WatchType::kNodeDataChanged, zxid);
    else watches_.add_data_watch(path, p.connection);
  }
  for (const auto& path : w.exist_watches) {
    if (!valid_path(path)) continue;
    if (db_.tree().exists(path)) notify(p.connection, path, WatchType::kNodeCreated, zxid);
    else watches_.add_data_watch(path, p.connection);
  }
  for (const auto& path : w.child_watches) {
    if (!valid_path(path)) continue;
    const Znode* node = db_.tree().find(path);
    if (!node) notify(p.connection, path, WatchType::kNodeDeleted, zxid);
    else if (node->stat.pzxid > w.relative_zxid) notify(p.connection, path, WatchType::kNodeChildrenChanged, zxid);
    else watches_.add_child_watch(path, p.connection);
  }
}

void ZkServer::fire(const std::string& path, WatchType type, int64_t zxid) {
  for (int32_t connection : watches_.trigger(path, type)) notify(connection, path, type, zxid);
}

void ZkServer::notify(int32_t connection, const std::string& path, WatchType type, int64_t zxid) {
  auto it = connections_.find(connection);
  if (it == connections_.end() || it->second.session == 0) return;
  rt_.emit(ev::ZkWatchFire{.path = path, .type = watch_type_name(type), .session = it->second.session});
  rt_.send(NodeId{connection}, wire::encode_notification(zxid, WatchEvent{type, path}));
}

void ZkServer::emit_txn(const Txn& txn, const ApplyResult& result) {
  size_t result_index = 0;
  for (const TxnOp& op : txn.ops) {
    switch (op.type) {
      case TxnType::kCreateSession:
        rt_.emit(ev::ZkSessionOpen{.session = txn.session, .timeout_ms = op.timeout_ms});
        break;
      case TxnType::kCloseSession:
        for (const auto& path : op.paths)
          rt_.emit(ev::ZkDelete{.path = path, .session = txn.session, .zxid = txn.zxid});
        if (op.expired)
          rt_.emit(ev::ZkSessionExpire{.session = txn.session, .ephemerals = static_cast<int64_t>(op.paths.size())});
        else
          rt_.emit(ev::ZkSessionClose{.session = txn.session, .ephemerals = static_cast<int64_t>(op.paths.size())});
        break;
      case TxnType::kCreate:
        rt_.emit(ev::ZkCreate{.path = op.path,
                              .version = 0,
                              .session = txn.session,
                              .ephemeral = op.ephemeral_owner != 0,
                              .data = printable_data(as_view(op.data)),
                              .zxid = txn.zxid});
        result_index++;
        break;
      case TxnType::kDelete:
        rt_.emit(ev::ZkDelete{.path = op.path, .session = txn.session, .zxid = txn.zxid});
        result_index++;
        break;
      case TxnType::kSetData:
        rt_.emit(ev::ZkSet{.path = op.path,
                           .version = op.version,
                           .session = txn.session,
                           .data = printable_data(as_view(op.data)),
                           .zxid = txn.zxid});
        result_index++;
        break;
      case TxnType::kCheck:
        result_index++;
        break;
    }
  }
  GREGOR_ASSERT(result_index == result.results.size());
}

void ZkServer::emit_refused(const wire::Request& request, const std::vector<ZkOpResult>& results, ZkError error,
                            int64_t session) {
  // Which op failed: the single one, or the first of a multi whose result is an error.
  std::string path = request.args.path;
  for (size_t i = 0; request.op == wire::OpCode::kMulti && i < results.size() && i < request.ops.size(); i++) {
    if (results[i].error == ZkError::kOk) continue;
    path = request.ops[i].path;
    break;
  }
  rt_.emit(ev::ZkRefused{.path = path, .op = wire::op_name(request.op), .error = zk_error_name(error), .session = session});
}

void ZkServer::halt(const std::string& reason) {
  if (!serving_) return;
  serving_ = false;
  rt_.emit(ev::ZkServerHalt{.reason = reason});
  rt_.log("zk: halted: " + reason);
  rt_.cancel(flush_timer_);
  rt_.cancel(tick_timer_);
  pipeline_.clear();
}

}  // namespace gregor::coord
