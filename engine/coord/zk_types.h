// The coordination service's public vocabulary: errors, create modes, Stat, watch and session
// events, multi-op operations and results, limits, and path rules.
//
// Gregor's `zk` plays ZooKeeper's role for the brokers (see docs/zk.md). Names, numbers and
// semantics follow ZooKeeper 3.5-3.8 where they are visible to a client: the error codes keep
// ZooKeeper's numbers (KeeperException.Code), the create-mode flags and watch event types keep
// their wire values, a sequential name ends in a 10-digit zero-padded counter taken from the
// parent's cversion, and Stat has ZooKeeper's fields. The wire format is ZooKeeper's jute
// protocol (engine/coord/zk_wire.h), so stock ZooKeeper clients and servers interoperate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/bytes.h"

namespace gregor::coord {

// ZooKeeper's error codes, with ZooKeeper's numbers (org.apache.zookeeper.KeeperException.Code).
// Every code a ZooKeeper 3.8 server or client can report is listed, so that an error from an
// Apache ZooKeeper ensemble keeps its name; Gregor's own server produces only some of them.
enum class ZkError : int32_t {
  kOk = 0,
  kSystemError = -1,
  kRuntimeInconsistency = -2,  // a multi op after the failing one (it was not attempted)
  kDataInconsistency = -3,
  kConnectionLoss = -4,
  kMarshallingError = -5,
  kUnimplemented = -6,  // an op this server does not implement
  kOperationTimeout = -7,
  kBadArguments = -8,
  kUnknownSession = -12,
  kNewConfigNoQuorum = -13,
  kReconfigInProgress = -14,
  kApiError = -100,
  kNoNode = -101,
  kNoAuth = -102,
  kBadVersion = -103,
  kNoChildrenForEphemerals = -108,
  kNodeExists = -110,
  kNotEmpty = -111,
  kSessionExpired = -112,
  kInvalidCallback = -113,
  kInvalidAcl = -114,
  kAuthFailed = -115,
  kSessionMoved = -118,
  kNotReadOnly = -119,
  kEphemeralOnLocalSession = -120,
  kNoWatcher = -121,
  kRequestTimeout = -122,
  kReconfigDisabled = -123,
  kSessionClosedRequireSaslAuth = -124,
  kQuotaExceeded = -125,
  kThrottledOp = -127,
};
// "Ok", "NoNode", ... (ZooKeeper's Code names in CamelCase); "Unknown" for a number not above.
const char* zk_error_name(ZkError e);
// A wire value as an error; an unknown number maps to kSystemError (never trusted blindly).
ZkError zk_error_from_wire(int32_t v);

// ZooKeeper's CreateMode; wire values are its flags (ephemeral = 1, sequential = 2). The flags of
// containers (4) and TTL nodes (5, 6) decode to their values too, and the server refuses them
// (BadArguments), as it refuses any other unknown flag: see valid_create_mode().
enum class CreateMode : int32_t {
  kPersistent = 0,
  kEphemeral = 1,
  kPersistentSequential = 2,
  kEphemeralSequential = 3,
};
inline bool valid_create_mode(CreateMode m) {
  return static_cast<int32_t>(m) >= 0 && static_cast<int32_t>(m) <= 3;
}
inline bool is_ephemeral(CreateMode m) { return m == CreateMode::kEphemeral || m == CreateMode::kEphemeralSequential; }
inline bool is_sequential(CreateMode m) {
  return m == CreateMode::kPersistentSequential || m == CreateMode::kEphemeralSequential;
}

// A znode's metadata, ZooKeeper's Stat, its fields in jute's order. czxid: zxid of the create;
// mzxid: of the last data change; ctime / mtime: the wall-clock time (ms since the Unix epoch) of
// those txns; version counts data changes, cversion child changes, aversion ACL changes (always 0
// here: ACLs are not kept); ephemeral_owner is the owning session (0 for a persistent node);
// pzxid is the zxid of the last child change.
struct Stat {
  int64_t czxid = 0;
  int64_t mzxid = 0;
  int64_t ctime = 0;
  int64_t mtime = 0;
  int32_t version = 0;
  int32_t cversion = 0;
  int32_t aversion = 0;
  int64_t ephemeral_owner = 0;
  int32_t data_length = 0;
  int32_t num_children = 0;
  int64_t pzxid = 0;
  bool operator==(const Stat&) const = default;
};

// An ACL entry (ZooKeeper's ACL: perms and an Id of scheme and id). Gregor's server accepts ACLs
// on create and does not enforce or keep them: every znode reports the open ACL below.
struct Acl {
  int32_t perms = 0;
  std::string scheme;
  std::string id;
  bool operator==(const Acl&) const = default;
};
// ZooDefs.Perms.ALL: read, write, create, delete, admin.
constexpr int32_t kPermsAll = 31;
// ZooDefs.Ids.OPEN_ACL_UNSAFE: world:anyone with every permission (what Kafka writes unless
// zookeeper.set.acl is on).
std::vector<Acl> open_acl_unsafe();

// Watch event types; wire values are ZooKeeper's (EventType: NodeCreated = 1 ... NodeChildrenChanged = 4).
enum class WatchType { kNodeCreated = 1, kNodeDeleted = 2, kNodeDataChanged = 3, kNodeChildrenChanged = 4 };
const char* watch_type_name(WatchType t);  // "NodeCreated", ...

struct WatchEvent {
  WatchType type;
  std::string path;
  bool operator==(const WatchEvent&) const = default;
};

// What the session listener hears. ZooKeeper's KeeperState events are SyncConnected (kConnected),
// Disconnected and Expired; kConnecting is the state before the session's first connection.
enum class SessionState { kConnecting, kConnected, kDisconnected, kExpired };
const char* session_state_name(SessionState s);

// One operation of a multi (ZooKeeper's Op): create, delete, setData or check (a version
// precondition that changes nothing). Values are the ops' OpCodes; create2 is a create whose
// result carries the new node's Stat too.
enum class ZkOpType : int32_t { kCreate = 1, kDelete = 2, kSetData = 5, kCheck = 13, kCreate2 = 15 };
inline bool is_create(ZkOpType t) { return t == ZkOpType::kCreate || t == ZkOpType::kCreate2; }

struct ZkOp {
  ZkOpType type = ZkOpType::kCheck;
  std::string path;
  Bytes data;                       // create, set_data
  bool null_data = false;           // create, set_data: jute's null buffer (kept as such; empty data)
  CreateMode mode = CreateMode::kPersistent;  // create
  int32_t version = -1;             // delete, set_data, check: expected version (-1 = any)
  std::vector<Acl> acl;             // create: as sent (the server only checks it is not empty)

