// The table from api key to handler, and dispatch. A row: the api key, the request type in
// engine/protocol, and the handler's name (handle_<name> in handlers/<name>.cpp).
#include <array>
#include <type_traits>

#include "engine/broker/request_handler.h"
#include "engine/protocol/add_offsets_to_txn.h"
#include "engine/protocol/add_partitions_to_txn.h"
#include "engine/protocol/alter_configs.h"
#include "engine/protocol/alter_partition_reassignments.h"
#include "engine/protocol/alter_user_scram_credentials.h"
#include "engine/protocol/api_versions.h"
#include "engine/protocol/controlled_shutdown.h"
#include "engine/protocol/create_acls.h"
#include "engine/protocol/create_partitions.h"
#include "engine/protocol/create_topics.h"
#include "engine/protocol/delete_acls.h"
#include "engine/protocol/delete_groups.h"
#include "engine/protocol/delete_records.h"
#include "engine/protocol/delete_topics.h"
#include "engine/protocol/describe_acls.h"
#include "engine/protocol/describe_cluster.h"
#include "engine/protocol/describe_configs.h"
#include "engine/protocol/describe_groups.h"
#include "engine/protocol/describe_log_dirs.h"
#include "engine/protocol/describe_producers.h"
#include "engine/protocol/describe_transactions.h"
#include "engine/protocol/dispatch.h"
#include "engine/protocol/elect_leaders.h"
#include "engine/protocol/end_txn.h"
#include "engine/protocol/fetch.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/heartbeat.h"
#include "engine/protocol/init_producer_id.h"
#include "engine/protocol/join_group.h"
#include "engine/protocol/leader_and_isr.h"
#include "engine/protocol/leave_group.h"
#include "engine/protocol/list_groups.h"
#include "engine/protocol/list_offsets.h"
#include "engine/protocol/list_partition_reassignments.h"
#include "engine/protocol/list_transactions.h"
#include "engine/protocol/metadata.h"
#include "engine/protocol/offset_commit.h"
#include "engine/protocol/offset_delete.h"
#include "engine/protocol/offset_fetch.h"
#include "engine/protocol/offset_for_leader_epoch.h"
#include "engine/protocol/produce.h"
#include "engine/protocol/protocol.h"
#include "engine/protocol/stop_replica.h"
#include "engine/protocol/sync_group.h"
#include "engine/protocol/txn_offset_commit.h"
#include "engine/protocol/update_metadata.h"
#include "engine/protocol/write_txn_markers.h"

#define GREGOR_BROKER_HANDLERS(X)                                               \
  X(PRODUCE, ProduceRequest, produce)                                           \
  X(FETCH, FetchRequest, fetch)                                                 \
  X(LIST_OFFSETS, ListOffsetsRequest, list_offsets)                             \
  X(METADATA, MetadataRequest, metadata)                                        \
  X(LEADER_AND_ISR, LeaderAndIsrRequest, leader_and_isr)                        \
  X(STOP_REPLICA, StopReplicaRequest, stop_replica)                             \
  X(UPDATE_METADATA, UpdateMetadataRequest, update_metadata)                    \
  X(CONTROLLED_SHUTDOWN, ControlledShutdownRequest, controlled_shutdown)        \
  X(OFFSET_COMMIT, OffsetCommitRequest, offset_commit)                          \
  X(OFFSET_FETCH, OffsetFetchRequest, offset_fetch)                             \
  X(FIND_COORDINATOR, FindCoordinatorRequest, find_coordinator)                 \
  X(JOIN_GROUP, JoinGroupRequest, join_group)                                   \
  X(HEARTBEAT, HeartbeatRequest, heartbeat)                                     \
  X(LEAVE_GROUP, LeaveGroupRequest, leave_group)                                \
  X(SYNC_GROUP, SyncGroupRequest, sync_group)                                   \
  X(DESCRIBE_GROUPS, DescribeGroupsRequest, describe_groups)                    \
  X(LIST_GROUPS, ListGroupsRequest, list_groups)                                \
  X(API_VERSIONS, ApiVersionsRequest, api_versions)                             \
  X(CREATE_TOPICS, CreateTopicsRequest, create_topics)                          \
  X(DELETE_TOPICS, DeleteTopicsRequest, delete_topics)                          \
  X(INIT_PRODUCER_ID, InitProducerIdRequest, init_producer_id)                  \
  X(ADD_PARTITIONS_TO_TXN, AddPartitionsToTxnRequest, add_partitions_to_txn)    \
  X(ADD_OFFSETS_TO_TXN, AddOffsetsToTxnRequest, add_offsets_to_txn)             \
  X(END_TXN, EndTxnRequest, end_txn)                                            \
  X(TXN_OFFSET_COMMIT, TxnOffsetCommitRequest, txn_offset_commit)               \
  X(DESCRIBE_TRANSACTIONS, DescribeTransactionsRequest, describe_transactions)  \
  X(LIST_TRANSACTIONS, ListTransactionsRequest, list_transactions)              \
  X(OFFSET_FOR_LEADER_EPOCH, OffsetForLeaderEpochRequest, offset_for_leader_epoch) \
  X(DESCRIBE_ACLS, DescribeAclsRequest, describe_acls)                          \
  X(CREATE_ACLS, CreateAclsRequest, create_acls)                                \
  X(DELETE_ACLS, DeleteAclsRequest, delete_acls)                                \
  X(DESCRIBE_CONFIGS, DescribeConfigsRequest, describe_configs)                 \
  X(ALTER_CONFIGS, AlterConfigsRequest, alter_configs)                          \
  X(INCREMENTAL_ALTER_CONFIGS, IncrementalAlterConfigsRequest, incremental_alter_configs) \
  X(DELETE_RECORDS, DeleteRecordsRequest, delete_records)                      \
  X(DESCRIBE_LOG_DIRS, DescribeLogDirsRequest, describe_log_dirs)              \
  X(CREATE_PARTITIONS, CreatePartitionsRequest, create_partitions)             \
  X(DELETE_GROUPS, DeleteGroupsRequest, delete_groups)                         \
  X(ELECT_LEADERS, ElectLeadersRequest, elect_leaders)                         \
  X(ALTER_PARTITION_REASSIGNMENTS, AlterPartitionReassignmentsRequest, alter_partition_reassignments) \
  X(LIST_PARTITION_REASSIGNMENTS, ListPartitionReassignmentsRequest, list_partition_reassignments) \
  X(OFFSET_DELETE, OffsetDeleteRequest, offset_delete)                         \
  X(DESCRIBE_CLUSTER, DescribeClusterRequest, describe_cluster)                \
  X(SASL_HANDSHAKE, SaslHandshakeRequest, sasl_handshake)                      \
  X(SASL_AUTHENTICATE, SaslAuthenticateRequest, sasl_authenticate)             \
  X(ALTER_USER_SCRAM_CREDENTIALS, AlterUserScramCredentialsRequest, alter_user_scram_credentials) \
  X(WRITE_TXN_MARKERS, WriteTxnMarkersRequest, write_txn_markers)              \
  X(DESCRIBE_PRODUCERS, DescribeProducersRequest, describe_producers)

