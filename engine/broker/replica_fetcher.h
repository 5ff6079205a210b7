// ReplicaFetcher: the follower side of replication (Kafka's ReplicaFetcherThread), one fetch
// session per leader broker (an incremental one, KIP-227: after the first request, each names only
// the partitions whose fetch position changed, and the answers only those with news).
//
// A partition joins in the "truncating" state whenever it becomes a follower at a new leader
// epoch (KAFKA-7164: truncate on every epoch change). With replication.truncation = leader-epoch
// (KIP-101/279) it asks the leader OffsetForLeaderEpoch(its latest epoch) and truncates to
// min(leader's end offset, its own end offset for the epoch the leader answered), asking again
// when it does not know that epoch. With high-watermark (before KIP-101) it truncates to its own
// HW at once. Then it fetches from its LEO with long polling (replica.fetch.wait.max.ms), one
// request in flight per leader, appends, and takes the HW.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>

#include "engine/broker/broker_config.h"
#include "engine/broker/partition.h"
#include "engine/protocol/network_client.h"

namespace gregor::broker {

class ReplicaFetcher {
 public:
  using PartitionLookup = std::function<Partition*(const TopicPartition&)>;
  ReplicaFetcher(Runtime& rt, const BrokerConfig& config, protocol::NetworkClient& net, PartitionLookup lookup);

  void add_partition(const TopicPartition& tp, int32_t leader, int32_t leader_epoch);
  void remove_partition(const TopicPartition& tp);
  // KAFKA-7164's teaching switch: the same leader at a new epoch, taken without truncating (the
  // partition keeps its state and fetches at the new epoch). False when the partition is not
  // fetched from that leader.
  bool update_epoch_keeping_state(const TopicPartition& tp, int32_t leader, int32_t leader_epoch);
  void remove_all();
  size_t partition_count() const { return parts_.size(); }

 private:
  struct State {
    int32_t leader = -1;
    int32_t leader_epoch = -1;
    bool truncating = true;
    Time retry_at{0};  // after an error, wait until then
  };
  // What the leader's fetch session holds for a partition (what this fetcher last asked).
  struct Asked {
    int32_t leader_epoch = -1;
    int64_t fetch_offset = 0;
    int64_t log_start_offset = -1;
    bool operator==(const Asked&) const = default;
  };
  struct Session {
    bool in_flight = false;
    bool wake_scheduled = false;
    // KIP-227 (engine/broker/fetch_session.h): the leader's session id (0: none) and the epoch of
    // the next request (0: a full request, which opens a new session).
    int32_t id = 0;
    int32_t next_epoch = 0;
    // The session's partitions, as last asked; shared with the answer's callback, which needs
    // what was asked (an empty session has none).
    std::shared_ptr<const std::map<TopicPartition, Asked>> partitions;
  };
  void pump(int32_t leader);
  void schedule(int32_t leader, Duration d);
  void send_epoch_requests(int32_t leader, const std::vector<TopicPartition>& tps);
  // The entries of parts_ to fetch, in the map's order (pointers: no copy of the names).
  using PartEntry = std::pair<const TopicPartition, State>;
  void send_fetch(int32_t leader, std::span<const PartEntry* const> entries);
  void fail(const TopicPartition& tp, int32_t epoch);
  bool current(const TopicPartition& tp, int32_t leader, int32_t epoch) const;

  Runtime& rt_;
  const BrokerConfig& config_;
  protocol::NetworkClient& net_;
  PartitionLookup lookup_;
  std::map<TopicPartition, State> parts_;
  std::map<int32_t, Session> sessions_;
};

}  // namespace gregor::broker
