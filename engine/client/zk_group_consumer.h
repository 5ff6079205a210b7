// ZkGroupConsumerNode: the historical consumer group, coordinated through ZooKeeper as Kafka 0.8's
// high-level consumer (ZookeeperConsumerConnector) did, before the group coordinator (KIP-40s,
// Kafka 0.9) replaced it. A teaching mode: `groups[].coordination: zookeeper` in a scenario,
// `gregor consume --zookeeper-group` on real sockets.
//
// The znodes (Kafka 0.8's layout, under the group's directory /consumers/<group>):
//   ids/<member>                 ephemeral: the member's registration, JSON
//                                {"pattern":"static","subscription":{"<topic>":1},"timestamp":"<ms>","version":1}
//                                (timestamp: the runtime's clock, virtual time in the simulator)
//   owners/<topic>/<partition>   ephemeral: the member that owns the partition (data = member id)
//   offsets/<topic>/<partition>  persistent: the next offset to consume, decimal text
//
// Rebalance (0.8's syncedRebalance). Every member watches ids/ (children) and /brokers/topics/<t>
// (data) of each topic it reads; any change there, and the member's own (re)registration, start a
// rebalance on that member. An attempt: read the members and their subscriptions and the topics'
// partition counts; wait for the batch being processed; release: stop fetching, commit what was
// processed (auto.commit.enable) and delete its owner znodes; compute its share with 0.8's range
// assignment (sorted members, sorted partitions, the first n % m members one more); read the
// share's offsets; claim each partition by creating its owner znode. A claim that finds the znode
// still there (another member has not released it yet) fails the attempt: the claims made are
// deleted, and after rebalance.backoff.ms the member tries again, at most rebalance.max.retries
// attempts in all. When they run out, the member reports ConsumerRebalanceFailedException and owns
// nothing until the next watch fires. Every member watches every other: one member joining or
// leaving fires a watch, and a rebalance, on all of them (the herd effect).
//
// Sessions. The zk session (zookeeper.session.timeout.ms) is the member's liveness. While it is
// only disconnected, nothing changes. When it expires the server has already deleted the member's
// ephemerals (others take its partitions over), but the member keeps fetching and processing what
// it owned until its new session is open and its next rebalance releases them, as 0.8 did: the
// records processed meanwhile are processed twice.
//
// Fetching is the Consumer's (engine/client/consumer.h) with manually assigned partitions; its
// fetches go to the partition leaders. Offsets come from zk; a partition without one starts at
// auto.offset.reset. Delivery modes as ConsumerNode's, committing to zk: at-least-once processes a
// batch and then writes its offsets (or, with auto.commit.enable, writes the processed positions
// every auto.commit.interval.ms and at each rebalance); at-most-once writes them first.
//
// Trace events: the ConsumerNode's consumer_start, consume (generation -1), consume_dropped, and
// consumer_position (with the group's name), commit and offset_commit (generation -1) for each offset written
// to zk; consumer_rejoin_needed {reason} when a rebalance starts, consumer_revoke {partitions,
// reason "rebalance"} when the member releases what it owned, consumer_join {generation = the
// attempt, protocol "zookeeper-range", is_leader false} when its claims succeed, and
// consumer_group_error {api "rebalance", error "ConsumerRebalanceFailedException"} when the
// retries ran out. The claims and conflicts themselves are the zk server's zk_create and
// zk_refused (error NodeExists) on owners/ paths; the herd is its zk_watch_fire on ids/.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/client/consumer.h"
#include "engine/client/consumer_node.h"
#include "engine/coord/zk_client.h"

namespace gregor::client {

inline constexpr int32_t kZkRebalanceRetriesMax = 100;

// The 0.8 consumer's own keys, with 0.8's defaults.
struct ZkConsumerSettings {
  int64_t zookeeper_session_timeout_ms = 6000;  // zookeeper.session.timeout.ms
  int32_t rebalance_max_retries = 4;            // rebalance.max.retries
  int64_t rebalance_backoff_ms = 2000;          // rebalance.backoff.ms
  bool auto_commit_enable = true;               // auto.commit.enable
  int64_t auto_commit_interval_ms = 60000;      // auto.commit.interval.ms

  // True for a key above (the scenario reader sends the others to ConsumerConfig).
  static bool is_zk_key(const std::string& key);
  // Applies the keys above from settings and ignores the others; a bad value is an error naming it.
  Status apply(const std::map<std::string, std::string>& settings);
};

// The settings without the keys above (what ConsumerConfig::apply takes).
std::map<std::string, std::string> without_zk_consumer_keys(const std::map<std::string, std::string>& settings);

class ZkGroupConsumerNode final : public Node {
 public:
  // config.group_id names the group; the Consumer itself runs without one (no broker group).
  // REQUIRES: workload's mode is at-most-once or at-least-once; zk.servers is not empty.
  ZkGroupConsumerNode(Runtime& rt, ConsumerConfig config, ZkConsumerSettings settings, coord::ZkClientConfig zk,
                      ConsumerWorkload workload);
  ~ZkGroupConsumerNode() override;
  void start() override;
  void on_message(NodeId from, Bytes frame) override;
  void on_disconnect(NodeId peer) override;

