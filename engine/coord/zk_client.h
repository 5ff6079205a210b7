// ZkClient: the client library of the coordination service, what a broker uses to talk to zk
// (ZooKeeper's ClientCnxn + ZooKeeper handle, asynchronous API only: the engine never blocks).
// It speaks ZooKeeper's jute protocol (engine/coord/zk_wire.h), to Gregor's ZkServer or to an
// Apache ZooKeeper ensemble alike.
//
// The owning Node forwards to it every frame and disconnect whose peer satisfies owns_peer().
//
// Sessions. start() opens a session on one of the configured servers (a connect string's
// host:port list; tried in a shuffled order, with exponential backoff between attempts). Each
// attempt is a new connection whose first frame is the ConnectRequest. While connected the client
// pings every timeout/3. A connection is lost when the runtime reports a disconnect, when a send
// fails, or when nothing has been heard from the server for 2/3 of the session timeout
// (ZooKeeper's read timeout): the client closes it, the listener hears kDisconnected, and the
// client connects to the next server, presenting its session id and password to resume the
// session there. If a server says the session expired (a ConnectResponse with timeout 0), the
// listener hears kExpired and every request fails with kSessionExpired until start() is called
// again, which opens a new session (ZooKeeper requires a new handle; here the same object starts
// over).
//
// Chroot. With a chroot ("/kafka", a connect string's suffix) every path the caller names is
// under it on the server, and paths coming back (created names, watch events) are made relative
// to it again, as ZooKeeper's client does. The chroot znode itself must exist: create_chroot()
// creates it and its parents, as a Kafka broker does at its first start.
//
// Requests. Callbacks run on the runtime's thread, never from inside the call that submitted the
// request. Replies come in request order. A request made while not connected waits for the
// connection; when a connection (or an attempt to connect) is lost, every request waiting or in
// flight fails with kConnectionLoss: nothing is resent automatically, because a write in flight
// may or may not have been applied (ZooKeeper's semantics). A request not answered within
// request_timeout fails with kOperationTimeout. Bad arguments (an invalid path, data above
// ZkLimits::kMaxDataBytes) are reported by the server as kBadArguments; a path the wire format
// cannot carry fails locally with kBadArguments.
//
// Watches. get_data / exists / get_children with watch = true leave a one-shot watch; its event
// goes to the watch listener, before the reply to any later request (same connection, in order).
// The client remembers its watches and re-registers them after a reconnect (SetWatches with the
// last zxid it saw in a reply to a request: not the connect reply's nor a ping's, which carry the
// server's newest zxid without the events before it), so an event that happened while
// disconnected is delivered then. Watches die with the session.
//
// Trace events: zk_client_state {session, state, server} on every session state change.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/runtime.h"
#include "engine/coord/zk_types.h"
#include "engine/coord/zk_wire.h"

namespace gregor::coord {

struct ZkClientConfig {
  std::vector<NodeId> servers;
  std::string chroot;  // "" or a valid path other than "/" (e.g. "/kafka")
  Duration session_timeout = Duration::millis(18000);  // Kafka's zookeeper.session.timeout.ms
  Duration connect_backoff = Duration::millis(100);     // first retry delay, doubled per failure
  Duration connect_backoff_max = Duration::millis(1000);
  Duration request_timeout = Duration::millis(30000);   // as Kafka's request.timeout.ms
  size_t max_pending_requests = 10000;                  // beyond it, requests fail with kSystemError
};

class ZkClient {
 public:
  ZkClient(Runtime& rt, ZkClientConfig config);
  ~ZkClient();
  ZkClient(const ZkClient&) = delete;
  ZkClient& operator=(const ZkClient&) = delete;

  // Opens a session (a new one: after kExpired or close() too).
  void start();
  bool owns_peer(NodeId from) const;
  void on_message(NodeId from, Bytes frame);
  void on_disconnect(NodeId peer);
  void set_session_listener(std::function<void(SessionState)> listener);
  void set_watch_listener(std::function<void(const WatchEvent&)> listener);

  SessionState state() const;
  int64_t session_id() const { return session_id_; }
  Duration negotiated_timeout() const { return negotiated_timeout_; }
  std::optional<NodeId> server() const;  // the server of the current connection
  int64_t last_zxid_seen() const { return last_zxid_seen_; }
  size_t pending_requests() const { return queued_.size() + outstanding_.size(); }

