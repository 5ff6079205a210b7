// DescribeProducers (KIP-664): per partition this broker leads, its active producers as the
// producer state knows them (engine/broker/producer_state.h): id, epoch, last sequence, last
// timestamp, the coordinator epoch of its last marker, and the first offset of its open
// transaction (-1: none). TOPIC_AUTHORIZATION_FAILED without Read on the topic, UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR.
#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_producers.h"

namespace gregor::broker {

void handle_describe_producers(HandlerContext& ctx, const Request& req, protocol::DescribeProducersRequest request) {
  using Response = protocol::DescribeProducersResponse;
  Response resp;
  for (const auto& t : request.topics) {
    Response::TopicResponse tr;
    tr.name = t.name;
    const bool readable = authorize(ctx, req, AclOperation::kRead, AclResourceType::kTopic, t.name);
    for (int32_t index : t.partition_indexes) {
      Response::PartitionResponse pr;
      pr.partition_index = index;
      const TopicPartition tp{t.name, index};
      Partition* p = ctx.replicas.partition(tp);
      if (!readable) {
        pr.error_code = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      } else if (!p || !p->is_leader()) {
        pr.error_code = ctx.metadata.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      } else if (ctx.replicas.log_dir_offline() || p->refresh_producer_state() != ErrorCode::NONE) {
        pr.error_code = ErrorCode::KAFKA_STORAGE_ERROR;
      } else {
        for (const auto& [id, e] : p->producer_state().producers()) {
          Response::ProducerState ps;
          ps.producer_id = id;
          ps.producer_epoch = e.epoch;
          ps.last_sequence = e.batches.empty() ? -1 : e.batches.back().last_sequence;
          ps.last_timestamp = e.last_timestamp;
          ps.coordinator_epoch = e.coordinator_epoch;
          ps.current_txn_start_offset = e.current_txn_first_offset.value_or(-1);
          pr.active_producers.push_back(ps);
        }
      }
      if (pr.error_code != ErrorCode::NONE) pr.error_message = std::string(protocol::error_name(pr.error_code));
      tr.partitions.push_back(std::move(pr));
    }
    resp.topics.push_back(std::move(tr));
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
