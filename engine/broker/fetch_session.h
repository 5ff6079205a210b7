// Incremental fetch sessions (KIP-227), the leader's side: Kafka's FetchSessionCache.
//
// A fetcher that follows many partitions (a follower lists every partition it replicates from this
// leader, the 50 of __consumer_offsets among them) would otherwise name all of them in every
// request and get all of them back in every answer, idle or not. With a session the leader keeps
// what the fetcher asked per partition, and the fetcher's requests name only what changed (a new
// fetch offset, a partition added, `forgotten_topics_data` for one dropped); the answers carry only
// the partitions with something to say: records, an error, or a high watermark, log start offset
// or last stable offset other than the one the fetcher was last told.
//
// The request's (session_id, session_epoch) say which kind it is (Fetch v7+):
//   (0, -1)   sessionless: a full request, a full answer, no session (librdkafka, kafkajs);
//   (any, 0)  full: the session named (if any) is closed, a new one made; the answer carries its id
//             (0 when the cache has no slot to give);
//   (id, -1)  the session is closed; then as sessionless;
//   (id, n>0) incremental: n must be the session's next epoch, else INVALID_FETCH_SESSION_EPOCH; an
//             unknown id is FETCH_SESSION_ID_NOT_FOUND. The fetcher then starts over with a full one.
// Every incremental request moves the session's epoch on by one (after INT32_MAX comes 1).
//
// The cache holds at most kSlotsMax sessions (Kafka's max.incremental.fetch.session.cache.slots
// default). When it is full, a new session takes the slot of the least recently used one, a
// follower's session before a consumer's (Kafka's eviction favours the privileged, larger ones too).
// Sessions live in memory only: a restarted broker knows none, and its fetchers start over.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "engine/core/rng.h"
#include "engine/core/topic_partition.h"
#include "engine/core/types.h"
#include "engine/core/uuid.h"

namespace gregor::broker {

struct FetchSessionPartition {
  Uuid topic_id;  // for v13+ answers
  // What the fetcher last asked for the partition (a request that leaves it out asks the same).
  int32_t current_leader_epoch = -1;
  int64_t fetch_offset = 0;
  int32_t last_fetched_epoch = -1;
  int64_t log_start_offset = -1;
  int32_t partition_max_bytes = 0;
  // What the last answer that carried the partition told the fetcher (-1: nothing yet, or an
  // error, after which the next answer carries it again).
  int64_t high_watermark_sent = -1;
  int64_t log_start_offset_sent = -1;
  int64_t last_stable_offset_sent = -1;
};

struct FetchSession {
  int32_t id = 0;
  int32_t next_epoch = 1;    // the epoch the next incremental request must carry
  bool from_follower = false;
  Time last_used{0};
  std::map<TopicPartition, FetchSessionPartition> partitions;
};

class FetchSessionCache {
 public:
  static constexpr size_t kSlotsMax = 1000;
  static constexpr int32_t kInitialEpoch = 0;
  static constexpr int32_t kFinalEpoch = -1;

  explicit FetchSessionCache(Rng& rng) : rng_(rng) {}

  // A new, empty session with a fresh id (never 0), or null when no slot can be had.
  std::shared_ptr<FetchSession> create(bool from_follower, Time now);
  std::shared_ptr<FetchSession> find(int32_t id) const;
  void remove(int32_t id) { sessions_.erase(id); }
  size_t size() const { return sessions_.size(); }
  void clear() { sessions_.clear(); }

  static int32_t next_epoch(int32_t epoch) { return epoch == INT32_MAX ? 1 : epoch + 1; }

 private:
  Rng& rng_;
  std::map<int32_t, std::shared_ptr<FetchSession>> sessions_;
};

// The entry for (topic, partition) in a map keyed by TopicPartition, tried at `hint` before a
// search: requests and answers list a session's partitions in the session's order, so walking them
// with hint = the entry after the last one found makes each lookup one comparison. map.end() when
// the map has no such entry.
template <typename Map, typename It>
It find_in_session_order(Map& map, It hint, const std::string& topic, int32_t partition) {
  if (hint != map.end() && hint->first.partition == partition && hint->first.topic == topic) return hint;
  return map.find(TopicPartition{topic, partition});
}

}  // namespace gregor::broker
