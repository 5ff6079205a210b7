// The zk wire format: ZooKeeper's client protocol, jute records over size-prefixed frames.
//
// Every frame is a body that the transport sends after an int32 big-endian length (the Runtime
// adds and strips it; see engine/core/runtime.h): exactly ZooKeeper's framing, so Gregor's server
// serves stock ZooKeeper clients (zkCli.sh, kazoo, the Java client Kafka uses) and Gregor's client
// talks to Apache ZooKeeper. Jute's primitives, all big-endian:
//   int = int32, long = int64, boolean = 1 byte, buffer = int32 length + bytes (-1 = null),
//   ustring = int32 length + UTF-8 bytes (-1 = null), vector<T> = int32 count + T... (-1 = null).
//
// A connection starts with the handshake, records without headers:
//   ConnectRequest  = protocolVersion:int lastZxidSeen:long timeOut:int sessionId:long passwd:buffer
//                     [readOnly:boolean]            (readOnly is absent from very old clients)
//   ConnectResponse = protocolVersion:int timeOut:int sessionId:long passwd:buffer [readOnly:boolean]
//                     (the server sends readOnly when the client did; timeOut 0 = session expired)
// Then every request is RequestHeader + record, every answer ReplyHeader + record:
//   RequestHeader = xid:int type:int            ReplyHeader = xid:int zxid:long err:int
// A reply carries its record only when err = 0. Reserved xids: -1 watch notification (pushed by the
// server), -2 ping, -4 auth, -8 setWatches; a client numbers its own requests from 1.
//
//   op   name               request record                           reply record
//   -11  closeSession       -                                        -
//     1  create             path data acl:vector<ACL> flags:int      path
//    15  create2            as create                                path stat
//     2  delete             path version:int                         -
//     3  exists             path watch:boolean                       stat      (NoNode when missing)
//     4  getData            path watch:boolean                       data:buffer stat
//     5  setData            path data:buffer version:int             stat
//     6  getACL             path                                     acl:vector<ACL> stat
//     8  getChildren        path watch:boolean                       children:vector<ustring>
//    12  getChildren2       path watch:boolean                       children:vector<ustring> stat
//     9  sync               path                                     path
//    11  ping (xid -2)      -                                        -
//    13  check (in multi)   path version:int                         -
//    14  multi              (MultiHeader op-record)... MultiHeader(-1,true,-1)
//                                                                    (MultiHeader result)... end marker
//   100  auth (xid -4)      type:int scheme:ustring auth:buffer      -
//   101  setWatches (xid -8) relativeZxid:long dataWatches existWatches childWatches (vector<ustring>)
//   105  setWatches2        as setWatches + persistentWatches persistentRecursiveWatches
//   103  getEphemerals      prefixPath                               ephemerals:vector<ustring>
//   104  getAllChildrenNumber path                                   totalNumber:int
//
//   ACL = perms:int scheme:ustring id:ustring
//   MultiHeader = type:int done:boolean err:int
//   multi result = MultiHeader(op type, false, 0) + create: path | create2: path stat |
//                  setData: stat | delete, check: nothing;  a failed multi answers every op with
//                  MultiHeader(-1, false, err) + err:int (ZooKeeper's ErrorResult), with err 0 in
//                  its ReplyHeader
//   notification = ReplyHeader(-1, zxid, 0) + WatcherEvent(type:int state:int path:ustring)
//   stat = czxid:long mzxid:long ctime:long mtime:long version:int cversion:int aversion:int
//          ephemeralOwner:long dataLength:int numChildren:int pzxid:long          (68 bytes)
//
// Decoders never trust their input: a short, overlong or inconsistent record decodes as false.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/coord/zk_types.h"

