// ZkServer as one server of a replicated ensemble: ZooKeeper's ZAB, simplified but with its
// properties. zk_server.h describes the single server; this file adds, when ZkServerConfig::ensemble
// names more than one server:
//
// Election (ZooKeeper's FastLeaderElection, simplified). A LOOKING server votes for itself, as
// (current epoch, last logged zxid, server id), compared in that order (vote_beats), and sends its
// vote to every peer, again every election_interval; it adopts any better vote it hears in its
// round (a higher round restarts its count). Once a quorum agrees on its vote, and no better vote
// came within election_interval, the vote's server leads and the others follow it. A server that
// hears a quorum of settled servers (following or leading) name one leader, which itself says it
// leads, follows that leader: that is how a restarted server joins.
//
// Discovery and sync. A follower sends FOLLOWERINFO (accepted epoch, current epoch, last logged
// zxid, newest snapshot's zxid). The leader, once a quorum (itself included) is in, takes the new
// epoch as one more than every accepted epoch it saw, and sends each follower LEADERINFO(epoch)
// (the follower refuses an epoch older than one it accepted, and persists it), then a DIFF (the
// committed txns it lacks) when its last zxid is in the leader's log, a TRUNC (drop the logged txns
// after a zxid: proposals of an epoch's failed leader that this leader never had) followed by a
// DIFF, or else a SNAP (the whole committed database, which replaces whatever the follower logged);
// leader_sync says exactly when. Then the leader's outstanding proposals, then NEWLEADER. The
// follower makes all of it durable, persists the epoch as current, and acknowledges. With a quorum
// of acknowledgements the leader serves (zk_leader), its first proposal being (epoch << 32) | 1
// (engine/coord/zxid.h), and tells each acknowledged follower UPTODATE, after which it serves too
// (zk_follow). A follower that joins later is synced the same way.
//
// Broadcast. The leader alone prepares writes (ZkPrep), its own clients' and those followers
// forward to it (with a forward id; the leader answers with the txn's zxid or the request's error).
// Each txn is logged by the leader and proposed to every synced follower, which logs it and
// acknowledges after its fsync; once a quorum (the leader included) has it durably, the leader
// commits it (zk_commit) and tells the followers, in zxid order. Every server applies committed
// txns in zxid order and answers its own clients' requests in arrival order. Reads are answered
// from the server's own tree (possibly behind the leader); a sync is forwarded and answered once
// this server applied everything the leader had prepared when it saw the sync.
//
// Sessions are global: created and closed by txns; the leader alone expires them. Followers report
// the sessions their clients touched every half tick. A server that is not part of a serving
// quorum (looking, or synced but not yet told UPTODATE) closes its clients' connections and refuses
// new ones, so clients move to another server, keeping their session. A leader that hears from
// fewer than a quorum within syncLimit, and a follower that does not hear from its leader, go back
// to the election; so does a leader not serving within initLimit. Going back to the election
// reloads the database from the server's own disk (as ZooKeeper does), dropping what was only
// in memory.
//
// Epochs are kept in the data directory: acceptedEpoch and currentEpoch, 8 bytes each.
#include <algorithm>

#include "engine/core/assert.h"
#include "engine/coord/zk_server.h"

