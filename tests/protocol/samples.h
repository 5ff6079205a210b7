// Sample requests and responses for the protocol tests: for a given version, every field that
// version carries is set to a value different from its default (so a field dropped by an encoder
// or a decoder shows up), and fields the version does not carry keep their defaults (which is what
// decoding yields for them).
#pragma once

#include <cstdint>

#include "engine/protocol/alter_user_scram_credentials.h"
#include "engine/protocol/create_acls.h"
#include "engine/protocol/delete_acls.h"
#include "engine/protocol/describe_acls.h"
#include "engine/protocol/describe_producers.h"
#include "engine/protocol/write_txn_markers.h"
#include "engine/protocol/protocol.h"

namespace gregor::protocol::samples {

ProduceRequest produce_request(int16_t v);
ProduceResponse produce_response(int16_t v);
FetchRequest fetch_request(int16_t v);
FetchResponse fetch_response(int16_t v);
ListOffsetsRequest list_offsets_request(int16_t v);
ListOffsetsResponse list_offsets_response(int16_t v);
MetadataRequest metadata_request(int16_t v);
MetadataResponse metadata_response(int16_t v);
LeaderAndIsrRequest leader_and_isr_request(int16_t v);
LeaderAndIsrResponse leader_and_isr_response(int16_t v);
StopReplicaRequest stop_replica_request(int16_t v);
StopReplicaResponse stop_replica_response(int16_t v);
UpdateMetadataRequest update_metadata_request(int16_t v);
UpdateMetadataResponse update_metadata_response(int16_t v);
ControlledShutdownRequest controlled_shutdown_request(int16_t v);
ControlledShutdownResponse controlled_shutdown_response(int16_t v);
OffsetCommitRequest offset_commit_request(int16_t v);
OffsetCommitResponse offset_commit_response(int16_t v);
OffsetFetchRequest offset_fetch_request(int16_t v);
OffsetFetchResponse offset_fetch_response(int16_t v);
FindCoordinatorRequest find_coordinator_request(int16_t v);
FindCoordinatorResponse find_coordinator_response(int16_t v);
JoinGroupRequest join_group_request(int16_t v);
JoinGroupResponse join_group_response(int16_t v);
HeartbeatRequest heartbeat_request(int16_t v);
HeartbeatResponse heartbeat_response(int16_t v);
LeaveGroupRequest leave_group_request(int16_t v);
LeaveGroupResponse leave_group_response(int16_t v);
SyncGroupRequest sync_group_request(int16_t v);
SyncGroupResponse sync_group_response(int16_t v);
DescribeGroupsRequest describe_groups_request(int16_t v);
DescribeGroupsResponse describe_groups_response(int16_t v);
ListGroupsRequest list_groups_request(int16_t v);
ListGroupsResponse list_groups_response(int16_t v);
ApiVersionsRequest api_versions_request(int16_t v);
ApiVersionsResponse api_versions_response(int16_t v);
CreateTopicsRequest create_topics_request(int16_t v);
CreateTopicsResponse create_topics_response(int16_t v);
DeleteTopicsRequest delete_topics_request(int16_t v);
DeleteTopicsResponse delete_topics_response(int16_t v);
InitProducerIdRequest init_producer_id_request(int16_t v);
InitProducerIdResponse init_producer_id_response(int16_t v);
OffsetForLeaderEpochRequest offset_for_leader_epoch_request(int16_t v);
OffsetForLeaderEpochResponse offset_for_leader_epoch_response(int16_t v);
DescribeConfigsRequest describe_configs_request(int16_t v);
DescribeConfigsResponse describe_configs_response(int16_t v);
AlterConfigsRequest alter_configs_request(int16_t v);
AlterConfigsResponse alter_configs_response(int16_t v);
IncrementalAlterConfigsRequest incremental_alter_configs_request(int16_t v);
IncrementalAlterConfigsResponse incremental_alter_configs_response(int16_t v);
DeleteRecordsRequest delete_records_request(int16_t v);
DeleteRecordsResponse delete_records_response(int16_t v);
DescribeLogDirsRequest describe_log_dirs_request(int16_t v);
DescribeLogDirsResponse describe_log_dirs_response(int16_t v);
CreatePartitionsRequest create_partitions_request(int16_t v);
CreatePartitionsResponse create_partitions_response(int16_t v);
DeleteGroupsRequest delete_groups_request(int16_t v);
DeleteGroupsResponse delete_groups_response(int16_t v);
ElectLeadersRequest elect_leaders_request(int16_t v);
ElectLeadersResponse elect_leaders_response(int16_t v);
AlterPartitionReassignmentsRequest alter_partition_reassignments_request(int16_t v);
AlterPartitionReassignmentsResponse alter_partition_reassignments_response(int16_t v);
ListPartitionReassignmentsRequest list_partition_reassignments_request(int16_t v);
ListPartitionReassignmentsResponse list_partition_reassignments_response(int16_t v);
OffsetDeleteRequest offset_delete_request(int16_t v);
OffsetDeleteResponse offset_delete_response(int16_t v);
DescribeClusterRequest describe_cluster_request(int16_t v);
DescribeClusterResponse describe_cluster_response(int16_t v);
SaslHandshakeRequest sasl_handshake_request(int16_t v);
SaslHandshakeResponse sasl_handshake_response(int16_t v);
SaslAuthenticateRequest sasl_authenticate_request(int16_t v);
SaslAuthenticateResponse sasl_authenticate_response(int16_t v);
AlterUserScramCredentialsRequest alter_user_scram_credentials_request(int16_t v);
AlterUserScramCredentialsResponse alter_user_scram_credentials_response(int16_t v);
DescribeAclsRequest describe_acls_request(int16_t v);
DescribeAclsResponse describe_acls_response(int16_t v);
CreateAclsRequest create_acls_request(int16_t v);
CreateAclsResponse create_acls_response(int16_t v);
DeleteAclsRequest delete_acls_request(int16_t v);
DeleteAclsResponse delete_acls_response(int16_t v);
// Transactions, the partition side (issue 19a).
WriteTxnMarkersRequest write_txn_markers_request(int16_t v);
WriteTxnMarkersResponse write_txn_markers_response(int16_t v);
DescribeProducersRequest describe_producers_request(int16_t v);
DescribeProducersResponse describe_producers_response(int16_t v);
AddPartitionsToTxnRequest add_partitions_to_txn_request(int16_t v);
AddPartitionsToTxnResponse add_partitions_to_txn_response(int16_t v);
AddOffsetsToTxnRequest add_offsets_to_txn_request(int16_t v);
AddOffsetsToTxnResponse add_offsets_to_txn_response(int16_t v);
EndTxnRequest end_txn_request(int16_t v);
EndTxnResponse end_txn_response(int16_t v);
TxnOffsetCommitRequest txn_offset_commit_request(int16_t v);
TxnOffsetCommitResponse txn_offset_commit_response(int16_t v);
DescribeTransactionsRequest describe_transactions_request(int16_t v);
DescribeTransactionsResponse describe_transactions_response(int16_t v);
ListTransactionsRequest list_transactions_request(int16_t v);
ListTransactionsResponse list_transactions_response(int16_t v);

}  // namespace gregor::protocol::samples
