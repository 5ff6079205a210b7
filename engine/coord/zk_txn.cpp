#include "engine/coord/zk_txn.h"

#include "engine/core/assert.h"

namespace gregor::coord {

const char* txn_type_name(TxnType t) {
  switch (t) {
    case TxnType::kCreateSession: return "create_session";
    case TxnType::kCloseSession: return "close_session";
    case TxnType::kCreate: return "create";
    case TxnType::kDelete: return "delete";
    case TxnType::kSetData: return "set_data";
    case TxnType::kCheck: return "check";
  }
  return "unknown";
}

void encode_txn(ByteWriter& w, const Txn& t) {
  w.i64(t.zxid);
  w.i64(t.session);
  w.i32(t.xid);
  w.boolean(t.multi);
  w.i32(static_cast<int32_t>(t.ops.size()));
  for (const TxnOp& op : t.ops) {
    w.i32(static_cast<int32_t>(op.type));
    switch (op.type) {
      case TxnType::kCreateSession:
        w.i32(op.timeout_ms);
        w.bytes(as_view(op.password));
        break;
      case TxnType::kCloseSession:
        w.boolean(op.expired);
        w.i32(static_cast<int32_t>(op.paths.size()));
        for (const auto& p : op.paths) w.string(p);
        break;
      case TxnType::kCreate:
        w.string(op.path);
        w.bytes(as_view(op.data));
        w.i64(op.ephemeral_owner);
        break;
      case TxnType::kDelete:
        w.string(op.path);
        break;
      case TxnType::kSetData:
        w.string(op.path);
        w.bytes(as_view(op.data));
        w.i32(op.version);
        break;
      case TxnType::kCheck:
        w.string(op.path);
        w.i32(op.version);
        break;
    }
  }
}

Bytes encode_txn(const Txn& t) {
  ByteWriter w;
  encode_txn(w, t);
  return w.take();
}

bool decode_txn(ByteView body, Txn* out) {
  ByteReader r(body);
  out->zxid = r.i64();
  out->session = r.i64();
  out->xid = r.i32();
  out->multi = r.boolean();
  const int32_t n = r.array_count(4);
  if (!r.ok() || n < 1 || (!out->multi && n != 1) || static_cast<size_t>(n) > ZkLimits::kMaxOpsPerMulti) return false;
  out->ops.assign(static_cast<size_t>(n), TxnOp{});
  for (TxnOp& op : out->ops) {
    const int32_t type = r.i32();
    op.type = static_cast<TxnType>(type);
    switch (op.type) {
      case TxnType::kCreateSession:
        op.timeout_ms = r.i32();
        op.password = r.bytes();
        break;
      case TxnType::kCloseSession: {
        op.expired = r.boolean();
        const int32_t paths = r.array_count(2);
        for (int32_t i = 0; i < paths && r.ok(); i++) op.paths.push_back(r.string());
        break;
      }
      case TxnType::kCreate:
        op.path = r.string();
        op.data = r.bytes();
        op.ephemeral_owner = r.i64();
        break;
      case TxnType::kDelete:
        op.path = r.string();
        break;
      case TxnType::kSetData:
        op.path = r.string();
        op.data = r.bytes();
        op.version = r.i32();
        break;
      case TxnType::kCheck:
        op.path = r.string();
        op.version = r.i32();
        break;
      default:
        return false;
    }
    if (!r.ok()) return false;
  }
  return r.ok() && r.at_end();
}

}  // namespace gregor::coord
