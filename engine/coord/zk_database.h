// ZkDatabase: the committed state of the coordination service (ZooKeeper's ZKDatabase): the znode
// tree, the open sessions with their timeouts, and the zxid of the last transaction applied.
//
// It changes only by apply(txn), in zxid order, and it is what a snapshot stores and what recovery
// rebuilds. Applying is the last stage of the server's pipeline (after the txn is durable); it
// reports what each op did, so the server can answer the request, fire watches and emit trace
// events, in that order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/coord/zk_txn.h"
#include "engine/coord/zxid.h"
#include "engine/coord/znode_tree.h"

namespace gregor::coord {

struct SessionRecord {
  int32_t timeout_ms = 0;
  Bytes password;
  bool operator==(const SessionRecord&) const = default;
};

// A watch to fire: which path, which event (ZooKeeper's order within a txn: the node itself
// first, then its parent's children watch).
struct WatchTrigger {
  std::string path;
  WatchType type;
};

struct ApplyResult {
  std::vector<ZkOpResult> results;     // one per op, for the reply
  std::vector<WatchTrigger> triggers;  // in firing order
};

class ZkDatabase {
 public:
  const ZnodeTree& tree() const { return tree_; }
  const std::map<int64_t, SessionRecord>& sessions() const { return sessions_; }
  int64_t last_zxid() const { return last_zxid_; }

  // Applies txn. REQUIRES: zxid_follows(last_zxid(), txn.zxid) (engine/coord/zxid.h): the next
  // counter of the same epoch, or counter 1 of a newer epoch. A txn that does not fit the state (a bug
  // on a live server, corruption in a log) returns an error; the database is then unusable,
  // because a multi may have been applied in part.
  Status apply(const Txn& txn, ApplyResult* result);

  // Snapshot: the whole state, with a CRC-32C over it. See zk_database.cpp for the layout.
  Bytes encode_snapshot() const;
  // Replaces this database with a snapshot's content; fails on any malformed or inconsistent input.
  Status decode_snapshot(ByteView data);

  bool operator==(const ZkDatabase& o) const {
    return last_zxid_ == o.last_zxid_ && sessions_ == o.sessions_ && tree_ == o.tree_;
  }

 private:
  ZkError apply_op(const Txn& txn, const TxnOp& op, ApplyResult* result);

  ZnodeTree tree_;
  std::map<int64_t, SessionRecord> sessions_;
  int64_t last_zxid_ = 0;
};

}  // namespace gregor::coord