  // For a command line consumer: each record as it is processed, and a limit on how many are
  // processed in all (a batch is cut there; what was cut is not committed). -1: none.
  void set_record_handler(std::function<void(const ConsumerRecord&)> handler) { record_handler_ = std::move(handler); }
  void set_max_records(int64_t max) { max_records_ = max; }
  bool limit_reached() const { return max_records_ >= 0 && processed_ >= max_records_; }
  bool idle() const { return !busy_; }
  // Stops consuming, writes what was processed and not yet written (auto.commit.enable), and closes
  // the zk session (its ephemerals go at once); then done().
  void close(std::function<void()> done);

  const std::string& group() const { return group_; }
  const std::string& member_id() const { return member_; }
  std::set<TopicPartition> owned() const { return owned_; }
  bool rebalancing() const { return rebalancing_; }
  int64_t rebalances_done() const { return rebalances_done_; }
  int64_t rebalances_failed() const { return rebalances_failed_; }
  int64_t claim_conflicts() const { return claim_conflicts_; }
  int64_t processed() const { return processed_; }
  Consumer& consumer() { return consumer_; }
  coord::ZkClient& zk() { return zk_; }

  // Paths of the group's directory.
  static std::string ids_path(const std::string& group) { return "/consumers/" + group + "/ids"; }
  static std::string owner_path(const std::string& group, const TopicPartition& tp);
  static std::string offset_path(const std::string& group, const TopicPartition& tp);
  // Kafka 0.8's range assignment of one topic: the partitions of `member` among `members`.
  static std::vector<int32_t> range_share(int32_t partitions, std::vector<std::string> members, const std::string& member);

 private:
  struct View;  // what an attempt read from zk

  void begin();
  void on_session(coord::SessionState s);
  void on_watch(const coord::WatchEvent& e);
  void register_member();
  void request_rebalance(const std::string& reason);
  void attempt();
  void read_subscriptions(uint64_t epoch, std::shared_ptr<View> view);
  void read_topics(uint64_t epoch, std::shared_ptr<View> view);
  void release(uint64_t epoch, std::shared_ptr<View> view);
  void read_offsets(uint64_t epoch, std::shared_ptr<View> view);
  void claim(uint64_t epoch, std::shared_ptr<View> view);
  void attempt_failed(uint64_t epoch, const std::string& why);
  void rebalance_over();

  // Writes offsets to offsets/<t>/<p> (creating the znode the first time); done(all written).
  void commit_to_zk(const OffsetMap& offsets, std::function<void(bool)> done);
  void maybe_auto_commit();
  OffsetMap uncommitted_processed() const;

  void schedule_poll(Duration d);
  void poll_loop();
  void handle(std::vector<ConsumerRecord> records);
  void process(const std::vector<ConsumerRecord>& records);
  void finish_batch();

  Runtime& rt_;
  ConsumerWorkload workload_;
  ZkConsumerSettings settings_;
  std::string group_;
  std::string member_;
  Consumer consumer_;
  coord::ZkClient zk_;

  int64_t registered_session_ = 0;  // the session whose ids/<member> exists (0: none)
  bool registering_ = false;
  bool rebalancing_ = false;
  bool rebalance_pending_ = false;
  int32_t attempt_ = 0;
  uint64_t epoch_ = 0;  // bumped when a session ends: the callbacks of an older attempt do nothing
  std::set<TopicPartition> owned_;
  std::function<void()> after_batch_;  // a rebalance waiting for the batch being processed
  int64_t rebalances_done_ = 0;
  int64_t rebalances_failed_ = 0;
  int64_t claim_conflicts_ = 0;

  OffsetMap processed_next_;   // per partition: the offset after the last record processed
  OffsetMap committed_;        // per partition: the last offset this member wrote to zk
  Time next_auto_commit_{0};
  bool auto_commit_in_flight_ = false;

  bool started_ = false;
  bool busy_ = false;
  bool poll_scheduled_ = false;
  Time poll_at_{0};
  TimerId poll_timer_{0};  // the scheduled poll, cancelled when an earlier one replaces it
  int64_t processed_ = 0;
  int64_t max_records_ = -1;
  bool stopped_ = false;
  std::function<void(const ConsumerRecord&)> record_handler_;
};

}  // namespace gregor::client
