#include "engine/coord/zk_txn.h"

#include "engine/core/assert.h"
#include "engine/coord/zk_wire.h"

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
  w.i64(t.time_ms);
  w.boolean(t.multi);
  w.i32(static_cast<int32_t>(t.ops.size()));
  for (const TxnOp& op : t.ops) {
    w.i32(static_cast<int32_t>(op.type));
    switch (op.type) {
      case TxnType::kCreateSession:
        w.i32(op.timeout_ms);
        wire::jute::put_buffer(w, as_view(op.password));
        break;
      case TxnType::kCloseSession:
        w.boolean(op.expired);
        w.i32(static_cast<int32_t>(op.paths.size()));
        for (const auto& p : op.paths) wire::jute::put_string(w, p);
        break;
      case TxnType::kCreate:
        wire::jute::put_string(w, op.path);
        wire::jute::put_buffer(w, as_view(op.data), op.null_data);
        w.i64(op.ephemeral_owner);
        break;
      case TxnType::kDelete:
        wire::jute::put_string(w, op.path);
        break;
      case TxnType::kSetData:
        wire::jute::put_string(w, op.path);
        wire::jute::put_buffer(w, as_view(op.data), op.null_data);
        w.i32(op.version);
        break;
      case TxnType::kCheck:
        wire::jute::put_string(w, op.path);
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
  out->time_ms = r.i64();
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
        op.password = wire::jute::get_buffer(r);
        break;
      case TxnType::kCloseSession: {
        op.expired = r.boolean();
        op.paths = wire::jute::get_string_vector(r);
        break;
      }
      case TxnType::kCreate:
        op.path = wire::jute::get_string(r);
        op.data = wire::jute::get_buffer(r, &op.null_data);
        op.ephemeral_owner = r.i64();
        break;
      case TxnType::kDelete:
        op.path = wire::jute::get_string(r);
        break;
      case TxnType::kSetData:
        op.path = wire::jute::get_string(r);
        op.data = wire::jute::get_buffer(r, &op.null_data);
        op.version = r.i32();
        break;
      case TxnType::kCheck:
        op.path = wire::jute::get_string(r);
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
