// DashboardModel: the snapshot the dashboard draws, and nothing else. A plain struct, computed from
// trace events (ModelBuilder) at one virtual time, so the views never touch the simulator and the
// same views serve a live run and a replayed trace. Tests check it against the simulator's state.
//
// Vocabulary is Kafka's: LEO (log end offset), HW (high watermark), ISR, leader epoch, preferred
// leader, under-replicated / under-min-ISR / offline partitions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/types.h"
#include "sim/check/cluster_model.h"

namespace gregor::gui {

enum class NodeKind { kBroker, kZk, kClient };
// As the cluster model has it (sim/check/cluster_model.h).
using NodeStatus = sim::NodeStatus;

// Kafka's internal topics (__consumer_offsets, __transaction_state) start with two underscores.
// The dashboard lists them after the user's topics and folds them away by default: in a run with
// a consumer group, __consumer_offsets' 50 partitions would otherwise drown the story's one.
bool is_internal_topic(const std::string& topic);

const char* node_kind_name(NodeKind k);
const char* node_status_name(NodeStatus s);
// Brokers are 1..1000, zk servers 1001..2000, clients from 2001 (sim/cluster.h).
NodeKind node_kind_of(int32_t id);

struct NodeModel {
  int32_t id = 0;
  std::string name;
  NodeKind kind = NodeKind::kBroker;
  NodeStatus status = NodeStatus::kAlive;
  bool controller = false;   // the active controller (brokers)
  bool registered = false;   // /brokers/ids/N exists (brokers)
  int cut_links = 0;         // directed links from or to this node that are cut
  bool isolated = false;     // every link to every other node is cut
  uint64_t incarnation = 0;  // 1 at first start, +1 per restart
  int32_t leaderships = 0;   // partitions this broker leads (as the controller last wrote it)
};

// Both directions between a pair of nodes (a < b).
struct LinkModel {
  int32_t a = 0, b = 0;
  bool cut_ab = false, cut_ba = false;
  // Messages seen on the link in the recent traffic window, by kind.
  int fetch = 0, produce = 0, control = 0;
};

enum class TrafficKind { kFetch, kProduce, kControl, kZk, kError };
const char* traffic_kind_name(TrafficKind k);

// A message on its way, as a dot at `progress` (0 at the sender, 1 at the receiver).
struct MessageDot {
  int32_t from = 0, to = 0;
  TrafficKind kind = TrafficKind::kFetch;
  float progress = 0;
};

// Offsets [start, end) of one replica's log written in one leader epoch.
struct EpochRun {
  int64_t start = 0, end = 0;
  int32_t epoch = 0;
};

struct ReplicaRowModel {
  int32_t broker = -1;
  bool alive = true;        // the broker process runs (not crashed or powered off)
  bool paused = false;
  bool leader = false;      // the partition's leader as the controller last wrote it
  bool acting_leader = false;  // the replica itself believes it leads (a zombie leader can)
  bool in_isr = false;
  bool has_log = false;     // the replica opened its log (it exists on this broker)
  int32_t leader_epoch = -1;  // the epoch this replica last accepted
  int64_t log_start = 0, leo = 0, hw = 0;
  std::vector<EpochRun> runs;  // the log, merged by epoch, oldest first
  int64_t lag = 0;             // the leader's LEO minus this LEO (followers)
  // How long since the follower last had the leader's LEO: 0 caught up, -1 never.
  int64_t since_caught_up_ms = 0;
  // The last stable offset as this replica would compute it (Kafka's UnifiedLog.lastStableOffset):
  // its HW, or the first offset of a transaction still open on the partition if that is lower.
  int64_t lso = 0;
  // Transaction markers (control batches) and aborted transactions' data batches this replica's
  // log holds (the same batch as the leader wrote: same base offset and CRC), oldest first.
  std::vector<int64_t> commit_markers, abort_markers;
  std::vector<EpochRun> aborted;  // [start, end) of aborted data batches (epoch unused)
};

// A transaction marker a leader appended (txn_marker_append): a control batch of one offset.
struct TxnMarkerModel {
  int64_t offset = 0;
  bool commit = true;
  int64_t producer_id = -1;
  int32_t producer_epoch = -1;
  int64_t lso = -1;  // the leader's LSO right after it, as the event says
  Time at{0};
};

struct PartitionModel {
  std::string topic;
  int32_t partition = 0;
  bool internal = false;  // an internal topic (is_internal_topic)
  int32_t leader = -1;  // -1: none (offline)
  int32_t leader_epoch = -1;
  std::vector<int32_t> replicas;  // in preference order (the first is the preferred leader)
  // Under reassignment (KIP-455): replicas holds the target's and the original's; these are being
  // added (catching up) and removed (once the added ones are in sync). Both empty otherwise.
  std::vector<int32_t> adding;
  std::vector<int32_t> removing;
  std::vector<int32_t> isr;
  int32_t preferred_leader = -1;
  bool leader_alive = false;
  int64_t hw = 0, leo = 0;  // the leader's
  int32_t min_insync_replicas = 1;
  bool unclean_leader_election = false;
  bool under_replicated = false;  // ISR smaller than the replicas
  bool under_min_isr = false;     // ISR smaller than min.insync.replicas
  bool at_min_isr = false;
  bool offline = false;           // no leader, or a leader that is down
  int32_t leader_changes = 0, isr_changes = 0;
  std::vector<ReplicaRowModel> rows;  // in replica order
  // Transactions (KIP-98). The leader's last stable offset: read_committed consumers read below it.
  // Equal to the HW unless a transaction is open on the partition; then its first offset.
  int64_t lso = 0;
  // The producers with a transaction open here, each with its first offset (what holds the LSO).
  std::vector<std::pair<int64_t, int64_t>> open_txns;  // (producer id, first offset), by first offset
  int64_t commit_markers = 0, abort_markers = 0;  // appended so far
};

// A transactional producer's transaction as its coordinator records it (txn_state_change), and
// what the producer instances behind the transactional.id saw (txn_begin, txn_commit, txn_abort).
struct TxnStateSpan {
  Time from{0};
  std::string state;  // Kafka's: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, ...
  int32_t producer_epoch = -1;
};

struct TxnClientModel {
  int32_t client = -1;
  int64_t producer_id = -1;
  int32_t epoch = -1;
  std::string last;     // "begin", "commit", "abort"
  std::string outcome;  // NONE, or the error its last EndTxn failed with (PRODUCER_FENCED, ...)
  // Fenced: its EndTxn failed with PRODUCER_FENCED (or INVALID_PRODUCER_EPOCH), or another
  // instance holds a newer epoch of the same producer id (a zombie: its next request is refused).
  bool fenced = false;
  Time at{0};
};

struct TransactionModel {
  std::string transactional_id;
  int64_t producer_id = -1;
  int32_t producer_epoch = -1;
  std::string state = "Empty";
  std::vector<std::string> partitions;  // of the current (or last) transaction: "orders-0", ...
  int32_t coordinator = -1;             // the broker whose txn_state_change said so last
  Time since{0};                        // when the state was entered
  int64_t commits = 0, aborts = 0;      // transactions completed (CompleteCommit / CompleteAbort)
  std::vector<TxnStateSpan> history;    // state changes, oldest first (the latest few hundred)
  std::vector<TxnClientModel> clients;  // producer instances with this transactional.id, by node
};

// kafka-consumer-groups --describe, one row per partition a group consumes.
struct GroupOffsetModel {
  std::string topic;
  int32_t partition = 0;
  int64_t committed = -1;  // CURRENT-OFFSET; -1 shown as "-"
  int64_t log_end = -1;    // LOG-END-OFFSET (the partition's HW: what a consumer can read)
  int64_t lag = -1;
  std::string member;      // CONSUMER-ID
  int32_t client = -1;     // the consuming node
};

struct GroupMemberModel {
  std::string member_id;
  int32_t client = -1;
  std::string client_name;
  std::vector<std::string> assignment;  // "orders-0", ...
};

// A group coordinated through ZooKeeper (groups[].coordination: zookeeper: Kafka 0.8's high-level
// consumer, engine/client/zk_group_consumer.h). It has no coordinator broker and no generation: its
// state is the znodes under /consumers/<group> and what each member does on its own. All of it is
// derived from the zk server's zk_create/zk_set/zk_delete on that directory, zk_session_expire/close,
// zk_watch_fire on ids/, zk_refused on owners/, and the members' consumer_rejoin_needed,
// consumer_position, consumer_join and consumer_assignment (protocol zookeeper-range),
// consumer_revoke, consumer_group_error and consume (gui/model_zk_group.cpp).
struct ZkGroupMemberModel {
  std::string member_id;               // the name of ids/<member> (the consumer's client.id)
  int32_t client = -1;                 // its node
  int64_t session = 0;                 // the zk session that created ids/<member> last (0: never)
  std::string session_state = "none";  // that session on the server: open, expired, closed (none: never registered)
  bool registered = false;             // ids/<member> exists now
  bool alive = true;                   // its process runs
  bool rebalancing = false;            // between consumer_rejoin_needed and its consumer_join (or failure)
  std::vector<std::string> owned;      // partitions whose owners/ znode holds its id now ("orders-0", ...)
  // What it fetches and processes as its own: its last successful claim, less what it released. Outlives
  // its session: a member whose session expired goes on consuming until its next rebalance (stale).
  std::vector<std::string> believed;
  bool stale = false;                  // it believes it owns partitions whose owner znode is not its own
  int64_t rebalances = 0;              // rebalances it completed (consumer_join)
  int64_t failed = 0;                  // ConsumerRebalanceFailedException
  int32_t last_attempts = 0;           // attempts its last completed rebalance took (1: no retry)
  int64_t consumed = 0;                // records it processed (consume)
};

struct ZkGroupPartitionModel {
  std::string topic;
  int32_t partition = 0;
  std::string owner;         // owners/<topic>/<partition>'s data, a member id ("" when unowned)
  int32_t owner_client = -1;
  int64_t committed = -1;    // offsets/<topic>/<partition>, the next offset to consume (-1: none yet)
  int64_t log_end = -1;      // the partition's HW, as for a coordinator group
  int64_t lag = -1;          // log_end - committed
  // Members that believe they own it, each with its consumed position (the offset after the last record
  // it processed there; -1 when it has processed none since its claim).
  std::vector<std::pair<std::string, int64_t>> consumers;
  bool conflict = false;     // two or more members believe they own it
  int64_t duplicates = 0;    // records of it the group processed again (an offset at or below one already processed)
};

// One rebalance of the group: from the first member's consumer_rejoin_needed while none was
// rebalancing until every member that joined it (and still runs) finished.
struct ZkRebalanceModel {
  Time start{0}, end{0};
  bool open = true;             // not finished yet (at the snapshot's time)
  std::string trigger;          // the first member's reason: registered, members changed, zk session expired
  std::string first_member;
  int32_t members = 0;          // members that rebalanced in it (each on its own)
  int64_t watches_fired = 0;    // zk_watch_fire on /consumers/<group>/ids that led to it or came during it
  int64_t retries = 0;          // attempts beyond each member's first
  int64_t conflicts = 0;        // claims refused with NodeExists (zk_refused on owners/)
  int64_t failed = 0;           // members that gave up (ConsumerRebalanceFailedException)
};

struct ZkGroupModel {
  std::vector<ZkGroupMemberModel> members;        // by member id
  std::vector<ZkGroupPartitionModel> partitions;  // by (topic, partition)
  std::vector<ZkRebalanceModel> rebalances;       // oldest first (the latest kZkRebalancesMax)
  int64_t rebalance_count = 0;                    // over the whole run
  int64_t member_rebalances = 0;                  // summed over members (the herd: about members x rebalances)
  int64_t retries = 0, conflicts = 0, failed = 0;
  int64_t watches_fired = 0;                      // on /consumers/<group>/ids
  int64_t duplicates = 0;
  int conflicting_partitions = 0;                 // now
  const ZkGroupMemberModel* member(const std::string& id) const;
  const ZkGroupPartitionModel* partition(const std::string& topic, int32_t p) const;
};

struct GroupModel {
  std::string group;
  // "coordinator" (the group coordinator of Kafka 0.9 and later) or "zookeeper" (Kafka 0.8's).
  std::string coordination = "coordinator";
  ZkGroupModel zk;  // filled for coordination "zookeeper"
  std::string state = "Unknown";  // Empty, PreparingRebalance, CompletingRebalance, Stable, Dead
  int32_t generation = -1;
  int32_t coordinator = -1;
  std::vector<GroupMemberModel> members;
  std::vector<GroupOffsetModel> offsets;
  int64_t total_lag = 0;
  int64_t consumed = 0;
};

// Kafka's broker metrics, cluster-wide.
struct HealthModel {
  int under_replicated = 0;   // UnderReplicatedPartitions
  int under_min_isr = 0;      // UnderMinIsrPartitionCount
  int offline = 0;            // OfflinePartitionsCount
  // The part of each count above that is internal topics' partitions (__consumer_offsets).
  int internal_under_replicated = 0, internal_under_min_isr = 0, internal_offline = 0;
  int active_controllers = 0; // ActiveControllerCount (summed)
  int brokers_alive = 0, brokers_total = 0;
  int64_t isr_shrinks = 0, isr_expands = 0;
  int64_t leader_elections = 0, unclean_elections = 0;
  // The part of the counters above that is internal topics' partitions.
  int64_t internal_isr_shrinks = 0, internal_isr_expands = 0, internal_leader_elections = 0;
  int64_t produce_acked = 0;     // batches acknowledged to producers
  int64_t produce_errors = 0;    // failed produce attempts seen by producers
  int64_t produce_rejected = 0;  // partition errors at leaders (NOT_ENOUGH_REPLICAS, ...)
  std::string last_produce_error;
};

// The coordination service as its trace tells it (the zk_* events of one zk server): the znode
// tree, the sessions and which node holds each, and the latest activity, so that a viewer sees who
// wrote what (the controller's election multi, a leader's conditional ISR write, a refused one)
// and which watches fired.
struct ZnodeModel {
  std::string path;
  std::string data;              // as the trace carries it: the text, or "<N bytes>"
  int32_t version = 0;
  int32_t cversion = 0;
  int64_t ephemeral_owner = 0;   // the owning session; 0 for a persistent znode
  int32_t owner_node = -1;       // the node holding that session, when known
  int64_t czxid = 0, mzxid = 0;  // 0 when restored from a snapshot (recovery tells no zxids)
  int32_t created_by = -1;       // the node whose request created it (-1: unknown, or the server)
  int32_t written_by = -1;       // the node whose request last changed it
  Time modified{0};              // when it was created or last changed
};

struct ZkSessionModel {
  int64_t session = 0;
  int32_t node = -1;            // the client node that holds it (from its zk_client_state)
  std::string state;            // "open" / "expired" / "closed" on the server; the client's view after "/"
  int32_t timeout_ms = 0;
  int ephemerals = 0;           // znodes it owns now
};

struct ZkActivityModel {
  Time at{0};
  int32_t node = -1;            // who: the writer, the watcher (watch), the session's node
  std::string what;             // create, set, delete, refused, watch, session
  std::string path;
  std::string detail;           // data, version, event type, error...
  int64_t zxid = 0;             // a txn's (the ops of one multi share it)
};

// One server of a replicated ensemble (cluster.zookeeper: 3 or 5), from zk_election, zk_leader,
// zk_follow, zk_sync and zk_commit and the node's status.
struct ZkRoleSpan {
  Time from{0};
  std::string role;  // looking, leading, following, down
  int64_t epoch = 0;
};

struct ZkServerModel {
  int32_t id = -1;
  NodeStatus status = NodeStatus::kAlive;
  std::string role = "unknown";  // looking, leading, following, down (unknown: no ensemble event yet)
  int64_t epoch = 0;             // its current epoch
  int64_t zxid = 0;              // its last logged or applied zxid (ZooKeeper: epoch << 32 | counter)
  int32_t leader = -1;           // the leader it follows (or itself when leading)
  int64_t election_round = 0;
  int64_t elections = 0;         // zk_election events (times it went looking)
  int32_t sessions = 0;          // clients connected to it now (zk_client_state connected)
  std::string last_sync;         // the latest zk_sync it took part in: "diff 0x..->0x.." / "snap ..."
  std::vector<ZkRoleSpan> spans; // its role over time, oldest first
};

struct ZkModel {
  // The ensemble (empty when the run has one zk server, which emits no election events).
  std::vector<ZkServerModel> ensemble;  // by id
  int32_t ensemble_leader = -1;         // the server that last said zk_leader and is still leading
  int64_t ensemble_epoch = 0;
  int64_t last_commit_zxid = 0;         // the leader's last zk_commit
  std::vector<int32_t> last_commit_acks;
  const ZkServerModel* server_model(int32_t id) const;

