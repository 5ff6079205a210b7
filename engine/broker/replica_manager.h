// ReplicaManager: this broker's replicas of partitions (Kafka's ReplicaManager).
//
// It opens a partition's log when the controller first names this broker among its replicas
// (become_leader_or_follower, from LeaderAndIsr), makes it leader or follower, and hands followed
// partitions to the replica fetcher; StopReplica takes them away (and deletes them with their
// topic). It keeps the topic configs of the topics it hosts (read from zk when a topic is first
// hosted, updated by config changes), fences requests of a controller older than the newest it
// has heard from, and runs the periodic work: high watermark checkpoints
// (replica.high.watermark.checkpoint.interval.ms), ISR shrinks (every replica.lag.time.max.ms / 2)
// and retention (log.retention.check.interval.ms).
//
// Damaged replicas (issue 17; KIP-966's unclean shutdown is the model): at startup, before the
// broker registers, every log on disk is opened and checked whole (every batch's CRC), with
// OpenOptions::repair_corruption. A log that lost data that was flushed or may have been
// acknowledged (log::RecoveryReport::damaged) keeps the batches before the bad one, and the replica
// is damaged: a file `replica-damaged` in its directory says so across restarts, the broker
// registers it (BrokerRegistration::damaged_replicas), and the controller takes it out of the ISR
// and never elects it cleanly. It follows the leader, truncating only to what the leader's
// OffsetForLeaderEpoch answers, and fetches back what it lost; the leader adds it to the ISR again
// when it has caught up. Once a LeaderAndIsr shows it out of the ISR (or makes it an unclean leader
// with an ISR of itself alone) it is an ordinary replica again: the file goes, and the broker's
// registration is rewritten without it. Until then a LeaderAndIsr that makes it a clean leader is
// refused with KAFKA_STORAGE_ERROR, and so is any that makes it a leader without naming this
// incarnation's registration (broker epoch): only a controller that read it knows of the damage.
//
// Storage failures (issue 17): every file is reached through a LogDirFailureChannel; a full disk or
// an I/O error takes the log directory offline (the broker then halts: Broker::on_log_dir_failure),
// and from then on Produce, Fetch and ListOffsets get KAFKA_STORAGE_ERROR for its partitions.
//
// It owns the purgatories (engine/broker/purgatory.h) of the requests that wait on its partitions:
// when a partition's high watermark or log moves, the produces and fetches watching it try again, on
// a fresh event. As in Kafka, a try changes nothing: a follower's fetch position and time (which
// decide when it counts as caught up) are recorded when its fetch arrives
// (Partition::fetch_for_follower), so a fetch needs trying only when one of its own partitions moved.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/broker/broker_config.h"
#include "engine/broker/fetch_session.h"
#include "engine/broker/log_dir_failure.h"
#include "engine/broker/partition.h"
#include "engine/broker/purgatory.h"
#include "engine/broker/replica_fetcher.h"
#include "engine/coord/zk_client.h"
#include "engine/core/uuid.h"
#include "engine/protocol/leader_and_isr.h"
#include "engine/protocol/network_client.h"
#include "engine/protocol/stop_replica.h"

namespace gregor::broker {

class ReplicaManager final : public PartitionOwner {
 public:
  // A partition's high watermark or log moved (besides the purgatories, the group coordinator waits).
  using ProgressListener = std::function<void(const TopicPartition&)>;

  ReplicaManager(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk, protocol::NetworkClient& net);
  void set_progress_listener(ProgressListener l) { progress_listener_ = std::move(l); }
  // A transaction marker this leader appended is committed (replicated to the ISR): called once per
  // partition of a WriteTxnMarkers marker that succeeded, before it is answered. The group
  // coordinator listens, to make a transaction's pending offset commits visible (or drop them).
  using TxnMarkerListener = std::function<void(const TopicPartition&, int64_t producer_id,
                                               int16_t producer_epoch, bool committed)>;
  void set_txn_marker_listener(TxnMarkerListener l) { txn_marker_listener_ = std::move(l); }
  void on_txn_marker_committed(const TopicPartition& tp, int64_t producer_id, int16_t producer_epoch, bool committed) {
    if (txn_marker_listener_) txn_marker_listener_(tp, producer_id, producer_epoch, committed);
  }