namespace gregor::broker {

#define GREGOR_DECLARE_HANDLER(key, Type, name) \
  void handle_##name(HandlerContext& ctx, const Request& req, protocol::Type request);
GREGOR_BROKER_HANDLERS(GREGOR_DECLARE_HANDLER)
#undef GREGOR_DECLARE_HANDLER

namespace {

using Handler = void (*)(HandlerContext&, const Request&, ByteReader&);

// Decodes the body as Type and calls handle. A body that does not decode closes the connection
// (Kafka's InvalidRequestException), except ApiVersions, which is answered whatever its body says
// (the client's software name and version are informational).
template <typename Type, void (*handle)(HandlerContext&, const Request&, Type)>
void decode_and_handle(HandlerContext& ctx, const Request& req, ByteReader& body) {
  auto decoded = Type::decode(body, req.header.api_version);
  if (!decoded) {
    if constexpr (std::is_same_v<Type, protocol::ApiVersionsRequest>) return handle(ctx, req, Type{});
    return ctx.channel.close(req.from, std::string("malformed ") + protocol::api_name(req.header.api_key) + ": " +
                                           decoded.status().to_string());
  }
  handle(ctx, req, std::move(*decoded));
}

constexpr size_t kApiKeysMax = 128;

std::array<Handler, kApiKeysMax> make_table() {
  std::array<Handler, kApiKeysMax> table{};
#define GREGOR_TABLE_ROW(key, Type, name)                                                                    \
  static_assert(static_cast<size_t>(protocol::ApiKey::key) < kApiKeysMax);                                    \
  GREGOR_ASSERT_MSG(table[static_cast<size_t>(protocol::ApiKey::key)] == nullptr, "two handlers for " #key); \
  table[static_cast<size_t>(protocol::ApiKey::key)] = &decode_and_handle<protocol::Type, &handle_##name>;
  GREGOR_BROKER_HANDLERS(GREGOR_TABLE_ROW)
#undef GREGOR_TABLE_ROW
  return table;
}

Handler handler_for(protocol::ApiKey key) {
  static const std::array<Handler, kApiKeysMax> table = make_table();
  const auto index = static_cast<size_t>(static_cast<uint16_t>(key));
  return index < table.size() ? table[index] : nullptr;
}

}  // namespace

void dispatch_request(HandlerContext& ctx, NodeId from, Bytes frame) {
  // A connection on a SASL listener that has not authenticated yet talks to the authenticator.
  if (ctx.sasl.intercepts(from, as_view(frame))) return ctx.sasl.on_frame(from, std::move(frame));
  // The frame moves into a shared owner once; a Produce request's RECORDS are slices of it, so the
  // batch reaches the segment without a user-space copy (engine/protocol/records_field.h).
  const SharedBytes shared(std::move(frame));
  const protocol::RecordsSource records_source(shared);
  protocol::InboundRequest in = protocol::parse_request(shared.view());
  switch (in.action) {
    case protocol::RequestAction::kCloseConnection: return ctx.channel.close(from, in.error);
    case protocol::RequestAction::kReplyUnsupportedApiVersions:
      // KIP-511: answer with a v0 body that any client can read; it retries lower.
      return ctx.channel.respond_frame(from, protocol::unsupported_api_versions_reply(in.header.correlation_id));
    case protocol::RequestAction::kHandle: break;
  }
  Handler handler = handler_for(in.header.api_key);
  if (!handler)
    return ctx.channel.close(from, "no handler for api key " + std::to_string(static_cast<int>(in.header.api_key)));
  const Request req{from, in.header};
  ByteReader body = in.body_reader();
  handler(ctx, req, body);
}

}  // namespace gregor::broker
