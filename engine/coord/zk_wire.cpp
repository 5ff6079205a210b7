#include "engine/coord/zk_wire.h"

#include "engine/core/assert.h"

namespace gregor::coord::wire {
namespace {

// A wire string has an int16 length; callers validate paths first (kMaxPathBytes is far below).
constexpr size_t kMaxWireString = 32767;

void put_string(ByteWriter& w, const std::string& s) {
  GREGOR_ASSERT_MSG(s.size() <= kMaxWireString, "string too long for the zk wire format");
  w.string(s);
}

void encode_op_body(ByteWriter& w, const ZkOp& op) {
  put_string(w, op.path);
  switch (op.type) {
    case ZkOpType::kCreate:
      w.bytes(as_view(op.data));
      w.i32(static_cast<int32_t>(op.mode));
      break;
    case ZkOpType::kDelete:
    case ZkOpType::kCheck:
      w.i32(op.version);
      break;
    case ZkOpType::kSetData:
      w.bytes(as_view(op.data));
      w.i32(op.version);
      break;
  }
}

bool decode_create_mode(int32_t flags, CreateMode* out) {
  if (flags < 0 || flags > 3) return false;
  *out = static_cast<CreateMode>(flags);
  return true;
}

bool decode_op_body(ByteReader& r, ZkOpType type, ZkOp* op) {
  op->type = type;
  op->path = r.string();
  switch (type) {
    case ZkOpType::kCreate: {
      op->data = r.bytes();
      if (!decode_create_mode(r.i32(), &op->mode)) return false;
      break;
    }
    case ZkOpType::kDelete:
    case ZkOpType::kCheck:
      op->version = r.i32();
      break;
    case ZkOpType::kSetData:
      op->data = r.bytes();
      op->version = r.i32();
      break;
  }
  return r.ok();
}

bool decode_op_type(int32_t v, ZkOpType* out) {
  switch (static_cast<ZkOpType>(v)) {
    case ZkOpType::kCreate:
    case ZkOpType::kDelete:
    case ZkOpType::kSetData:
    case ZkOpType::kCheck:
      *out = static_cast<ZkOpType>(v);
      return true;
  }
  return false;
}

void put_string_list(ByteWriter& w, const std::vector<std::string>& list) {
  w.i32(static_cast<int32_t>(list.size()));
  for (const auto& s : list) put_string(w, s);
}

std::vector<std::string> get_string_list(ByteReader& r) {
  std::vector<std::string> out;
  int32_t n = r.array_count(2);
  out.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n && r.ok(); i++) out.push_back(r.string());
  return out;
}

void put_header(ByteWriter& w, int32_t xid, int64_t zxid, ZkError err) {
  w.i32(xid);
  w.i64(zxid);
  w.i32(static_cast<int32_t>(err));
}

}  // namespace

const char* op_name(OpCode op) {
  switch (op) {
    case OpCode::kCreateSession: return "connect";
    case OpCode::kCloseSession: return "close";
    case OpCode::kCreate: return "create";
    case OpCode::kDelete: return "delete";
    case OpCode::kExists: return "exists";
    case OpCode::kGetData: return "get_data";
    case OpCode::kSetData: return "set_data";
    case OpCode::kGetChildren: return "get_children";
    case OpCode::kPing: return "ping";
    case OpCode::kCheck: return "check";
    case OpCode::kMulti: return "multi";
    case OpCode::kSetWatches: return "set_watches";
  }
  return "unknown";
}

void encode_stat(ByteWriter& w, const Stat& s) {
  w.i64(s.czxid);
  w.i64(s.mzxid);
  w.i64(s.pzxid);
  w.i32(s.version);
  w.i32(s.cversion);
  w.i64(s.ephemeral_owner);
  w.i32(s.num_children);
  w.i32(s.data_length);
}

