#include "engine/coord/zk_storage.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "engine/core/assert.h"
#include "engine/record/crc32c.h"

namespace gregor::coord {
namespace {

constexpr uint32_t kLogMagic = 0x5A4B4C47;  // "ZKLG"
// Format 2: txns carry their time and null data (the jute wire format); format 1 is not read any more.
constexpr uint32_t kLogFormat = 2;
constexpr uint64_t kLogHeaderBytes = 8;
constexpr uint64_t kEntryHeaderBytes = 8;  // crc + length
// No txn is larger than a full multi of full znodes; anything longer is garbage.
constexpr uint32_t kMaxEntryBytes = 2 * ZkLimits::kMaxFrameBytes;

bool parse_zxid_name(const std::string& name, const std::string& prefix, int64_t* zxid) {
  if (name.size() != prefix.size() + 16 || name.compare(0, prefix.size(), prefix) != 0) return false;
  uint64_t v = 0;
  for (size_t i = prefix.size(); i < name.size(); i++) {
    const char c = name[i];
    int digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else return false;
    v = (v << 4) | static_cast<uint64_t>(digit);
  }
  *zxid = static_cast<int64_t>(v);
  return true;
}

uint32_t entry_crc(uint32_t length, ByteView body) {
  ByteWriter w;
  w.u32(length);
  return record::crc32c_extend(record::crc32c(as_view(w.bytes_ref())), body);
}

// Whether a whole, intact entry starts at pos: its length is within the limit and the file, its
// CRC matches, its body decodes. On success *txn and *entry_bytes (header included) are set.
bool parse_entry(ByteView data, uint64_t pos, Txn* txn, uint64_t* entry_bytes) {
  if (pos + kEntryHeaderBytes > data.size()) return false;
  ByteReader r(data.subspan(pos, kEntryHeaderBytes));
  const uint32_t crc = r.u32();
  const uint32_t length = r.u32();
  if (!r.ok() || length > kMaxEntryBytes || pos + kEntryHeaderBytes + length > data.size()) return false;
  const ByteView body = data.subspan(pos + kEntryHeaderBytes, length);
  if (entry_crc(length, body) != crc || !decode_txn(body, txn)) return false;
  *entry_bytes = kEntryHeaderBytes + length;
  return true;
}

}  // namespace

ZkStorage::ZkStorage(Disk& disk, ZkStorageConfig config) : disk_(disk), config_(std::move(config)) {
  GREGOR_ASSERT(config_.snapshot_count > 0);
}

std::string ZkStorage::zxid_name(int64_t zxid) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(zxid));
  return buf;
}

std::string ZkStorage::path(const std::string& name) const {
  return config_.data_dir.empty() ? name : config_.data_dir + "/" + name;
}