  // data nullopt sends jute's null (as ZooKeeper's create(path, null, ...)). Znodes get the open
  // ACL (ZooDefs.Ids.OPEN_ACL_UNSAFE), as Kafka's unless zookeeper.set.acl is on.
  void create(std::string path, std::optional<Bytes> data, CreateMode mode,
              std::function<void(ZkError, std::string created_path)> cb);
  // create2: as create, and the answer carries the new znode's Stat (its czxid is a broker's epoch,
  // KIP-380).
  void create2(std::string path, std::optional<Bytes> data, CreateMode mode,
               std::function<void(ZkError, std::string created_path, Stat)> cb);
  // Creates the chroot and its missing parents (each a persistent znode with null data), outside
  // the chroot; kOk when it exists afterwards. REQUIRES: a chroot is configured.
  void create_chroot(std::function<void(ZkError)> cb);
  void get_data(std::string path, bool watch, std::function<void(ZkError, Bytes, Stat)> cb);
  void set_data(std::string path, Bytes data, int32_t expected_version, std::function<void(ZkError, Stat)> cb);
  void remove(std::string path, int32_t expected_version, std::function<void(ZkError)> cb);
  // A missing node answers kOk with no Stat (ZooKeeper's synchronous exists() returns null); with
  // watch = true it leaves a watch for the node's creation.
  void exists(std::string path, bool watch, std::function<void(ZkError, std::optional<Stat>)> cb);
  void get_children(std::string path, bool watch, std::function<void(ZkError, std::vector<std::string>)> cb);
  void multi(std::vector<ZkOp> ops, std::function<void(ZkError, std::vector<ZkOpResult>)> cb);
  // ZooKeeper's sync: answered once the connected server has applied every write the ensemble's
  // leader committed (or prepared) before it saw the sync, so reads after it are not stale.
  void sync(std::string path, std::function<void(ZkError)> cb);
  // Closes the session: the server deletes its ephemerals at once. The state becomes kExpired
  // (without a listener call: the owner knows); later requests fail with kSessionExpired. `closed`
  // runs once the session is over here: answered, timed out, or at once when not connected.
  void close(std::function<void()> closed = nullptr);

 private:
  using Done = std::function<void(ZkError, wire::Reply&)>;
  struct Request {
    int32_t xid = 0;
    wire::OpCode op = wire::OpCode::kPing;
    Bytes frame;
    Done done;
    TimerId timer{};
    bool timed_out = false;
    bool watch = false;  // a read that asked for a watch
    std::string path;    // as the caller named it (without the chroot)
    std::vector<ZkOpType> op_types;  // a multi's ops, to name its results
  };
  enum class Phase { kIdle, kBackoff, kHandshake, kConnected };

  // absolute: the paths are the server's own (create_chroot), not under the chroot.
  void submit(wire::Request request, Done done, bool absolute = false);
  std::string server_path(const std::string& path) const;  // with the chroot
  std::string client_path(const std::string& path) const;  // without it
  void defer(std::function<void()> fn);
  void run_deferred();
  void send_request(Request& r);
  void send_frame(Bytes frame);
  void on_request_timeout(int32_t xid);

  void connect_attempt();
  void schedule_reconnect();
  void handle_connect_reply(const wire::ConnectResponse& reply);
  void handle_reply(const wire::ReplyHeader& header, ByteView frame);
  void handle_notification(ByteView frame);
  void connection_lost(const std::string& reason);
  void drop_connection();  // closes the current connection (if any) and forgets its server
  // The session is over for good: timers cancelled, connection dropped, watches forgotten, every
  // pending request failed with kSessionExpired. session_expired also tells the session listener.
  void session_expired();
  void shut_down();
  void fail_all(ZkError err);
  void set_state(SessionState s, bool notify);
  void arm_read_timer();
  void ping();
  void cancel_connection_timers();
  int32_t next_xid();

  Runtime& rt_;
  ZkClientConfig config_;
  std::function<void(SessionState)> session_listener_;
  std::function<void(const WatchEvent&)> watch_listener_;

  SessionState state_ = SessionState::kConnecting;
  bool started_ = false;
  bool closed_ = false;  // close() was called, or the session expired: requests fail at once
  Phase phase_ = Phase::kIdle;
  std::vector<NodeId> order_;  // servers in the order tried
  size_t next_server_ = 0;
  std::optional<NodeId> server_;
  uint64_t generation_ = 0;  // counts connection attempts: a deferred failure names its own
  int32_t last_xid_ = 0;
  int attempts_ = 0;

  int64_t session_id_ = 0;
  Bytes password_;
  Duration negotiated_timeout_{};
  int64_t last_zxid_seen_ = 0;
  Time last_heard_{};

  std::deque<Request> queued_;       // waiting for a connection, in xid order
  std::deque<Request> outstanding_;  // sent, waiting for the reply, in xid order
  std::set<std::string> data_watches_, exist_watches_, child_watches_;

  TimerId connect_timer_{}, backoff_timer_{}, ping_timer_{}, read_timer_{}, deferred_timer_{};
  bool deferred_scheduled_ = false;
  std::vector<std::function<void()>> deferred_;
};

}  // namespace gregor::coord
