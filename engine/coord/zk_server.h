// ZkServer: Gregor's coordination server, a single ZooKeeper server as a Node.
//
// It runs on any Runtime (simulated or real sockets) and speaks ZooKeeper's jute protocol
// (engine/coord/zk_wire.h), so zkCli.sh, kazoo and Kafka's own ZooKeeper client can use it. Clients
// connect to it (inbound connections, negative ids: the server replies on `from` and never takes it
// for a client's identity). As in ZooKeeper, the first frame on a connection is a ConnectRequest,
// which opens a session or resumes one by id and password (a client that lost its connection
// resumes on a new one); every later frame is a request of that session. A connection whose
// handshake fails gets a ConnectResponse saying so (timeout 0: expired) and is served nothing more
// (its client closes it, as after closeSession); one that breaks the framing, or whose client has
// seen a newer zxid than the server has, is closed. A session resumed on another connection closes its previous one (ZooKeeper's
// CLIENT_RECONNECT).
//
// The request pipeline has ZooKeeper's three stages, kept apart so that a replicated ensemble
// (a leader proposing txns to followers, ZAB) can later slot in between them:
//   1. prep (ZkPrep): a write becomes a txn with the next zxid, checked against the committed tree
//      plus the changes still outstanding; a bad request becomes its error.
//   2. durability (ZkStorage): the txn is appended to the log; one fsync covers every txn that
//      arrived in the same event batch (group commit: the flush runs as a zero-delay timer, after
//      the messages already queued at this instant). Nothing is acknowledged before its fsync.
//   3. final: requests leave in arrival order; a write's txn is applied to the ZkDatabase, the
//      watches it triggers are sent, then the reply. Reads are answered here too, from the
//      committed tree, after every earlier request: a client never reads state that is not yet
//      durable, and it sees a watch's notification before any reply that reflects the change
//      (all go over the same FIFO connection).
// A snapshot is taken every `snapshot_count` txns, right after a flush.
//
// Sessions: a timeout is negotiated within [2, 20] x tickTime (ZooKeeper's bounds); every frame
// touches the session; at each tick, sessions past their timeout expire: a close txn deletes their
// ephemeral znodes (firing watches). Sessions are logged (create/close txns), so a restarted
// server restores them and gives each a fresh timeout window to reconnect in.
//
// Failure: if the log cannot be written or fsynced (e.g. a full disk) the server halts, as
// ZooKeeper exits: it stops answering, so clients time out and reconnect elsewhere; a restart
// recovers the durable state. If recovery finds corruption it refuses to serve.
//
// Trace events (Runtime::emit: the ev::Zk* kinds of engine/core/trace_events.h), for checkers and the GUI:
//   zk_recover        {zxid, snapshot_zxid, txns_replayed, truncated_bytes, nodes, sessions}
//   zk_node           {path, version, cversion, ephemeral_owner, data}   one per znode after recovery,
//                                                                        so a viewer can rebuild the tree
//   zk_recover_failed {reason}
//   zk_session_open   {session, timeout_ms}                    session ids: server id in the top byte,
//                                                              then a start drawn from the node's RNG
//   zk_session_restore{session, timeout_ms}                    after recovery
//   zk_session_expire {session, ephemerals}                    ephemerals = how many were deleted
//   zk_session_close  {session, ephemerals}
//   zk_create         {path, version, session, ephemeral, data, zxid}   data = printable_data()
//   zk_set            {path, version, session, data, zxid}
//   zk_delete         {path, session, zxid}                    session = whose request (or expiry)
//   zk_watch_fire     {path, type, session}                    type = "NodeCreated", ...
//   zk_refused        {path, op, error, session}               a write refused (BadVersion, NodeExists,
//                                                              ...): op is the request's ("multi" for a
//                                                              multi; path is then its failing op's)
//   zk_snapshot       {zxid, nodes}
//   zk_connect_refused{session, reason}
//   zk_bad_frame      {reason}
//   zk_server_halt    {reason}
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/runtime.h"
#include "engine/coord/zk_database.h"
#include "engine/coord/zk_prep.h"
#include "engine/coord/zk_quorum_wire.h"
#include "engine/coord/zk_session_tracker.h"
#include "engine/coord/zk_storage.h"
#include "engine/coord/zk_watch_manager.h"
#include "engine/coord/zk_wire.h"