namespace gregor::coord::wire {

// ZooDefs.OpCode.
enum class OpCode : int32_t {
  kNotification = 0,
  kCreate = 1,
  kDelete = 2,
  kExists = 3,
  kGetData = 4,
  kSetData = 5,
  kGetAcl = 6,
  kSetAcl = 7,
  kGetChildren = 8,
  kSync = 9,
  kPing = 11,
  kGetChildren2 = 12,
  kCheck = 13,
  kMulti = 14,
  kCreate2 = 15,
  kReconfig = 16,
  kCheckWatches = 17,
  kRemoveWatches = 18,
  kCreateContainer = 19,
  kDeleteContainer = 20,
  kCreateTtl = 21,
  kMultiRead = 22,
  kAuth = 100,
  kSetWatches = 101,
  kSasl = 102,
  kGetEphemerals = 103,
  kGetAllChildrenNumber = 104,
  kSetWatches2 = 105,
  kAddWatch = 106,
  kWhoAmI = 107,
  kCreateSession = -10,  // the handshake (it has no RequestHeader on the wire)
  kCloseSession = -11,
  kError = -1,  // a multi's ErrorResult
};
// "create", "getData", ... (ZooKeeper's names); "op<N>" for a number that is not an op.
std::string op_name(int32_t op);
inline std::string op_name(OpCode op) { return op_name(static_cast<int32_t>(op)); }
// The ops Gregor's server answers (every other one gets Unimplemented).
bool served_op(int32_t op);

constexpr int32_t kNotificationXid = -1;
constexpr int32_t kPingXid = -2;
constexpr int32_t kAuthXid = -4;
constexpr int32_t kSetWatchesXid = -8;

constexpr int32_t kProtocolVersion = 0;
constexpr size_t kPasswordBytes = 16;
// Watcher.Event.KeeperState.SyncConnected, the state a node event carries.
constexpr int32_t kSyncConnectedState = 3;
// The size of a jute Stat.
constexpr size_t kStatBytes = 68;

// Jute's primitives over Gregor's byte cursors.
namespace jute {
void put_string(ByteWriter& w, std::string_view s);
void put_buffer(ByteWriter& w, ByteView b, bool null = false);
void put_string_vector(ByteWriter& w, const std::vector<std::string>& v);
// A null string reads as "" (every path must be valid, so it is refused where it matters).
std::string get_string(ByteReader& r);
Bytes get_buffer(ByteReader& r, bool* null = nullptr);
std::vector<std::string> get_string_vector(ByteReader& r);
void put_stat(ByteWriter& w, const Stat& s);
Stat get_stat(ByteReader& r);
void put_acl(ByteWriter& w, const std::vector<Acl>& acl);
std::vector<Acl> get_acl(ByteReader& r);
}  // namespace jute

struct ConnectRequest {
  int32_t protocol_version = kProtocolVersion;
  int64_t last_zxid_seen = 0;
  int32_t timeout_ms = 0;
  int64_t session_id = 0;  // 0 asks for a new session
  Bytes password;          // ignored for a new session
  bool read_only = false;
  bool has_read_only = true;  // false: an old client that does not send the flag
};

struct ConnectResponse {
  int32_t protocol_version = kProtocolVersion;
  int32_t timeout_ms = 0;  // negotiated; 0 says the session expired (or never existed)
  int64_t session_id = 0;
  Bytes password;
  bool read_only = false;
  bool has_read_only = true;  // sent when the client sent its flag
};

Bytes encode_connect_request(const ConnectRequest& c);
bool decode_connect_request(ByteView frame, ConnectRequest* out);
Bytes encode_connect_response(const ConnectResponse& c);
bool decode_connect_response(ByteView frame, ConnectResponse* out);

struct SetWatchesRequest {
  int64_t relative_zxid = 0;  // the last zxid the client saw: changes after it fire at once
  std::vector<std::string> data_watches;
  std::vector<std::string> exist_watches;
  std::vector<std::string> child_watches;
  // setWatches2 only (persistent watches, which this server does not offer: it refuses them).
  std::vector<std::string> persistent_watches;
  std::vector<std::string> persistent_recursive_watches;
};

struct AuthRequest {
  int32_t type = 0;
  std::string scheme;
  Bytes auth;
};

// A decoded request (after the handshake). Which fields matter depends on op: `args` carries the
// path, data, mode, ACL and version of create/create2/delete/setData/check and the path of the
// reads, sync, getACL and getEphemerals; `watch` the reads' flag.
struct Request {
  int32_t xid = 0;
  OpCode op = OpCode::kPing;
  ZkOp args;
  bool watch = false;
  std::vector<ZkOp> ops;  // multi
  SetWatchesRequest set_watches;
  AuthRequest auth;
};

Bytes encode_request(const Request& r);
// Reads the header only: enough to answer a request whose body is malformed or whose op is not
// served.
bool decode_request_header(ByteView frame, int32_t* xid, int32_t* op);
// REQUIRES: served_op(op of the frame) (the caller checked the header first).
bool decode_request(ByteView frame, Request* out);

struct ReplyHeader {
  int32_t xid = 0;
  int64_t zxid = 0;
  ZkError err = ZkError::kOk;
};

// A decoded reply; which fields are filled depends on the op it answers.
struct Reply {
  ReplyHeader header;
  std::string path;                   // create, create2, sync
  Bytes data;                         // getData
  bool null_data = false;             // getData: the node holds jute's null
  Stat stat;                          // exists, getData, setData, create2, getChildren2, getACL
  std::vector<std::string> children;  // getChildren, getChildren2, getEphemerals
  std::vector<ZkOpResult> results;    // multi
  std::vector<Acl> acl;               // getACL
  int32_t count = 0;                  // getAllChildrenNumber
  WatchEvent event;                   // notification
};

// Encoders for the server. A reply with err != 0 carries no record. A multi whose results hold an
// error is encoded as ZooKeeper's failed multi (ErrorResults, err 0 in the header).
Bytes encode_error_reply(int32_t xid, int64_t zxid, ZkError err);
Bytes encode_reply(OpCode op, const Reply& r);
Bytes encode_notification(int64_t zxid, const WatchEvent& e);

bool decode_reply_header(ByteView frame, ReplyHeader* out);
// Decodes a reply to `op` (the client knows which op it sent under that xid). For a multi, each
// result's type is the one on the wire, or kCheck for an ErrorResult (the caller knows its ops).
bool decode_reply(ByteView frame, OpCode op, Reply* out);
// A notification: any event type decodes (the caller ignores the ones it does not know).
bool decode_notification(ByteView frame, Reply* out);

}  // namespace gregor::coord::wire
