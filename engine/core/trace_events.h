// Every kind of trace event, one struct each: the vocabulary of a run (docs/trace-events.md says
// what each means). A node emits one with Runtime::emit(ev::HwAdvance{...}); the runtime stamps the
// time and the node (engine/core/trace_event.h). Fields are typed (ids, epochs, offsets, lists):
// nothing is formatted on the hot path, and text or JSON is made only where a person or SQLite
// reads the trace. Checkers, scenario targets and the dashboard read the fields directly.
//
// Adding a kind: a struct here (GREGOR_TRACE_EVENT, members, GREGOR_TRACE_FIELDS), its name in
// TraceBody below, a row in docs/trace-events.md (a test checks that every kind is documented).
// A field's name is its member's name; the order of GREGOR_TRACE_FIELDS is the order of the
// fingerprint encoding, of the JSON object and of to_string().
#pragma once

#include <variant>

#include "engine/core/trace_fields.h"

namespace gregor {

// A field of a Generic event: an integer or a string under a key.
struct TraceField {
  std::string key;
  std::variant<int64_t, std::string> value;

  TraceField(std::string k, int64_t v) : key(std::move(k)), value(v) {}
  TraceField(std::string k, int32_t v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  TraceField(std::string k, uint32_t v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  TraceField(std::string k, uint64_t v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  TraceField(std::string k, bool v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  TraceField(std::string k, std::string v) : key(std::move(k)), value(std::move(v)) {}
  TraceField(std::string k, const char* v) : key(std::move(k)), value(std::string(v)) {}
  bool operator==(const TraceField&) const = default;
};

namespace ev {

// An event of no kind below: what tests and tools emit for themselves, and what reading a trace
// file makes of a kind this build does not know. Engine code never emits one.
struct Generic {
  std::string kind;
  std::vector<TraceField> fields;
  friend bool operator==(const Generic&, const Generic&) = default;
};

// ---- The world (node 0): the faults and lifecycle changes the simulator injects ---------------

struct NodeStart {
  GREGOR_TRACE_EVENT(NodeStart, "node_start");
  int32_t target = 0;
  std::string name;
  int64_t incarnation = 0;
  GREGOR_TRACE_FIELDS(target, name, incarnation)
};
struct NodeRestart {
  GREGOR_TRACE_EVENT(NodeRestart, "node_restart");
  int32_t target = 0;
  std::string name;
  int64_t incarnation = 0;
  GREGOR_TRACE_FIELDS(target, name, incarnation)
};
struct NodeCrash {
  GREGOR_TRACE_EVENT(NodeCrash, "node_crash");
  int32_t target = 0;
  std::string name;
  GREGOR_TRACE_FIELDS(target, name)
};
struct NodePause {
  GREGOR_TRACE_EVENT(NodePause, "node_pause");
  int32_t target = 0;
  std::string name;
  GREGOR_TRACE_FIELDS(target, name)
};
struct NodeResume {
  GREGOR_TRACE_EVENT(NodeResume, "node_resume");
  int32_t target = 0;
  std::string name;
  GREGOR_TRACE_FIELDS(target, name)
};
struct PowerLoss {
  GREGOR_TRACE_EVENT(PowerLoss, "power_loss");
  int32_t target = 0;
  std::string name;
  int64_t unsynced_bytes = 0;
  GREGOR_TRACE_FIELDS(target, name, unsynced_bytes)
};
struct Partition {
  GREGOR_TRACE_EVENT(Partition, "partition");
  IntList from;
  IntList to;
  bool both_ways = true;
  GREGOR_TRACE_FIELDS(from, to, both_ways)
};
struct Heal {
  GREGOR_TRACE_EVENT(Heal, "heal");
  IntList from;
  IntList to;
  bool both_ways = true;
  GREGOR_TRACE_FIELDS(from, to, both_ways)
};
struct HealAll {
  GREGOR_TRACE_EVENT(HealAll, "heal_all");
  GREGOR_TRACE_NO_FIELDS()
};
struct Clog {
  GREGOR_TRACE_EVENT(Clog, "clog");
  int32_t from = 0;
  int32_t to = 0;
  int64_t duration_us = 0;
  GREGOR_TRACE_FIELDS(from, to, duration_us)
};
struct Latency {
  GREGOR_TRACE_EVENT(Latency, "latency");
  int32_t from = 0;
  int32_t to = 0;
  int64_t base_us = 0;
  int64_t jitter_us = 0;
  GREGOR_TRACE_FIELDS(from, to, base_us, jitter_us)
};
struct DiskCorrupt {
  GREGOR_TRACE_EVENT(DiskCorrupt, "disk_corrupt");
  int32_t target = 0;
  std::string path;
  int64_t position = 0;
  GREGOR_TRACE_FIELDS(target, path, position)
};
struct DiskCapacity {
  GREGOR_TRACE_EVENT(DiskCapacity, "disk_capacity");
  int32_t target = 0;
  int64_t bytes = 0;
  GREGOR_TRACE_FIELDS(target, bytes)
};
// The disk's writes fail with an I/O error (EIO): the next `writes` of them, every one when -1,
// none any more when 0.
struct DiskIoError {
  GREGOR_TRACE_EVENT(DiskIoError, "disk_io_error");
  int32_t target = 0;
  int64_t writes = 0;
  GREGOR_TRACE_FIELDS(target, writes)
};
// The scenario runner's own lines (sim/scenario).
struct ScenarioReady {
  GREGOR_TRACE_EVENT(ScenarioReady, "scenario_ready");
  std::string what;
  GREGOR_TRACE_FIELDS(what)
};
struct ScenarioFault {
  GREGOR_TRACE_EVENT(ScenarioFault, "scenario_fault");
  std::string fault;
  std::string hit;
  GREGOR_TRACE_FIELDS(fault, hit)
};

// A message fault (scenario `intercept:`) acted on one request or response.
struct MessageIntercept {
  GREGOR_TRACE_EVENT(MessageIntercept, "message_intercept");
  std::string api;  // Kafka's name of the API: Produce, Fetch, LeaderAndIsr, ...
  std::string side;  // request, response
  int32_t from = 0;
  int32_t to = 0;
  int32_t correlation_id = 0;
  std::string action;  // drop, delay, hold
  int64_t delay_us = 0;
  GREGOR_TRACE_FIELDS(api, side, from, to, correlation_id, action, delay_us)
};

// ---- Brokers: the process, zk registration, the controller ------------------------------------

struct BrokerStart {
  GREGOR_TRACE_EVENT(BrokerStart, "broker_start");
  int32_t broker = 0;
  GREGOR_TRACE_FIELDS(broker)
};
struct BrokerRegister {
  GREGOR_TRACE_EVENT(BrokerRegister, "broker_register");
  int32_t broker = 0;
  GREGOR_TRACE_FIELDS(broker)
};
struct BrokerSessionExpired {
  GREGOR_TRACE_EVENT(BrokerSessionExpired, "broker_session_expired");
  int32_t broker = 0;
  GREGOR_TRACE_FIELDS(broker)
};
// The broker's log directory failed (a full disk or an I/O error: engine/broker/log_dir_failure.h):
// its replicas answer KAFKA_STORAGE_ERROR, and, as it was its only log directory, the broker closes
// its zk session and halts.
struct LogDirFailure {
  GREGOR_TRACE_EVENT(LogDirFailure, "log_dir_failure");
  int32_t broker = 0;
  std::string log_dir;
  std::string operation;  // create, append, truncate, fsync, rename, read
  std::string path;       // the file, relative to the log directory
  std::string error;      // DiskFull or IoError, with the disk's message
  GREGOR_TRACE_FIELDS(broker, log_dir, operation, path, error)
};
struct ControllerElected {
  GREGOR_TRACE_EVENT(ControllerElected, "controller_elected");
  int32_t broker = 0;
  int32_t controller_epoch = 0;
  GREGOR_TRACE_FIELDS(broker, controller_epoch)
};
struct ControllerResigned {
  GREGOR_TRACE_EVENT(ControllerResigned, "controller_resigned");
  int32_t broker = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(broker, reason)
};
struct BrokerChange {
  GREGOR_TRACE_EVENT(BrokerChange, "broker_change");
  IntList live;
  IntList dead;
  IntList added;
  GREGOR_TRACE_FIELDS(live, dead, added)
};
// The controller wrote a new leader (leader_change) or found none (partition_offline, leader -1).
struct LeaderChange {
  GREGOR_TRACE_EVENT(LeaderChange, "leader_change");
  std::string topic;
  int32_t partition = 0;
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  IntList isr;
  int32_t controller_epoch = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(topic, partition, leader, leader_epoch, isr, controller_epoch, reason)
};
struct PartitionOffline {
  GREGOR_TRACE_EVENT(PartitionOffline, "partition_offline");
  std::string topic;
  int32_t partition = 0;
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  IntList isr;
  int32_t controller_epoch = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(topic, partition, leader, leader_epoch, isr, controller_epoch, reason)
};
struct TopicCreated {
  GREGOR_TRACE_EVENT(TopicCreated, "topic_created");
  std::string topic;
  int64_t partitions = 0;
  // Each partition's replicas, in preference order. Absent only in traces recorded before the
  // field existed.
  std::optional<ReplicaAssignment> replicas;
  GREGOR_TRACE_FIELDS(topic, partitions, replicas)
};
// CreatePartitions grew a topic: the controller read its new assignment.
struct PartitionsAdded {
  GREGOR_TRACE_EVENT(PartitionsAdded, "partitions_added");
  std::string topic;
  int64_t partitions_before = 0;
  int64_t partitions = 0;
  GREGOR_TRACE_FIELDS(topic, partitions_before, partitions)
};
// Partition reassignment (KIP-455, the controller's steps). Started: the assignment znode lists
// `replicas` (the target's, then the original's) with the ones being added and removed, and every
// replica got LeaderAndIsr with a new leader epoch; the added ones start as followers and catch up.
struct ReassignmentStarted {
  GREGOR_TRACE_EVENT(ReassignmentStarted, "reassignment_started");
  std::string topic;
  int32_t partition = 0;
  IntList target;
  IntList replicas;
  IntList adding;
  IntList removing;
  GREGOR_TRACE_FIELDS(topic, partition, target, replicas, adding, removing)
};
// Every target replica joined the ISR: the leader moved to a target replica if it was being removed
// (leader_change, reason reassignment), the removed ones left the ISR and got StopReplica with
// delete, and the znode holds the target alone.
struct ReassignmentCompleted {
  GREGOR_TRACE_EVENT(ReassignmentCompleted, "reassignment_completed");
  std::string topic;
  int32_t partition = 0;
  IntList replicas;
  IntList removed;
  GREGOR_TRACE_FIELDS(topic, partition, replicas, removed)
};
// AlterPartitionReassignments with null replicas: the partition went back to its original replicas;
// the ones that were being added got StopReplica with delete.
struct ReassignmentCancelled {
  GREGOR_TRACE_EVENT(ReassignmentCancelled, "reassignment_cancelled");
  std::string topic;
  int32_t partition = 0;
  IntList replicas;
  IntList removed;
  GREGOR_TRACE_FIELDS(topic, partition, replicas, removed)
};
struct TopicDeleted {
  GREGOR_TRACE_EVENT(TopicDeleted, "topic_deleted");
  std::string topic;
  GREGOR_TRACE_FIELDS(topic)
};
struct ControlledShutdown {
  GREGOR_TRACE_EVENT(ControlledShutdown, "controlled_shutdown");
  int32_t broker = 0;
  GREGOR_TRACE_FIELDS(broker)
};
struct ControlledShutdownComplete {
  GREGOR_TRACE_EVENT(ControlledShutdownComplete, "controlled_shutdown_complete");
  int32_t broker = 0;
  GREGOR_TRACE_FIELDS(broker)
};
struct StaleControllerRequest {
  GREGOR_TRACE_EVENT(StaleControllerRequest, "stale_controller_request");
  std::string api;
  int32_t controller_epoch = 0;
  int32_t known_epoch = 0;
  GREGOR_TRACE_FIELDS(api, controller_epoch, known_epoch)
};
struct ControllerRequestRefused {
  GREGOR_TRACE_EVENT(ControllerRequestRefused, "controller_request_refused");
  std::string api;
  std::string listener;  // the listener it came on
  GREGOR_TRACE_FIELDS(api, listener)
};
struct AuthorizationDenied {
  GREGOR_TRACE_EVENT(AuthorizationDenied, "authorization_denied");
  std::string api;
  std::string principal;      // User:<name>
  std::string host;           // the client's address ("" in the simulator)
  std::string operation;      // Kafka's AclOperation name: Read, Write, Describe, ClusterAction, ...
  std::string resource_type;  // Topic, Group, Cluster, TransactionalId
  std::string resource;       // its name (kafka-cluster for the cluster)
  GREGOR_TRACE_FIELDS(api, principal, host, operation, resource_type, resource)
};
struct AclChange {
  GREGOR_TRACE_EVENT(AclChange, "acl_change");
  std::string resource;  // Topic:LITERAL:orders, as the change notification names it
  int32_t acls = 0;      // the bindings the broker's cache now holds for it
  GREGOR_TRACE_FIELDS(resource, acls)
};
struct StaleBrokerEpoch {
  GREGOR_TRACE_EVENT(StaleBrokerEpoch, "stale_broker_epoch");
  std::string api;
  int64_t broker_epoch = 0;  // in the request
  int64_t known_epoch = 0;   // this broker's: the czxid of its registration
  GREGOR_TRACE_FIELDS(api, broker_epoch, known_epoch)
};
struct TopicConfigChange {
  GREGOR_TRACE_EVENT(TopicConfigChange, "topic_config_change");
  int32_t broker = 0;
  std::string topic;
  std::string config;  // the topic's overrides, "k=v,k2=v2"
  GREGOR_TRACE_FIELDS(broker, topic, config)
};
struct ProducerIdBlock {
  GREGOR_TRACE_EVENT(ProducerIdBlock, "producer_id_block");
  int32_t broker = 0;
  int64_t block_start = 0;
  int64_t block_end = 0;
  GREGOR_TRACE_FIELDS(broker, block_start, block_end)
};
struct ProducerIdAssigned {
  GREGOR_TRACE_EVENT(ProducerIdAssigned, "producer_id_assigned");
  int64_t producer_id = 0;
  int32_t producer_epoch = 0;
  GREGOR_TRACE_FIELDS(producer_id, producer_epoch)
};

// ---- Brokers: replicas, logs, the ISR ----------------------------------------------------------

struct LogOpen {
  GREGOR_TRACE_EVENT(LogOpen, "log_open");
  std::string topic;
  int32_t partition = 0;
  int64_t leo = 0;
  int64_t log_start = 0;
  GREGOR_TRACE_FIELDS(topic, partition, leo, log_start)
};
struct LogError {
  GREGOR_TRACE_EVENT(LogError, "log_error");
  std::string topic;
  int32_t partition = 0;
  std::string error;
  GREGOR_TRACE_FIELDS(topic, partition, error)
};
// A replica's log lost data that was flushed or may have been acknowledged (corruption found by CRC
// below the recovery point, or a bad batch in the middle of the log): it kept the batches before
// the bad one and may not lead until the controller has taken it out of the ISR.
struct ReplicaDamaged {
  GREGOR_TRACE_EVENT(ReplicaDamaged, "replica_damaged");
  std::string topic;
  int32_t partition = 0;
  int64_t leo = 0;             // where the log now ends
  int64_t recovery_point = 0;  // below it everything had been flushed
  std::string detail;          // the file, the byte and what was wrong
  GREGOR_TRACE_FIELDS(topic, partition, leo, recovery_point, detail)
};
// The damaged replica is out of the ISR (it catches up as a follower and the leader adds it back),
// or it was elected uncleanly: it is an ordinary replica again.
struct ReplicaDamageCleared {
  GREGOR_TRACE_EVENT(ReplicaDamageCleared, "replica_damage_cleared");
  std::string topic;
  int32_t partition = 0;
  int32_t leader_epoch = 0;
  std::string reason;  // out_of_isr, unclean_leader
  GREGOR_TRACE_FIELDS(topic, partition, leader_epoch, reason)
};
// LeaderAndIsr made a damaged replica a clean leader (a controller that did not know): refused
// with KAFKA_STORAGE_ERROR.
struct DamagedLeaderRefused {
  GREGOR_TRACE_EVENT(DamagedLeaderRefused, "damaged_leader_refused");
  std::string topic;
  int32_t partition = 0;
  int32_t leader_epoch = 0;
  IntList isr;
  GREGOR_TRACE_FIELDS(topic, partition, leader_epoch, isr)
};
struct LogAppend {
  GREGOR_TRACE_EVENT(LogAppend, "log_append");
  std::string topic;
  int32_t partition = 0;
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  int32_t epoch = 0;
  int64_t crc = 0;
  std::string role;  // leader, follower
  GREGOR_TRACE_FIELDS(topic, partition, base_offset, last_offset, epoch, crc, role)
};
// The leader stored a produced batch other than as the producer sent it (Kafka's LogValidator):
// recompressed for the topic's compression.type, stamped under message.timestamp.type=LogAppendTime,
// its max timestamp recomputed, or converted from magic 0/1. `crc` is the stored batch's (as in the
// log_append before it), `producer_crc` the one the producer sent and was acknowledged for; both
// stand for the same records.
struct BatchRewritten {
  GREGOR_TRACE_EVENT(BatchRewritten, "batch_rewritten");
  std::string topic;
  int32_t partition = 0;
  int64_t base_offset = 0;
  int64_t crc = 0;
  int64_t producer_crc = 0;
  std::string reason;  // recompressed, log_append_time, max_timestamp, converted
  GREGOR_TRACE_FIELDS(topic, partition, base_offset, crc, producer_crc, reason)
};
struct LogTruncate {
  GREGOR_TRACE_EVENT(LogTruncate, "log_truncate");
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t old_leo = 0;
  std::string reason;
  std::optional<bool> full;  // present (true) when the whole log went (truncate_fully_and_start_at)
  GREGOR_TRACE_FIELDS(topic, partition, offset, old_leo, reason, full)
};
struct LogRetention {
  GREGOR_TRACE_EVENT(LogRetention, "log_retention");
  std::string topic;
  int32_t partition = 0;
  int32_t segments_deleted = 0;
  int64_t log_start = 0;
  GREGOR_TRACE_FIELDS(topic, partition, segments_deleted, log_start)
};
struct BecomeLeader {
  GREGOR_TRACE_EVENT(BecomeLeader, "become_leader");
  std::string topic;
  int32_t partition = 0;
  int32_t leader_epoch = 0;
  IntList isr;
  int64_t leo = 0;
  int64_t hw = 0;
  GREGOR_TRACE_FIELDS(topic, partition, leader_epoch, isr, leo, hw)
};
struct BecomeFollower {
  GREGOR_TRACE_EVENT(BecomeFollower, "become_follower");
  std::string topic;
  int32_t partition = 0;
  int32_t leader = 0;
  int32_t leader_epoch = 0;
  int64_t leo = 0;
  int64_t hw = 0;
  GREGOR_TRACE_FIELDS(topic, partition, leader, leader_epoch, leo, hw)
};
// DeleteRecords moved a leader's log start offset up.
struct DeleteRecords {
  GREGOR_TRACE_EVENT(DeleteRecords, "delete_records");
  std::string topic;
  int32_t partition = 0;
  int64_t log_start = 0;
  GREGOR_TRACE_FIELDS(topic, partition, log_start)
};
struct PartitionDeleted {
  GREGOR_TRACE_EVENT(PartitionDeleted, "partition_deleted");
  std::string topic;
  int32_t partition = 0;
  GREGOR_TRACE_FIELDS(topic, partition)
};
// A LeaderAndIsr named a topic id other than the one stored with this replica's data (the topic was
// deleted while the broker was away, and made again): the old data is retired, never served.
struct StaleTopicIncarnation {
  GREGOR_TRACE_EVENT(StaleTopicIncarnation, "stale_topic_incarnation");
  std::string topic;
  int32_t partition = 0;
  std::string stale_topic_id;
  std::string topic_id;
  GREGOR_TRACE_FIELDS(topic, partition, stale_topic_id, topic_id)
};
struct HwAdvance {
  GREGOR_TRACE_EVENT(HwAdvance, "hw_advance");
  std::string topic;
  int32_t partition = 0;
  int64_t hw = 0;
  int32_t leader_epoch = 0;
  std::string role;  // leader, follower
  GREGOR_TRACE_FIELDS(topic, partition, hw, leader_epoch, role)
};
struct IsrChangeProposed {
  GREGOR_TRACE_EVENT(IsrChangeProposed, "isr_change_proposed");
  std::string topic;
  int32_t partition = 0;
  IntList isr;
  IntList proposed_isr;
  std::string direction;  // shrink, expand
  int32_t zk_version = 0;
  GREGOR_TRACE_FIELDS(topic, partition, isr, proposed_isr, direction, zk_version)
};
struct IsrChange {
  GREGOR_TRACE_EVENT(IsrChange, "isr_change");
  std::string topic;
  int32_t partition = 0;
  IntList isr;
  int32_t leader_epoch = 0;
  int32_t zk_version = 0;
  std::string direction;  // shrink, expand
  GREGOR_TRACE_FIELDS(topic, partition, isr, leader_epoch, zk_version, direction)
};
struct IsrChangeFailed {
  GREGOR_TRACE_EVENT(IsrChangeFailed, "isr_change_failed");
  std::string topic;
  int32_t partition = 0;
  IntList proposed_isr;
  int32_t zk_version = 0;
  GREGOR_TRACE_FIELDS(topic, partition, proposed_isr, zk_version)
};
struct ProduceRejected {
  GREGOR_TRACE_EVENT(ProduceRejected, "produce_rejected");
  std::string topic;
  int32_t partition = 0;
  std::string error;
  GREGOR_TRACE_FIELDS(topic, partition, error)
};
struct ProduceDuplicate {
  GREGOR_TRACE_EVENT(ProduceDuplicate, "produce_duplicate");
  std::string topic;
  int32_t partition = 0;
  int64_t producer_id = 0;
  int32_t base_sequence = 0;
  int64_t base_offset = 0;
  GREGOR_TRACE_FIELDS(topic, partition, producer_id, base_sequence, base_offset)
};
// A transaction marker (a control batch: COMMIT or ABORT) was appended by this leader for a
// WriteTxnMarkers request (KIP-98); lso is the partition's last stable offset after it.
struct TxnMarkerAppend {
  GREGOR_TRACE_EVENT(TxnMarkerAppend, "txn_marker_append");
  std::string topic;
  int32_t partition = 0;
  int64_t producer_id = 0;
  int32_t producer_epoch = 0;
  std::string result;  // commit, abort
  int64_t offset = 0;
  int64_t lso = 0;
  GREGOR_TRACE_FIELDS(topic, partition, producer_id, producer_epoch, result, offset, lso)
};

// ---- Brokers: the group coordinator (engine/group) ---------------------------------------------

struct OffsetsTopicCreate {
  GREGOR_TRACE_EVENT(OffsetsTopicCreate, "offsets_topic_create");
  int32_t partitions = 0;
  int32_t replication_factor = 0;
  GREGOR_TRACE_FIELDS(partitions, replication_factor)
};
struct MemberJoin {
  GREGOR_TRACE_EVENT(MemberJoin, "member_join");
  std::string group;
  std::string member;
  std::string client_id;
  int32_t generation = 0;
  std::string state;
  GREGOR_TRACE_FIELDS(group, member, client_id, generation, state)
};
struct MemberLeave {
  GREGOR_TRACE_EVENT(MemberLeave, "member_leave");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(group, member, generation, reason)
};
struct GroupRebalance {
  GREGOR_TRACE_EVENT(GroupRebalance, "group_rebalance");
  std::string group;
  int32_t generation = 0;
  std::string state;
  NameList members;
  std::string reason;
  GREGOR_TRACE_FIELDS(group, generation, state, members, reason)
};
struct GroupEmpty {
  GREGOR_TRACE_EVENT(GroupEmpty, "group_empty");
  std::string group;
  int32_t generation = 0;
  std::string state;
  NameList members;
  GREGOR_TRACE_FIELDS(group, generation, state, members)
};
struct GroupJoinComplete {
  GREGOR_TRACE_EVENT(GroupJoinComplete, "group_join_complete");
  std::string group;
  int32_t generation = 0;
  std::string state;
  NameList members;
  std::string leader;
  std::string protocol;
  GREGOR_TRACE_FIELDS(group, generation, state, members, leader, protocol)
};
struct GroupStable {
  GREGOR_TRACE_EVENT(GroupStable, "group_stable");
  std::string group;
  int32_t generation = 0;
  std::string state;
  NameList members;
  std::string leader;
  std::string protocol;
  MemberAssignments assignment;
  GREGOR_TRACE_FIELDS(group, generation, state, members, leader, protocol, assignment)
};
struct GroupStoreFailed {
  GREGOR_TRACE_EVENT(GroupStoreFailed, "group_store_failed");
  std::string group;
  std::optional<int32_t> generation;  // absent when storing an empty group failed
  std::string error;
  GREGOR_TRACE_FIELDS(group, generation, error)
};
// DeleteGroups deleted an empty group and its offsets (tombstones stored).
struct GroupDeleted {
  GREGOR_TRACE_EVENT(GroupDeleted, "group_deleted");
  std::string group;
  GREGOR_TRACE_FIELDS(group)
};
struct OffsetCommit {
  GREGOR_TRACE_EVENT(OffsetCommit, "offset_commit");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  GREGOR_TRACE_FIELDS(group, member, generation, topic, partition, offset)
};
struct OffsetsLoadStart {
  GREGOR_TRACE_EVENT(OffsetsLoadStart, "offsets_load_start");
  std::string topic;
  int32_t partition = 0;
  int32_t leader_epoch = 0;
  GREGOR_TRACE_FIELDS(topic, partition, leader_epoch)
};
struct OffsetsLoadFailed {
  GREGOR_TRACE_EVENT(OffsetsLoadFailed, "offsets_load_failed");
  std::string topic;
  int32_t partition = 0;
  std::string error;
  GREGOR_TRACE_FIELDS(topic, partition, error)
};
struct OffsetsLoad {
  GREGOR_TRACE_EVENT(OffsetsLoad, "offsets_load");
  std::string topic;
  int32_t partition = 0;
  int32_t leader_epoch = 0;
  int64_t records = 0;
  int64_t groups = 0;
  int64_t offsets = 0;
  int64_t members = 0;
  GREGOR_TRACE_FIELDS(topic, partition, leader_epoch, records, groups, offsets, members)
};
struct OffsetsUnload {
  GREGOR_TRACE_EVENT(OffsetsUnload, "offsets_unload");
  std::string topic;
  int32_t partition = 0;
  int64_t groups = 0;
  GREGOR_TRACE_FIELDS(topic, partition, groups)
};

// ---- Transaction coordinator (engine/txn) ------------------------------------------------------

struct TxnTopicCreate {
  GREGOR_TRACE_EVENT(TxnTopicCreate, "txn_topic_create");
  int32_t partitions = 0;
  int32_t replication_factor = 0;
  GREGOR_TRACE_FIELDS(partitions, replication_factor)
};
struct TxnLoad {
  GREGOR_TRACE_EVENT(TxnLoad, "txn_load");
  int32_t partition = 0;
  int32_t leader_epoch = 0;
  int64_t records = 0;
  int64_t transactions = 0;
  GREGOR_TRACE_FIELDS(partition, leader_epoch, records, transactions)
};
struct TxnUnload {
  GREGOR_TRACE_EVENT(TxnUnload, "txn_unload");
  int32_t partition = 0;
  int64_t transactions = 0;
  GREGOR_TRACE_FIELDS(partition, transactions)
};
struct TxnStateChange {
  GREGOR_TRACE_EVENT(TxnStateChange, "txn_state_change");
  std::string transactional_id;
  int64_t producer_id = -1;
  int32_t producer_epoch = -1;
  std::string from;
  std::string to;
  std::string partitions;
  GREGOR_TRACE_FIELDS(transactional_id, producer_id, producer_epoch, from, to, partitions)
};
struct TxnMarkerSend {
  GREGOR_TRACE_EVENT(TxnMarkerSend, "txn_marker_send");
  std::string transactional_id;
  int64_t producer_id = -1;
  int32_t producer_epoch = -1;
  bool committed = false;
  int32_t broker = -1;
  std::string partitions;
  GREGOR_TRACE_FIELDS(transactional_id, producer_id, producer_epoch, committed, broker, partitions)
};
struct TxnMarkerError {
  GREGOR_TRACE_EVENT(TxnMarkerError, "txn_marker_error");
  std::string transactional_id;
  int64_t producer_id = -1;
  int32_t broker = -1;
  std::string partition;
  std::string error;
  GREGOR_TRACE_FIELDS(transactional_id, producer_id, broker, partition, error)
};

// ---- Producers (engine/client) -----------------------------------------------------------------

struct ProduceAck {
  GREGOR_TRACE_EVENT(ProduceAck, "produce_ack");
  std::string topic;
  int32_t partition = 0;
  int64_t base_offset = 0;
  int64_t count = 0;
  int64_t crc = 0;
  int32_t acks = 0;
  GREGOR_TRACE_FIELDS(topic, partition, base_offset, count, crc, acks)
};
struct ProduceError {
  GREGOR_TRACE_EVENT(ProduceError, "produce_error");
  std::string topic;
  int32_t partition = 0;
  std::string error;
  int32_t attempt = 0;
  GREGOR_TRACE_FIELDS(topic, partition, error, attempt)
};
struct ProducerConfigChange {
  GREGOR_TRACE_EVENT(ProducerConfigChange, "producer_config_change");
  std::string client_id;
  std::string config;  // "k=v,k2=v2"
  GREGOR_TRACE_FIELDS(client_id, config)
};
struct ProducerInit {
  GREGOR_TRACE_EVENT(ProducerInit, "producer_init");
  int64_t producer_id = 0;
  int32_t producer_epoch = 0;
  GREGOR_TRACE_FIELDS(producer_id, producer_epoch)
};
struct ProducerInitError {
  GREGOR_TRACE_EVENT(ProducerInitError, "producer_init_error");
  std::string error;
  GREGOR_TRACE_FIELDS(error)
};
struct ProducerReset {
  GREGOR_TRACE_EVENT(ProducerReset, "producer_reset");
  int64_t producer_id = 0;
  GREGOR_TRACE_FIELDS(producer_id)
};
// A transactional producer's own view of its transactions (engine/client/producer.h). The records
// of a transaction are the produce_acks the same node emits between its txn_begin and its
// txn_commit or txn_abort. partitions: "topic-partition" comma-separated, in order.
struct TxnBegin {
  GREGOR_TRACE_EVENT(TxnBegin, "txn_begin");
  std::string transactional_id;
  int64_t producer_id = 0;
  int32_t epoch = 0;
  GREGOR_TRACE_FIELDS(transactional_id, producer_id, epoch)
};
struct TxnCommit {
  GREGOR_TRACE_EVENT(TxnCommit, "txn_commit");
  std::string transactional_id;
  int64_t producer_id = 0;
  int32_t epoch = 0;
  std::string partitions;
  std::string outcome;  // NONE: EndTxn committed it; else the error the commit failed with
  GREGOR_TRACE_FIELDS(transactional_id, producer_id, epoch, partitions, outcome)
};
struct TxnAbort {
  GREGOR_TRACE_EVENT(TxnAbort, "txn_abort");
  std::string transactional_id;
  int64_t producer_id = 0;
  int32_t epoch = 0;
  std::string partitions;
  std::string outcome;  // NONE: EndTxn aborted it; else the error the abort failed with
  GREGOR_TRACE_FIELDS(transactional_id, producer_id, epoch, partitions, outcome)
};

// ---- Consumers (engine/client) -----------------------------------------------------------------

struct ConsumerStart {
  GREGOR_TRACE_EVENT(ConsumerStart, "consumer_start");
  std::string group;
  std::string client_id;
  std::string mode;       // the delivery guarantee the group claims
  std::string behaviour;  // what this consumer actually does (a broken mode in a test)
  NameList topics;
  std::string isolation;  // isolation.level: read_uncommitted or read_committed
  GREGOR_TRACE_FIELDS(group, client_id, mode, behaviour, topics, isolation)
};
struct ConsumerCoordinator {
  GREGOR_TRACE_EVENT(ConsumerCoordinator, "consumer_coordinator");
  std::string group;
  int32_t coordinator = 0;
  GREGOR_TRACE_FIELDS(group, coordinator)
};
struct ConsumerCoordinatorLost {
  GREGOR_TRACE_EVENT(ConsumerCoordinatorLost, "consumer_coordinator_lost");
  std::string group;
  int32_t coordinator = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(group, coordinator, reason)
};
struct ConsumerRejoinNeeded {
  GREGOR_TRACE_EVENT(ConsumerRejoinNeeded, "consumer_rejoin_needed");
  std::string group;
  std::string member;
  std::string reason;
  GREGOR_TRACE_FIELDS(group, member, reason)
};
struct ConsumerJoin {
  GREGOR_TRACE_EVENT(ConsumerJoin, "consumer_join");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string leader;
  std::string protocol;
  bool is_leader = false;
  GREGOR_TRACE_FIELDS(group, member, generation, leader, protocol, is_leader)
};
struct ConsumerAssignment {
  GREGOR_TRACE_EVENT(ConsumerAssignment, "consumer_assignment");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string protocol;
  PartitionList partitions;
  PartitionList added;
  PartitionList revoked;
  GREGOR_TRACE_FIELDS(group, member, generation, protocol, partitions, added, revoked)
};
struct ConsumerRevoke {
  GREGOR_TRACE_EVENT(ConsumerRevoke, "consumer_revoke");
  std::string group;
  std::string member;
  int32_t generation = 0;
  PartitionList partitions;
  std::string reason;
  GREGOR_TRACE_FIELDS(group, member, generation, partitions, reason)
};
struct ConsumerGenerationReset {
  GREGOR_TRACE_EVENT(ConsumerGenerationReset, "consumer_generation_reset");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(group, member, generation, reason)
};
struct ConsumerGroupError {
  GREGOR_TRACE_EVENT(ConsumerGroupError, "consumer_group_error");
  std::string group;
  std::optional<std::string> member;  // absent for the consumer's own errors (assign)
  std::string api;
  std::string error;
  GREGOR_TRACE_FIELDS(group, member, api, error)
};
struct ConsumerPollTimeout {
  GREGOR_TRACE_EVENT(ConsumerPollTimeout, "consumer_poll_timeout");
  std::string group;
  std::string member;
  int32_t generation = 0;
  GREGOR_TRACE_FIELDS(group, member, generation)
};
struct ConsumerLeave {
  GREGOR_TRACE_EVENT(ConsumerLeave, "consumer_leave");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(group, member, generation, reason)
};
struct ConsumerPosition {
  GREGOR_TRACE_EVENT(ConsumerPosition, "consumer_position");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(group, member, generation, topic, partition, offset, reason)
};
struct ConsumerError {
  GREGOR_TRACE_EVENT(ConsumerError, "consumer_error");
  std::string group;
  std::string topic;
  int32_t partition = 0;
  std::string error;
  std::optional<int64_t> offset;  // the position that was out of range
  GREGOR_TRACE_FIELDS(group, topic, partition, error, offset)
};
struct Commit {
  GREGOR_TRACE_EVENT(Commit, "commit");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  GREGOR_TRACE_FIELDS(group, member, generation, topic, partition, offset)
};
struct CommitFailed {
  GREGOR_TRACE_EVENT(CommitFailed, "commit_failed");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string error;
  GREGOR_TRACE_FIELDS(group, member, generation, error)
};
struct Consume {
  GREGOR_TRACE_EVENT(Consume, "consume");
  std::string group;
  std::string member;
  int32_t generation = 0;
  std::string mode;
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::string value;  // the record's id: its value up to the first '.'
  GREGOR_TRACE_FIELDS(group, member, generation, mode, topic, partition, offset, value)
};
struct ConsumeDropped {
  GREGOR_TRACE_EVENT(ConsumeDropped, "consume_dropped");
  std::string group;
  std::string member;
  int64_t count = 0;
  std::string error;
  GREGOR_TRACE_FIELDS(group, member, count, error)
};
// The transactional sink of exactly-once groups (engine/client/transactional_sink.h).
struct SinkStart {
  GREGOR_TRACE_EVENT(SinkStart, "sink_start");
  int64_t transactions = 0;
  int64_t records = 0;
  GREGOR_TRACE_FIELDS(transactions, records)
};
struct SinkRecover {
  GREGOR_TRACE_EVENT(SinkRecover, "sink_recover");
  int64_t transactions = 0;
  int64_t records = 0;
  int64_t truncated_bytes = 0;
  GREGOR_TRACE_FIELDS(transactions, records, truncated_bytes)
};
struct SinkWrite {
  GREGOR_TRACE_EVENT(SinkWrite, "sink_write");
  std::string group;
  std::string member;
  int32_t generation = 0;
  int64_t applied = 0;
  int64_t skipped = 0;
  int64_t refused = 0;
  std::string error;
  GREGOR_TRACE_FIELDS(group, member, generation, applied, skipped, refused, error)
};
struct SinkError {
  GREGOR_TRACE_EVENT(SinkError, "sink_error");
  std::string group;
  std::string error;
  GREGOR_TRACE_FIELDS(group, error)
};

// ---- zk: the coordination service (engine/coord; docs/zk.md) -----------------------------------

struct ZkClientState {
  GREGOR_TRACE_EVENT(ZkClientState, "zk_client_state");
  int64_t session = 0;
  std::string state;
  int32_t server = 0;
  GREGOR_TRACE_FIELDS(session, state, server)
};
struct ZkRecover {
  GREGOR_TRACE_EVENT(ZkRecover, "zk_recover");
  int64_t zxid = 0;
  int64_t snapshot_zxid = 0;
  int64_t txns_replayed = 0;
  int64_t truncated_bytes = 0;
  int64_t nodes = 0;
  int64_t sessions = 0;
  GREGOR_TRACE_FIELDS(zxid, snapshot_zxid, txns_replayed, truncated_bytes, nodes, sessions)
};
struct ZkRecoverFailed {
  GREGOR_TRACE_EVENT(ZkRecoverFailed, "zk_recover_failed");
  std::string reason;
  GREGOR_TRACE_FIELDS(reason)
};
// One recovered znode (after zk_recover), with its data as printable_data shows it.
struct ZkNode {
  GREGOR_TRACE_EVENT(ZkNode, "zk_node");
  std::string path;
  int32_t version = 0;
  int32_t cversion = 0;
  int64_t ephemeral_owner = 0;
  std::string data;
  GREGOR_TRACE_FIELDS(path, version, cversion, ephemeral_owner, data)
};
struct ZkSessionRestore {
  GREGOR_TRACE_EVENT(ZkSessionRestore, "zk_session_restore");
  int64_t session = 0;
  int32_t timeout_ms = 0;
  GREGOR_TRACE_FIELDS(session, timeout_ms)
};
struct ZkBadFrame {
  GREGOR_TRACE_EVENT(ZkBadFrame, "zk_bad_frame");
  std::string reason;
  GREGOR_TRACE_FIELDS(reason)
};
struct ZkConnectRefused {
  GREGOR_TRACE_EVENT(ZkConnectRefused, "zk_connect_refused");
  int64_t session = 0;
  std::string reason;
  GREGOR_TRACE_FIELDS(session, reason)
};
// A request the server answered with an error (a failed version check, a missing parent, an existing
// node, ...): path is the op's, or for a multi the first failing op's.
struct ZkRefused {
  GREGOR_TRACE_EVENT(ZkRefused, "zk_refused");
  std::string path;
  std::string op;
  std::string error;
  int64_t session = 0;
  GREGOR_TRACE_FIELDS(path, op, error, session)
};
struct ZkSnapshot {
  GREGOR_TRACE_EVENT(ZkSnapshot, "zk_snapshot");
  int64_t zxid = 0;
  int64_t nodes = 0;
  GREGOR_TRACE_FIELDS(zxid, nodes)
};
struct ZkWatchFire {
  GREGOR_TRACE_EVENT(ZkWatchFire, "zk_watch_fire");
  std::string path;
  std::string type;
  int64_t session = 0;
  GREGOR_TRACE_FIELDS(path, type, session)
};
struct ZkSessionOpen {
  GREGOR_TRACE_EVENT(ZkSessionOpen, "zk_session_open");
  int64_t session = 0;
  int32_t timeout_ms = 0;
  GREGOR_TRACE_FIELDS(session, timeout_ms)
};
struct ZkSessionExpire {
  GREGOR_TRACE_EVENT(ZkSessionExpire, "zk_session_expire");
  int64_t session = 0;
  int64_t ephemerals = 0;
  GREGOR_TRACE_FIELDS(session, ephemerals)
};
struct ZkSessionClose {
  GREGOR_TRACE_EVENT(ZkSessionClose, "zk_session_close");
  int64_t session = 0;
  int64_t ephemerals = 0;
  GREGOR_TRACE_FIELDS(session, ephemerals)
};
// A znode created, changed or deleted by a committed transaction; data as printable_data shows it.
struct ZkCreate {
  GREGOR_TRACE_EVENT(ZkCreate, "zk_create");
  std::string path;
  int32_t version = 0;
  int64_t session = 0;
  bool ephemeral = false;
  std::string data;
  int64_t zxid = 0;
  GREGOR_TRACE_FIELDS(path, version, session, ephemeral, data, zxid)
};
struct ZkSet {
  GREGOR_TRACE_EVENT(ZkSet, "zk_set");
  std::string path;
  int32_t version = 0;
  int64_t session = 0;
  std::string data;
  int64_t zxid = 0;
  GREGOR_TRACE_FIELDS(path, version, session, data, zxid)
};
struct ZkDelete {
  GREGOR_TRACE_EVENT(ZkDelete, "zk_delete");
  std::string path;
  int64_t session = 0;
  int64_t zxid = 0;
  GREGOR_TRACE_FIELDS(path, session, zxid)
};
struct ZkServerHalt {
  GREGOR_TRACE_EVENT(ZkServerHalt, "zk_server_halt");
  std::string reason;
  GREGOR_TRACE_FIELDS(reason)
};
// The replicated ensemble (engine/coord/zk_ensemble.cpp): elections, leadership, sync, commits.
struct ZkElection {
  GREGOR_TRACE_EVENT(ZkElection, "zk_election");
  int64_t round = 0;
  int64_t epoch = 0;  // the server's current epoch
  int64_t zxid = 0;   // its last logged zxid
  std::string reason;
  GREGOR_TRACE_FIELDS(round, epoch, zxid, reason)
};
struct ZkLeader {
  GREGOR_TRACE_EVENT(ZkLeader, "zk_leader");
  int32_t leader = 0;  // node id
  int64_t epoch = 0;
  int64_t zxid = 0;
  int64_t quorum = 0;  // servers synced when it began serving (itself included)
  GREGOR_TRACE_FIELDS(leader, epoch, zxid, quorum)
};
struct ZkFollow {
  GREGOR_TRACE_EVENT(ZkFollow, "zk_follow");
  int32_t leader = 0;
  int64_t epoch = 0;
  int64_t zxid = 0;
  GREGOR_TRACE_FIELDS(leader, epoch, zxid)
};
struct ZkSync {
  GREGOR_TRACE_EVENT(ZkSync, "zk_sync");
  int32_t follower = 0;
  std::string mode;     // "diff", "trunc" or "snap"
  int64_t from_zxid = 0;  // the follower's last logged zxid
  int64_t to_zxid = 0;    // the leader's committed zxid it is brought to
  GREGOR_TRACE_FIELDS(follower, mode, from_zxid, to_zxid)
};
struct ZkCommit {
  GREGOR_TRACE_EVENT(ZkCommit, "zk_commit");
  int64_t zxid = 0;
  int64_t epoch = 0;
  IntList acks;    // node ids whose durable ack made the quorum (leader included)
  int64_t servers = 0;  // the ensemble's size
  GREGOR_TRACE_FIELDS(zxid, epoch, acks, servers)
};

}  // namespace ev

// Every kind. Generic first (the default); the order is not part of any encoding.
using TraceBody = std::variant<
    ev::Generic,
    // world
    ev::NodeStart, ev::NodeRestart, ev::NodeCrash, ev::NodePause, ev::NodeResume, ev::PowerLoss, ev::Partition,
    ev::Heal, ev::HealAll, ev::Clog, ev::Latency, ev::DiskCorrupt, ev::DiskCapacity, ev::DiskIoError, ev::ScenarioReady,
    ev::ScenarioFault, ev::MessageIntercept,
    // brokers
    ev::BrokerStart, ev::BrokerRegister, ev::BrokerSessionExpired, ev::LogDirFailure, ev::ControllerElected, ev::ControllerResigned,
    ev::BrokerChange, ev::LeaderChange, ev::PartitionOffline, ev::TopicCreated, ev::PartitionsAdded, ev::TopicDeleted,
    ev::ReassignmentStarted, ev::ReassignmentCompleted, ev::ReassignmentCancelled,
    ev::ControlledShutdown, ev::ControlledShutdownComplete, ev::StaleControllerRequest, ev::StaleBrokerEpoch, ev::ControllerRequestRefused,
    ev::AuthorizationDenied, ev::AclChange, ev::TopicConfigChange,
    ev::ProducerIdBlock, ev::ProducerIdAssigned, ev::LogOpen, ev::LogError, ev::ReplicaDamaged,
    ev::ReplicaDamageCleared, ev::DamagedLeaderRefused, ev::LogAppend, ev::BatchRewritten, ev::LogTruncate,
    ev::LogRetention, ev::BecomeLeader, ev::BecomeFollower, ev::PartitionDeleted, ev::DeleteRecords, ev::StaleTopicIncarnation, ev::HwAdvance,
    ev::IsrChangeProposed, ev::IsrChange, ev::IsrChangeFailed, ev::ProduceRejected, ev::ProduceDuplicate,
    ev::TxnMarkerAppend,
    // group coordinator
    ev::OffsetsTopicCreate, ev::MemberJoin, ev::MemberLeave, ev::GroupRebalance, ev::GroupEmpty,
    ev::GroupJoinComplete, ev::GroupStable, ev::GroupStoreFailed, ev::GroupDeleted, ev::OffsetCommit, ev::OffsetsLoadStart,
    ev::OffsetsLoadFailed, ev::OffsetsLoad, ev::OffsetsUnload,
    // transaction coordinator
    ev::TxnTopicCreate, ev::TxnLoad, ev::TxnUnload, ev::TxnStateChange, ev::TxnMarkerSend, ev::TxnMarkerError,
    // producers
    ev::ProduceAck, ev::ProduceError, ev::ProducerConfigChange, ev::ProducerInit, ev::ProducerInitError,
    ev::ProducerReset, ev::TxnBegin, ev::TxnCommit, ev::TxnAbort,
    // consumers
    ev::ConsumerStart, ev::ConsumerCoordinator, ev::ConsumerCoordinatorLost, ev::ConsumerRejoinNeeded,
    ev::ConsumerJoin, ev::ConsumerAssignment, ev::ConsumerRevoke, ev::ConsumerGenerationReset,
    ev::ConsumerGroupError, ev::ConsumerPollTimeout, ev::ConsumerLeave, ev::ConsumerPosition, ev::ConsumerError,
    ev::Commit, ev::CommitFailed, ev::Consume, ev::ConsumeDropped, ev::SinkStart, ev::SinkRecover, ev::SinkWrite,
    ev::SinkError,
    // zk
    ev::ZkClientState, ev::ZkRecover, ev::ZkRecoverFailed, ev::ZkNode, ev::ZkSessionRestore, ev::ZkBadFrame,
    ev::ZkConnectRefused, ev::ZkRefused, ev::ZkSnapshot, ev::ZkWatchFire, ev::ZkSessionOpen, ev::ZkSessionExpire,
    ev::ZkSessionClose, ev::ZkCreate, ev::ZkSet, ev::ZkDelete, ev::ZkServerHalt, ev::ZkElection, ev::ZkLeader,
    ev::ZkFollow, ev::ZkSync, ev::ZkCommit>;

}  // namespace gregor
