#include "engine/coord/zk_prep.h"

#include <set>

#include "engine/core/assert.h"

namespace gregor::coord {
namespace {

// The parent of a path being created; a sequential path may end in '/' ("/queue/" -> "/queue").
std::string parent_of_new(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

TxnType txn_type_of(ZkOpType t) {
  switch (t) {
    case ZkOpType::kCreate:
    case ZkOpType::kCreate2: return TxnType::kCreate;
    case ZkOpType::kDelete: return TxnType::kDelete;
    case ZkOpType::kSetData: return TxnType::kSetData;
    case ZkOpType::kCheck: return TxnType::kCheck;
  }
  return TxnType::kCheck;
}

}  // namespace

ZkPrep::ZkPrep(const ZkDatabase& db) : db_(db), last_prepared_zxid_(db.last_zxid()) {}

std::optional<ZkPrep::Record> ZkPrep::lookup(const Changes& local, const std::string& path) const {
  if (auto it = local.find(path); it != local.end()) return it->second;
  if (auto it = outstanding_.find(path); it != outstanding_.end()) return it->second;
  if (const Znode* node = db_.tree().find(path)) return Record{node->stat.mzxid, true, node->stat};
  return std::nullopt;
}

ZkError ZkPrep::prepare_op(int64_t session, int64_t zxid, int64_t time_ms, const ZkOp& op, Changes& local,
                           TxnOp* txn_op, ZkOpResult* result) const {
  result->type = op.type;
  txn_op->type = txn_type_of(op.type);
  auto live = [&](const std::string& path) -> std::optional<Record> {
    auto r = lookup(local, path);
    if (r && !r->exists) return std::nullopt;
    return r;
  };
  switch (op.type) {
    case ZkOpType::kCreate:
    case ZkOpType::kCreate2: {
      // Containers and TTL nodes (flags 4-6) are not offered; any other flag is not a CreateMode.
      if (!valid_create_mode(op.mode)) return ZkError::kBadArguments;
      // ZooKeeper's fixupACL: an empty list is refused; the entries themselves are not kept.
      if (op.acl.empty()) return ZkError::kInvalidAcl;
      const bool sequential = is_sequential(op.mode);
      if (!valid_path(op.path, sequential) || (op.path == "/" && !sequential)) return ZkError::kBadArguments;
      if (op.data.size() > ZkLimits::kMaxDataBytes) return ZkError::kBadArguments;
      const std::string parent = parent_of_new(op.path);
      auto parent_record = live(parent);
      if (!parent_record) return ZkError::kNoNode;
      std::string path = op.path;
      if (sequential) path += sequence_suffix(parent_record->stat.cversion);
      if (!valid_path(path)) return ZkError::kBadArguments;
      if (live(path)) return ZkError::kNodeExists;
      if (parent_record->stat.ephemeral_owner != 0) return ZkError::kNoChildrenForEphemerals;
      const int64_t owner = is_ephemeral(op.mode) ? session : 0;
      Record created{zxid, true, Stat{}};
      created.stat.czxid = created.stat.mzxid = created.stat.pzxid = zxid;
      created.stat.ctime = created.stat.mtime = time_ms;
      created.stat.ephemeral_owner = owner;
      created.stat.data_length = static_cast<int32_t>(op.data.size());
      local[path] = created;
      parent_record->zxid = zxid;
      parent_record->stat.cversion++;
      parent_record->stat.num_children++;
      parent_record->stat.pzxid = zxid;
      local[parent] = *parent_record;
      txn_op->path = path;
      txn_op->data = op.data;
      txn_op->null_data = op.null_data;
      txn_op->ephemeral_owner = owner;
      result->created_path = path;
      result->stat = created.stat;
      return ZkError::kOk;
    }
    case ZkOpType::kDelete: {
      if (!valid_path(op.path) || op.path == "/" || is_system_path(op.path)) return ZkError::kBadArguments;
      auto record = live(op.path);
      if (!record) return ZkError::kNoNode;
      if (op.version != -1 && record->stat.version != op.version) return ZkError::kBadVersion;
      if (record->stat.num_children > 0) return ZkError::kNotEmpty;
      const std::string parent = parent_path(op.path);
      auto parent_record = live(parent);
      GREGOR_ASSERT_MSG(parent_record.has_value(), "a znode's parent is missing: " + op.path);
      parent_record->zxid = zxid;
      parent_record->stat.cversion++;
      parent_record->stat.num_children--;
      parent_record->stat.pzxid = zxid;
      local[parent] = *parent_record;
      local[op.path] = Record{zxid, false, Stat{}};
      txn_op->path = op.path;
      return ZkError::kOk;
    }
    case ZkOpType::kSetData: {
      if (!valid_path(op.path) || op.data.size() > ZkLimits::kMaxDataBytes) return ZkError::kBadArguments;
      auto record = live(op.path);
      if (!record) return ZkError::kNoNode;
      // ZooKeeper's /zookeeper/config has a read-only ACL (only reconfig changes it).
      if (op.path == kConfigPath) return ZkError::kNoAuth;
      if (op.version != -1 && record->stat.version != op.version) return ZkError::kBadVersion;
      record->zxid = zxid;
      record->stat.version++;
      record->stat.mzxid = zxid;
      record->stat.mtime = time_ms;
      record->stat.data_length = static_cast<int32_t>(op.data.size());
      local[op.path] = *record;
      txn_op->path = op.path;
      txn_op->data = op.data;
      txn_op->null_data = op.null_data;
      txn_op->version = record->stat.version;
      result->stat = record->stat;
      return ZkError::kOk;
    }
    case ZkOpType::kCheck: {
      if (!valid_path(op.path)) return ZkError::kBadArguments;
      auto record = live(op.path);
      if (!record) return ZkError::kNoNode;
      if (op.version != -1 && record->stat.version != op.version) return ZkError::kBadVersion;
      txn_op->path = op.path;
      txn_op->version = record->stat.version;
      result->stat = record->stat;
      return ZkError::kOk;
    }
  }
  return ZkError::kBadArguments;
}

void ZkPrep::assert_counter_left() const {
  // ZooKeeper's leader forces a new election when the counter would roll over into the epoch
  // bits; 4 billion txns in one epoch is beyond any run here, so it is a bug.
  GREGOR_ASSERT_MSG(zxid_counter(last_prepared_zxid_) < kZxidCounterMask, "zxid counter exhausted in its epoch");
}

void ZkPrep::commit_changes(int64_t zxid, Changes& local) {
  for (auto& [path, record] : local) {
    outstanding_[path] = record;
    outstanding_order_.emplace_back(zxid, path);
  }
  last_prepared_zxid_ = zxid;
}

PrepOutcome ZkPrep::ops(int64_t session, int32_t xid, int64_t time_ms, const std::vector<ZkOp>& ops, bool multi) {
  GREGOR_ASSERT(multi || ops.size() == 1);
  assert_counter_left();
  PrepOutcome out;
  const int64_t zxid = last_prepared_zxid_ + 1;
  Changes local;
  Txn txn;
  txn.zxid = zxid;
  txn.session = session;
  txn.xid = xid;
  txn.time_ms = time_ms;
  txn.multi = multi;
  bool changes_state = false;
  for (const ZkOp& op : ops) {
    ZkOpResult result;
    result.type = op.type;
    if (out.error != ZkError::kOk) {
      result.error = ZkError::kRuntimeInconsistency;
      out.results.push_back(result);
      continue;
    }
    TxnOp txn_op;
    result.error = prepare_op(session, zxid, time_ms, op, local, &txn_op, &result);
    if (result.error != ZkError::kOk) {
      out.error = result.error;
      // The ops before the failing one are rolled back: they report Ok with no payload.
      for (auto& earlier : out.results) earlier = ZkOpResult{earlier.type, ZkError::kOk, "", Stat{}};
      result.created_path.clear();
      result.stat = Stat{};
      out.results.push_back(result);
      continue;
    }
    changes_state = changes_state || op.type != ZkOpType::kCheck;
    txn.ops.push_back(std::move(txn_op));
    out.results.push_back(std::move(result));
  }
  if (out.error != ZkError::kOk || !changes_state) return out;
  commit_changes(zxid, local);
  out.txn = std::move(txn);
  return out;
}

PrepOutcome ZkPrep::create_session(int64_t session, int32_t timeout_ms, Bytes password, int64_t time_ms) {
  assert_counter_left();
  PrepOutcome out;
  Txn txn;
  txn.zxid = last_prepared_zxid_ + 1;
  txn.session = session;
  txn.time_ms = time_ms;
  TxnOp op;
  op.type = TxnType::kCreateSession;
  op.timeout_ms = timeout_ms;
  op.password = std::move(password);
  txn.ops.push_back(std::move(op));
  last_prepared_zxid_ = txn.zxid;
  out.txn = std::move(txn);
  return out;
}

PrepOutcome ZkPrep::close_session(int64_t session, int32_t xid, bool expired, int64_t time_ms) {
  assert_counter_left();
  PrepOutcome out;
  const int64_t zxid = last_prepared_zxid_ + 1;
  // The session's ephemerals as they will be: the tree's, plus outstanding creates, minus
  // outstanding deletes.
  std::set<std::string> ephemerals;
  for (const auto& path : db_.tree().ephemerals(session)) ephemerals.insert(path);
  for (const auto& [path, record] : outstanding_) {
    if (record.exists && record.stat.ephemeral_owner == session)
      ephemerals.insert(path);
    else
      ephemerals.erase(path);  // deleted (and perhaps created again by another session)
  }
  Changes local;
  TxnOp op;
  op.type = TxnType::kCloseSession;
  op.expired = expired;
  for (const auto& path : ephemerals) {
    const std::string parent = parent_path(path);
    auto parent_record = lookup(local, parent);
    GREGOR_ASSERT_MSG(parent_record && parent_record->exists, "an ephemeral's parent is missing: " + path);
    parent_record->zxid = zxid;
    parent_record->stat.cversion++;
    parent_record->stat.num_children--;
    parent_record->stat.pzxid = zxid;
    local[parent] = *parent_record;
    local[path] = Record{zxid, false, Stat{}};
    op.paths.push_back(path);
  }
  Txn txn;
  txn.zxid = zxid;
  txn.session = session;
  txn.xid = xid;
  txn.time_ms = time_ms;
  txn.ops.push_back(std::move(op));
  commit_changes(zxid, local);
  out.txn = std::move(txn);
  return out;
}

void ZkPrep::start_epoch(int64_t epoch) {
  GREGOR_ASSERT(outstanding_.empty() && outstanding_order_.empty());
  GREGOR_ASSERT(epoch > zxid_epoch(last_prepared_zxid_) && epoch < (int64_t{1} << 31));
  last_prepared_zxid_ = make_zxid(epoch, 0);
}

void ZkPrep::applied(int64_t zxid) {
  GREGOR_ASSERT(zxid <= last_prepared_zxid_);
  while (!outstanding_order_.empty() && outstanding_order_.front().first <= zxid) {
    const std::string& path = outstanding_order_.front().second;
    auto it = outstanding_.find(path);
    if (it != outstanding_.end() && it->second.zxid <= zxid) outstanding_.erase(it);
    outstanding_order_.pop_front();
  }
}

void ZkPrep::applied_elsewhere(int64_t zxid) {
  GREGOR_ASSERT(outstanding_.empty() && outstanding_order_.empty());
  last_prepared_zxid_ = std::max(last_prepared_zxid_, zxid);
}

}  // namespace gregor::coord