  int32_t server = -1;          // the zk server whose tree this is (the lowest id that emitted)
  std::vector<ZnodeModel> znodes;         // sorted by path: a parent before its children
  std::vector<ZkSessionModel> sessions;   // by session id
  std::vector<ZkActivityModel> activity;  // the latest, oldest first
  int64_t last_zxid = 0;
  int64_t watches_fired = 0, refused = 0;

  const ZnodeModel* znode(const std::string& path) const;
};

enum class VerdictState { kPending, kPass, kFail };

struct VerdictModel {
  std::string checker;
  std::string description;
  VerdictState state = VerdictState::kPending;
  Time at{0};
  std::string message;
};

struct DashboardModel {
  Time now{0};
  int32_t controller = -1;
  int32_t controller_epoch = 0;
  std::vector<NodeModel> nodes;        // by id
  std::vector<LinkModel> links;        // by (a, b)
  std::vector<MessageDot> dots;
  // The user's topics by (topic, partition), then the internal topics by (topic, partition).
  std::vector<PartitionModel> partitions;
  std::vector<GroupModel> groups;          // by name
  HealthModel health;
  std::map<std::string, std::map<std::string, std::string>> topic_configs;  // non-default, per topic
  std::vector<VerdictModel> verdicts;
  ZkModel zk;
  std::vector<TransactionModel> transactions;  // by transactional.id

  const NodeModel* node(int32_t id) const;
  const TransactionModel* transaction(const std::string& transactional_id) const;
  const PartitionModel* partition(const std::string& topic, int32_t p) const;
  // The partition a view shows first: the first user topic's first partition (orders-0), or the
  // first partition of all when there are only internal topics; null when there is none.
  const PartitionModel* default_partition() const;
  int internal_partitions() const;
  const GroupModel* group(const std::string& name) const;
};

}  // namespace gregor::gui