namespace gregor::coord {

struct ZkServerConfig {
  Duration tick_time = Duration::millis(2000);  // tickTime
  ZkStorageConfig storage;                      // dataDir, snapCount
  // How long the durability stage lets a batch gather before its fsync. 0 (the default, as
  // ZooKeeper's SyncRequestProcessor): at the end of the current event batch. A longer window
  // trades latency for fewer fsyncs, and lets a simulation crash the server between a txn's
  // append and its fsync.
  Duration commit_delay{0};
  size_t max_sessions = 10000;                  // more connect requests for new sessions are refused
  // ZooKeeper's maxClientCnxns, counted in live sessions per client address (where the runtime
  // knows addresses: real sockets): a flood of handshakes from one address, each leaving a
  // session until it expires, cannot use up max_sessions for everyone else. 0: no limit.
  size_t max_client_cnxns = 60;
  // ZooKeeper's jute.maxbuffer (default 0xfffff): a request frame larger than it plus
  // ZkLimits::kRequestOverheadBytes closes its connection (max_request_bytes()). The server sees
  // frames whole; `gregor zk` sets its transport's limit (socket.request.max.bytes) to the same, so
  // that real sockets refuse such a frame from its size field, before buffering it. The data of
  // one znode stays limited to ZkLimits::kMaxDataBytes (the default's value) whatever it is.
  size_t jute_maxbuffer = ZkLimits::kMaxDataBytes;
  size_t max_request_bytes() const { return jute_maxbuffer + ZkLimits::kRequestOverheadBytes; }
  // A replicated ensemble (ZAB, engine/coord/zk_ensemble.cpp): the node id of every server, this
  // one's included. Empty or one server: the single server described above, exactly.
  std::vector<NodeId> ensemble;
  int64_t init_limit_ticks = 10;  // initLimit: a leader must be serving, a follower synced, within it
  int64_t sync_limit_ticks = 5;   // syncLimit: a peer not heard from for this long is gone
  // How often a LOOKING server resends its vote, and how long it waits, once a quorum agrees, for
  // a better vote (ZooKeeper's finalizeWait).
  Duration election_interval = Duration::millis(200);
};

class ZkServer final : public Node {
 public:
  ZkServer(Runtime& rt, ZkServerConfig config);
  ~ZkServer() override;

  void start() override;
  void on_message(NodeId from, Bytes frame) override;
  void on_disconnect(NodeId peer) override;

  // Accessors for tests and the GUI.
  const ZnodeTree& tree() const { return db_.tree(); }
  const ZkDatabase& database() const { return db_; }
  bool serving() const { return serving_; }
  bool has_session(int64_t session) const { return sessions_.is_live(session); }
  size_t session_count() const { return db_.sessions().size(); }
  size_t watch_count() const { return watches_.watch_count(); }
  const RecoveryInfo& recovery() const { return recovery_; }
  uint64_t flushes() const { return storage_->flushes(); }
  Duration min_session_timeout() const { return config_.tick_time * 2; }
  Duration max_session_timeout() const { return config_.tick_time * 20; }
  // Ensemble state (a single server is always "leading" itself).
  bool replicated() const { return config_.ensemble.size() > 1; }
  PeerState peer_state() const { return peer_state_; }
  bool active() const { return !replicated() || active_; }  // serves clients
  int32_t leader_id() const { return leader_id_; }
  int64_t current_epoch() const { return current_epoch_; }
  int64_t committed_zxid() const { return committed_zxid_; }
  int64_t last_logged_zxid() const { return storage_->last_appended_zxid(); }