Stat decode_stat(ByteReader& r) {
  Stat s;
  s.czxid = r.i64();
  s.mzxid = r.i64();
  s.pzxid = r.i64();
  s.version = r.i32();
  s.cversion = r.i32();
  s.ephemeral_owner = r.i64();
  s.num_children = r.i32();
  s.data_length = r.i32();
  return s;
}

Bytes encode_request(const Request& q) {
  ByteWriter w;
  w.i32(q.xid);
  w.i32(static_cast<int32_t>(q.op));
  switch (q.op) {
    case OpCode::kCreateSession:
      w.i32(q.connect.protocol_version);
      w.i64(q.connect.last_zxid_seen);
      w.i32(q.connect.timeout_ms);
      w.i64(q.connect.session_id);
      w.bytes(as_view(q.connect.password));
      break;
    case OpCode::kCloseSession:
    case OpCode::kPing:
      break;
    case OpCode::kCreate:
    case OpCode::kDelete:
    case OpCode::kSetData:
    case OpCode::kCheck:
      encode_op_body(w, q.args);
      break;
    case OpCode::kExists:
    case OpCode::kGetData:
    case OpCode::kGetChildren:
      put_string(w, q.args.path);
      w.boolean(q.watch);
      break;
    case OpCode::kMulti:
      w.i32(static_cast<int32_t>(q.ops.size()));
      for (const ZkOp& op : q.ops) {
        w.i32(static_cast<int32_t>(op.type));
        encode_op_body(w, op);
      }
      break;
    case OpCode::kSetWatches:
      w.i64(q.set_watches.relative_zxid);
      put_string_list(w, q.set_watches.data_watches);
      put_string_list(w, q.set_watches.exist_watches);
      put_string_list(w, q.set_watches.child_watches);
      break;
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
  if (!r.ok()) return false;
  out->op = static_cast<OpCode>(op);
  switch (out->op) {
    case OpCode::kCreateSession:
      out->connect.protocol_version = r.i32();
      out->connect.last_zxid_seen = r.i64();
      out->connect.timeout_ms = r.i32();
      out->connect.session_id = r.i64();
      out->connect.password = r.bytes();
      if (r.ok() && out->connect.password.size() > kPasswordBytes) return false;
      break;
    case OpCode::kCloseSession:
    case OpCode::kPing:
      break;
    case OpCode::kCreate:
    case OpCode::kDelete:
    case OpCode::kSetData:
    case OpCode::kCheck:
      if (!decode_op_body(r, static_cast<ZkOpType>(op), &out->args)) return false;
      break;
    case OpCode::kExists:
    case OpCode::kGetData:
    case OpCode::kGetChildren:
      out->args.path = r.string();
      out->watch = r.boolean();
      break;
    case OpCode::kMulti: {
      // Each op needs at least its type, a path length and a version: 8 bytes.
      int32_t n = r.array_count(8);
      if (!r.ok() || static_cast<size_t>(n) > ZkLimits::kMaxOpsPerMulti) return false;
      out->ops.resize(static_cast<size_t>(n));
      for (auto& o : out->ops) {
        ZkOpType type;
        if (!decode_op_type(r.i32(), &type)) return false;
        if (!decode_op_body(r, type, &o)) return false;
      }
      break;
    }
    case OpCode::kSetWatches:
      out->set_watches.relative_zxid = r.i64();
      out->set_watches.data_watches = get_string_list(r);
      out->set_watches.exist_watches = get_string_list(r);
      out->set_watches.child_watches = get_string_list(r);
      break;
    default:
      return false;
  }
  return r.ok() && r.at_end();
}

Bytes encode_error_reply(int32_t xid, int64_t zxid, ZkError err) {
  ByteWriter w;
  put_header(w, xid, zxid, err);
  return w.take();
}

Bytes encode_reply(OpCode op, const Reply& p) {
  ByteWriter w;
  put_header(w, p.header.xid, p.header.zxid, p.header.err);
  if (p.header.err != ZkError::kOk && op != OpCode::kMulti) return w.take();
  switch (op) {
    case OpCode::kCreateSession:
      w.i32(p.connect.protocol_version);
      w.i32(p.connect.timeout_ms);
      w.i64(p.connect.session_id);
      w.bytes(as_view(p.connect.password));
      break;
    case OpCode::kCreate:
      put_string(w, p.path);
      break;
    case OpCode::kExists:
    case OpCode::kSetData:
      encode_stat(w, p.stat);
      break;
    case OpCode::kGetData:
      w.bytes(as_view(p.data));
      encode_stat(w, p.stat);
      break;
    case OpCode::kGetChildren:
      put_string_list(w, p.children);
      break;
    case OpCode::kMulti:
      w.i32(static_cast<int32_t>(p.results.size()));
      for (const ZkOpResult& res : p.results) {
        w.i32(static_cast<int32_t>(res.type));
        w.i32(static_cast<int32_t>(res.error));
        if (res.error != ZkError::kOk || p.header.err != ZkError::kOk) continue;
        if (res.type == ZkOpType::kCreate) put_string(w, res.created_path);
        if (res.type == ZkOpType::kSetData) encode_stat(w, res.stat);
      }
      break;
    case OpCode::kCloseSession:
    case OpCode::kDelete:
    case OpCode::kPing:
    case OpCode::kCheck:
    case OpCode::kSetWatches:
      break;
  }
  return w.take();
}

Bytes encode_notification(int64_t zxid, const WatchEvent& e) {
  ByteWriter w;
  put_header(w, kNotificationXid, zxid, ZkError::kOk);
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

bool decode_reply(ByteView frame, std::optional<OpCode> op, Reply* out) {
  ByteReader r(frame);
  out->header.xid = r.i32();
  out->header.zxid = r.i64();
  const int32_t err = r.i32();
  out->header.err = zk_error_from_wire(err);
  if (!r.ok()) return false;
  if (!op) {
    if (out->header.xid != kNotificationXid) return false;
    const int32_t type = r.i32();
    (void)r.i32();  // the keeper state; always SyncConnected for a node event
    out->event.path = r.string();
    if (type < 1 || type > 4) return false;
    out->event.type = static_cast<WatchType>(type);
    return r.ok() && r.at_end();
  }
  // An error reply has no body; a failed multi usually lists its per-op results, but a multi
  // refused as a whole (SessionExpired, MarshallingError) has none either.
  if (out->header.err != ZkError::kOk && (*op != OpCode::kMulti || r.at_end())) return r.at_end();
  switch (*op) {
    case OpCode::kCreateSession:
      out->connect.protocol_version = r.i32();
      out->connect.timeout_ms = r.i32();
      out->connect.session_id = r.i64();
      out->connect.password = r.bytes();
      break;
    case OpCode::kCreate:
      out->path = r.string();
      break;
    case OpCode::kExists:
    case OpCode::kSetData:
      out->stat = decode_stat(r);
      break;
    case OpCode::kGetData:
      out->data = r.bytes();
      out->stat = decode_stat(r);
      break;
    case OpCode::kGetChildren:
      out->children = get_string_list(r);
      break;
    case OpCode::kMulti: {
      int32_t n = r.array_count(8);
      if (!r.ok() || static_cast<size_t>(n) > ZkLimits::kMaxOpsPerMulti) return false;
      out->results.resize(static_cast<size_t>(n));
      for (auto& res : out->results) {
        if (!decode_op_type(r.i32(), &res.type)) return false;
        res.error = zk_error_from_wire(r.i32());
        if (res.error != ZkError::kOk || out->header.err != ZkError::kOk) continue;
        if (res.type == ZkOpType::kCreate) res.created_path = r.string();
        if (res.type == ZkOpType::kSetData) res.stat = decode_stat(r);
      }
      break;
    }
    case OpCode::kCloseSession:
    case OpCode::kDelete:
    case OpCode::kPing:
    case OpCode::kCheck:
    case OpCode::kSetWatches:
      break;
  }
  return r.ok() && r.at_end();
}

}  // namespace gregor::coord::wire
