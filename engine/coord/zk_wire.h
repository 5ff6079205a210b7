// The zk wire format: Gregor's own encoding of ZooKeeper's client protocol (not jute).
//
// Every frame is a body that the transport sends after an int32 big-endian length, like every
// frame in Gregor (the Runtime adds and strips the length; see engine/core/runtime.h). Integers
// are big-endian, strings are int16 length + bytes, byte arrays int32 length + bytes (ByteWriter).
// The layouts, which docs/zk.md shows as tables:
//
//   request  = xid:int32  op:int32  body            (op numbers are ZooKeeper's OpCode values)
//   reply    = xid:int32  zxid:int64  err:int32  body   (body only when err = 0, except multi)
//
//   op  name          request body                                   reply body
//   -10 connect       protocol:int32 last_zxid_seen:int64            protocol:int32 timeout_ms:int32
//                     timeout_ms:int32 session_id:int64 password:bytes   session_id:int64 password:bytes
//   -11 close         -                                              -
//    1  create        path:string data:bytes flags:int32             path:string
//    2  delete        path:string version:int32                      -
//    3  exists        path:string watch:bool                         stat
//    4  get_data      path:string watch:bool                         data:bytes stat
//    5  set_data      path:string data:bytes version:int32           stat
//    8  get_children  path:string watch:bool                         count:int32 name:string...
//   11  ping (xid -2) -                                              -
//   14  multi         count:int32 (type:int32 op-body)...            count:int32 (type:int32 err:int32 [body])...
//                     op-body as for create/delete/set_data, check = path:string version:int32
//  101  set_watches   relative_zxid:int64 then three lists (data, exist, child watches), each
//       (xid -8)      count:int32 path:string...                     -
//
//   notification = xid:-1 zxid:int64 err:0 type:int32 state:int32 path:string (pushed by the server)
//   stat = czxid:int64 mzxid:int64 pzxid:int64 version:int32 cversion:int32 ephemeral_owner:int64
//          num_children:int32 data_length:int32
//
// Decoders never trust their input: a short, overlong or inconsistent frame decodes as false.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/coord/zk_types.h"

namespace gregor::coord::wire {

enum class OpCode : int32_t {
  kCreateSession = -10,  // the connect handshake
  kCloseSession = -11,
  kCreate = 1,
  kDelete = 2,
  kExists = 3,
  kGetData = 4,
  kSetData = 5,
  kGetChildren = 8,
  kPing = 11,
  kCheck = 13,
  kMulti = 14,
  kSetWatches = 101,
};
const char* op_name(OpCode op);

// Reserved xids (ZooKeeper's): a client numbers its own requests from 1 upwards.
constexpr int32_t kNotificationXid = -1;
constexpr int32_t kPingXid = -2;
constexpr int32_t kSetWatchesXid = -8;

constexpr int32_t kProtocolVersion = 0;
constexpr size_t kPasswordBytes = 16;
// KeeperState.SyncConnected, the state a notification carries.
constexpr int32_t kSyncConnectedState = 3;

struct ConnectRequest {
  int32_t protocol_version = kProtocolVersion;
  int64_t last_zxid_seen = 0;
  int32_t timeout_ms = 0;
  int64_t session_id = 0;  // 0 asks for a new session
  Bytes password;          // empty for a new session
};

struct ConnectResponse {
  int32_t protocol_version = kProtocolVersion;
  int32_t timeout_ms = 0;  // negotiated
  int64_t session_id = 0;
  Bytes password;
};

struct SetWatchesRequest {
  int64_t relative_zxid = 0;  // the last zxid the client saw: changes after it fire at once
  std::vector<std::string> data_watches;
  std::vector<std::string> exist_watches;
  std::vector<std::string> child_watches;
};

// A decoded request. Which fields matter depends on op: `args` carries the path, data, mode and
// version of create/delete/set_data/check and the path of the reads; `watch` the reads' flag.
struct Request {
  int32_t xid = 0;
  OpCode op = OpCode::kPing;
  ZkOp args;
  bool watch = false;
  std::vector<ZkOp> ops;  // multi
  ConnectRequest connect;
  SetWatchesRequest set_watches;
};

Bytes encode_request(const Request& r);
// Reads the header only: enough to answer a request whose body is malformed.
bool decode_request_header(ByteView frame, int32_t* xid, int32_t* op);
bool decode_request(ByteView frame, Request* out);

struct ReplyHeader {
  int32_t xid = 0;
  int64_t zxid = 0;
  ZkError err = ZkError::kOk;
};

// A decoded reply; which fields are filled depends on the op it answers.
struct Reply {
  ReplyHeader header;
  ConnectResponse connect;
  std::string path;                    // create
  Bytes data;                          // get_data
  Stat stat;                           // exists, get_data, set_data
  std::vector<std::string> children;   // get_children
  std::vector<ZkOpResult> results;     // multi
  WatchEvent event;                    // notification
};

// Encoders for the server. A reply with err != 0 carries no body, except multi (per-op results).
Bytes encode_error_reply(int32_t xid, int64_t zxid, ZkError err);
Bytes encode_reply(OpCode op, const Reply& r);
Bytes encode_notification(int64_t zxid, const WatchEvent& e);

bool decode_reply_header(ByteView frame, ReplyHeader* out);
// Decodes a reply to `op` (the client knows which op it sent under that xid); a notification
// when op is absent and the xid is kNotificationXid.
bool decode_reply(ByteView frame, std::optional<OpCode> op, Reply* out);

void encode_stat(ByteWriter& w, const Stat& s);
Stat decode_stat(ByteReader& r);

}  // namespace gregor::coord::wire