 private:
  // A connection's life: its first frame is the handshake; once it failed (or the session was
  // closed) nothing more is served on it.
  enum class ConnectionState { kHandshake, kConnected, kDone };
  struct Connection {
    ConnectionState state = ConnectionState::kHandshake;
    int64_t session = 0;   // 0 until a handshake binds one
    uint64_t binding = 0;  // unique per connection entry: replies to an earlier one are dropped
    bool read_only_flag = true;  // whether the client sent ConnectRequest.readOnly (echoed back)
  };
  // A request on its way through the pipeline.
  struct Pending {
    int32_t connection = 0;  // 0: nobody to answer (the server's own txn, e.g. an expiry)
    uint64_t binding = 0;
    int32_t xid = 0;
    wire::OpCode op = wire::OpCode::kPing;
    int64_t session = 0;
    ZkError error = ZkError::kOk;
    std::optional<Txn> txn;
    std::vector<ZkOpResult> results;  // a multi's per-op results when it failed
    wire::Request request;            // reads, multis and set_watches need their arguments
    wire::ConnectResponse connect;
    // A write a follower forwarded to the leader: answered once the leader says how it ends
    // (its txn's zxid, or its error), finished once that txn is committed here.
    bool forwarded = false;
    bool answered = false;
    int64_t forward_id = 0;
    int64_t txn_zxid = 0;
  };

  void handle_request(int32_t connection, wire::Request request);
  void handle_connect(int32_t connection, const wire::ConnectRequest& request);
  // Why a connect request cannot have a new session, if it cannot (the place for per-client limits).
  std::optional<std::string> refuse_new_session(int32_t connection);
  int64_t next_session_id();
  void bad_frame(int32_t connection, const std::string& reason);
  void close(int32_t connection);
  Connection& connection_entry(int32_t connection);
  void unbind(int32_t connection);
  void expire_sessions();
  void schedule_tick();

  void enqueue(Pending p);
  void schedule_flush();
  void flush();
  void drain();
  void finish(Pending& p);
  void apply_txn(Pending& p, wire::Reply& reply);
  void answer_read(Pending& p, wire::Reply& reply);
  void set_watches(Pending& p);
  int32_t descendants(const std::string& path) const;
  void fire(const std::string& path, WatchType type, int64_t zxid);
  void notify(int32_t connection, const std::string& path, WatchType type, int64_t zxid);
  void emit_txn(const Txn& txn, const ApplyResult& result);
  void emit_refused(const wire::Request& request, const std::vector<ZkOpResult>& results, ZkError error,
                    int64_t session);
  bool binding_valid(int32_t connection, uint64_t binding) const;
  void reply(const Pending& p, Bytes frame);
  void halt(const std::string& reason);

  Runtime& rt_;
  ZkServerConfig config_;
  ZkDatabase db_;
  std::unique_ptr<ZkStorage> storage_;
  std::unique_ptr<ZkPrep> prep_;
  ZkSessionTracker sessions_;
  ZkWatchManager watches_;
  RecoveryInfo recovery_;
  bool serving_ = false;

  std::map<int32_t, Connection> connections_;  // by (negative) connection id
  std::map<int64_t, int32_t> session_connection_;
  uint64_t next_binding_ = 1;
  uint64_t session_counter_ = 0;  // set at start from the RNG (ZooKeeper's time-based start)
  // Sessions opened per client address (max_client_cnxns); ended ones are pruned when counted.
  std::map<std::string, std::set<int64_t>> sessions_by_host_;
  size_t session_hosts_tracked_ = 0;
  void remember_session_host(const std::string& host, int64_t session);

  std::deque<Pending> pipeline_;  // requests in arrival order, waiting for their fsync
  int64_t durable_zxid_ = 0;
  bool flush_scheduled_ = false;
  TimerId flush_timer_{};
  TimerId tick_timer_{};

