#include "engine/coord/zk_database.h"

#include "engine/coord/zk_wire.h"
#include "engine/record/crc32c.h"

namespace gregor::coord {
namespace {

// Snapshot layout (big-endian; strings and buffers as jute's: int32 length, -1 = null):
//   magic:"ZKSN" format:uint32(2) last_zxid:int64
//   session_count:int32 (session_id:int64 timeout_ms:int32 password:buffer)...
//   node_count:int32 (path:string data:buffer stat)...     nodes in sorted path order, root first;
//                                                          stat as on the wire (68 bytes)
//   crc:uint32                                             CRC-32C of every byte before it
// Format 1 (before the jute wire format) had no ctime/mtime/aversion and no null data; it is not
// read any more (recovery reports an unknown format).
constexpr uint32_t kSnapshotMagic = 0x5A4B534E;  // "ZKSN"
constexpr uint32_t kSnapshotFormat = 2;

ZkOpType op_type_of(TxnType t) {
  switch (t) {
    case TxnType::kCreate: return ZkOpType::kCreate;
    case TxnType::kDelete: return ZkOpType::kDelete;
    case TxnType::kSetData: return ZkOpType::kSetData;
    default: return ZkOpType::kCheck;
  }
}

}  // namespace

ZkError ZkDatabase::apply_op(const Txn& txn, const TxnOp& op, ApplyResult* result) {
  ZkOpResult res;
  res.type = op_type_of(op.type);
  ZkError err = ZkError::kOk;
  switch (op.type) {
    case TxnType::kCreateSession:
      if (sessions_.count(txn.session)) return ZkError::kSystemError;
      sessions_[txn.session] = SessionRecord{op.timeout_ms, op.password};
      return ZkError::kOk;
    case TxnType::kCloseSession: {
      if (!sessions_.count(txn.session)) return ZkError::kSystemError;
      // The txn names the ephemerals it deletes; they must be exactly the session's.
      if (op.paths != tree_.ephemerals(txn.session)) return ZkError::kSystemError;
      for (const auto& path : op.paths) {
        err = tree_.remove(path, txn.zxid);
        if (err != ZkError::kOk) return err;
        result->triggers.push_back({path, WatchType::kNodeDeleted});
        result->triggers.push_back({parent_path(path), WatchType::kNodeChildrenChanged});
      }
      sessions_.erase(txn.session);
      return ZkError::kOk;
    }
    case TxnType::kCreate:
      if (op.ephemeral_owner != 0 && !sessions_.count(op.ephemeral_owner)) return ZkError::kSessionExpired;
      err = tree_.create(op.path, op.data, op.null_data, op.ephemeral_owner, txn.zxid, txn.time_ms);
      if (err != ZkError::kOk) return err;
      res.created_path = op.path;
      res.stat = tree_.find(op.path)->stat;
      result->triggers.push_back({op.path, WatchType::kNodeCreated});
      result->triggers.push_back({parent_path(op.path), WatchType::kNodeChildrenChanged});
      break;
    case TxnType::kDelete:
      err = tree_.remove(op.path, txn.zxid);
      if (err != ZkError::kOk) return err;
      result->triggers.push_back({op.path, WatchType::kNodeDeleted});
      result->triggers.push_back({parent_path(op.path), WatchType::kNodeChildrenChanged});
      break;
    case TxnType::kSetData:
      err = tree_.set_data(op.path, op.data, op.null_data, op.version, txn.zxid, txn.time_ms);
      if (err != ZkError::kOk) return err;
      res.stat = tree_.find(op.path)->stat;
      result->triggers.push_back({op.path, WatchType::kNodeDataChanged});
      break;
    case TxnType::kCheck: {
      const Znode* node = tree_.find(op.path);
      if (!node) return ZkError::kNoNode;
      if (node->stat.version != op.version) return ZkError::kBadVersion;
      res.stat = node->stat;
      break;
    }
  }
  result->results.push_back(std::move(res));
  return ZkError::kOk;
}

Status ZkDatabase::apply(const Txn& txn, ApplyResult* result) {
  if (!zxid_follows(last_zxid_, txn.zxid))
    return Status::error(StatusCode::kCorruption, "zxid " + zxid_hex(txn.zxid) + " does not follow " + zxid_hex(last_zxid_));
  for (const TxnOp& op : txn.ops) {
    ZkError err = apply_op(txn, op, result);
    if (err != ZkError::kOk)
      return Status::error(StatusCode::kCorruption, std::string("txn ") + zxid_hex(txn.zxid) + " " +
                                                        txn_type_name(op.type) + " " + op.path +
                                                        " does not apply: " + zk_error_name(err));
  }
  last_zxid_ = txn.zxid;
  return Status::ok();
}

Bytes ZkDatabase::encode_snapshot() const {
  ByteWriter w;
  w.u32(kSnapshotMagic);
  w.u32(kSnapshotFormat);
  w.i64(last_zxid_);
  w.i32(static_cast<int32_t>(sessions_.size()));
  for (const auto& [id, s] : sessions_) {
    w.i64(id);
    w.i32(s.timeout_ms);
    wire::jute::put_buffer(w, as_view(s.password));
  }
  w.i32(static_cast<int32_t>(tree_.node_count()));
  for (const auto& [path, node] : tree_.nodes()) {
    wire::jute::put_string(w, path);
    wire::jute::put_buffer(w, as_view(node.data), node.null_data);
    wire::jute::put_stat(w, node.stat);
  }
  w.u32(record::crc32c(as_view(w.bytes_ref())));
  return w.take();
}

Status ZkDatabase::decode_snapshot(ByteView data) {
  auto corrupt = [](const std::string& why) { return Status::error(StatusCode::kCorruption, "snapshot: " + why); };
  if (data.size() < 4) return corrupt("too short");
  ByteReader crc_reader(data.subspan(data.size() - 4));
  const uint32_t crc = crc_reader.u32();
  if (crc != record::crc32c(data.first(data.size() - 4))) return corrupt("CRC mismatch");

  ByteReader r(data.first(data.size() - 4));
  if (r.u32() != kSnapshotMagic) return corrupt("bad magic");
  if (r.u32() != kSnapshotFormat) return corrupt("unknown format");
  ZkDatabase db;
  db.last_zxid_ = r.i64();
  const int32_t sessions = r.array_count(16);
  for (int32_t i = 0; i < sessions && r.ok(); i++) {
    const int64_t id = r.i64();
    SessionRecord s;
    s.timeout_ms = r.i32();
    s.password = wire::jute::get_buffer(r);
    if (!db.sessions_.emplace(id, std::move(s)).second) return corrupt("duplicate session");
  }
  const int32_t nodes = r.array_count(8 + wire::kStatBytes);
  for (int32_t i = 0; i < nodes && r.ok(); i++) {
    std::string path = wire::jute::get_string(r);
    bool null_data = false;
    Bytes node_data = wire::jute::get_buffer(r, &null_data);
    Stat stat = wire::jute::get_stat(r);
    if (!r.ok()) break;
    if (!db.tree_.restore(path, std::move(node_data), null_data, stat)) return corrupt("znode does not fit: " + path);
  }
  if (!r.ok() || !r.at_end()) return corrupt("malformed");
  if (!db.tree_.consistent()) return corrupt("child counts do not match");
  for (const auto& [owner, paths] : db.tree_.ephemerals_by_session())
    if (!db.sessions_.count(owner)) return corrupt("ephemeral of an unknown session");
  *this = std::move(db);
  return Status::ok();
}

}  // namespace gregor::coord
