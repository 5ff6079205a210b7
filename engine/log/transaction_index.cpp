#include "engine/log/transaction_index.h"

#include "engine/core/assert.h"
#include "engine/core/bytes.h"

namespace gregor::log {

void TransactionIndex::encode(Bytes& out, const AbortedTxn& txn) {
  ByteWriter w(std::move(out));
  w.i16(kAbortedTxnVersion);
  w.i64(txn.producer_id);
  w.i64(txn.first_offset);
  w.i64(txn.last_offset);
  w.i64(txn.last_stable_offset);
  out = w.take();
}

Result<uint64_t> TransactionIndex::load(Offset base, Offset next) {
  entries_.clear();
  file_exists_ = disk_->exists(path_);
  if (!file_exists_) return uint64_t{0};
  auto file = disk_->read_all(path_);
  if (!file) return file.status();
  ByteReader r(as_view(*file));
  size_t good_bytes = 0;
  while (r.remaining() >= kTxnIndexEntryBytes && entries_.size() < kTxnIndexEntriesMax) {
    const int16_t version = r.i16();
    AbortedTxn t;
    t.producer_id = r.i64();
    t.first_offset = r.i64();
    t.last_offset = r.i64();
    t.last_stable_offset = r.i64();
    const bool in_order = entries_.empty() || t.last_offset > entries_.back().last_offset;
    if (version != kAbortedTxnVersion || t.producer_id < 0 || t.first_offset < 0 || t.first_offset > t.last_offset ||
        t.last_offset < base.value || t.last_offset >= next.value || !in_order)
      break;
    entries_.push_back(t);
    good_bytes += kTxnIndexEntryBytes;
  }
  const uint64_t dropped = file->size() - good_bytes;
  if (dropped > 0) {
    GREGOR_RETURN_IF_ERROR(disk_->truncate(path_, good_bytes));
    GREGOR_RETURN_IF_ERROR(disk_->fsync(path_));
  }
  return dropped;
}

Status TransactionIndex::append(const AbortedTxn& txn) {
  GREGOR_ASSERT(entries_.empty() || txn.last_offset > entries_.back().last_offset);
  GREGOR_ASSERT(txn.first_offset <= txn.last_offset);
  GREGOR_ASSERT(entries_.size() < kTxnIndexEntriesMax);
  if (!file_exists_) {
    GREGOR_RETURN_IF_ERROR(disk_->create(path_));
    file_exists_ = true;
  }
  Bytes bytes;
  encode(bytes, txn);
  GREGOR_ASSERT(bytes.size() == kTxnIndexEntryBytes);
  auto at = disk_->append(path_, as_view(bytes));
  if (!at) return at.status();
  GREGOR_ASSERT_MSG(*at == entries_.size() * kTxnIndexEntryBytes, path_ + " changed size under the index");
  entries_.push_back(txn);
  return Status::ok();
}

Status TransactionIndex::truncate_to(Offset offset) {
  size_t kept = entries_.size();
  while (kept > 0 && entries_[kept - 1].last_offset >= offset.value) kept--;
  if (kept == entries_.size()) return Status::ok();
  GREGOR_RETURN_IF_ERROR(disk_->truncate(path_, kept * kTxnIndexEntryBytes));
  entries_.resize(kept);
  return Status::ok();
}

Status TransactionIndex::flush() { return file_exists_ ? disk_->fsync(path_) : Status::ok(); }

Status TransactionIndex::remove() {
  entries_.clear();
  file_exists_ = false;
  Status s = disk_->remove(path_);
  if (!s.is_ok() && s.code() != StatusCode::kNotFound) return s;
  return Status::ok();
}

bool TransactionIndex::collect(int64_t from, int64_t upto, std::vector<AbortedTxn>& out) const {
  // Kafka's TransactionIndex.collectAbortedTxns: the search is complete at an entry whose LSO (when
  // it was aborted) is at or past the bound; an entry whose marker is past the bound is not enough,
  // as another producer's transaction that began below the bound may be aborted after it.
  for (const AbortedTxn& t : entries_) {
    if (t.last_offset >= from && t.first_offset < upto) out.push_back(t);
    if (t.last_stable_offset >= upto) return true;
  }
  return false;
}

}  // namespace gregor::log