  // Reads the high watermark checkpoint (before any partition opens), and removes the directories
  // of deleted partitions that a crash left behind (`*-delete`, as Kafka's LogManager does at start).
  void load_checkpoint();
  // Opens and checks every log on disk, finding the damaged ones (above). Before registering.
  void check_logs();
  // The replicas whose logs are damaged, for the broker's registration.
  std::vector<TopicPartition> damaged_replicas() const { return {damaged_.begin(), damaged_.end()}; }
  // Called when a replica stops being damaged (the broker rewrites its registration).
  void set_damage_listener(std::function<void()> l) { damage_listener_ = std::move(l); }
  // This incarnation's broker epoch (-1 until it has registered): a damaged replica takes
  // LeaderAndIsr's word on its damage only from a controller that read this registration.
  void set_broker_epoch_source(std::function<int64_t()> f) { broker_epoch_source_ = std::move(f); }
  // A clean shutdown (Kafka's LogManager.shutdown): every log flushed (its recovery point is its
  // end, so corruption anywhere in it is found by CRC at the next start) and the high watermarks
  // checkpointed.
  void flush_all();
  // Starts the periodic work.
  void start_ticks();

  Partition* partition(const TopicPartition& tp) { return partition(tp.topic, tp.partition); }
  // The same, without building a TopicPartition: a fetch names dozens of partitions by topic name
  // and number, and every delayed fetch looks them all up again on each try.
  Partition* partition(std::string_view topic, int32_t partition);
  // The log directory: every file of the replicas is reached through it, and it reports a storage
  // failure (engine/broker/log_dir_failure.h). Once offline, the replicas answer KAFKA_STORAGE_ERROR.
  LogDirFailureChannel& log_dir() { return disk_; }
  bool log_dir_offline() const { return disk_.offline(); }
  const std::map<TopicPartition, std::unique_ptr<Partition>>& partitions() const { return partitions_; }

  // Requests from the controller carry its epoch: false (STALE_CONTROLLER_EPOCH) for one older than
  // the newest this broker has heard from; otherwise it becomes the newest.
  bool accept_controller_epoch(int32_t controller_epoch);
  int32_t controller_epoch() const { return highest_controller_epoch_; }
  // LeaderAndIsr: reads the config of topics not hosted yet, then makes each partition of this
  // broker leader or follower; answers with one error per partition.
  void become_leader_or_follower(std::shared_ptr<const protocol::LeaderAndIsrRequest> request,
                                 std::function<void(protocol::LeaderAndIsrResponse)> done);
  // StopReplica: the partitions stop (and are deleted with their files when the request says so).
  protocol::StopReplicaResponse stop_replicas(const protocol::StopReplicaRequest& request);
  // A topic's config changed: its hosted partitions take it. False when no partition is hosted.
  bool update_topic_config(const std::string& topic, const TopicConfig& config);

  Purgatory& produce_purgatory() { return produce_purgatory_; }
  Purgatory& fetch_purgatory() { return fetch_purgatory_; }
  Purgatory& delete_records_purgatory() { return delete_records_purgatory_; }
  // The incremental fetch sessions (KIP-227) of the fetchers of this broker's leaders.
  FetchSessionCache& fetch_sessions() { return fetch_sessions_; }
  // How many times a hosted log's start offset has moved (DeleteRecords, retention, truncation):
  // the one change to a partition's fetch answer that does not mark the fetch purgatory. A delayed
  // fetch that saw no change of it and no mark of a partition answers for that partition what it
  // found when it arrived.
  uint64_t log_start_changes() const { return log_start_changes_; }
  // A follower reported a new log start offset: DeleteRecords waiting on tp try again. Nothing is
  // scheduled when none waits (so runs without DeleteRecords keep their event order).
  void on_low_watermark_change(const TopicPartition& tp);
  // Every waiting request tries again (leadership moved, a config changed), on a fresh event.
  void recheck_all_waiting();