Result<RecoveryInfo> ZkStorage::recover(ZkDatabase& db) {
  GREGOR_ASSERT(db.last_zxid() == 0 && active_log_.empty());
  RecoveryInfo info;
  auto names = disk_.list(config_.data_dir);
  if (!names) return names.status();
  std::vector<std::pair<int64_t, std::string>> snapshots, logs;
  for (const std::string& name : *names) {
    int64_t zxid = 0;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) {
      // A snapshot whose write did not finish: its rename never happened.
      GREGOR_RETURN_IF_ERROR(disk_.remove(path(name)));
    } else if (parse_zxid_name(name, "snapshot.", &zxid)) {
      snapshots.emplace_back(zxid, name);
    } else if (parse_zxid_name(name, "log.", &zxid)) {
      logs.emplace_back(zxid, name);
    }
  }
  std::sort(snapshots.begin(), snapshots.end());
  std::sort(logs.begin(), logs.end());

  if (!snapshots.empty()) {
    auto data = disk_.read_all(path(snapshots.back().second));
    if (!data) return data.status();
    GREGOR_RETURN_IF_ERROR(db.decode_snapshot(as_view(*data)));
    if (db.last_zxid() != snapshots.back().first)
      return Status::error(StatusCode::kCorruption, "snapshot " + snapshots.back().second + " holds zxid " +
                                                        std::to_string(db.last_zxid()));
  }
  info.snapshot_zxid = db.last_zxid();

  for (size_t i = 0; i < logs.size(); i++) {
    // A log whose successor starts at or before the snapshot's zxid is covered by it. (One whose
    // successor starts right after the snapshot is too, but "right after" is not known from a name
    // across an epoch change: such a log is read, and its txns skipped.)
    if (i + 1 < logs.size() && logs[i + 1].first <= db.last_zxid()) continue;
    const bool newest = i + 1 == logs.size();
    const std::string file = path(logs[i].second);
    auto size = disk_.size(file);
    if (!size) return size.status();
    // Entries are read one at a time: memory stays bounded by the largest entry, not the log.
    auto read_entry = [&](uint64_t at, Txn* txn, uint64_t* entry_bytes) -> Result<bool> {
      auto header = disk_.read(file, at, kEntryHeaderBytes);
      if (!header) return header.status();
      ByteReader er(as_view(*header));
      er.u32();
      const uint32_t length = er.u32();
      if (!er.ok() || length > kMaxEntryBytes || at + kEntryHeaderBytes + length > *size) return false;
      auto entry = disk_.read(file, at, kEntryHeaderBytes + length);
      if (!entry) return entry.status();
      return parse_entry(as_view(*entry), 0, txn, entry_bytes);
    };
    // A log's entries carry zxids that follow one another (zxid_follows), starting with the one
    // in its name.
    int64_t previous = 0;
    bool first_entry = true;
    auto in_sequence = [&](int64_t zxid) { return first_entry ? zxid == logs[i].first : zxid_follows(previous, zxid); };
    auto corruption = [&](uint64_t pos, const std::string& what) {
      return Status::error(StatusCode::kCorruption, "log " + file + " at " + std::to_string(pos) + ": " + what);
    };
    auto log_header = disk_.read(file, 0, kLogHeaderBytes);
    if (!log_header) return log_header.status();
    ByteReader hr(as_view(*log_header));
    const uint32_t magic = hr.u32();
    const uint32_t format = hr.u32();
    const bool header_ok = hr.ok() && magic == kLogMagic && format == kLogFormat;
    // A whole header of the previous format is not a torn write: cutting it would lose its txns.
    if (hr.ok() && magic == kLogMagic && format == kLogFormat - 1)
      return corruption(0, "log format " + std::to_string(format) + " is not supported (this build reads " +
                               std::to_string(kLogFormat) + ")");
    uint64_t pos = kLogHeaderBytes;
    bool cut = false;
    if (!header_ok) {
      if (!newest) return corruption(0, "bad header");
      pos = 0;
      cut = true;
    }
    while (!cut && pos < *size) {
      Txn txn;
      uint64_t entry_bytes = 0;
      auto whole = read_entry(pos, &txn, &entry_bytes);
      if (!whole) return whole.status();
      if (!*whole) {
        if (!newest) return corruption(pos, "bad entry");
        cut = true;
        break;
      }
      // A valid entry out of sequence is no torn write: the log is not what was written.
      if (!in_sequence(txn.zxid))
        return corruption(pos, "zxid " + zxid_hex(txn.zxid) + " does not follow " +
                                   (first_entry ? "the log's name" : zxid_hex(previous)));
      if (txn.zxid > db.last_zxid()) {
        if (!zxid_follows(db.last_zxid(), txn.zxid))
          return corruption(pos, "zxid " + zxid_hex(txn.zxid) + " does not follow " + zxid_hex(db.last_zxid()));
        ApplyResult ignored;
        GREGOR_RETURN_IF_ERROR(db.apply(txn, &ignored));
        info.txns_replayed++;
      }
      previous = txn.zxid;
      first_entry = false;
      pos += entry_bytes;
    }
    if (cut) {
      // A bad header or entry in the newest log is the torn tail of a power loss only if no later
      // txn of this log survives after it: a power loss keeps a prefix of what was appended since
      // the last fsync, torn at its very end. A valid entry further on was written after the bad
      // spot, and may have been fsynced and acknowledged: that is corruption, and cutting the log
      // here would lose it. (A file system that writes unsynced pages back out of order could
      // leave such a pattern without corruption; recovery then refuses, which is the safe side.)
      // The next real entry starts within one entry of the bad spot, so the search looks that far
      // (and reads at most two entries' worth): rot that wipes out more than a whole entry at the
      // end of the newest log is beyond it.
      const uint64_t window = std::min<uint64_t>(*size - pos, 2 * (kEntryHeaderBytes + kMaxEntryBytes));
      auto rest = disk_.read(file, pos, window);
      if (!rest) return rest.status();
      const ByteView tail = as_view(*rest);
      for (uint64_t q = 1; q + kEntryHeaderBytes <= tail.size(); q++) {
        Txn later;
        uint64_t later_bytes = 0;
        if (parse_entry(tail, q, &later, &later_bytes) && (first_entry || later.zxid > previous))
          return corruption(pos, "bad entry followed by the valid entry of zxid " + std::to_string(later.zxid) +
                                     " at " + std::to_string(pos + q));
      }
      info.truncated_bytes = *size - pos;
      info.truncated_file = file;
      if (pos == 0) {
        // The power went while the header of a fresh log was being written: nothing in it.
        GREGOR_RETURN_IF_ERROR(disk_.remove(file));
        break;
      }
      GREGOR_RETURN_IF_ERROR(disk_.truncate(file, pos));
    }
    // After a process crash the log may hold entries that are only in the page cache (appended,
    // never fsynced, never acknowledged). They were just replayed, and the server will serve them
    // and build on them: the next txns go to a new log. Unless they are made durable now, a later
    // power loss cuts them off this log while the fsynced newer log still follows them, which
    // leaves a zxid gap in the middle (recovery refuses to start) and loses what was acknowledged
    // after this recovery. The same fsync makes a truncation durable.
    GREGOR_RETURN_IF_ERROR(disk_.fsync(file));
  }
  last_appended_zxid_ = db.last_zxid();
  snapshot_zxid_ = info.snapshot_zxid;
  txns_since_snapshot_ = info.txns_replayed;
  return info;
}

