#include "engine/broker/fetch_session.h"

namespace gregor::broker {

std::shared_ptr<FetchSession> FetchSessionCache::create(bool from_follower, Time now) {
  if (sessions_.size() >= kSlotsMax) {
    // The least recently used session goes, a consumer's before a follower's; a consumer's session
    // does not push out a follower's (followers are what the cache is for).
    auto victim = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      const FetchSession& s = *it->second;
      if (victim == sessions_.end()) {
        victim = it;
        continue;
      }
      const FetchSession& v = *victim->second;
      if (s.from_follower != v.from_follower ? !s.from_follower : s.last_used < v.last_used) victim = it;
    }
    if (victim->second->from_follower && !from_follower) return nullptr;
    sessions_.erase(victim);
  }
  // A random id, as Kafka draws one, so that a fetcher holding the id of a session an earlier
  // incarnation of this broker made is told FETCH_SESSION_ID_NOT_FOUND, not served another's.
  int32_t id = 0;
  for (int attempt = 0; attempt < 64 && (id == 0 || sessions_.count(id)); ++attempt)
    id = static_cast<int32_t>(rng_.uniform(static_cast<uint64_t>(INT32_MAX))) + 1;
  if (id == 0 || sessions_.count(id)) return nullptr;
  auto session = std::make_shared<FetchSession>();
  session->id = id;
  session->from_follower = from_follower;
  session->last_used = now;
  sessions_[id] = session;
  return session;
}

std::shared_ptr<FetchSession> FetchSessionCache::find(int32_t id) const {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

}  // namespace gregor::broker