  // PartitionOwner.
  void write_isr(Partition& p, const LeaderIsrState& new_state, int32_t expected_zk_version) override;
  void on_partition_progress(Partition& p) override;

 private:
  Partition* get_or_create_partition(const TopicPartition& tp);
  void mark_damaged(const TopicPartition& tp, const log::RecoveryReport& report);
  void clear_damage(const TopicPartition& tp, int32_t leader_epoch, const char* reason);
  ErrorCode become(const TopicPartition& tp, const Uuid& topic_id,
                   const protocol::LeaderAndIsrRequest::LeaderAndIsrPartitionState& ps, int64_t broker_epoch);
  // Topic ids (KIP-516): each partition directory holds `partition.metadata` ("version: 0\n
  // topic_id: <id>\n") naming the topic incarnation its data belongs to. A LeaderAndIsr for another
  // id (the topic was deleted while this broker was away, and made again) retires the old data
  // before the partition opens.
  std::optional<Uuid> stored_topic_id(const TopicPartition& tp);
  void store_topic_id(const TopicPartition& tp, const Uuid& topic_id);
  // Stops a hosted partition and retires its directory: Kafka's LogManager.asyncDelete renames it
  // `<topic>-<partition>.<random id>-delete` at once (a new incarnation of the topic starts empty)
  // and removes it file.delete.delay.ms later.
  void delete_partition(const TopicPartition& tp);
  void retire_log_dir(const TopicPartition& tp);
  void schedule_waiting_check();
  void checkpoint_high_watermarks();  // the periodic tick
  // Writes every hosted partition's HW to the checkpoint file (remembering the ones written).
  void write_high_watermarks();
  void shrink_isr_tick();
  void retention_tick();

  Runtime& rt_;
  const BrokerConfig& config_;
  coord::ZkClient& zk_;
  LogDirFailureChannel disk_;  // before the partitions: their logs hold a reference to it
  ReplicaFetcher fetcher_;
  std::map<TopicPartition, std::unique_ptr<Partition>> partitions_;
  // partitions_ by topic, then by partition number: for lookups only (never iterated, so its
  // order cannot reach the trace). A hash and an index instead of a walk down a tree of
  // topic-name comparisons.
  struct TopicNameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::vector<Partition*>, TopicNameHash, std::equal_to<>> index_;
  std::map<std::string, TopicConfig> topic_configs_;  // broker defaults + /config/topics/T
  std::map<TopicPartition, int64_t> checkpointed_hw_;
  std::map<TopicPartition, Uuid> topic_ids_;  // of the hosted partitions whose incarnation is known
  int32_t highest_controller_epoch_ = 0;
  Purgatory produce_purgatory_;
  Purgatory fetch_purgatory_;
  Purgatory delete_records_purgatory_;
  FetchSessionCache fetch_sessions_;
  bool waiting_check_scheduled_ = false;
  uint64_t log_start_changes_ = 0;
  ProgressListener progress_listener_;
  TxnMarkerListener txn_marker_listener_;
  std::set<TopicPartition> damaged_;
  // Damage found after this broker registered (a log opened at its first LeaderAndIsr, corrupted
  // after the startup check): the registration is rewritten to report it, and until a controller
  // has acted on that (a leader epoch above the one of the request that found it; -1 while not yet
  // seen) no request makes the replica a leader.
  std::map<TopicPartition, int32_t> late_damage_;
  std::function<void()> damage_listener_;
  std::function<int64_t()> broker_epoch_source_;
};

}  // namespace gregor::broker
