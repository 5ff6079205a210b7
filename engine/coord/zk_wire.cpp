#include "engine/coord/zk_wire.h"

#include "engine/core/assert.h"

namespace gregor::coord::wire {

// ---- Jute primitives -----------------------------------------------------------------------

namespace jute {

void put_string(ByteWriter& w, std::string_view s) {
  GREGOR_ASSERT(s.size() <= static_cast<size_t>(INT32_MAX));
  w.i32(static_cast<int32_t>(s.size()));
  w.raw(s);
}

void put_buffer(ByteWriter& w, ByteView b, bool null) {
  if (null) return w.i32(-1);
  GREGOR_ASSERT(b.size() <= static_cast<size_t>(INT32_MAX));
  w.i32(static_cast<int32_t>(b.size()));
  w.raw(b);
}

void put_string_vector(ByteWriter& w, const std::vector<std::string>& v) {
  w.i32(static_cast<int32_t>(v.size()));
  for (const auto& s : v) put_string(w, s);
}

std::string get_string(ByteReader& r) {
  const int32_t n = r.i32();
  if (n == -1) return {};
  if (n < -1) {
    r.fail();
    return {};
  }
  return to_string(r.raw(static_cast<size_t>(n)));
}

Bytes get_buffer(ByteReader& r, bool* null) {
  const int32_t n = r.i32();
  if (null) *null = n == -1;
  if (n == -1) return {};
  if (n < -1) {
    r.fail();
    return {};
  }
  ByteView v = r.raw(static_cast<size_t>(n));
  return Bytes(v.begin(), v.end());
}

std::vector<std::string> get_string_vector(ByteReader& r) {
  std::vector<std::string> out;
  const int32_t n = r.array_count(4);  // each string has at least its length
  out.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n && r.ok(); i++) out.push_back(get_string(r));
  return out;
}

void put_stat(ByteWriter& w, const Stat& s) {
  // Every reply to a write or read carries one: 68 bytes in one append rather than 68 byte pushes.
  uint8_t out[kStatBytes];
  size_t at = 0;
  auto put = [&](uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; i--) out[at++] = static_cast<uint8_t>(v >> (8 * i));
  };
  put(static_cast<uint64_t>(s.czxid), 8);
  put(static_cast<uint64_t>(s.mzxid), 8);
  put(static_cast<uint64_t>(s.ctime), 8);
  put(static_cast<uint64_t>(s.mtime), 8);
  put(static_cast<uint32_t>(s.version), 4);
  put(static_cast<uint32_t>(s.cversion), 4);
  put(static_cast<uint32_t>(s.aversion), 4);
  put(static_cast<uint64_t>(s.ephemeral_owner), 8);
  put(static_cast<uint32_t>(s.data_length), 4);
  put(static_cast<uint32_t>(s.num_children), 4);
  put(static_cast<uint64_t>(s.pzxid), 8);
  GREGOR_ASSERT(at == kStatBytes);
  w.raw(ByteView(out, kStatBytes));
}

Stat get_stat(ByteReader& r) {
  Stat s;
  s.czxid = r.i64();
  s.mzxid = r.i64();
  s.ctime = r.i64();
  s.mtime = r.i64();
  s.version = r.i32();
  s.cversion = r.i32();
  s.aversion = r.i32();
  s.ephemeral_owner = r.i64();
  s.data_length = r.i32();
  s.num_children = r.i32();
  s.pzxid = r.i64();
  return s;
}

void put_acl(ByteWriter& w, const std::vector<Acl>& acl) {
  w.i32(static_cast<int32_t>(acl.size()));
  for (const Acl& a : acl) {
    w.i32(a.perms);
    put_string(w, a.scheme);
    put_string(w, a.id);
  }
}

