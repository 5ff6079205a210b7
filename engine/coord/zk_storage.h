// ZkStorage: the durability stage of the coordination server, ZooKeeper's FileTxnSnapLog: a
// transaction log plus snapshots, on the node's Disk.
//
// Files, under the data directory (ZooKeeper's dataDir; zxids as 16 hex digits so that name order
// is zxid order):
//   log.<zxid of its first txn>       the transaction log; a new file starts after each snapshot
//                                     and at each start of the server
//   snapshot.<zxid of its last txn>   the whole database at that zxid (ZkDatabase::encode_snapshot),
//                                     written atomically (Disk::write_file_atomic)
// A log file is "ZKLG" format:uint32(2), then entries:
//   crc:uint32 length:uint32 body        crc = CRC-32C of length and body; body = encode_txn
//
// Contract:
// - append() writes to the page cache only; flush() fsyncs the active log. The server acknowledges
//   nothing before the flush that covers it returns (group commit: one flush for a batch).
// - snapshot(db) must be called with db holding every appended txn (the server calls it right
//   after a flush, when the pipeline has applied everything); it writes the snapshot, starts a new
//   log, and removes the older snapshots and logs, which bounds recovery time and disk use.
// - recover(db) loads the newest snapshot and replays the logs after it, checking each entry's CRC
//   and that zxids follow one another (a log's first entry carries the zxid in its name). A bad
//   entry at the end of the newest log, with no valid later entry after it, is the torn tail of a
//   power loss: it is cut off (truncated), since nothing in it was acknowledged. A bad entry
//   anywhere else, or a valid entry out of sequence, is corruption, and recovery fails rather
//   than lose acknowledged data. Recovery fsyncs every log it replays: after a process crash a log
//   may hold unsynced txns, which the server is about to serve and build on.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/disk.h"
#include "engine/core/status.h"
#include "engine/coord/zk_database.h"

namespace gregor::coord {

struct ZkStorageConfig {
  std::string data_dir = "zk";
  // ZooKeeper's snapCount: a snapshot after this many txns (ZooKeeper's default is 100000).
  int64_t snapshot_count = 100000;
};

struct RecoveryInfo {
  int64_t snapshot_zxid = 0;   // 0 when no snapshot was found
  int64_t txns_replayed = 0;
  uint64_t truncated_bytes = 0;  // the torn tail cut off the newest log
  std::string truncated_file;
};

class ZkStorage {
 public:
  ZkStorage(Disk& disk, ZkStorageConfig config);

  // REQUIRES: db is empty (freshly constructed). Call once, before any append.
  Result<RecoveryInfo> recover(ZkDatabase& db);

  // Appends txn to the active log (opening a new log file when there is none).
  // REQUIRES: txn.zxid follows the last appended zxid.
  Status append(const Txn& txn);
  // Makes every appended txn durable.
  Status flush();
  bool has_unflushed() const { return unflushed_; }

  bool snapshot_due() const { return txns_since_snapshot_ >= config_.snapshot_count; }
  // REQUIRES: !has_unflushed() and db.last_zxid() == the last appended zxid.
  Status snapshot(const ZkDatabase& db);

  // A follower's SNAP sync (a replicated ensemble): db is the leader's committed database, which
  // replaces everything stored here. Every log and snapshot goes first (a log may hold txns the
  // leader never committed, with zxids the new history reuses), then the snapshot is written; a
  // crash between the two leaves an empty server, which the next sync fills again.
  // REQUIRES: !has_unflushed().
  Status install_snapshot(const ZkDatabase& db);

  // A follower's TRUNC (a replicated ensemble): drops every logged txn after zxid, which this log
  // holds (the leader never committed them; they are of an epoch it did not lead). Removes the
  // newer log files and cuts the one holding zxid after its entry, durably. The caller reloads its
  // database from the storage afterwards. Fails when a snapshot is newer than zxid.
  // REQUIRES: !has_unflushed().
  Status truncate(int64_t zxid);

  int64_t last_appended_zxid() const { return last_appended_zxid_; }
  int64_t snapshot_zxid() const { return snapshot_zxid_; }  // the newest snapshot's, 0 for none
  const std::string& active_log() const { return active_log_; }
  uint64_t flushes() const { return flushes_; }

  static std::string zxid_name(int64_t zxid);  // 16 lowercase hex digits

 private:
  Status open_log(int64_t first_zxid);
  std::string path(const std::string& name) const;

  Disk& disk_;
  ZkStorageConfig config_;
  std::string active_log_;  // "" until the first append after a start or a snapshot
  int64_t last_appended_zxid_ = 0;
  int64_t snapshot_zxid_ = 0;
  int64_t txns_since_snapshot_ = 0;
  bool unflushed_ = false;
  uint64_t flushes_ = 0;
};

}  // namespace gregor::coord
