#include "engine/coord/zk_session_tracker.h"

#include "engine/core/assert.h"

namespace gregor::coord {

Time ZkSessionTracker::round_up(Time t) const {
  const int64_t tick = tick_.us;
  GREGOR_ASSERT(tick > 0);
  return Time{(t.us / tick + 1) * tick};
}

void ZkSessionTracker::add(int64_t session, Duration timeout, Time now) {
  sessions_[session] = Entry{timeout, round_up(now + timeout), false};
}

bool ZkSessionTracker::touch(int64_t session, Time now) {
  auto it = sessions_.find(session);
  if (it == sessions_.end() || it->second.closing) return false;
  const Time at = round_up(now + it->second.timeout);
  if (at > it->second.expires_at) it->second.expires_at = at;
  return true;
}

bool ZkSessionTracker::is_live(int64_t session) const {
  auto it = sessions_.find(session);
  return it != sessions_.end() && !it->second.closing;
}

void ZkSessionTracker::set_closing(int64_t session) {
  auto it = sessions_.find(session);
  if (it != sessions_.end()) it->second.closing = true;
}

void ZkSessionTracker::remove(int64_t session) { sessions_.erase(session); }

std::vector<int64_t> ZkSessionTracker::expired(Time now) const {
  std::vector<int64_t> out;
  for (const auto& [id, e] : sessions_)
    if (!e.closing && e.expires_at <= now) out.push_back(id);
  return out;
}

Duration ZkSessionTracker::timeout(int64_t session) const {
  auto it = sessions_.find(session);
  return it == sessions_.end() ? Duration{} : it->second.timeout;
}

}  // namespace gregor::coord