Status ZkStorage::open_log(int64_t first_zxid) {
  const std::string name = path("log." + zxid_name(first_zxid));
  // A file of this name can only be left from an earlier start whose entries were all lost:
  // recovery replayed every valid entry, and it would have moved the next zxid past this one.
  if (disk_.exists(name)) GREGOR_RETURN_IF_ERROR(disk_.remove(name));
  GREGOR_RETURN_IF_ERROR(disk_.create(name));
  ByteWriter w;
  w.u32(kLogMagic);
  w.u32(kLogFormat);
  auto pos = disk_.append(name, as_view(w.bytes_ref()));
  if (!pos) return pos.status();
  active_log_ = name;
  return Status::ok();
}

Status ZkStorage::append(const Txn& txn) {
  GREGOR_ASSERT_MSG(zxid_follows(last_appended_zxid_, txn.zxid), "txn log appends must follow one another");
  if (active_log_.empty()) GREGOR_RETURN_IF_ERROR(open_log(txn.zxid));
  ByteWriter w;
  w.u32(0);  // crc, patched below
  w.u32(0);  // length, patched below
  encode_txn(w, txn);
  const size_t length = w.size() - kEntryHeaderBytes;
  GREGOR_ASSERT(length <= kMaxEntryBytes);
  w.patch_u32(4, static_cast<uint32_t>(length));
  Bytes entry = w.take();
  const uint32_t crc = entry_crc(static_cast<uint32_t>(length),
                                 ByteView(entry.data() + kEntryHeaderBytes, length));
  ByteWriter crc_writer(std::move(entry));
  crc_writer.patch_u32(0, crc);
  auto pos = disk_.append(active_log_, as_view(crc_writer.bytes_ref()));
  if (!pos) return pos.status();
  last_appended_zxid_ = txn.zxid;
  txns_since_snapshot_++;
  unflushed_ = true;
  return Status::ok();
}

Status ZkStorage::flush() {
  if (!unflushed_) return Status::ok();
  GREGOR_RETURN_IF_ERROR(disk_.fsync(active_log_));
  unflushed_ = false;
  flushes_++;
  return Status::ok();
}

