#include "catalog.h"

#include <catch2/catch.hpp>

#include "samples.h"

namespace gregor::protocol::testing {

namespace {

template <typename Message>
Direction direction(Message (*sample)(int16_t)) {
  Direction d;
  d.encode_sample = [sample](int16_t v) {
    ByteWriter w;
    sample(v).encode(w, v);
    return w.take();
  };
  d.decodes = [](ByteView body, int16_t v) { return decode_body<Message>(body, v).is_ok(); };
  d.check_round_trip = [sample](int16_t v) {
    INFO(api_name(Message::kApiKey) << " v" << v);
    Message m = sample(v);
    ByteWriter w;
    m.encode(w, v);
    Bytes bytes = w.take();
    Result<Message> back = decode_body<Message>(as_view(bytes), v);
    REQUIRE(back.is_ok());
    CHECK(back.value() == m);
    ByteWriter again;
    back.value().encode(again, v);
    CHECK(again.bytes_ref() == bytes);
  };
  return d;
}

template <typename Request, typename Response>
ApiCodecs codecs(Request (*request)(int16_t), Response (*response)(int16_t)) {
  static_assert(Request::kApiKey == Response::kApiKey);
  return ApiCodecs{direction(request), direction(response)};
}

}  // namespace

const std::map<ApiKey, ApiCodecs>& api_catalog() {
  using namespace samples;
  static const std::map<ApiKey, ApiCodecs> catalog = {
      {ApiKey::PRODUCE, codecs(produce_request, produce_response)},
      {ApiKey::FETCH, codecs(fetch_request, fetch_response)},
      {ApiKey::LIST_OFFSETS, codecs(list_offsets_request, list_offsets_response)},
      {ApiKey::METADATA, codecs(metadata_request, metadata_response)},
      {ApiKey::LEADER_AND_ISR, codecs(leader_and_isr_request, leader_and_isr_response)},
      {ApiKey::STOP_REPLICA, codecs(stop_replica_request, stop_replica_response)},
      {ApiKey::UPDATE_METADATA, codecs(update_metadata_request, update_metadata_response)},
      {ApiKey::CONTROLLED_SHUTDOWN, codecs(controlled_shutdown_request, controlled_shutdown_response)},
      {ApiKey::OFFSET_COMMIT, codecs(offset_commit_request, offset_commit_response)},
      {ApiKey::OFFSET_FETCH, codecs(offset_fetch_request, offset_fetch_response)},
      {ApiKey::FIND_COORDINATOR, codecs(find_coordinator_request, find_coordinator_response)},
      {ApiKey::JOIN_GROUP, codecs(join_group_request, join_group_response)},
      {ApiKey::HEARTBEAT, codecs(heartbeat_request, heartbeat_response)},
      {ApiKey::LEAVE_GROUP, codecs(leave_group_request, leave_group_response)},
      {ApiKey::SYNC_GROUP, codecs(sync_group_request, sync_group_response)},
      {ApiKey::DESCRIBE_GROUPS, codecs(describe_groups_request, describe_groups_response)},
      {ApiKey::LIST_GROUPS, codecs(list_groups_request, list_groups_response)},
      {ApiKey::API_VERSIONS, codecs(api_versions_request, api_versions_response)},
      {ApiKey::CREATE_TOPICS, codecs(create_topics_request, create_topics_response)},
      {ApiKey::DELETE_TOPICS, codecs(delete_topics_request, delete_topics_response)},
      {ApiKey::INIT_PRODUCER_ID, codecs(init_producer_id_request, init_producer_id_response)},
      {ApiKey::OFFSET_FOR_LEADER_EPOCH,
       codecs(offset_for_leader_epoch_request, offset_for_leader_epoch_response)},
      {ApiKey::DESCRIBE_CONFIGS, codecs(describe_configs_request, describe_configs_response)},
      {ApiKey::ALTER_CONFIGS, codecs(alter_configs_request, alter_configs_response)},
      {ApiKey::INCREMENTAL_ALTER_CONFIGS,
       codecs(incremental_alter_configs_request, incremental_alter_configs_response)},
      {ApiKey::DELETE_RECORDS, codecs(delete_records_request, delete_records_response)},
      {ApiKey::DESCRIBE_LOG_DIRS, codecs(describe_log_dirs_request, describe_log_dirs_response)},
      {ApiKey::CREATE_PARTITIONS, codecs(create_partitions_request, create_partitions_response)},
      {ApiKey::DELETE_GROUPS, codecs(delete_groups_request, delete_groups_response)},
      {ApiKey::ELECT_LEADERS, codecs(elect_leaders_request, elect_leaders_response)},
      {ApiKey::ALTER_PARTITION_REASSIGNMENTS,
       codecs(alter_partition_reassignments_request, alter_partition_reassignments_response)},
      {ApiKey::LIST_PARTITION_REASSIGNMENTS,
       codecs(list_partition_reassignments_request, list_partition_reassignments_response)},
      {ApiKey::OFFSET_DELETE, codecs(offset_delete_request, offset_delete_response)},
      {ApiKey::DESCRIBE_CLUSTER, codecs(describe_cluster_request, describe_cluster_response)},
      {ApiKey::SASL_HANDSHAKE, codecs(sasl_handshake_request, sasl_handshake_response)},
      {ApiKey::SASL_AUTHENTICATE, codecs(sasl_authenticate_request, sasl_authenticate_response)},
      {ApiKey::DESCRIBE_ACLS, codecs(describe_acls_request, describe_acls_response)},
      {ApiKey::CREATE_ACLS, codecs(create_acls_request, create_acls_response)},
      {ApiKey::DELETE_ACLS, codecs(delete_acls_request, delete_acls_response)},
      {ApiKey::ALTER_USER_SCRAM_CREDENTIALS,
       codecs(alter_user_scram_credentials_request, alter_user_scram_credentials_response)},
      {ApiKey::WRITE_TXN_MARKERS, codecs(write_txn_markers_request, write_txn_markers_response)},
      {ApiKey::DESCRIBE_PRODUCERS, codecs(describe_producers_request, describe_producers_response)},
      {ApiKey::ADD_PARTITIONS_TO_TXN, codecs(add_partitions_to_txn_request, add_partitions_to_txn_response)},
      {ApiKey::ADD_OFFSETS_TO_TXN, codecs(add_offsets_to_txn_request, add_offsets_to_txn_response)},
      {ApiKey::END_TXN, codecs(end_txn_request, end_txn_response)},
      {ApiKey::TXN_OFFSET_COMMIT, codecs(txn_offset_commit_request, txn_offset_commit_response)},
      {ApiKey::DESCRIBE_TRANSACTIONS, codecs(describe_transactions_request, describe_transactions_response)},
      {ApiKey::LIST_TRANSACTIONS, codecs(list_transactions_request, list_transactions_response)},
  };
  return catalog;
}

}  // namespace gregor::protocol::testing