namespace gregor::coord {

namespace {
constexpr size_t kHistoryMax = 1000;  // committed txns a leader keeps for DIFF syncs

std::string epoch_path(const ZkStorageConfig& c, const std::string& name) {
  return c.data_dir.empty() ? name : c.data_dir + "/" + name;
}
}  // namespace

ZkServer::Vote ZkServer::own_vote() const {
  return Vote{rt_.self().value, current_epoch_, storage_->last_appended_zxid()};
}

bool ZkServer::known_peer(int32_t id) const {
  if (id == rt_.self().value) return false;
  for (NodeId n : config_.ensemble)
    if (n.value == id) return true;
  return false;
}

void ZkServer::ensemble_start() {
  load_epochs();
  if (!serving_) return;
  committed_zxid_ = db_.last_zxid();
  peer_timer_ = rt_.after(config_.tick_time / 2, [this] { peer_tick(); });
  look("start");
}

void ZkServer::load_epochs() {
  const std::pair<const char*, int64_t*> files[] = {{"acceptedEpoch", &accepted_epoch_}, {"currentEpoch", &current_epoch_}};
  for (const auto& [name, value] : files) {
    const std::string path = epoch_path(config_.storage, name);
    if (!rt_.disk().exists(path)) continue;
    auto data = rt_.disk().read_all(path);
    if (!data || data->size() != 8) return halt(std::string("cannot read ") + name);
    ByteReader r(as_view(*data));
    *value = r.i64();
  }
}

Status ZkServer::store_epoch(const std::string& name, int64_t epoch) {
  ByteWriter w;
  w.i64(epoch);
  return rt_.disk().write_file_atomic(epoch_path(config_.storage, name), as_view(w.bytes_ref()));
}

void ZkServer::reload_database() {
  if (storage_->has_unflushed()) {
    Status s = storage_->flush();
    if (!s.is_ok()) return halt("txn log fsync failed: " + s.to_string());
  }
  db_ = ZkDatabase{};
  storage_ = std::make_unique<ZkStorage>(rt_.disk(), config_.storage);
  auto info = storage_->recover(db_);
  if (!info) return halt("reload failed: " + info.status().to_string());
  prep_ = std::make_unique<ZkPrep>(db_);
  durable_zxid_ = db_.last_zxid();
  committed_zxid_ = db_.last_zxid();
  sessions_ = ZkSessionTracker(config_.tick_time);
  for (const auto& [id, record] : db_.sessions()) sessions_.add(id, Duration::millis(record.timeout_ms), rt_.now());
}

void ZkServer::close_client_connections() {
  std::vector<int32_t> ids;
  for (const auto& [id, conn] : connections_) ids.push_back(id);
  for (int32_t id : ids) close(id);
}

void ZkServer::look(const std::string& reason) {
  if (!serving_) return;
  const bool settled = peer_state_ != PeerState::kLooking || active_;
  active_ = false;
  close_client_connections();
  pipeline_.clear();
  if (peer_state_ == PeerState::kLeading) {
    for (const auto& [id, f] : followers_) rt_.close_connection(NodeId{f.connection});
  } else if (peer_state_ == PeerState::kFollowing && leader_id_ != 0) {
    rt_.close_connection(NodeId{leader_id_});
  }
  peer_state_ = PeerState::kLooking;
  leader_id_ = 0;
  state_since_ = rt_.now();
  followers_.clear();
  early_follower_info_.clear();
  early_follower_connection_.clear();
  epoch_established_ = false;
  proposals_.clear();
  origin_.clear();
  history_.clear();
  touched_.clear();
  if (settled) reload_database();
  if (!serving_) return;
  round_++;
  vote_ = own_vote();
  votes_.clear();
  votes_[rt_.self().value] = vote_;
  out_of_election_.clear();
  finalize_scheduled_ = false;
  rt_.cancel(finalize_timer_);
  rt_.emit(ev::ZkElection{.round = round_, .epoch = current_epoch_, .zxid = vote_.zxid, .reason = reason});
  broadcast_notification();
  rt_.cancel(election_timer_);
  schedule_election_timer();
}

void ZkServer::send_peer(NodeId to, QuorumMessage m) {
  m.sender = rt_.self().value;
  rt_.send(to, encode_quorum_message(m));
}

void ZkServer::send_notification(int32_t to) {
  QuorumMessage m;
  m.type = QuorumType::kNotification;
  m.state = peer_state_;
  m.round = round_;
  m.vote_leader = vote_.leader;
  m.vote_epoch = vote_.epoch;
  m.vote_zxid = vote_.zxid;
  send_peer(NodeId{to}, std::move(m));
}

void ZkServer::broadcast_notification() {
  for (NodeId n : config_.ensemble)
    if (n != rt_.self()) send_notification(n.value);
}

void ZkServer::schedule_election_timer() {
  election_timer_ = rt_.after(config_.election_interval, [this] {
    if (!serving_ || peer_state_ != PeerState::kLooking) return;
    broadcast_notification();
    schedule_election_timer();
  });
}

void ZkServer::on_notification(NodeId from, const QuorumMessage& m) {
  (void)from;
  if (peer_state_ != PeerState::kLooking) {
    // A settled server tells a looking one whom it follows.
    if (m.state == PeerState::kLooking) send_notification(m.sender);
    return;
  }
  const Vote v{m.vote_leader, m.vote_epoch, m.vote_zxid};
  if (m.state == PeerState::kLooking) {
    if (m.round > round_) {
      round_ = m.round;
      votes_.clear();
      vote_ = vote_beats(v, own_vote()) ? v : own_vote();
      votes_[rt_.self().value] = vote_;
      broadcast_notification();
    } else if (m.round < round_) {
      send_notification(m.sender);
      return;
    } else if (vote_beats(v, vote_)) {
      vote_ = v;
      votes_[rt_.self().value] = vote_;
      broadcast_notification();
    }
    votes_[m.sender] = v;
    return consider_finalize();
  }
  // A settled server: join its leader once a quorum of settled servers names it and it leads.
  out_of_election_[m.sender] = {m.state, v};
  int64_t naming = 0;
  bool leader_leads = false;
  for (const auto& [id, sv] : out_of_election_) {
    if (sv.second.leader != v.leader) continue;
    naming++;
    if (id == v.leader && sv.first == PeerState::kLeading) leader_leads = true;
  }
  if (naming >= quorum_size() && leader_leads && v.leader != rt_.self().value) {
    vote_ = v;
    become_follower(v.leader);
  }
}

void ZkServer::consider_finalize() {
  int64_t agree = 0;
  for (const auto& [id, v] : votes_)
    if (v == vote_) agree++;
  if (agree < quorum_size() || finalize_scheduled_) return;
  finalize_scheduled_ = true;
  finalize_timer_ = rt_.after(config_.election_interval, [this] { finalize_election(); });
}

void ZkServer::finalize_election() {
  finalize_scheduled_ = false;
  if (!serving_ || peer_state_ != PeerState::kLooking) return;
  int64_t agree = 0;
  for (const auto& [id, v] : votes_)
    if (v == vote_) agree++;
  if (agree < quorum_size()) return;
  if (vote_.leader == rt_.self().value) return become_leader();
  become_follower(vote_.leader);
}

// ---- Peer messages --------------------------------------------------------------------------

void ZkServer::on_peer_message(NodeId from, const QuorumMessage& m) {
  if (m.type == QuorumType::kNotification) return on_notification(from, m);
  if (m.type == QuorumType::kFollowerInfo) return leader_on_follower_info(from, m);
  if (!is_inbound_connection(from)) return follower_on_message(m);
  // A follower's message to this leader, on the follower's connection.
  if (peer_state_ != PeerState::kLeading) return;
  auto it = followers_.find(m.sender);
  if (it == followers_.end() || it->second.connection != from.value) return;
  FollowerPeer& f = it->second;
  f.last_heard = rt_.now();
  switch (m.type) {
    case QuorumType::kAckNewLeader:
      leader_on_ack(m.sender, m.zxid);
      return leader_on_ack_new_leader(m.sender);
    case QuorumType::kAck:
      return leader_on_ack(m.sender, m.zxid);
    case QuorumType::kRequest:
      return leader_on_request(m.sender, m);
    case QuorumType::kPing:
      for (int64_t s : m.sessions) sessions_.touch(s, rt_.now());
      return;
    default:
      return;
  }
}

void ZkServer::on_peer_disconnect(NodeId peer) {
  if (!serving_) return;
  if (peer_state_ == PeerState::kFollowing && peer == NodeId{leader_id_}) return look("leader connection lost");
  if (!is_inbound_connection(peer)) return;
  for (auto it = early_follower_connection_.begin(); it != early_follower_connection_.end(); ++it) {
    if (it->second != peer.value) continue;
    early_follower_info_.erase(it->first);
    early_follower_connection_.erase(it);
    break;
  }
  if (peer_state_ != PeerState::kLeading) return;
  for (auto it = followers_.begin(); it != followers_.end(); ++it) {
    if (it->second.connection != peer.value) continue;
    followers_.erase(it);
    break;
  }
  if (!active_) return;
  int64_t synced = 1;
  for (const auto& [id, f] : followers_)
    if (f.acked_leader) synced++;
  if (synced < quorum_size()) look("quorum lost");
}

void ZkServer::peer_tick() {
  if (!serving_) return;
  peer_timer_ = rt_.after(config_.tick_time / 2, [this] { peer_tick(); });
  const Duration init_limit = config_.tick_time * config_.init_limit_ticks;
  const Duration sync_limit = config_.tick_time * config_.sync_limit_ticks;
  if (peer_state_ == PeerState::kFollowing) {
    QuorumMessage m;
    m.type = QuorumType::kPing;
    m.sessions.assign(touched_.begin(), touched_.end());
    touched_.clear();
    send_peer(NodeId{leader_id_}, std::move(m));
    if (!active_ && rt_.now() - state_since_ > init_limit) return look("sync with leader timed out");
    if (rt_.now() - leader_heard_ > sync_limit) return look("leader silent");
  } else if (peer_state_ == PeerState::kLeading) {
    for (const auto& [id, f] : followers_) {
      QuorumMessage m;
      m.type = QuorumType::kPing;
      send_peer(NodeId{f.connection}, std::move(m));
    }
    if (!active_) {
      if (rt_.now() - state_since_ > init_limit) look("no quorum of followers");
      return;
    }
    int64_t live = 1;
    for (const auto& [id, f] : followers_)
      if (f.acked_leader && rt_.now() - f.last_heard <= sync_limit) live++;
    if (live < quorum_size()) look("quorum silent");
  }
}

// ---- Leading ----------------------------------------------------------------------------------

void ZkServer::become_leader() {
  rt_.cancel(election_timer_);
  peer_state_ = PeerState::kLeading;
  leader_id_ = rt_.self().value;
  vote_.leader = leader_id_;
  state_since_ = rt_.now();
  followers_.clear();
  epoch_established_ = false;
  history_.clear();
  // Going back to the election reloaded the database from the log: the base is the last zxid
  // this server logged, a zxid of its log that syncs can start from.
  GREGOR_ASSERT(db_.last_zxid() == storage_->last_appended_zxid());
  history_base_zxid_ = db_.last_zxid();
  committed_zxid_ = db_.last_zxid();
  broadcast_notification();
  auto early = std::move(early_follower_info_);
  auto connections = std::move(early_follower_connection_);
  early_follower_info_.clear();
  early_follower_connection_.clear();
  for (const auto& [id, m] : early) leader_on_follower_info(NodeId{connections.at(id)}, m);
}

void ZkServer::leader_on_follower_info(NodeId from, const QuorumMessage& m) {
  if (!is_inbound_connection(from)) return;
  if (peer_state_ == PeerState::kLooking) {
    // It decided faster than this server: keep it for when this server leads.
    early_follower_info_[m.sender] = m;
    early_follower_connection_[m.sender] = from.value;
    return;
  }
  if (peer_state_ != PeerState::kLeading || (epoch_established_ && m.accepted_epoch > accepted_epoch_)) {
    QuorumMessage reject;
    reject.type = QuorumType::kReject;
    return send_peer(from, std::move(reject));
  }
  FollowerPeer f;
  f.connection = from.value;
  f.accepted_epoch = m.accepted_epoch;
  f.current_epoch = m.current_epoch;
  f.zxid = m.zxid;
  f.snapshot_zxid = m.snapshot_zxid;
  f.last_heard = rt_.now();
  followers_[m.sender] = f;
  if (!epoch_established_) return leader_establish_epoch();
  leader_sync(m.sender, followers_[m.sender]);
}

void ZkServer::leader_establish_epoch() {
  if (static_cast<int64_t>(followers_.size()) + 1 < quorum_size()) return;
  int64_t epoch = std::max(accepted_epoch_, current_epoch_);
  for (const auto& [id, f] : followers_) epoch = std::max(epoch, f.accepted_epoch);
  epoch++;
  Status s = store_epoch("acceptedEpoch", epoch);
  if (!s.is_ok()) return halt("cannot store acceptedEpoch: " + s.to_string());
  accepted_epoch_ = epoch;
  epoch_established_ = true;
  for (auto& [id, f] : followers_) leader_sync(id, f);
}

void ZkServer::leader_sync(int32_t id, FollowerPeer& f) {
  GREGOR_ASSERT(db_.last_zxid() == committed_zxid_);
  QuorumMessage info;
  info.type = QuorumType::kLeaderInfo;
  info.epoch = accepted_epoch_;
  send_peer(NodeId{f.connection}, std::move(info));
  // The follower's log is a prefix of what the leader of its last txn's epoch proposed (zxid.h).
  // This leader knows its own log from history_base_zxid_ on: that base, then the txns it
  // committed since (history_).
  //   DIFF   the follower's last zxid is one of those: it gets the committed txns after it.
  //   TRUNC  it is not, but the newest of those below it is of the same epoch: the follower holds
  //          that one too, and after it txns of that epoch this leader never had (proposals of a
  //          leader that failed before they committed). It drops them, then gets a DIFF.
  //   SNAP   anything else (a follower behind the base, or one whose extra txns are of an epoch
  //          whose part in this leader's log is unknown or ends elsewhere): the whole database.
  const int64_t fz = f.zxid;
  auto after = std::upper_bound(history_.begin(), history_.end(), fz,
                                [](int64_t z, const Txn& t) { return z < t.zxid; });
  const bool known = fz == history_base_zxid_ || (after != history_.begin() && std::prev(after)->zxid == fz);
  int64_t trunc_to = -1;
  if (!known && fz > history_base_zxid_) {
    const int64_t below = after == history_.begin() ? history_base_zxid_ : std::prev(after)->zxid;
    if (zxid_epoch(below) == zxid_epoch(fz) && below >= f.snapshot_zxid) trunc_to = below;
  }
  const int64_t diff_from = known ? fz : trunc_to;
  QuorumMessage sync;
  if (diff_from >= 0) {
    if (trunc_to >= 0) {
      QuorumMessage trunc;
      trunc.type = QuorumType::kTrunc;
      trunc.zxid = trunc_to;
      send_peer(NodeId{f.connection}, std::move(trunc));
    }
    sync.type = QuorumType::kDiff;
    for (const Txn& t : history_)
      if (t.zxid > diff_from) sync.txns.push_back(t);
  } else {
    sync.type = QuorumType::kSnap;
    sync.snapshot = db_.encode_snapshot();
  }
  const char* mode = sync.type == QuorumType::kSnap ? "snap" : trunc_to >= 0 ? "trunc" : "diff";
  rt_.emit(ev::ZkSync{.follower = id, .mode = mode, .from_zxid = f.zxid, .to_zxid = committed_zxid_});
  send_peer(NodeId{f.connection}, std::move(sync));
  for (const Proposal& p : proposals_) {
    QuorumMessage m;
    m.type = QuorumType::kProposal;
    m.txns.push_back(p.txn);
    send_peer(NodeId{f.connection}, std::move(m));
  }
  QuorumMessage done;
  done.type = QuorumType::kNewLeader;
  done.epoch = accepted_epoch_;
  done.zxid = proposals_.empty() ? committed_zxid_ : proposals_.back().txn.zxid;
  send_peer(NodeId{f.connection}, std::move(done));
  f.synced = true;
  f.acked_leader = false;
}

void ZkServer::leader_on_ack_new_leader(int32_t id) {
  auto it = followers_.find(id);
  if (it == followers_.end() || !it->second.synced) return;
  it->second.acked_leader = true;
  if (active_) {
    QuorumMessage m;
    m.type = QuorumType::kUpToDate;
    return send_peer(NodeId{it->second.connection}, std::move(m));
  }
  int64_t acked = 1;
  for (const auto& [fid, f] : followers_)
    if (f.acked_leader) acked++;
  if (acked >= quorum_size()) leader_activate();
}

void ZkServer::leader_activate() {
  Status s = store_epoch("currentEpoch", accepted_epoch_);
  if (!s.is_ok()) return halt("cannot store currentEpoch: " + s.to_string());
  current_epoch_ = accepted_epoch_;
  vote_ = Vote{rt_.self().value, current_epoch_, db_.last_zxid()};
  active_ = true;
  prep_ = std::make_unique<ZkPrep>(db_);
  prep_->start_epoch(current_epoch_);  // the first proposal of this epoch is (epoch << 32) | 1
  // Every session gets a fresh window: its client could not reach a serving server meanwhile.
  sessions_ = ZkSessionTracker(config_.tick_time);
  for (const auto& [id, record] : db_.sessions()) sessions_.add(id, Duration::millis(record.timeout_ms), rt_.now());
  int64_t acked = 1;
  for (const auto& [id, f] : followers_) {
    if (!f.acked_leader) continue;
    acked++;
    QuorumMessage m;
    m.type = QuorumType::kUpToDate;
    send_peer(NodeId{f.connection}, std::move(m));
  }
  rt_.emit(ev::ZkLeader{.leader = rt_.self().value, .epoch = current_epoch_, .zxid = db_.last_zxid(), .quorum = acked});
}

void ZkServer::propose(const Txn& txn) {
  GREGOR_ASSERT(peer_state_ == PeerState::kLeading);
  Status s = storage_->append(txn);
  if (!s.is_ok()) return halt("txn log append failed: " + s.to_string());
  schedule_flush();
  proposals_.push_back(Proposal{txn, {}});
  for (const auto& [id, f] : followers_) {
    if (!f.synced) continue;
    QuorumMessage m;
    m.type = QuorumType::kProposal;
    m.txns.push_back(txn);
    send_peer(NodeId{f.connection}, std::move(m));
  }
}

void ZkServer::leader_on_ack(int32_t id, int64_t zxid) {
  for (Proposal& p : proposals_) {
    if (p.txn.zxid > zxid) break;
    p.acks.insert(id);
  }
  leader_try_commit();
}

void ZkServer::leader_try_commit() {
  bool committed = false;
  while (!proposals_.empty() && static_cast<int64_t>(proposals_.front().acks.size()) >= quorum_size()) {
    Proposal& p = proposals_.front();
    committed_zxid_ = p.txn.zxid;
    rt_.emit(ev::ZkCommit{.zxid = p.txn.zxid,
                          .epoch = current_epoch_,
                          .acks = IntList(p.acks.begin(), p.acks.end()),
                          .servers = static_cast<int64_t>(config_.ensemble.size())});
    for (const auto& [id, f] : followers_) {
      if (!f.synced) continue;
      QuorumMessage m;
      m.type = QuorumType::kCommit;
      m.zxid = p.txn.zxid;
      send_peer(NodeId{f.connection}, std::move(m));
    }
    history_.push_back(std::move(p.txn));
    if (history_.size() > kHistoryMax) {
      history_base_zxid_ = history_.front().zxid;  // still a zxid of this leader's log
      history_.pop_front();
    }
    proposals_.pop_front();
    committed = true;
  }
  if (committed) drain();
}

void ZkServer::after_flush() {
  if (peer_state_ == PeerState::kLeading) {
    if (!active_) return;
    const int32_t self = rt_.self().value;
    for (Proposal& p : proposals_) {
      if (p.txn.zxid > durable_zxid_) break;
      p.acks.insert(self);
    }
    return leader_try_commit();
  }
  if (peer_state_ == PeerState::kFollowing && durable_zxid_ > acked_zxid_ && syncing_epoch_ == 0) {
    acked_zxid_ = durable_zxid_;
    QuorumMessage m;
    m.type = QuorumType::kAck;
    m.zxid = durable_zxid_;
    send_peer(NodeId{leader_id_}, std::move(m));
  }
}

void ZkServer::leader_on_request(int32_t id, const QuorumMessage& m) {
  if (!active_) return;
  const int32_t connection = followers_.at(id).connection;
  QuorumMessage result;
  result.type = QuorumType::kRequestResult;
  result.forward_id = m.forward_id;
  const int64_t time_ms = rt_.wall_time_ms();
  std::optional<Txn> txn;
  switch (m.kind) {
    case ForwardKind::kCreateSession:
      if (!sessions_.contains(m.session)) sessions_.add(m.session, Duration::millis(m.timeout_ms), rt_.now());
      txn = prep_->create_session(m.session, m.timeout_ms, m.password, time_ms).txn;
      break;
    case ForwardKind::kCloseSession:
      if (!sessions_.is_live(m.session)) {
        result.error = static_cast<int32_t>(ZkError::kSessionExpired);
        break;
      }
      sessions_.set_closing(m.session);
      txn = prep_->close_session(m.session, m.xid, false, time_ms).txn;
      break;
    case ForwardKind::kOps: {
      int32_t xid = 0, op = 0;
      wire::Request request;
      if (!wire::decode_request_header(as_view(m.frame), &xid, &op) || !wire::served_op(op) ||
          !wire::decode_request(as_view(m.frame), &request)) {
        result.error = static_cast<int32_t>(ZkError::kMarshallingError);
        break;
      }
      if (request.op == wire::OpCode::kSync) {
        result.zxid = prep_->last_prepared_zxid();
        break;
      }
      if (!sessions_.touch(m.session, rt_.now())) {
        result.error = static_cast<int32_t>(ZkError::kSessionExpired);
        break;
      }
      const bool multi = request.op == wire::OpCode::kMulti;
      PrepOutcome out = multi ? prep_->ops(m.session, m.xid, time_ms, request.ops, true)
                              : prep_->ops(m.session, m.xid, time_ms, {request.args}, false);
      if (out.error != ZkError::kOk) emit_refused(request, out.results, out.error, m.session);
      if (multi) {
        for (const ZkOpResult& r : out.results) result.op_errors.push_back(static_cast<int32_t>(r.error));
      } else {
        result.error = static_cast<int32_t>(out.error);
      }
      txn = std::move(out.txn);
      break;
    }
  }
  if (txn) {
    result.zxid = txn->zxid;
    Pending p;
    p.txn = std::move(txn);
    enqueue(std::move(p));  // proposed to every synced follower, the origin included
    if (!serving_ || peer_state_ != PeerState::kLeading) return;
  }
  send_peer(NodeId{connection}, std::move(result));
}

// ---- Following --------------------------------------------------------------------------------

void ZkServer::become_follower(int32_t leader) {
  rt_.cancel(election_timer_);
  rt_.cancel(finalize_timer_);
  finalize_scheduled_ = false;
  peer_state_ = PeerState::kFollowing;
  leader_id_ = leader;
  vote_.leader = leader;
  state_since_ = rt_.now();
  leader_heard_ = rt_.now();
  acked_zxid_ = storage_->last_appended_zxid();
  syncing_epoch_ = 0;
  QuorumMessage m;
  m.type = QuorumType::kFollowerInfo;
  m.accepted_epoch = accepted_epoch_;
  m.current_epoch = current_epoch_;
  m.zxid = storage_->last_appended_zxid();
  m.snapshot_zxid = storage_->snapshot_zxid();
  send_peer(NodeId{leader}, std::move(m));
}

void ZkServer::follower_on_message(const QuorumMessage& m) {
  if (peer_state_ != PeerState::kFollowing || m.sender != leader_id_) return;
  leader_heard_ = rt_.now();
  switch (m.type) {
    case QuorumType::kLeaderInfo:
      if (m.epoch < accepted_epoch_) return look("leader's epoch is older than the accepted one");
      if (m.epoch > accepted_epoch_) {
        Status s = store_epoch("acceptedEpoch", m.epoch);
        if (!s.is_ok()) return halt("cannot store acceptedEpoch: " + s.to_string());
        accepted_epoch_ = m.epoch;
      }
      syncing_epoch_ = m.epoch;
      return;
    case QuorumType::kSnap: {
      if (storage_->has_unflushed()) {
        Status s = storage_->flush();
        if (!s.is_ok()) return halt("txn log fsync failed: " + s.to_string());
      }
      ZkDatabase db;
      Status d = db.decode_snapshot(as_view(m.snapshot));
      if (!d.is_ok()) return look("bad snapshot from leader: " + d.to_string());
      db_ = std::move(db);
      Status s = storage_->install_snapshot(db_);
      if (!s.is_ok()) return halt("cannot install snapshot: " + s.to_string());
      prep_ = std::make_unique<ZkPrep>(db_);
      proposals_.clear();
      committed_zxid_ = durable_zxid_ = acked_zxid_ = db_.last_zxid();
      sessions_ = ZkSessionTracker(config_.tick_time);
      for (const auto& [id, record] : db_.sessions()) sessions_.add(id, Duration::millis(record.timeout_ms), rt_.now());
      return;
    }
    case QuorumType::kTrunc: {
      // Sent right after LEADERINFO, before anything else of the sync: nothing is applied or
      // pending beyond the log, which the reload below rebuilds the database from.
      if (storage_->has_unflushed()) {
        Status s = storage_->flush();
        if (!s.is_ok()) return halt("txn log fsync failed: " + s.to_string());
      }
      Status t = storage_->truncate(m.zxid);
      if (!t.is_ok()) return look("cannot truncate: " + t.to_string());
      reload_database();
      if (!serving_) return;
      if (db_.last_zxid() != m.zxid) return look("truncated log ends at " + zxid_hex(db_.last_zxid()));
      proposals_.clear();
      acked_zxid_ = db_.last_zxid();
      return;
    }
    case QuorumType::kDiff:
      for (const Txn& t : m.txns) {
        if (!zxid_follows(storage_->last_appended_zxid(), t.zxid)) return look("diff does not follow the log");
        Status s = storage_->append(t);
        if (!s.is_ok()) return halt("txn log append failed: " + s.to_string());
        Pending bare;
        bare.txn = t;
        finish(bare);
      }
      committed_zxid_ = db_.last_zxid();
      return;
    case QuorumType::kProposal: {
      if (m.txns.size() != 1) return;
      const Txn& t = m.txns.front();
      if (!zxid_follows(storage_->last_appended_zxid(), t.zxid)) return look("proposal does not follow the log");
      Status s = storage_->append(t);
      if (!s.is_ok()) return halt("txn log append failed: " + s.to_string());
      proposals_.push_back(Proposal{t, {}});
      schedule_flush();
      return;
    }
    case QuorumType::kNewLeader: {
      Status s = storage_->flush();
      if (!s.is_ok()) return halt("txn log fsync failed: " + s.to_string());
      durable_zxid_ = storage_->last_appended_zxid();
      Status e = store_epoch("currentEpoch", m.epoch);
      if (!e.is_ok()) return halt("cannot store currentEpoch: " + e.to_string());
      current_epoch_ = m.epoch;
      syncing_epoch_ = 0;
      acked_zxid_ = durable_zxid_;
      QuorumMessage ack;
      ack.type = QuorumType::kAckNewLeader;
      ack.zxid = durable_zxid_;
      send_peer(NodeId{leader_id_}, std::move(ack));
      return;
    }
    case QuorumType::kUpToDate:
      if (active_) return;
      active_ = true;
      vote_ = Vote{leader_id_, current_epoch_, vote_.zxid};
      rt_.emit(ev::ZkFollow{.leader = leader_id_, .epoch = current_epoch_, .zxid = db_.last_zxid()});
      return;
    case QuorumType::kCommit:
      committed_zxid_ = std::max(committed_zxid_, m.zxid);
      return drain();
    case QuorumType::kRequestResult:
      for (Pending& p : pipeline_) {
        if (!p.forwarded || p.forward_id != m.forward_id) continue;
        p.answered = true;
        p.txn_zxid = m.zxid;
        if (p.op == wire::OpCode::kMulti && !m.op_errors.empty()) {
          p.results.clear();
          for (int32_t e : m.op_errors) {
            ZkOpResult r;
            r.error = static_cast<ZkError>(e);
            p.results.push_back(r);
          }
        } else if (p.op != wire::OpCode::kMulti) {
          p.error = static_cast<ZkError>(m.error);
        }
        break;
      }
      return drain();
    case QuorumType::kReject:
      return look("rejected by the leader");
    default:
      return;
  }
}

void ZkServer::forward(Pending& p, QuorumMessage m) {
  m.type = QuorumType::kRequest;
  m.forward_id = next_forward_id_++;
  p.forwarded = true;
  p.forward_id = m.forward_id;
  send_peer(NodeId{leader_id_}, std::move(m));
}

void ZkServer::forward_ops(Pending& p, int64_t session, const wire::Request& request) {
  QuorumMessage m;
  m.kind = ForwardKind::kOps;
  m.session = session;
  m.xid = request.xid;
  m.frame = wire::encode_request(request);
  forward(p, std::move(m));
}

void ZkServer::drain_follower() {
  while (serving_) {
    if (peer_state_ == PeerState::kLeading) {
      if (pipeline_.empty()) return;
      Pending& p = pipeline_.front();
      if (p.txn && p.txn->zxid > committed_zxid_) return;  // waits for a quorum
      finish(p);
      pipeline_.pop_front();
      continue;
    }
    if (!pipeline_.empty()) {
      Pending& p = pipeline_.front();
      bool ready = false;
      if (!p.forwarded) ready = true;  // reads, pings, errors: answered from this server's tree
      else if (!p.answered) ready = false;
      else if (p.op == wire::OpCode::kSync) ready = db_.last_zxid() >= p.txn_zxid;
      else if (p.txn_zxid == 0) ready = true;  // the leader's error, or nothing to change
      if (ready) {
        finish(p);
        pipeline_.pop_front();
        continue;
      }
    }
    if (proposals_.empty() || proposals_.front().txn.zxid > committed_zxid_) return;
    Proposal& q = proposals_.front();
    if (!pipeline_.empty()) {
      Pending& p = pipeline_.front();
      if (p.forwarded && p.answered && p.op != wire::OpCode::kSync && p.txn_zxid == q.txn.zxid) {
        p.txn = std::move(q.txn);
        proposals_.pop_front();
        finish(p);
        pipeline_.pop_front();
        continue;
      }
    }
    Pending bare;
    bare.txn = std::move(q.txn);
    proposals_.pop_front();
    finish(bare);
  }
}

}  // namespace gregor::coord
