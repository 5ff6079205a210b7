// Txn: one state change of the coordination service, as the request processor decides it and as
// the transaction log stores it (ZooKeeper's TxnHeader + Txn records).
//
// A txn is deterministic: it carries final values (the created path with its sequence suffix, the
// new version, the ephemerals a closing session loses), so applying it needs no decision and
// gives the same tree on the live server, during recovery, and (later) on every follower of a
// replicated ensemble. It carries its wall-clock time too (ZooKeeper's TxnHeader.time), which
// becomes the ctime / mtime of the znodes it touches. Encoding (log entry body, big-endian, jute's
// strings and buffers: int32 length, -1 = null):
//
//   zxid:int64 session:int64 xid:int32 time_ms:int64 multi:bool count:int32 op...
//   op = type:int32 then
//     create_session (-10): timeout_ms:int32 password:buffer
//     close_session  (-11): expired:bool count:int32 path:string...   (the ephemerals it deletes)
//     create (1): path:string data:buffer ephemeral_owner:int64
//     delete (2): path:string
//     set_data (5): path:string data:buffer new_version:int32
//     check (13): path:string version:int32                           (only inside a multi)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/coord/zk_types.h"

namespace gregor::coord {

enum class TxnType : int32_t {
  kCreateSession = -10,
  kCloseSession = -11,
  kCreate = 1,
  kDelete = 2,
  kSetData = 5,
  kCheck = 13,
};
const char* txn_type_name(TxnType t);

struct TxnOp {
  TxnType type = TxnType::kCheck;
  std::string path;             // create, delete, set_data, check
  Bytes data;                   // create, set_data
  bool null_data = false;       // create, set_data: jute's null buffer
  int64_t ephemeral_owner = 0;  // create
  int32_t version = 0;          // set_data: the new version; check: the version it held
  int32_t timeout_ms = 0;       // create_session
  Bytes password;               // create_session
  bool expired = false;         // close_session: expired (true) or closed by the client
  std::vector<std::string> paths;  // close_session: its ephemerals, sorted
  bool operator==(const TxnOp&) const = default;
};

struct Txn {
  int64_t zxid = 0;
  int64_t session = 0;  // the session whose request made it
  int32_t xid = 0;      // that request's xid (0 for the server's own, e.g. an expiry)
  int64_t time_ms = 0;  // wall-clock time of the request (ms since the Unix epoch)
  bool multi = false;
  std::vector<TxnOp> ops;  // exactly one unless multi
  bool operator==(const Txn&) const = default;
};

void encode_txn(ByteWriter& w, const Txn& t);
Bytes encode_txn(const Txn& t);
// False on any malformed input (the whole body must be consumed).
bool decode_txn(ByteView body, Txn* out);

}  // namespace gregor::coord
