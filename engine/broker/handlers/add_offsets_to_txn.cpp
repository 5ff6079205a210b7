// AddOffsetsToTxn: a transactional producer adds a group's offsets to its transaction: the
// coordinator adds the group's __consumer_offsets partition, which then gets the marker too.
// Needs Write on the TransactionalId (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then Read on the
// group (GROUP_AUTHORIZATION_FAILED).
#include "engine/broker/request_handler.h"
#include "engine/group/offsets_topic.h"
#include "engine/protocol/add_offsets_to_txn.h"

namespace gregor::broker {

void handle_add_offsets_to_txn(HandlerContext& ctx, const Request& req, protocol::AddOffsetsToTxnRequest request) {
  ErrorCode denied = ErrorCode::NONE;
  if (!authorize(ctx, req, AclOperation::kWrite, AclResourceType::kTransactionalId, request.transactional_id))
    denied = ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  else if (!authorize(ctx, req, AclOperation::kRead, AclResourceType::kGroup, request.group_id))
    denied = ErrorCode::GROUP_AUTHORIZATION_FAILED;
  if (denied != ErrorCode::NONE) {
    protocol::AddOffsetsToTxnResponse resp;
    resp.error_code = denied;
    return ctx.channel.respond(req, resp);
  }
  const int32_t partition = group::partition_for_group(request.group_id, ctx.groups.offsets_partition_count());
  const int16_t version = req.header.api_version;
  ctx.txns.add_partitions(request.transactional_id, request.producer_id, request.producer_epoch,
                          {TopicPartition{group::kOffsetsTopic, partition}}, [&ctx, req, version](ErrorCode e) {
                            protocol::AddOffsetsToTxnResponse resp;
                            // Before v2 (KIP-588) a fenced producer hears INVALID_PRODUCER_EPOCH.
                            resp.error_code = e == ErrorCode::PRODUCER_FENCED && version < 2 ? ErrorCode::INVALID_PRODUCER_EPOCH : e;
                            ctx.channel.respond(req, resp);
                          });
}

}  // namespace gregor::broker
