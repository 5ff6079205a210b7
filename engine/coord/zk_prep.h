// ZkPrep: the first stage of the server's pipeline, ZooKeeper's PrepRequestProcessor.
//
// It turns a write request into a txn (or an error) by checking it against the state the tree
// will have once every txn already prepared is applied: the committed tree plus the outstanding
// changes of txns that are prepared but not yet durable and applied. That is what makes two
// conditional writes arriving in the same batch with the same expected version end as one success
// and one BadVersion, although neither is in the tree when the second is checked.
//
// Each prepared txn gets the next zxid: the next counter in the epoch. A leader starts its epoch
// with start_epoch() (its first txn has counter 1), as ZooKeeper's leader sets its zxid to
// (epoch << 32) once a quorum acknowledged it. The final stage reports applied(zxid) after applying a
// txn, and the outstanding records it covered are dropped (the tree now says the same).
//
// In a replicated ensemble this stage runs on the leader only; the txns it makes are what the
// leader proposes. Nothing here knows about durability or connections.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/coord/zk_database.h"
#include "engine/coord/zk_txn.h"
#include "engine/coord/zk_types.h"

namespace gregor::coord {

struct PrepOutcome {
  ZkError error = ZkError::kOk;  // the request's error (a multi's: its first failing op's)
  std::optional<Txn> txn;        // to log and apply; none on error or when nothing changes
  std::vector<ZkOpResult> results;  // per op, for a multi (and filled for single ops too)
};

class ZkPrep {
 public:
  explicit ZkPrep(const ZkDatabase& db);

  // create / create2 / delete / set_data / check (multi = false, one op) or a multi, made at
  // time_ms (the wall clock: the znodes' ctime / mtime).
  PrepOutcome ops(int64_t session, int32_t xid, int64_t time_ms, const std::vector<ZkOp>& ops, bool multi);
  PrepOutcome create_session(int64_t session, int32_t timeout_ms, Bytes password, int64_t time_ms);
  // Deletes the session's ephemerals (as they will be once the outstanding txns are applied).
  PrepOutcome close_session(int64_t session, int32_t xid, bool expired, int64_t time_ms);

  // The zxid the next prepared txn gets.
  int64_t next_zxid() const { return last_prepared_zxid_ + 1; }
  // The next txn is (epoch << 32) | 1. REQUIRES: nothing outstanding and epoch newer than the
  // epoch of every txn prepared or applied.
  void start_epoch(int64_t epoch);
  int64_t last_prepared_zxid() const { return last_prepared_zxid_; }
  // The final stage applied txn zxid.
  void applied(int64_t zxid);
  // A follower of an ensemble applied txn zxid, which its leader prepared: this stage prepares
  // nothing there, but stays at the tree's zxid. REQUIRES: nothing outstanding.
  void applied_elsewhere(int64_t zxid);
  size_t outstanding() const { return outstanding_.size(); }

 private:
  struct Record {
    int64_t zxid = 0;
    bool exists = false;
    Stat stat;
  };
  using Changes = std::map<std::string, Record>;
  // The view of path: the multi's own changes, then the outstanding ones, then the tree.
  std::optional<Record> lookup(const Changes& local, const std::string& path) const;
  ZkError prepare_op(int64_t session, int64_t zxid, int64_t time_ms, const ZkOp& op, Changes& local,
                     TxnOp* txn_op, ZkOpResult* result) const;
  void commit_changes(int64_t zxid, Changes& local);
  void assert_counter_left() const;

  const ZkDatabase& db_;
  int64_t last_prepared_zxid_;
  std::map<std::string, Record> outstanding_;
  std::deque<std::pair<int64_t, std::string>> outstanding_order_;  // (zxid, path), zxid order
};

}  // namespace gregor::coord