std::vector<Acl> get_acl(ByteReader& r) {
  std::vector<Acl> out;
  const int32_t n = r.array_count(12);  // perms and two string lengths
  out.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n && r.ok(); i++) {
    Acl a;
    a.perms = r.i32();
    a.scheme = get_string(r);
    a.id = get_string(r);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace jute

namespace {

using namespace jute;

void put_reply_header(ByteWriter& w, int32_t xid, int64_t zxid, ZkError err) {
  w.i32(xid);
  w.i64(zxid);
  w.i32(static_cast<int32_t>(err));
}

void put_multi_header(ByteWriter& w, int32_t type, bool done, int32_t err) {
  w.i32(type);
  w.boolean(done);
  w.i32(err);
}

// The record of a write op of the given type: CreateRequest, DeleteRequest, SetDataRequest,
// CheckVersionRequest.
void put_op_record(ByteWriter& w, ZkOpType type, const ZkOp& op) {
  put_string(w, op.path);
  switch (type) {
    case ZkOpType::kCreate:
    case ZkOpType::kCreate2:
      put_buffer(w, as_view(op.data), op.null_data);
      put_acl(w, op.acl);
      w.i32(static_cast<int32_t>(op.mode));
      break;
    case ZkOpType::kDelete:
    case ZkOpType::kCheck:
      w.i32(op.version);
      break;
    case ZkOpType::kSetData:
      put_buffer(w, as_view(op.data), op.null_data);
      w.i32(op.version);
      break;
  }
}

bool op_type_of(int32_t v, ZkOpType* out) {
  switch (static_cast<ZkOpType>(v)) {
    case ZkOpType::kCreate:
    case ZkOpType::kCreate2:
    case ZkOpType::kDelete:
    case ZkOpType::kSetData:
    case ZkOpType::kCheck:
      *out = static_cast<ZkOpType>(v);
      return true;
  }
  return false;
}

bool get_op_record(ByteReader& r, ZkOpType type, ZkOp* op) {
  op->type = type;
  op->path = get_string(r);
  switch (type) {
    case ZkOpType::kCreate:
    case ZkOpType::kCreate2:
      op->data = get_buffer(r, &op->null_data);
      op->acl = get_acl(r);
      // Any flag value decodes; the server refuses what is not a supported CreateMode.
      op->mode = static_cast<CreateMode>(r.i32());
      break;
    case ZkOpType::kDelete:
    case ZkOpType::kCheck:
      op->version = r.i32();
      break;
    case ZkOpType::kSetData:
      op->data = get_buffer(r, &op->null_data);
      op->version = r.i32();
      break;
  }
  return r.ok();
}

// A path and a watch flag: ExistsRequest, GetDataRequest, GetChildren(2)Request.
bool is_read_with_watch(OpCode op) {
  return op == OpCode::kExists || op == OpCode::kGetData || op == OpCode::kGetChildren ||
         op == OpCode::kGetChildren2;
}

// A path alone: SyncRequest, GetACLRequest, GetEphemeralsRequest, GetAllChildrenNumberRequest.
bool is_path_only(OpCode op) {
  return op == OpCode::kSync || op == OpCode::kGetAcl || op == OpCode::kGetEphemerals ||
         op == OpCode::kGetAllChildrenNumber;
}

ZkOpType single_op_type(OpCode op) {
  switch (op) {
    case OpCode::kCreate: return ZkOpType::kCreate;
    case OpCode::kCreate2: return ZkOpType::kCreate2;
    case OpCode::kDelete: return ZkOpType::kDelete;
    case OpCode::kSetData: return ZkOpType::kSetData;
    default: return ZkOpType::kCheck;
  }
}

bool is_single_write(OpCode op) {
  return op == OpCode::kCreate || op == OpCode::kCreate2 || op == OpCode::kDelete || op == OpCode::kSetData ||
         op == OpCode::kCheck;
}

}  // namespace

// ---- Op codes ------------------------------------------------------------------------------

std::string op_name(int32_t op) {
  switch (static_cast<OpCode>(op)) {
    case OpCode::kNotification: return "notification";
    case OpCode::kCreate: return "create";
    case OpCode::kDelete: return "delete";
    case OpCode::kExists: return "exists";
    case OpCode::kGetData: return "getData";
    case OpCode::kSetData: return "setData";
    case OpCode::kGetAcl: return "getACL";
    case OpCode::kSetAcl: return "setACL";
    case OpCode::kGetChildren: return "getChildren";
    case OpCode::kSync: return "sync";
    case OpCode::kPing: return "ping";
    case OpCode::kGetChildren2: return "getChildren2";
    case OpCode::kCheck: return "check";
    case OpCode::kMulti: return "multi";
    case OpCode::kCreate2: return "create2";
    case OpCode::kReconfig: return "reconfig";
    case OpCode::kCheckWatches: return "checkWatches";
    case OpCode::kRemoveWatches: return "removeWatches";
    case OpCode::kCreateContainer: return "createContainer";
    case OpCode::kDeleteContainer: return "deleteContainer";
    case OpCode::kCreateTtl: return "createTTL";
    case OpCode::kMultiRead: return "multiRead";
    case OpCode::kAuth: return "auth";
    case OpCode::kSetWatches: return "setWatches";
    case OpCode::kSasl: return "sasl";
    case OpCode::kGetEphemerals: return "getEphemerals";
    case OpCode::kGetAllChildrenNumber: return "getAllChildrenNumber";
    case OpCode::kSetWatches2: return "setWatches2";
    case OpCode::kAddWatch: return "addWatch";
    case OpCode::kWhoAmI: return "whoAmI";
    case OpCode::kCreateSession: return "createSession";
    case OpCode::kCloseSession: return "closeSession";
    case OpCode::kError: return "error";
  }
  return "op" + std::to_string(op);
}

bool served_op(int32_t op) {
  switch (static_cast<OpCode>(op)) {
    case OpCode::kCreate:
    case OpCode::kCreate2:
    case OpCode::kDelete:
    case OpCode::kExists:
    case OpCode::kGetData:
    case OpCode::kSetData:
    case OpCode::kGetAcl:
    case OpCode::kGetChildren:
    case OpCode::kGetChildren2:
    case OpCode::kSync:
    case OpCode::kPing:
    case OpCode::kCheck:
    case OpCode::kMulti:
    case OpCode::kAuth:
    case OpCode::kSetWatches:
    case OpCode::kSetWatches2:
    case OpCode::kGetEphemerals:
    case OpCode::kGetAllChildrenNumber:
    case OpCode::kCloseSession:
      return true;
    default:
      return false;
  }
}

// ---- Handshake -----------------------------------------------------------------------------

namespace {

// Both handshake records end in passwd:buffer and the optional readOnly flag.
void put_handshake_tail(ByteWriter& w, const Bytes& password, bool has_read_only, bool read_only) {
  put_buffer(w, as_view(password));
  if (has_read_only) w.boolean(read_only);
}

bool get_handshake_tail(ByteReader& r, Bytes* password, bool* has_read_only, bool* read_only) {
  *password = get_buffer(r);
  if (!r.ok() || password->size() > kPasswordBytes) return false;
  *has_read_only = !r.at_end();
  if (*has_read_only) *read_only = r.boolean();
  return r.ok() && r.at_end();
}

}  // namespace

Bytes encode_connect_request(const ConnectRequest& c) {
  ByteWriter w;
  w.i32(c.protocol_version);
  w.i64(c.last_zxid_seen);
  w.i32(c.timeout_ms);
  w.i64(c.session_id);
  put_handshake_tail(w, c.password, c.has_read_only, c.read_only);
  return w.take();
}

bool decode_connect_request(ByteView frame, ConnectRequest* out) {
  ByteReader r(frame);
  out->protocol_version = r.i32();
  out->last_zxid_seen = r.i64();
  out->timeout_ms = r.i32();
  out->session_id = r.i64();
  return get_handshake_tail(r, &out->password, &out->has_read_only, &out->read_only);
}

Bytes encode_connect_response(const ConnectResponse& c) {
  ByteWriter w;
  w.i32(c.protocol_version);
  w.i32(c.timeout_ms);
  w.i64(c.session_id);
  put_handshake_tail(w, c.password, c.has_read_only, c.read_only);
  return w.take();
}

bool decode_connect_response(ByteView frame, ConnectResponse* out) {
  ByteReader r(frame);
  out->protocol_version = r.i32();
  out->timeout_ms = r.i32();
  out->session_id = r.i64();
  return get_handshake_tail(r, &out->password, &out->has_read_only, &out->read_only);
}

// ---- Requests ------------------------------------------------------------------------------

Bytes encode_request(const Request& q) {
  GREGOR_ASSERT_MSG(q.op != OpCode::kCreateSession, "the handshake is encode_connect_request");
  ByteWriter w;
  w.i32(q.xid);
  w.i32(static_cast<int32_t>(q.op));
  if (is_single_write(q.op)) {
    put_op_record(w, single_op_type(q.op), q.args);
  } else if (is_read_with_watch(q.op)) {
    put_string(w, q.args.path);
    w.boolean(q.watch);
  } else if (is_path_only(q.op)) {
    put_string(w, q.args.path);
  } else if (q.op == OpCode::kMulti) {
    for (const ZkOp& op : q.ops) {
      put_multi_header(w, static_cast<int32_t>(op.type), false, -1);
      put_op_record(w, op.type, op);
    }
    put_multi_header(w, -1, true, -1);
  } else if (q.op == OpCode::kSetWatches || q.op == OpCode::kSetWatches2) {
    const SetWatchesRequest& s = q.set_watches;
    w.i64(s.relative_zxid);
    put_string_vector(w, s.data_watches);
    put_string_vector(w, s.exist_watches);
    put_string_vector(w, s.child_watches);
    if (q.op == OpCode::kSetWatches2) {
      put_string_vector(w, s.persistent_watches);
      put_string_vector(w, s.persistent_recursive_watches);
    }
  } else if (q.op == OpCode::kAuth) {
    w.i32(q.auth.type);
    put_string(w, q.auth.scheme);
    put_buffer(w, as_view(q.auth.auth));
  } else {
    GREGOR_ASSERT_MSG(q.op == OpCode::kPing || q.op == OpCode::kCloseSession,
                      "no encoder for op " + op_name(q.op));
  }
  return w.take();
}

bool decode_request_header(ByteView frame, int32_t* xid, int32_t* op) {
  ByteReader r(frame);
  *xid = r.i32();
  *op = r.i32();
  return r.ok();
}

bool decode_request(ByteView frame, Request* out) {
  ByteReader r(frame);
  out->xid = r.i32();
  const int32_t op = r.i32();
  if (!r.ok() || !served_op(op)) return false;
  out->op = static_cast<OpCode>(op);
  if (is_single_write(out->op)) {
    if (!get_op_record(r, single_op_type(out->op), &out->args)) return false;
  } else if (is_read_with_watch(out->op)) {
    out->args.path = get_string(r);
    out->watch = r.boolean();
  } else if (is_path_only(out->op)) {
    out->args.path = get_string(r);
  } else if (out->op == OpCode::kMulti) {
    for (;;) {
      const int32_t type = r.i32();
      const bool done = r.boolean();
      (void)r.i32();  // err: -1 in a request
      if (!r.ok()) return false;
      if (done) break;
      ZkOpType op_type;
      if (!op_type_of(type, &op_type) || out->ops.size() >= ZkLimits::kMaxOpsPerMulti) return false;
      out->ops.emplace_back();
      if (!get_op_record(r, op_type, &out->ops.back())) return false;
    }
  } else if (out->op == OpCode::kSetWatches || out->op == OpCode::kSetWatches2) {
    SetWatchesRequest& s = out->set_watches;
    s.relative_zxid = r.i64();
    s.data_watches = get_string_vector(r);
    s.exist_watches = get_string_vector(r);
    s.child_watches = get_string_vector(r);
    if (out->op == OpCode::kSetWatches2) {
      s.persistent_watches = get_string_vector(r);
      s.persistent_recursive_watches = get_string_vector(r);
    }
  } else if (out->op == OpCode::kAuth) {
    out->auth.type = r.i32();
    out->auth.scheme = get_string(r);
    out->auth.auth = get_buffer(r);
  }
  // ping and closeSession have no record.
  return r.ok() && r.at_end();
}

// ---- Replies -------------------------------------------------------------------------------

Bytes encode_error_reply(int32_t xid, int64_t zxid, ZkError err) {
  ByteWriter w;
  put_reply_header(w, xid, zxid, err);
  return w.take();
}

Bytes encode_reply(OpCode op, const Reply& p) {
  ByteWriter w;
  put_reply_header(w, p.header.xid, p.header.zxid, p.header.err);
  if (p.header.err != ZkError::kOk) return w.take();
  switch (op) {
    case OpCode::kCreate:
    case OpCode::kSync:
      put_string(w, p.path);
      break;
    case OpCode::kCreate2:
      put_string(w, p.path);
      put_stat(w, p.stat);
      break;
    case OpCode::kExists:
    case OpCode::kSetData:
      put_stat(w, p.stat);
      break;
    case OpCode::kGetData:
      put_buffer(w, as_view(p.data), p.null_data);
      put_stat(w, p.stat);
      break;
    case OpCode::kGetAcl:
      put_acl(w, p.acl);
      put_stat(w, p.stat);
      break;
    case OpCode::kGetChildren:
    case OpCode::kGetEphemerals:
      put_string_vector(w, p.children);
      break;
    case OpCode::kGetChildren2:
      put_string_vector(w, p.children);
      put_stat(w, p.stat);
      break;
    case OpCode::kGetAllChildrenNumber:
      w.i32(p.count);
      break;
    case OpCode::kMulti: {
      bool failed = false;
      for (const ZkOpResult& res : p.results) failed = failed || res.error != ZkError::kOk;
      for (const ZkOpResult& res : p.results) {
        if (failed) {
          put_multi_header(w, static_cast<int32_t>(OpCode::kError), false, static_cast<int32_t>(res.error));
          w.i32(static_cast<int32_t>(res.error));
          continue;
        }
        put_multi_header(w, static_cast<int32_t>(res.type), false, 0);
        if (is_create(res.type)) put_string(w, res.created_path);
        if (res.type == ZkOpType::kCreate2 || res.type == ZkOpType::kSetData) put_stat(w, res.stat);
      }
      put_multi_header(w, -1, true, -1);
      break;
    }
    default:
      break;  // delete, check, ping, closeSession, setWatches, auth: the header alone
  }
  return w.take();
}

Bytes encode_notification(int64_t zxid, const WatchEvent& e) {
  ByteWriter w;
  put_reply_header(w, kNotificationXid, zxid, ZkError::kOk);
  w.i32(static_cast<int32_t>(e.type));
  w.i32(kSyncConnectedState);
  put_string(w, e.path);
  return w.take();
}

bool decode_reply_header(ByteView frame, ReplyHeader* out) {
  ByteReader r(frame);
  out->xid = r.i32();
  out->zxid = r.i64();
  out->err = zk_error_from_wire(r.i32());
  return r.ok();
}

bool decode_notification(ByteView frame, Reply* out) {
  ByteReader r(frame);
  out->header.xid = r.i32();
  out->header.zxid = r.i64();
  out->header.err = zk_error_from_wire(r.i32());
  if (!r.ok() || out->header.xid != kNotificationXid) return false;
  out->event.type = static_cast<WatchType>(r.i32());
  (void)r.i32();  // the keeper state: SyncConnected for a node event
  out->event.path = get_string(r);
  return r.ok() && r.at_end();
}

bool decode_reply(ByteView frame, OpCode op, Reply* out) {
  ByteReader r(frame);
  out->header.xid = r.i32();
  out->header.zxid = r.i64();
  out->header.err = zk_error_from_wire(r.i32());
  if (!r.ok()) return false;
  if (out->header.err != ZkError::kOk) return r.at_end();
  switch (op) {
    case OpCode::kCreate:
    case OpCode::kSync:
      out->path = get_string(r);
      break;
    case OpCode::kCreate2:
      out->path = get_string(r);
      out->stat = get_stat(r);
      break;
    case OpCode::kExists:
    case OpCode::kSetData:
      out->stat = get_stat(r);
      break;
    case OpCode::kGetData:
      out->data = get_buffer(r, &out->null_data);
      out->stat = get_stat(r);
      break;
    case OpCode::kGetAcl:
      out->acl = get_acl(r);
      out->stat = get_stat(r);
      break;
    case OpCode::kGetChildren:
    case OpCode::kGetEphemerals:
      out->children = get_string_vector(r);
      break;
    case OpCode::kGetChildren2:
      out->children = get_string_vector(r);
      out->stat = get_stat(r);
      break;
    case OpCode::kGetAllChildrenNumber:
      out->count = r.i32();
      break;
    case OpCode::kMulti:
      for (;;) {
        const int32_t type = r.i32();
        const bool done = r.boolean();
        const int32_t err = r.i32();
        if (!r.ok()) return false;
        if (done) break;
        if (out->results.size() >= ZkLimits::kMaxOpsPerMulti) return false;
        ZkOpResult res;
        if (type == static_cast<int32_t>(OpCode::kError)) {
          res.error = zk_error_from_wire(r.i32());
          (void)err;  // the same code again in the header
        } else {
          if (!op_type_of(type, &res.type)) return false;
          if (is_create(res.type)) res.created_path = get_string(r);
          if (res.type == ZkOpType::kCreate2 || res.type == ZkOpType::kSetData) res.stat = get_stat(r);
        }
        out->results.push_back(std::move(res));
      }
      break;
    default:
      break;
  }
  return r.ok() && r.at_end();
}

}  // namespace gregor::coord::wire
