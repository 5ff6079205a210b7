// ZkSessionTracker: which sessions are alive and when each expires (ZooKeeper's SessionTracker).
//
// As in ZooKeeper, expiry times are rounded up to the next multiple of the tick, so that the
// server checks expiry once per tick for a whole bucket of sessions. Every frame a session sends
// touches it (pushes its expiry a timeout ahead). A session the server decided to close or expire
// is marked closing at once, before its close txn is durable: from then on its requests fail
// with SessionExpired.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "engine/core/types.h"

namespace gregor::coord {

class ZkSessionTracker {
 public:
  explicit ZkSessionTracker(Duration tick) : tick_(tick) {}

  // Starts tracking a session (new, or restored after a restart: a fresh window either way).
  void add(int64_t session, Duration timeout, Time now);
  // Pushes the expiry of a live session; false when it is unknown or closing.
  bool touch(int64_t session, Time now);
  bool is_live(int64_t session) const;
  bool contains(int64_t session) const { return sessions_.count(session) > 0; }
  void set_closing(int64_t session);
  void remove(int64_t session);
  // Live sessions whose expiry time has come, in id order.
  std::vector<int64_t> expired(Time now) const;
  Duration timeout(int64_t session) const;
  size_t size() const { return sessions_.size(); }

 private:
  Time round_up(Time t) const;
  struct Entry {
    Duration timeout;
    Time expires_at;
    bool closing = false;
  };
  Duration tick_;
  std::map<int64_t, Entry> sessions_;
};

}  // namespace gregor::coord