  // A create with the open ACL; data nullopt is jute's null buffer (ZooKeeper's create(path, null,
  // ...), as Kafka creates its parent znodes).
  static ZkOp create(std::string path, std::optional<Bytes> data, CreateMode mode);
  static ZkOp remove(std::string path, int32_t expected_version);
  static ZkOp set_data(std::string path, Bytes data, int32_t expected_version);
  static ZkOp check(std::string path, int32_t expected_version);
};

// One op's outcome. When a multi fails, the ops before the failing one say kOk (they were rolled
// back), the failing one its error, the ones after kRuntimeInconsistency (as ZooKeeper reports;
// on the wire each of them is an ErrorResult).
struct ZkOpResult {
  ZkOpType type = ZkOpType::kCheck;
  ZkError error = ZkError::kOk;
  std::string created_path;  // create, create2
  Stat stat;                 // set_data, create2
};

// Limits, in one place.
struct ZkLimits {
  // jute.maxbuffer's default (0xfffff): the most data one znode may hold.
  static constexpr size_t kMaxDataBytes = 1048575;
  // The longest path accepted (ZooKeeper has no separate limit; this keeps paths printable and
  // trace events small).
  static constexpr size_t kMaxPathBytes = 4096;
  // The most operations in one multi.
  static constexpr size_t kMaxOpsPerMulti = 1000;
  // The largest frame either side sends or accepts (a multi of a few full znodes fits; anything
  // larger is refused before it is sent, and dropped as malformed when received).
  // A get_children answer that would exceed it fails with kMarshallingError instead.
  static constexpr size_t kMaxFrameBytes = 16 * 1024 * 1024;
  // The room a server gives a request beyond jute.maxbuffer: its header, a path of kMaxPathBytes
  // and an ACL, so that a create of a full znode fits (as ZooKeeper 3.6's
  // zookeeper.jute.maxbuffer.extrasize).
  static constexpr size_t kRequestOverheadBytes = 8192;
};

// ZooKeeper's path rules (PathUtils.validatePath): absolute, no empty component ("//"), no
// trailing '/' except the root, no "." or ".." component, no NUL or control characters, at most
// kMaxPathBytes. `sequential` validates the path as it will be once the counter is appended (so a
// trailing '/' is allowed: "/queue/" makes "/queue/0000000003").
bool valid_path(std::string_view path, bool sequential = false);

// "/a/b" -> "/a"; "/a" -> "/". REQUIRES: valid_path(path) and path != "/".
std::string parent_path(std::string_view path);
// "/a/b" -> "b". REQUIRES: valid_path(path) and path != "/".
std::string last_component(std::string_view path);
// "/a" + "b" -> "/a/b"; "/" + "b" -> "/b".
std::string join_path(std::string_view parent, std::string_view child);
// ZooKeeper's sequential suffix: the counter as 10 decimal digits, zero-padded.
std::string sequence_suffix(int32_t counter);

// ZooKeeper's own znodes, present in every tree as in ZooKeeper's DataTree: /zookeeper,
// /zookeeper/quota and (since 3.5) /zookeeper/config, with zeroed Stats. As there, they cannot be
// deleted (BadArguments) and /zookeeper/config is read-only (NoAuth); znodes may be created below.
std::vector<std::string> system_paths();
bool is_system_path(std::string_view path);
constexpr std::string_view kConfigPath = "/zookeeper/config";

// A printable form of znode data for trace events and logs: the text itself when it is printable
// ASCII of at most 1024 bytes, otherwise "<N bytes>".
std::string printable_data(ByteView data);

}  // namespace gregor::coord
