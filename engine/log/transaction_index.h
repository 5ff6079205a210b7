// TransactionIndex: a segment's aborted-transaction index, `<20-digit base offset>.txnindex`
// (Kafka's TransactionIndex, KIP-98).
//
// File format (Kafka's, byte for byte): a sequence of 34-byte big-endian entries, one per aborted
// transaction whose ABORT marker lies in the segment, in marker order:
//   version            int16  (0)
//   producerId         int64
//   firstOffset        int64  the transaction's first offset (it may lie in an earlier segment)
//   lastOffset         int64  the ABORT marker's offset, inside this segment
//   lastStableOffset   int64  the partition's LSO once the transaction was aborted
// The file exists only once the segment has an aborted transaction (Kafka creates it lazily too).
//
// Who writes it: the partition's producer state (engine/broker/producer_state.h), when it applies
// an ABORT marker, through Log::append_aborted_txn. That is also how the index is rebuilt: after a
// restart the producer state rescans the log above its snapshot and appends every abort marker it
// meets again; an entry at or below the last one already in the index is skipped, so a rescan is
// idempotent. Entries go to the file at once (there are few of them); they are fsynced with the
// segment, and at once when the segment is already below the recovery point.
//
// A read_committed Fetch asks the indexes for the aborted transactions of the range it returns
// (Kafka's collectAbortedTxns). The index is truncated with its segment and removed with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/disk.h"
#include "engine/core/types.h"

namespace gregor::log {

inline constexpr const char* kTxnIndexSuffix = ".txnindex";
inline constexpr size_t kTxnIndexEntryBytes = 34;
inline constexpr int16_t kAbortedTxnVersion = 0;
// Entries one segment's index holds at most: one per abort marker, so far more than a segment of
// any configured size can hold; beyond it a bug is appending.
inline constexpr size_t kTxnIndexEntriesMax = 1 << 24;

// An aborted transaction (Kafka's AbortedTxn).
struct AbortedTxn {
  int64_t producer_id = 0;
  int64_t first_offset = 0;
  int64_t last_offset = 0;         // the ABORT marker's offset
  int64_t last_stable_offset = 0;  // the LSO once it was aborted
  bool operator==(const AbortedTxn&) const = default;
};

class TransactionIndex {
 public:
  TransactionIndex(Disk& disk, std::string path) : disk_(&disk), path_(std::move(path)) {}

  // Reads the file, if there is one, for a segment holding [base, next). Whole entries that are
  // valid and in order are kept; the first bad one (a torn tail after a power loss, an entry past
  // the segment's end after the log was cut, a wrong version) ends the index, and the file is
  // cut there. Returns how many bytes were dropped. Errors: the disk's.
  Result<uint64_t> load(Offset base, Offset next);
  // REQUIRES: txn.last_offset > the last entry's. Errors: the disk's (the entry is then not kept).
  Status append(const AbortedTxn& txn);
  // Drops the entries whose marker is at or above `offset`.
  Status truncate_to(Offset offset);
  Status flush();
  Status remove();

  // Appends to `out` the entries whose marker is at or after `from` and whose transaction began
  // before `upto`. Returns true when an entry's last stable offset (the LSO once its marker was
  // written) reached `upto`: later segments cannot add anything (Kafka's TxnIndexSearchResult.isComplete).
  bool collect(int64_t from, int64_t upto, std::vector<AbortedTxn>& out) const;

  const std::vector<AbortedTxn>& entries() const { return entries_; }
  const std::string& path() const { return path_; }

  static void encode(Bytes& out, const AbortedTxn& txn);

 private:
  Disk* disk_;
  std::string path_;
  std::vector<AbortedTxn> entries_;  // by marker offset; all of them are in the file
  bool file_exists_ = false;
};

}  // namespace gregor::log
