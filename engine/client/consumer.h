// Consumer: Kafka's consumer client as a library any Node can own (the workload ConsumerNode in the
// simulator; a `gregor consume` on real sockets later).
//
// Partitions come from a group (subscribe: engine/client/consumer_coordinator.h) or by hand
// (assign). Each assigned partition gets a position: the group's committed offset (OffsetFetch),
// or, when there is none, auto.offset.reset (earliest / latest through ListOffsets; none leaves the
// partition without a position and reports consumer_error). Fetch requests go to partition
// leaders, one in flight per broker, long-polling with fetch.max.wait.ms / fetch.min.bytes, for
// partitions that are not paused and have nothing buffered. poll() returns up to max.poll.records
// buffered records, each partition's in offset order, and advances positions past them; it is
// also where the group is (re)joined, so it must be called at least every max.poll.interval.ms.
// Committing is explicit (commit / commit_positions) unless enable.auto.commit, which commits
// the positions every auto.commit.interval.ms from poll().
//
// Errors: NOT_LEADER_OR_FOLLOWER and friends refresh metadata and retry after retry.backoff.ms;
// OFFSET_OUT_OF_RANGE resets the position by auto.offset.reset.
//
// Trace events (node = the consumer): consumer_position {group, member, topic, partition, offset,
// reason (committed, earliest, latest, seek)}, consumer_error {group, topic, partition, error},
// and the group events of consumer_coordinator.h.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/client/consumer_config.h"
#include "engine/client/consumer_coordinator.h"
#include "engine/client/metadata_manager.h"
#include "engine/protocol/network_client.h"

namespace gregor::client {

struct ConsumerRecord {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp = -1;
  std::optional<Bytes> key;
  std::optional<Bytes> value;
};

// The application's view of rebalances (ConsumerRebalanceListener).
struct RebalanceListener {
  std::function<void(const std::vector<TopicPartition>&)> on_revoked;
  std::function<void(const std::vector<TopicPartition>&)> on_assigned;
  std::function<void(const std::vector<TopicPartition>&)> on_lost;
};

inline constexpr size_t kBufferedRecordsPerPartitionMax = 100000;

class Consumer {
 public:
  Consumer(Runtime& rt, ConsumerConfig config);
  ~Consumer();
  void start();
  // The owning node forwards frames and disconnects of outbound connections (positive ids).
  void on_message(NodeId from, const Bytes& frame) { net_.on_message(from, frame); }
  void on_disconnect(NodeId peer) { net_.on_disconnect(peer); }
  // Its connections (the CLI reads authentication_failure() from it).
  const NetworkClient& network() const { return net_; }

  // Group management. REQUIRES: group.id is set.
  void subscribe(std::vector<std::string> topics, RebalanceListener listener = {});
  // Manual assignment (no group membership; commits go in as a "simple" group when group.id is set).
  void assign(const std::vector<TopicPartition>& partitions);

  // Up to max.poll.records records, each partition's in offset order; never blocks.
  std::vector<ConsumerRecord> poll();
  // Runs when records arrive, the assignment changes or the group needs poll() (so a node that is
  // idle can poll at once instead of on a timer).
  void set_wakeup(std::function<void()> wakeup) { wakeup_ = std::move(wakeup); }

  // commitSync: retried until default.api.timeout.ms.
  void commit(const OffsetMap& offsets, std::function<void(protocol::ErrorCode)> done);
  // commitAsync: one attempt, never retried (a retry could land after a later commit).
  void commit_async(const OffsetMap& offsets, std::function<void(protocol::ErrorCode)> done);
  // Commits the current position of every assigned partition that has one.
  void commit_positions(std::function<void(protocol::ErrorCode)> done);
  void seek(const TopicPartition& tp, int64_t offset);
  std::optional<int64_t> position(const TopicPartition& tp) const;
  // Forgets the positions of these partitions and what is buffered for them: the next poll starts
  // each from the group's committed offset again (as Kafka Streams reinitializes a task from its
  // committed offsets after an aborted transaction). Partitions not assigned are ignored.
  void reset_to_committed(const std::vector<TopicPartition>& partitions);
  void pause(const std::vector<TopicPartition>& partitions);
  void resume(const std::vector<TopicPartition>& partitions);
  // Leave the group (LeaveGroup), then done().
  void close(std::function<void()> done);

  std::vector<TopicPartition> assignment() const;
  int32_t generation() const { return coordinator_.generation(); }
  const std::string& member_id() const { return coordinator_.member_id(); }
  const ConsumerCoordinator& group() const { return coordinator_; }
  const ConsumerConfig& config() const { return config_; }
  MetadataManager& metadata() { return metadata_; }
  // The last high watermark a fetch reported for a partition (-1: none yet).
  int64_t high_watermark(const TopicPartition& tp) const;
  size_t buffered() const;

 private:
  struct PartitionState {
    std::optional<int64_t> position;
    bool paused = false;
    bool fetching_committed = false;
    bool resetting = false;
    bool no_offset = false;  // auto.offset.reset=none found nothing: stays without a position
    std::deque<ConsumerRecord> buffered;
    // Batches fetched after the buffered records but with nothing to hand out (control batches,
    // aborted transactions): the position moves here once the buffered records are polled.
    std::optional<int64_t> skip_to;
    int64_t high_watermark = -1;
    Time retry_at{0};
  };

  void on_assigned(const std::vector<TopicPartition>& tps);
  void on_revoked(const std::vector<TopicPartition>& tps, bool lost);
  void update_positions();
  void reset_positions(const std::vector<TopicPartition>& tps);
  void set_position(const TopicPartition& tp, int64_t offset, const char* reason);
  void send_fetches();
  void on_fetch_response(int32_t leader, const std::map<TopicPartition, int64_t>& fetched, protocol::ErrorCode transport,
                         ByteReader* body);
  void maybe_auto_commit();
  void wakeup();

  Runtime& rt_;
  ConsumerConfig config_;
  NetworkClient net_;
  MetadataManager metadata_;
  ConsumerCoordinator coordinator_;
  RebalanceListener listener_;
  std::map<TopicPartition, PartitionState> parts_;
  std::set<int32_t> fetch_in_flight_;  // brokers with a fetch outstanding
  std::function<void()> wakeup_;
  bool subscribed_ = false;
  size_t poll_cursor_ = 0;
  Time next_auto_commit_{0};
  bool auto_commit_in_flight_ = false;
};

}  // namespace gregor::client
