#include "samples.h"

namespace gregor::protocol::samples {

namespace {
Bytes b(std::string_view s) { return to_bytes(s); }
}  // namespace

ProduceRequest produce_request(int16_t v) {
  ProduceRequest m;
  if (v >= 3) m.transactional_id = "txn-1";
  m.acks = 1;
  m.timeout_ms = 30000;
  m.topic_data = {{"t1", {{0, SharedBytes(b("batch-0"))}, {1, std::nullopt}}}, {"t2", {{7, SharedBytes(b(""))}}}};
  return m;
}

ProduceResponse produce_response(int16_t v) {
  ProduceResponse m;
  ProduceResponse::PartitionProduceResponse p0{0, ErrorCode::NONE, 42, 1700000000000, -1};
  ProduceResponse::PartitionProduceResponse p1{1, ErrorCode::NOT_LEADER_OR_FOLLOWER, -1, -1, -1};
  if (v < 2) p0.log_append_time_ms = -1;
  if (v >= 5) {
    p0.log_start_offset = 3;
    p1.log_start_offset = 9;
  }
  m.responses = {{"t1", {p0, p1}}, {"t2", {}}};
  if (v >= 1) m.throttle_time_ms = 5;
  return m;
}

FetchRequest fetch_request(int16_t v) {
  FetchRequest m;
  m.replica_id = 2;
  m.max_wait_ms = 500;
  m.min_bytes = 1;
  if (v >= 3) m.max_bytes = 52428800;
  if (v >= 4) m.isolation_level = 1;
  FetchRequest::FetchPartition p{.partition = 3, .fetch_offset = 100, .partition_max_bytes = 1048576};
  if (v >= 9) p.current_leader_epoch = 4;
  if (v >= 5) p.log_start_offset = 10;
  m.topics = {{.topic = "t1", .partitions = {p, FetchRequest::FetchPartition{.partition = 0, .partition_max_bytes = 65536}}}};
  if (v >= 7) {
    m.session_id = 77;
    m.session_epoch = 3;
    m.forgotten_topics_data = {{.topic = "old", .partitions = {1, 2}}};
  }
  if (v >= 13) {
    // Topics by id (KIP-516): no names on the wire.
    m.topics[0].topic = "";
    m.topics[0].topic_id = Uuid{1, 2};
    m.forgotten_topics_data[0].topic = "";
    m.forgotten_topics_data[0].topic_id = Uuid{3, 4};
  }
  if (v >= 15) {
    m.replica_id = -1;
    m.replica_state.replica_id = 2;
  }
  if (v >= 11) m.rack_id = "rack-a";
  return m;
}

FetchResponse fetch_response(int16_t v) {
  FetchResponse m;
  if (v >= 1) m.throttle_time_ms = 1;
  if (v >= 7) {
    m.error_code = ErrorCode::NONE;
    m.session_id = 12;
  }
  FetchResponse::PartitionData p0;
  p0.partition_index = 0;
  p0.high_watermark = 50;
  if (v >= 4) {
    p0.last_stable_offset = 50;
    p0.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{{1000, 20}, {1001, 30}};
  }
  p0.records = SharedBytes(b("batches..."));
  FetchResponse::PartitionData p1;
  p1.partition_index = 1;
  p1.error_code = ErrorCode::OFFSET_OUT_OF_RANGE;
  p1.high_watermark = -1;
  p1.aborted_transactions = std::nullopt;
  p1.records = std::nullopt;
  if (v >= 5) {
    p0.log_start_offset = 5;
    p1.log_start_offset = 0;
  }
  if (v >= 11) p0.preferred_read_replica = 3;
  m.responses = {{.topic = "t1", .partitions = {p0, p1}}};
  if (v >= 13) {
    m.responses[0].topic = "";
    m.responses[0].topic_id = Uuid{1, 2};
  }
  return m;
}

ListOffsetsRequest list_offsets_request(int16_t v) {
  ListOffsetsRequest m;
  m.replica_id = -1;
  if (v >= 2) m.isolation_level = 1;
  m.topics = {{"t1",
               {{.partition_index = 0, .timestamp = kListOffsetsEarliestTimestamp},
                {.partition_index = 1, .timestamp = 1700000000000}}}};
  return m;
}

ListOffsetsResponse list_offsets_response(int16_t v) {
  ListOffsetsResponse m;
  if (v >= 2) m.throttle_time_ms = 2;
  m.topics = {{"t1",
               {{.partition_index = 0, .timestamp = -1, .offset = 17},
                {.partition_index = 1, .error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION}}}};
  if (v == 0) {
    // v0 answers a list of offsets instead of one offset and its timestamp.
    m.topics[0].partitions[0] = {.partition_index = 0, .old_style_offsets = {17, 3}};
  }
  return m;
}

MetadataRequest metadata_request(int16_t v) {
  MetadataRequest m;
  m.topics = std::vector<MetadataRequest::MetadataRequestTopic>{{.name = "t1"}, {.name = "t2"}};
  if (v >= 4) m.allow_auto_topic_creation = false;
  return m;
}

MetadataResponse metadata_response(int16_t v) {
  MetadataResponse m;
  if (v >= 3) m.throttle_time_ms = 3;
  m.brokers = {{1, "127.0.0.1", 19092, std::nullopt}, {2, "127.0.0.1", 19093, std::nullopt}};
  if (v >= 1) m.brokers[1].rack = "rack-b";  // v1+: racks, controller, internal topics
  if (v >= 2) m.cluster_id = "gregor-cluster";
  if (v >= 1) m.controller_id = 2;
  MetadataResponse::MetadataResponseTopic t1;
  t1.name = "t1";
  t1.is_internal = v >= 1;
  t1.partitions = {{.partition_index = 0, .leader_id = 1, .replica_nodes = {1, 2}, .isr_nodes = {1, 2}},
                   {.error_code = ErrorCode::LEADER_NOT_AVAILABLE, .partition_index = 1, .leader_id = -1, .replica_nodes = {2, 1}}};
  MetadataResponse::MetadataResponseTopic t2;
  t2.error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  t2.name = "missing";
  m.topics = {t1, t2};
  return m;
}

LeaderAndIsrRequest leader_and_isr_request(int16_t v) {
  LeaderAndIsrRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  if (v >= 2) m.broker_epoch = 4294967296;
  LeaderAndIsrRequest::LeaderAndIsrPartitionState p0;
  p0.partition_index = 0;
  p0.controller_epoch = 5;
  p0.leader = 2;
  p0.leader_epoch = 7;
  p0.isr = {2, 3};
  p0.zk_version = 11;
  p0.replicas = {2, 3, 1};
  LeaderAndIsrRequest::LeaderAndIsrPartitionState p1 = p0;
  p1.partition_index = 1;
  p1.leader = 3;
  p1.isr = {3};
  if (v >= 3) {
    p0.adding_replicas = {4};
    p1.removing_replicas = {1};
  }
  if (v >= 1) p1.is_new = true;
  LeaderAndIsrRequest::LeaderAndIsrPartitionState q0 = p0;
  q0.partition_index = 4;
  if (v >= 6) p1.leader_recovery_state = 1;
  m.topic_states = {{.topic_name = "t1", .partition_states = {p0, p1}}, {.topic_name = "t2", .partition_states = {q0}}};
  if (v >= 5) {
    m.type = 1;  // full
    m.topic_states[0].topic_id = Uuid(0x0123456789abcdefULL, 0x0fedcba987654321ULL);
    m.topic_states[1].topic_id = Uuid(0x1111111111111111ULL, 0x2222222222222222ULL);
  }
  if (v >= 7) m.is_kraft_controller = true;
  m.live_leaders = {{2, "127.0.0.1", 19093}, {3, "127.0.0.1", 19094}};
  return m;
}

LeaderAndIsrResponse leader_and_isr_response(int16_t v) {
  LeaderAndIsrResponse m;
  m.error_code = ErrorCode::NONE;
  if (v >= 5) {
    // v5+: per topic id, partitions without names.
    m.topics = {{.topic_id = Uuid{1, 2},
                 .partition_errors = {{"", 0, ErrorCode::NONE}, {"", 1, ErrorCode::KAFKA_STORAGE_ERROR}}}};
    return m;
  }
  m.partition_errors = {{"t1", 0, ErrorCode::NONE}, {"t1", 1, ErrorCode::KAFKA_STORAGE_ERROR}};
  return m;
}

StopReplicaRequest stop_replica_request(int16_t v) {
  StopReplicaRequest m;
  m.controller_id = 1;
  m.controller_epoch = 6;
  if (v >= 1) m.broker_epoch = 99;
  if (v >= 3) {
    // v3+ (KIP-570): per partition, its leader epoch and delete flag.
    m.topic_states = {{.topic_name = "t1",
                       .partition_states = {{.partition_index = 0, .leader_epoch = 4, .delete_partition = true},
                                            {.partition_index = 2, .leader_epoch = -2, .delete_partition = false}}}};
    return m;
  }
  m.delete_partitions = true;
  m.topics = {{"t1", {0, 2}}, {"t2", {5}}};
  return m;
}

StopReplicaResponse stop_replica_response(int16_t) {
  StopReplicaResponse m;
  m.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
  m.partition_errors = {{"t1", 0, ErrorCode::NONE}, {"t2", 5, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION}};
  return m;
}

UpdateMetadataRequest update_metadata_request(int16_t v) {
  UpdateMetadataRequest m;
  m.controller_id = 1;
  m.controller_epoch = 3;
  if (v >= 5) m.broker_epoch = 8;
  UpdateMetadataRequest::UpdateMetadataPartitionState p;
  p.partition_index = 0;
  p.controller_epoch = 3;
  p.leader = 1;
  p.leader_epoch = 2;
  p.isr = {1, 2};
  p.zk_version = 4;
  p.replicas = {1, 2, 3};
  if (v >= 4) p.offline_replicas = {3};
  UpdateMetadataRequest::UpdateMetadataPartitionState p1 = p;
  p1.partition_index = 1;
  m.topic_states = {{.topic_name = "t1", .partition_states = {p, p1}}, {.topic_name = "t2", .partition_states = {p}}};
  UpdateMetadataRequest::UpdateMetadataEndpoint e{19092, "127.0.0.1", "", kSecurityProtocolPlaintext};
  if (v >= 3) e.listener = "PLAINTEXT";
  UpdateMetadataRequest::UpdateMetadataBroker b1{.id = 1, .endpoints = {e}};
  UpdateMetadataRequest::UpdateMetadataBroker b2{.id = 2, .endpoints = {e}};
  b2.endpoints[0].port = 19093;
  if (v == 0) {  // one host and port per broker, no endpoints
    b1 = {.id = 1, .v0_host = "127.0.0.1", .v0_port = 19092};
    b2 = {.id = 2, .v0_host = "127.0.0.1", .v0_port = 19093};
  }
  if (v >= 1) {
    UpdateMetadataRequest::UpdateMetadataEndpoint e2 = e;
    e2.port = 29093;
    e2.security_protocol = 1;  // SSL
    b2.endpoints.push_back(e2);
  }
  if (v >= 2) b2.rack = "rack-b";
  m.live_brokers = {b1, b2};
  return m;
}

UpdateMetadataResponse update_metadata_response(int16_t) {
  UpdateMetadataResponse m;
  m.error_code = ErrorCode::STALE_BROKER_EPOCH;
  return m;
}

ControlledShutdownRequest controlled_shutdown_request(int16_t v) {
  ControlledShutdownRequest m;
  m.broker_id = 3;
  if (v >= 2) m.broker_epoch = 12;
  return m;
}

ControlledShutdownResponse controlled_shutdown_response(int16_t) {
  ControlledShutdownResponse m;
  m.error_code = ErrorCode::NONE;
  m.remaining_partitions = {{"t1", 0}, {"t2", 3}};
  return m;
}

OffsetCommitRequest offset_commit_request(int16_t v) {
  OffsetCommitRequest m;
  m.group_id = "g1";
  if (v >= 1) {
    m.generation_id = 4;
    m.member_id = "rdkafka-1";
  }
  if (v >= 2 && v <= 4) m.retention_time_ms = 86400000;
  m.topics = {{"t1",
               {{.partition_index = 0, .committed_offset = 10, .committed_metadata = "meta"},
                {.partition_index = 1, .committed_offset = 20, .committed_metadata = std::nullopt}}}};
  if (v == 1) m.topics[0].partitions[0].commit_timestamp = 1700000000000;
  if (v >= 6) m.topics[0].partitions[1].committed_leader_epoch = 3;
  if (v >= 7) m.group_instance_id = "instance-1";
  return m;
}

OffsetCommitResponse offset_commit_response(int16_t v) {
  OffsetCommitResponse m;
  if (v >= 3) m.throttle_time_ms = 4;
  m.topics = {{"t1", {{0, ErrorCode::NONE}, {1, ErrorCode::ILLEGAL_GENERATION}}}};
  return m;
}

OffsetFetchRequest offset_fetch_request(int16_t v) {
  OffsetFetchRequest m;
  if (v >= 8) {
    // KIP-709: several groups, one of them asking for everything.
    m.groups.push_back({.group_id = "g1", .topics = std::vector<OffsetFetchRequest::OffsetFetchRequestTopics>{{"t1", {0, 1}}}});
    m.groups.push_back({.group_id = "g2", .topics = std::nullopt});
    if (v >= 9) m.groups[0].member_id = "member-a";
    return m;
  }
  m.group_id = "g1";
  m.topics = std::vector<OffsetFetchRequest::OffsetFetchRequestTopic>{{"t1", {0, 1}}, {"t2", {}}};
  return m;
}

OffsetFetchResponse offset_fetch_response(int16_t v) {
  OffsetFetchResponse m;
  if (v >= 3) m.throttle_time_ms = 6;
  m.topics = {{"t1",
               {{.partition_index = 0, .committed_offset = 10, .metadata = "meta"},
                {.partition_index = 1, .committed_offset = -1, .metadata = ""},
                {.partition_index = 2,
                 .committed_offset = -1,
                 .metadata = std::nullopt,
                 .error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION}}}};
  if (v >= 2) m.error_code = ErrorCode::COORDINATOR_LOAD_IN_PROGRESS;
  if (v >= 8) {
    m.topics.clear();
    m.error_code = ErrorCode::NONE;
    m.groups = {{.group_id = "g1",
                 .topics = {{"t1", {{.partition_index = 0, .committed_offset = 10, .committed_leader_epoch = 2,
                                     .metadata = "meta", .error_code = ErrorCode::NONE}}}},
                 .error_code = ErrorCode::NONE},
                {.group_id = "g2", .topics = {}, .error_code = ErrorCode::NOT_COORDINATOR}};
  }
  return m;
}

FindCoordinatorRequest find_coordinator_request(int16_t v) {
  FindCoordinatorRequest m;
  if (v >= 1) m.key_type = kCoordinatorKeyTypeTransaction;
  if (v >= 4) {
    m.key_type = kCoordinatorKeyTypeGroup;
    m.coordinator_keys = {"g1", "g2"};  // KIP-699: batched
  } else {
    m.key = "g1";
  }
  return m;
}

FindCoordinatorResponse find_coordinator_response(int16_t v) {
  FindCoordinatorResponse m;
  if (v >= 1) {
    m.throttle_time_ms = 7;
    if (v <= 3) m.error_message = "none";
  }
  if (v >= 4) {
    // KIP-699: one answer per key.
    m.coordinators = {{.key = "g1", .node_id = 2, .host = "127.0.0.1", .port = 19093, .error_code = ErrorCode::NONE,
                       .error_message = std::nullopt},
                      {.key = "g2", .node_id = -1, .host = "", .port = -1,
                       .error_code = ErrorCode::COORDINATOR_NOT_AVAILABLE, .error_message = "not yet"}};
    return m;
  }
  m.error_code = ErrorCode::NONE;
  m.node_id = 2;
  m.host = "127.0.0.1";
  m.port = 19093;
  return m;
}

JoinGroupRequest join_group_request(int16_t v) {
  JoinGroupRequest m;
  m.group_id = "g1";
  m.session_timeout_ms = 45000;
  if (v >= 1) m.rebalance_timeout_ms = 300000;
  m.member_id = "";
  if (v >= 5) m.group_instance_id = "instance-1";
  m.protocol_type = "consumer";
  m.protocols = {{"range", b(std::string_view("\x00\x01range-meta", 12))}, {"roundrobin", b("")}};
  return m;
}

JoinGroupResponse join_group_response(int16_t v) {
  JoinGroupResponse m;
  if (v >= 2) m.throttle_time_ms = 8;
  m.error_code = ErrorCode::NONE;
  m.generation_id = 3;
  m.protocol_name = "range";
  m.leader = "member-a";
  m.member_id = "member-b";
  JoinGroupResponse::JoinGroupResponseMember a{"member-a", std::nullopt, b("meta-a")};
  JoinGroupResponse::JoinGroupResponseMember c{"member-b", std::nullopt, b("")};
  if (v >= 5) a.group_instance_id = "instance-a";
  m.members = {a, c};
  return m;
}

HeartbeatRequest heartbeat_request(int16_t v) {
  HeartbeatRequest m;
  m.group_id = "g1";
  m.generation_id = 3;
  m.member_id = "member-a";
  if (v >= 3) m.group_instance_id = "instance-a";
  return m;
}

HeartbeatResponse heartbeat_response(int16_t v) {
  HeartbeatResponse m;
  if (v >= 1) m.throttle_time_ms = 9;
  m.error_code = ErrorCode::REBALANCE_IN_PROGRESS;
  return m;
}

LeaveGroupRequest leave_group_request(int16_t v) {
  LeaveGroupRequest m;
  m.group_id = "g1";
  if (v >= 3) {
    m.members = {{.member_id = "member-a"}, {.member_id = "", .group_instance_id = "instance-b"}};
    if (v >= 5) m.members[0].reason = "closing";
  } else {
    m.member_id = "member-a";
  }
  return m;
}

LeaveGroupResponse leave_group_response(int16_t v) {
  LeaveGroupResponse m;
  if (v >= 1) m.throttle_time_ms = 10;
  m.error_code = ErrorCode::UNKNOWN_MEMBER_ID;
  if (v >= 3) {
    m.error_code = ErrorCode::NONE;
    m.members = {{.member_id = "member-a", .group_instance_id = std::nullopt, .error_code = ErrorCode::NONE},
                 {.member_id = "", .group_instance_id = "instance-b", .error_code = ErrorCode::UNKNOWN_MEMBER_ID}};
  }
  return m;
}

SyncGroupRequest sync_group_request(int16_t v) {
  SyncGroupRequest m;
  m.group_id = "g1";
  m.generation_id = 3;
  m.member_id = "member-a";
  if (v >= 3) m.group_instance_id = "instance-a";
  m.assignments = {{"member-a", b("assign-a")}, {"member-b", b("")}};
  return m;
}

SyncGroupResponse sync_group_response(int16_t v) {
  SyncGroupResponse m;
  if (v >= 1) m.throttle_time_ms = 11;
  m.error_code = ErrorCode::NONE;
  m.assignment = b("assign-a");
  return m;
}

DescribeGroupsRequest describe_groups_request(int16_t v) {
  DescribeGroupsRequest m;
  m.groups = {"g1", "g2"};
  if (v >= 3) m.include_authorized_operations = true;
  return m;
}

DescribeGroupsResponse describe_groups_response(int16_t v) {
  DescribeGroupsResponse m;
  if (v >= 1) m.throttle_time_ms = 12;
  DescribeGroupsResponse::DescribedGroup g;
  g.group_id = "g1";
  g.group_state = "Stable";
  g.protocol_type = "consumer";
  g.protocol_data = "range";
  DescribeGroupsResponse::DescribedGroupMember member{"member-a", std::nullopt, "rdkafka", "/127.0.0.1",
                                                      b("meta"), b("assign")};
  if (v >= 4) member.group_instance_id = "instance-a";
  g.members = {member};
  if (v >= 3) g.authorized_operations = 0x0f;
  DescribeGroupsResponse::DescribedGroup dead;
  dead.error_code = ErrorCode::GROUP_ID_NOT_FOUND;
  dead.group_id = "g2";
  dead.group_state = "Dead";
  m.groups = {g, dead};
  return m;
}

ListGroupsRequest list_groups_request(int16_t) { return ListGroupsRequest{}; }

ListGroupsResponse list_groups_response(int16_t v) {
  ListGroupsResponse m;
  if (v >= 1) m.throttle_time_ms = 13;
  m.error_code = ErrorCode::NONE;
  m.groups = {{"g1", "consumer"}, {"g2", ""}};
  return m;
}

ApiVersionsRequest api_versions_request(int16_t v) {
  ApiVersionsRequest m;
  if (v >= 3) {
    m.client_software_name = "librdkafka";
    m.client_software_version = "2.0.2";
  }
  return m;
}

ApiVersionsResponse api_versions_response(int16_t v) {
  ApiVersionsResponse m = make_api_versions_response();
  if (v >= 1) m.throttle_time_ms = 14;
  return m;
}

CreateTopicsRequest create_topics_request(int16_t v) {
  CreateTopicsRequest m;
  CreateTopicsRequest::CreatableTopic a;
  a.name = "t1";
  a.num_partitions = 3;
  a.replication_factor = 2;
  a.configs = {{"min.insync.replicas", "2"}, {"retention.ms", std::nullopt}};
  CreateTopicsRequest::CreatableTopic manual;
  manual.name = "t2";
  manual.assignments = {{0, {1, 2}}, {1, {2, 3}}};
  m.topics = {a, manual};
  m.timeout_ms = 5000;
  if (v >= 1) m.validate_only = true;
  return m;
}

CreateTopicsResponse create_topics_response(int16_t v) {
  CreateTopicsResponse m;
  if (v >= 2) m.throttle_time_ms = 15;
  CreateTopicsResponse::CreatableTopicResult ok{.name = "t1", .error_code = ErrorCode::NONE};
  CreateTopicsResponse::CreatableTopicResult exists{.name = "t2", .error_code = ErrorCode::TOPIC_ALREADY_EXISTS};
  if (v >= 1) exists.error_message = "Topic 't2' already exists.";
  m.topics = {ok, exists};
  return m;
}

DeleteTopicsRequest delete_topics_request(int16_t v) {
  DeleteTopicsRequest m;
  if (v >= 6)
    m.topics = {{.name = "t1", .topic_id = kZeroUuid}, {.name = std::nullopt, .topic_id = Uuid{5, 6}}};
  else
    m.topic_names = {"t1", "t2"};
  m.timeout_ms = 30000;
  return m;
}

DeleteTopicsResponse delete_topics_response(int16_t v) {
  DeleteTopicsResponse m;
  if (v >= 1) m.throttle_time_ms = 16;
  m.responses = {{.name = "t1", .error_code = ErrorCode::NONE},
                 {.name = "t2", .error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION}};
  return m;
}

InitProducerIdRequest init_producer_id_request(int16_t) {
  InitProducerIdRequest m;
  m.transactional_id = std::nullopt;
  m.transaction_timeout_ms = -1;
  return m;
}

InitProducerIdResponse init_producer_id_response(int16_t) {
  InitProducerIdResponse m;
  m.throttle_time_ms = 17;
  m.producer_id = 4000;
  m.producer_epoch = 2;
  return m;
}

OffsetForLeaderEpochRequest offset_for_leader_epoch_request(int16_t v) {
  OffsetForLeaderEpochRequest m;
  if (v >= 3) m.replica_id = 2;
  OffsetForLeaderEpochRequest::OffsetForLeaderPartition p{0, -1, 6};
  if (v >= 2) p.current_leader_epoch = 7;
  m.topics = {{"t1", {p, OffsetForLeaderEpochRequest::OffsetForLeaderPartition{1, -1, 0}}}};
  return m;
}

OffsetForLeaderEpochResponse offset_for_leader_epoch_response(int16_t v) {
  OffsetForLeaderEpochResponse m;
  if (v >= 2) m.throttle_time_ms = 18;
  OffsetForLeaderEpochResponse::EpochEndOffset p{ErrorCode::NONE, 0, -1, 120};
  if (v >= 1) p.leader_epoch = 6;
  m.topics = {{"t1", {p, {ErrorCode::FENCED_LEADER_EPOCH, 1, -1, -1}}}};
  return m;
}

DescribeConfigsRequest describe_configs_request(int16_t v) {
  DescribeConfigsRequest m;
  m.resources = {{static_cast<int8_t>(ConfigResourceType::TOPIC), "t1", std::vector<std::string>{"min.insync.replicas", "retention.ms"}},
                 {static_cast<int8_t>(ConfigResourceType::BROKER), "2", std::nullopt}};
  if (v >= 1) m.include_synonyms = true;
  return m;
}

DescribeConfigsResponse describe_configs_response(int16_t v) {
  DescribeConfigsResponse m;
  m.throttle_time_ms = 19;
  DescribeConfigsResponse::DescribeConfigsResourceResult isr{"min.insync.replicas", "2", false, false, -1, false, {}};
  DescribeConfigsResponse::DescribeConfigsResourceResult retention{"retention.ms", "604800000", false, false, -1, true, {}};
  if (v == 0) retention.is_default = true;
  if (v >= 1) {
    isr.config_source = static_cast<int8_t>(ConfigSource::DYNAMIC_TOPIC_CONFIG);
    isr.synonyms = {{"min.insync.replicas", "2", static_cast<int8_t>(ConfigSource::DYNAMIC_TOPIC_CONFIG)},
                    {"min.insync.replicas", std::nullopt, static_cast<int8_t>(ConfigSource::DEFAULT_CONFIG)}};
    retention.config_source = static_cast<int8_t>(ConfigSource::DEFAULT_CONFIG);
  }
  m.results = {{ErrorCode::NONE, std::nullopt, static_cast<int8_t>(ConfigResourceType::TOPIC), "t1", {isr, retention}},
               {ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "Topic 't9' does not exist.", static_cast<int8_t>(ConfigResourceType::TOPIC), "t9", {}}};
  return m;
}

AlterConfigsRequest alter_configs_request(int16_t) {
  AlterConfigsRequest m;
  m.resources = {{2, "t1", {{"min.insync.replicas", "1"}, {"retention.ms", std::nullopt}}}, {2, "t2", {}}};
  m.validate_only = true;
  return m;
}

AlterConfigsResponse alter_configs_response(int16_t) {
  AlterConfigsResponse m;
  m.throttle_time_ms = 20;
  m.responses = {{ErrorCode::NONE, std::nullopt, 2, "t1"}, {ErrorCode::INVALID_CONFIG, "min.insync.replicas: must be at least 1", 2, "t2"}};
  return m;
}

IncrementalAlterConfigsRequest incremental_alter_configs_request(int16_t) {
  IncrementalAlterConfigsRequest m;
  m.resources = {{2, "t1", {{"min.insync.replicas", static_cast<int8_t>(ConfigOperation::SET), "1"},
                            {"retention.ms", static_cast<int8_t>(ConfigOperation::DELETE), std::nullopt}}}};
  m.validate_only = true;
  return m;
}

IncrementalAlterConfigsResponse incremental_alter_configs_response(int16_t) {
  IncrementalAlterConfigsResponse m;
  m.throttle_time_ms = 21;
  m.responses = {{ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "Topic 't1' does not exist.", 2, "t1"}};
  return m;
}

DeleteRecordsRequest delete_records_request(int16_t) {
  DeleteRecordsRequest m;
  m.topics = {{.name = "t1", .partitions = {{.partition_index = 0, .offset = 42}, {.partition_index = 2, .offset = -1}}}};
  m.timeout_ms = 30000;
  return m;
}
DeleteRecordsResponse delete_records_response(int16_t) {
  DeleteRecordsResponse m;
  m.throttle_time_ms = 3;
  m.topics = {{.name = "t1",
               .partitions = {{.partition_index = 0, .low_watermark = 42, .error_code = ErrorCode::NONE},
                              {.partition_index = 2, .low_watermark = -1, .error_code = ErrorCode::OFFSET_OUT_OF_RANGE}}}};
  return m;
}
DescribeLogDirsRequest describe_log_dirs_request(int16_t) {
  DescribeLogDirsRequest m;
  m.topics = std::vector<DescribeLogDirsRequest::DescribableLogDirTopic>{{.topic = "t1", .partitions = {0, 1}}};
  return m;
}
DescribeLogDirsResponse describe_log_dirs_response(int16_t v) {
  DescribeLogDirsResponse m;
  m.throttle_time_ms = 4;
  if (v >= 3) m.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
  m.results.push_back({});
  m.results[0].error_code = ErrorCode::KAFKA_STORAGE_ERROR;
  m.results[0].log_dir = "/var/lib/gregor/broker-1";
  m.results[0].topics = {{.name = "t1",
                          .partitions = {{.partition_index = 0, .partition_size = 1234, .offset_lag = 5, .is_future_key = true}}}};
  if (v >= 4) {
    m.results[0].total_bytes = 1 << 30;
    m.results[0].usable_bytes = 1 << 20;
  }
  return m;
}
CreatePartitionsRequest create_partitions_request(int16_t) {
  CreatePartitionsRequest m;
  m.topics = {{.name = "t1", .count = 6}, {.name = "t2", .count = 3}};
  m.topics[1].assignments = std::vector<CreatePartitionsRequest::CreatePartitionsAssignment>{{.broker_ids = {1, 2}}};
  m.timeout_ms = 25000;
  m.validate_only = true;
  return m;
}
CreatePartitionsResponse create_partitions_response(int16_t) {
  CreatePartitionsResponse m;
  m.throttle_time_ms = 5;
  m.results = {{.name = "t1", .error_code = ErrorCode::NONE},
               {.name = "t2", .error_code = ErrorCode::INVALID_PARTITIONS, .error_message = "Topic already has 3 partitions."}};
  return m;
}
DeleteGroupsRequest delete_groups_request(int16_t) {
  DeleteGroupsRequest m;
  m.groups_names = {"g1", "g2"};
  return m;
}
DeleteGroupsResponse delete_groups_response(int16_t) {
  DeleteGroupsResponse m;
  m.throttle_time_ms = 6;
  m.results = {{"g1", ErrorCode::NONE}, {"g2", ErrorCode::NON_EMPTY_GROUP}};
  return m;
}
ElectLeadersRequest elect_leaders_request(int16_t v) {
  ElectLeadersRequest m;
  if (v >= 1) m.election_type = 1;
  m.topic_partitions = std::vector<ElectLeadersRequest::TopicPartitions>{{.topic = "t1", .partitions = {0, 3}}};
  m.timeout_ms = 15000;
  return m;
}
ElectLeadersResponse elect_leaders_response(int16_t v) {
  ElectLeadersResponse m;
  m.throttle_time_ms = 7;
  if (v >= 1) m.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
  m.replica_election_results = {
      {.topic = "t1",
       .partition_result = {{.partition_id = 0, .error_code = ErrorCode::NONE, .error_message = std::nullopt},
                            {.partition_id = 3, .error_code = ErrorCode::ELECTION_NOT_NEEDED, .error_message = "not needed"}}}};
  return m;
}
AlterPartitionReassignmentsRequest alter_partition_reassignments_request(int16_t) {
  AlterPartitionReassignmentsRequest m;
  m.timeout_ms = 30000;
  m.topics = {{.name = "t1",
               .partitions = {{.partition_index = 0, .replicas = std::vector<int32_t>{2, 3, 4}},
                              {.partition_index = 1, .replicas = std::nullopt}}}};
  return m;
}
AlterPartitionReassignmentsResponse alter_partition_reassignments_response(int16_t) {
  AlterPartitionReassignmentsResponse m;
  m.throttle_time_ms = 9;
  m.error_code = ErrorCode::NONE;
  m.error_message = std::nullopt;
  m.responses = {{.name = "t1",
                  .partitions = {{.partition_index = 0, .error_code = ErrorCode::NONE, .error_message = std::nullopt},
                                 {.partition_index = 1,
                                  .error_code = ErrorCode::NO_REASSIGNMENT_IN_PROGRESS,
                                  .error_message = "No ongoing reassignment"}}}};
  return m;
}
ListPartitionReassignmentsRequest list_partition_reassignments_request(int16_t) {
  ListPartitionReassignmentsRequest m;
  m.timeout_ms = 30000;
  m.topics = std::vector<ListPartitionReassignmentsRequest::ListPartitionReassignmentsTopics>{
      {.name = "t1", .partition_indexes = {0, 2}}};
  return m;
}
ListPartitionReassignmentsResponse list_partition_reassignments_response(int16_t) {
  ListPartitionReassignmentsResponse m;
  m.throttle_time_ms = 10;
  m.error_code = ErrorCode::NONE;
  m.topics = {{.name = "t1",
               .partitions = {{.partition_index = 0, .replicas = {2, 3, 4, 1}, .adding_replicas = {4}, .removing_replicas = {1}}}}};
  return m;
}
OffsetDeleteRequest offset_delete_request(int16_t) {
  OffsetDeleteRequest m;
  m.group_id = "g1";
  m.topics = {{.name = "t1", .partitions = {{.partition_index = 0}, {.partition_index = 1}}}};
  return m;
}
OffsetDeleteResponse offset_delete_response(int16_t) {
  OffsetDeleteResponse m;
  m.error_code = ErrorCode::NONE;
  m.throttle_time_ms = 8;
  m.topics = {{.name = "t1",
               .partitions = {{.partition_index = 0, .error_code = ErrorCode::NONE},
                              {.partition_index = 1, .error_code = ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC}}}};
  return m;
}
DescribeClusterRequest describe_cluster_request(int16_t v) {
  DescribeClusterRequest m;
  m.include_cluster_authorized_operations = true;
  if (v >= 1) m.endpoint_type = 2;
  return m;
}
DescribeClusterResponse describe_cluster_response(int16_t v) {
  DescribeClusterResponse m;
  m.throttle_time_ms = 9;
  m.error_code = ErrorCode::NONE;
  m.error_message = "fine";
  if (v >= 1) m.endpoint_type = 2;
  m.cluster_id = "AAAAAAAAAAAAAAAAAAAAAg";
  m.controller_id = 2;
  m.brokers = {{1, "127.0.0.1", 19092, std::nullopt}, {2, "127.0.0.1", 19093, "rack-b"}};
  m.cluster_authorized_operations = 0;
  return m;
}

SaslHandshakeRequest sasl_handshake_request(int16_t) {
  SaslHandshakeRequest m;
  m.mechanism = "SCRAM-SHA-256";
  return m;
}
SaslHandshakeResponse sasl_handshake_response(int16_t) {
  SaslHandshakeResponse m;
  m.error_code = ErrorCode::UNSUPPORTED_SASL_MECHANISM;
  m.mechanisms = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
  return m;
}
SaslAuthenticateRequest sasl_authenticate_request(int16_t) {
  SaslAuthenticateRequest m;
  const std::string token = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
  m.auth_bytes = Bytes(token.begin(), token.end());
  return m;
}
SaslAuthenticateResponse sasl_authenticate_response(int16_t v) {
  SaslAuthenticateResponse m;
  m.error_code = ErrorCode::SASL_AUTHENTICATION_FAILED;
  m.error_message = "Authentication failed: Invalid username or password";
  m.auth_bytes = Bytes{1, 2, 3};
  if (v >= 1) m.session_lifetime_ms = 3600000;
  return m;
}
AlterUserScramCredentialsRequest alter_user_scram_credentials_request(int16_t) {
  AlterUserScramCredentialsRequest m;
  m.deletions = {{"bob", 2}};
  m.upsertions = {{"alice", 1, 8192, Bytes{9, 8, 7}, Bytes{1, 2, 3, 4}}};
  return m;
}
AlterUserScramCredentialsResponse alter_user_scram_credentials_response(int16_t) {
  AlterUserScramCredentialsResponse m;
  m.throttle_time_ms = 3;
  m.results = {{"alice", ErrorCode::NONE, std::nullopt}, {"bob", ErrorCode::RESOURCE_NOT_FOUND, "no such credential"}};
  return m;
}
// The ACL APIs: v0 has no pattern type (it reads as LITERAL, 3); v1+ carries PREFIXED (4).
DescribeAclsRequest describe_acls_request(int16_t v) {
  DescribeAclsRequest m;
  m.resource_type_filter = 2;
  m.resource_name_filter = "orders";
  m.pattern_type_filter = v >= 1 ? int8_t{2} : int8_t{3};
  m.principal_filter = "User:bob";
  m.host_filter = std::nullopt;
  m.operation = 3;
  m.permission_type = 3;
  return m;
}
DescribeAclsResponse describe_acls_response(int16_t v) {
  DescribeAclsResponse m;
  m.throttle_time_ms = 1;
  m.error_code = ErrorCode::NONE;
  DescribeAclsResponse::DescribeAclsResource r;
  r.resource_type = 2;
  r.resource_name = "ord";
  r.pattern_type = v >= 1 ? int8_t{4} : int8_t{3};
  r.acls = {{"User:bob", "*", 3, 3}, {"User:eve", "10.0.0.1", 2, 2}};
  m.resources = {r};
  return m;
}
CreateAclsRequest create_acls_request(int16_t v) {
  CreateAclsRequest m;
  CreateAclsRequest::AclCreation c;
  c.resource_type = 3;
  c.resource_name = "g";
  c.resource_pattern_type = v >= 1 ? int8_t{4} : int8_t{3};
  c.principal = "User:bob";
  c.host = "*";
  c.operation = 3;
  c.permission_type = 3;
  m.creations = {c};
  return m;
}
CreateAclsResponse create_acls_response(int16_t) {
  CreateAclsResponse m;
  m.throttle_time_ms = 2;
  m.results = {{ErrorCode::NONE, std::nullopt}, {ErrorCode::INVALID_REQUEST, "Invalid empty resource name specified"}};
  return m;
}
DeleteAclsRequest delete_acls_request(int16_t v) {
  DeleteAclsRequest m;
  DeleteAclsRequest::DeleteAclsFilter f;
  f.resource_type_filter = 1;
  f.resource_name_filter = std::nullopt;
  f.pattern_type_filter = v >= 1 ? int8_t{1} : int8_t{3};
  f.principal_filter = "User:bob";
  f.host_filter = "*";
  f.operation = 1;
  f.permission_type = 1;
  m.filters = {f};
  return m;
}
DeleteAclsResponse delete_acls_response(int16_t v) {
  DeleteAclsResponse m;
  m.throttle_time_ms = 3;
  DeleteAclsResponse::DeleteAclsFilterResult r;
  r.error_code = ErrorCode::NONE;
  DeleteAclsResponse::DeleteAclsMatchingAcl a;
  a.error_code = ErrorCode::NONE;
  a.resource_type = 2;
  a.resource_name = "orders";
  a.pattern_type = v >= 1 ? int8_t{4} : int8_t{3};
  a.principal = "User:bob";
  a.host = "*";
  a.operation = 4;
  a.permission_type = 3;
  r.matching_acls = {a};
  m.filter_results = {r, {ErrorCode::SECURITY_DISABLED, "No Authorizer is configured on the broker", {}}};
  return m;
}

// Transactions, the partition side (issue 19a).
WriteTxnMarkersRequest write_txn_markers_request(int16_t) {
  WriteTxnMarkersRequest m;
  WriteTxnMarkersRequest::WritableTxnMarker commit;
  commit.producer_id = 4000;
  commit.producer_epoch = 3;
  commit.transaction_result = true;
  commit.topics.push_back({.name = "orders", .partition_indexes = {0, 2}});
  commit.topics.push_back({.name = "__consumer_offsets", .partition_indexes = {17}});
  commit.coordinator_epoch = 5;
  WriteTxnMarkersRequest::WritableTxnMarker abort;
  abort.producer_id = 4001;
  abort.producer_epoch = 0;
  abort.transaction_result = false;
  abort.topics.push_back({.name = "orders", .partition_indexes = {1}});
  abort.coordinator_epoch = 5;
  m.markers = {commit, abort};
  return m;
}
WriteTxnMarkersResponse write_txn_markers_response(int16_t) {
  WriteTxnMarkersResponse m;
  WriteTxnMarkersResponse::WritableTxnMarkerResult r;
  r.producer_id = 4000;
  WriteTxnMarkersResponse::WritableTxnMarkerTopicResult t;
  t.name = "orders";
  t.partitions.push_back({.partition_index = 0, .error_code = ErrorCode::NONE});
  t.partitions.push_back({.partition_index = 2, .error_code = ErrorCode::TRANSACTION_COORDINATOR_FENCED});
  r.topics.push_back(t);
  m.markers = {r};
  return m;
}
DescribeProducersRequest describe_producers_request(int16_t) {
  DescribeProducersRequest m;
  m.topics.push_back({.name = "orders", .partition_indexes = {0, 1}});
  return m;
}
DescribeProducersResponse describe_producers_response(int16_t) {
  DescribeProducersResponse m;
  m.throttle_time_ms = 1;
  DescribeProducersResponse::TopicResponse t;
  t.name = "orders";
  DescribeProducersResponse::PartitionResponse ok;
  ok.partition_index = 0;
  DescribeProducersResponse::ProducerState ps;
  ps.producer_id = 4000;
  ps.producer_epoch = 3;
  ps.last_sequence = 41;
  ps.last_timestamp = 1700000000000;
  ps.coordinator_epoch = 5;
  ps.current_txn_start_offset = 120;
  ok.active_producers = {ps};
  DescribeProducersResponse::PartitionResponse bad;
  bad.partition_index = 1;
  bad.error_code = ErrorCode::NOT_LEADER_OR_FOLLOWER;
  bad.error_message = "NOT_LEADER_OR_FOLLOWER";
  t.partitions = {ok, bad};
  m.topics = {t};
  return m;
}

AddPartitionsToTxnRequest add_partitions_to_txn_request(int16_t v) {
  AddPartitionsToTxnRequest m;
  if (v >= 4) {
    m.transactions = {{"txn-a", 1000, 3, true, {{"orders", {0, 2}}}}, {"txn-b", 1001, 0, false, {{"events", {1}}}}};
  } else {
    m.v3_and_below_transactional_id = "txn-a";
    m.v3_and_below_producer_id = 1000;
    m.v3_and_below_producer_epoch = 3;
    m.v3_and_below_topics = {{"orders", {0, 2}}};
  }
  return m;
}
AddPartitionsToTxnResponse add_partitions_to_txn_response(int16_t v) {
  AddPartitionsToTxnResponse m;
  m.throttle_time_ms = 5;
  std::vector<AddPartitionsToTxnResponse::AddPartitionsToTxnTopicResult> topics = {
      {"orders", {{0, ErrorCode::NONE}, {2, ErrorCode::CONCURRENT_TRANSACTIONS}}}};
  if (v >= 4) {
    m.error_code = ErrorCode::NONE;
    m.results_by_transaction = {{"txn-a", topics}};
  } else {
    m.results_by_topic_v3_and_below = topics;
  }
  return m;
}
AddOffsetsToTxnRequest add_offsets_to_txn_request(int16_t) {
  AddOffsetsToTxnRequest m;
  m.transactional_id = "txn-a";
  m.producer_id = 1000;
  m.producer_epoch = 3;
  m.group_id = "g";
  return m;
}
AddOffsetsToTxnResponse add_offsets_to_txn_response(int16_t) {
  AddOffsetsToTxnResponse m;
  m.throttle_time_ms = 1;
  m.error_code = ErrorCode::PRODUCER_FENCED;
  return m;
}
EndTxnRequest end_txn_request(int16_t) {
  EndTxnRequest m;
  m.transactional_id = "txn-a";
  m.producer_id = 1000;
  m.producer_epoch = 3;
  m.committed = true;
  return m;
}
EndTxnResponse end_txn_response(int16_t) {
  EndTxnResponse m;
  m.throttle_time_ms = 2;
  m.error_code = ErrorCode::INVALID_TXN_STATE;
  return m;
}
TxnOffsetCommitRequest txn_offset_commit_request(int16_t v) {
  TxnOffsetCommitRequest m;
  m.transactional_id = "txn-a";
  m.group_id = "g";
  m.producer_id = 1000;
  m.producer_epoch = 3;
  if (v >= 3) {
    m.generation_id = 7;
    m.member_id = "member-1";
    m.group_instance_id = "instance-1";
  }
  TxnOffsetCommitRequest::TxnOffsetCommitRequestPartition p;
  p.partition_index = 2;
  p.committed_offset = 42;
  if (v >= 2) p.committed_leader_epoch = 4;
  p.committed_metadata = "meta";
  m.topics = {{"orders", {p}}};
  return m;
}
TxnOffsetCommitResponse txn_offset_commit_response(int16_t) {
  TxnOffsetCommitResponse m;
  m.throttle_time_ms = 3;
  m.topics = {{"orders", {{2, ErrorCode::NONE}, {3, ErrorCode::UNKNOWN_MEMBER_ID}}}};
  return m;
}
DescribeTransactionsRequest describe_transactions_request(int16_t) {
  DescribeTransactionsRequest m;
  m.transactional_ids = {"txn-a", "txn-b"};
  return m;
}
DescribeTransactionsResponse describe_transactions_response(int16_t) {
  DescribeTransactionsResponse m;
  DescribeTransactionsResponse::TransactionState t;
  t.error_code = ErrorCode::NONE;
  t.transactional_id = "txn-a";
  t.transaction_state = "Ongoing";
  t.transaction_timeout_ms = 60000;
  t.transaction_start_time_ms = 1767225600000;
  t.producer_id = 1000;
  t.producer_epoch = 3;
  t.topics = {{"orders", {0, 2}}};
  m.transaction_states = {t};
  return m;
}
ListTransactionsRequest list_transactions_request(int16_t v) {
  ListTransactionsRequest m;
  m.state_filters = {"Ongoing"};
  m.producer_id_filters = {1000, 1001};
  if (v >= 1) m.duration_filter = 5000;
  return m;
}
ListTransactionsResponse list_transactions_response(int16_t) {
  ListTransactionsResponse m;
  m.error_code = ErrorCode::NONE;
  m.unknown_state_filters = {"Bogus"};
  m.transaction_states = {{"txn-a", 1000, "Ongoing"}};
  return m;
}

}  // namespace gregor::protocol::samples
