// A zxid, ZooKeeper's transaction id: 64 bits, the epoch of the leader that proposed the txn in
// the high 32 and a counter in the low 32. Each epoch's counter starts again: a new leader's
// first proposal is (epoch << 32) | 1. Ordering zxids as integers orders them by (epoch,
// counter), which is what elections and syncs compare. A zxid names one txn: one leader per
// epoch proposes it, so two servers holding the same zxid hold the same txn, and a server's log is
// a prefix of what the leader of its last txn's epoch proposed.
//
// The single server (no ensemble) runs in epoch 1, as a ZooKeeper ensemble does after its first
// election: its first txn is 0x100000001.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace gregor::coord {

inline constexpr int64_t kZxidCounterMask = 0xffffffffLL;

constexpr int64_t make_zxid(int64_t epoch, int64_t counter) { return (epoch << 32) | (counter & kZxidCounterMask); }
constexpr int64_t zxid_epoch(int64_t zxid) { return zxid >> 32; }
constexpr int64_t zxid_counter(int64_t zxid) { return zxid & kZxidCounterMask; }

// Whether `next` may be the txn right after `last` in a log or a database: the next counter of the
// same epoch, or the first txn (counter 1) of a newer epoch. (The txns a server dropped because
// the new leader never had them are gone by then: a TRUNC removed them.)
constexpr bool zxid_follows(int64_t last, int64_t next) {
  if (zxid_epoch(next) == zxid_epoch(last)) return zxid_counter(next) == zxid_counter(last) + 1;
  return zxid_epoch(next) > zxid_epoch(last) && zxid_counter(next) == 1;
}

// As ZooKeeper's tools print a zxid: 0x<hex>, the epoch being the digits above the low eight
// (0x300000002 is epoch 3, counter 2).
inline std::string zxid_hex(int64_t zxid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, static_cast<uint64_t>(zxid));
  return buf;
}

}  // namespace gregor::coord