Status ZkStorage::snapshot(const ZkDatabase& db) {
  GREGOR_ASSERT(!unflushed_);
  GREGOR_ASSERT(db.last_zxid() == last_appended_zxid_);
  const std::string name = "snapshot." + zxid_name(db.last_zxid());
  Bytes data = db.encode_snapshot();
  GREGOR_RETURN_IF_ERROR(disk_.write_file_atomic(path(name), as_view(data)));
  // Everything logged so far is in the snapshot: the old logs and snapshots can go. A crash in
  // the middle leaves files recovery skips (their txns are at or below the snapshot's zxid).
  // From here on the snapshot holds everything: the next txn starts a new log, even if removing
  // the old files fails half-way (the active log may be gone already).
  active_log_.clear();
  txns_since_snapshot_ = 0;
  snapshot_zxid_ = db.last_zxid();
  auto names = disk_.list(config_.data_dir);
  if (!names) return names.status();
  for (const std::string& n : *names) {
    int64_t zxid = 0;
    const bool old_snapshot = parse_zxid_name(n, "snapshot.", &zxid) && n != name;
    const bool log = parse_zxid_name(n, "log.", &zxid);
    if (old_snapshot || log) GREGOR_RETURN_IF_ERROR(disk_.remove(path(n)));
  }
  return Status::ok();
}

Status ZkStorage::install_snapshot(const ZkDatabase& db) {
  GREGOR_ASSERT(!unflushed_);
  auto names = disk_.list(config_.data_dir);
  if (!names) return names.status();
  for (const std::string& n : *names) {
    int64_t zxid = 0;
    if (parse_zxid_name(n, "log.", &zxid) || parse_zxid_name(n, "snapshot.", &zxid))
      GREGOR_RETURN_IF_ERROR(disk_.remove(path(n)));
  }
  active_log_.clear();
  last_appended_zxid_ = db.last_zxid();
  txns_since_snapshot_ = 0;
  snapshot_zxid_ = db.last_zxid();
  const std::string name = "snapshot." + zxid_name(db.last_zxid());
  Bytes data = db.encode_snapshot();
  return disk_.write_file_atomic(path(name), as_view(data));
}

Status ZkStorage::truncate(int64_t zxid) {
  GREGOR_ASSERT(!unflushed_);
  if (zxid < snapshot_zxid_)
    return Status::error(StatusCode::kInvalidArgument,
                         "cannot truncate to " + zxid_hex(zxid) + ": the snapshot holds " + zxid_hex(snapshot_zxid_));
  if (zxid >= last_appended_zxid_) return Status::ok();
  auto names = disk_.list(config_.data_dir);
  if (!names) return names.status();
  std::vector<std::pair<int64_t, std::string>> logs;
  for (const std::string& n : *names) {
    int64_t first = 0;
    if (parse_zxid_name(n, "log.", &first)) logs.emplace_back(first, n);
  }
  std::sort(logs.begin(), logs.end());
  // Newest first: a crash half-way leaves a shorter log, still a prefix of what was there.
  for (auto it = logs.rbegin(); it != logs.rend(); ++it) {
    const std::string file = path(it->second);
    if (it->first > zxid) {
      GREGOR_RETURN_IF_ERROR(disk_.remove(file));
      continue;
    }
    // The log that holds zxid: keep its entries up to zxid, cut the rest.
    auto size = disk_.size(file);
    if (!size) return size.status();
    auto data = disk_.read(file, 0, *size);
    if (!data) return data.status();
    uint64_t pos = kLogHeaderBytes;
    while (pos < *size) {
      Txn txn;
      uint64_t entry_bytes = 0;
      if (!parse_entry(as_view(*data), pos, &txn, &entry_bytes))
        return Status::error(StatusCode::kCorruption, "log " + file + " at " + std::to_string(pos) + ": bad entry");
      if (txn.zxid > zxid) break;
      pos += entry_bytes;
    }
    if (pos < *size) {
      GREGOR_RETURN_IF_ERROR(disk_.truncate(file, pos));
      GREGOR_RETURN_IF_ERROR(disk_.fsync(file));
    }
    break;
  }
  active_log_.clear();
  last_appended_zxid_ = zxid;
  return Status::ok();
}

}  // namespace gregor::coord