  // ---- The replicated ensemble (zk_ensemble.cpp) ----
  using Vote = QuorumVote;
  // A follower as its leader sees it.
  struct FollowerPeer {
    int32_t connection = 0;  // the follower's connection into this server (negative id)
    int64_t accepted_epoch = 0, current_epoch = 0, zxid = 0, snapshot_zxid = 0;
    bool synced = false;        // sync and NEWLEADER sent: it receives proposals and commits
    bool acked_leader = false;  // acknowledged NEWLEADER
    Time last_heard{};
  };
  struct Proposal {
    Txn txn;
    std::set<int32_t> acks;
  };
  int64_t quorum_size() const { return static_cast<int64_t>(config_.ensemble.size()) / 2 + 1; }
  Vote own_vote() const;
  bool known_peer(int32_t id) const;
  void ensemble_start();
  void load_epochs();
  Status store_epoch(const std::string& name, int64_t epoch);
  void reload_database();
  void look(const std::string& reason);
  void send_notification(int32_t to);
  void broadcast_notification();
  void schedule_election_timer();
  void consider_finalize();
  void finalize_election();
  void on_peer_message(NodeId from, const QuorumMessage& m);
  void on_notification(NodeId from, const QuorumMessage& m);
  void on_peer_disconnect(NodeId peer);
  void send_peer(NodeId to, QuorumMessage m);
  void become_leader();
  void leader_on_follower_info(NodeId from, const QuorumMessage& m);
  void leader_establish_epoch();
  void leader_sync(int32_t id, FollowerPeer& f);
  void leader_on_ack_new_leader(int32_t id);
  void leader_activate();
  void leader_on_ack(int32_t id, int64_t zxid);
  void leader_try_commit();
  void leader_on_request(int32_t id, const QuorumMessage& m);
  void propose(const Txn& txn);
  void become_follower(int32_t leader);
  void follower_on_message(const QuorumMessage& m);
  void follower_apply_committed();
  void forward(Pending& p, QuorumMessage m);
  // Forwards a client request the leader must order (writes, sync) as it came.
  void forward_ops(Pending& p, int64_t session, const wire::Request& request);
  void peer_tick();
  void after_flush();
  void close_client_connections();
  void drain_follower();

  PeerState peer_state_ = PeerState::kLooking;
  bool active_ = false;
  int32_t leader_id_ = 0;
  int64_t accepted_epoch_ = 0, current_epoch_ = 0;
  int64_t round_ = 0;
  Vote vote_;
  std::map<int32_t, Vote> votes_;                 // this round's votes of LOOKING servers
  std::map<int32_t, std::pair<PeerState, Vote>> out_of_election_;  // votes of settled servers
  TimerId election_timer_{}, finalize_timer_{}, peer_timer_{};
  bool finalize_scheduled_ = false;
  Time state_since_{};
  // Leader.
  std::map<int32_t, FollowerPeer> followers_;  // by server id
  std::map<int32_t, QuorumMessage> early_follower_info_;  // arrived before this server knew it leads
  std::map<int32_t, int32_t> early_follower_connection_;
  bool epoch_established_ = false;
  std::deque<Proposal> proposals_;  // leader: proposed, not committed; follower: logged, not applied
  int64_t committed_zxid_ = 0;
  // Leader: committed txns after history_base_zxid_ (a zxid in its log), for DIFF and TRUNC syncs.
  std::deque<Txn> history_;
  int64_t history_base_zxid_ = 0;
  std::map<int64_t, std::pair<int32_t, int64_t>> origin_;  // leader: zxid -> (follower, forward id)
  // Follower.
  int64_t next_forward_id_ = 1;
  Time leader_heard_{};
  std::set<int64_t> touched_;
  int64_t acked_zxid_ = 0;
  int64_t syncing_epoch_ = 0;
};

}  // namespace gregor::coord
