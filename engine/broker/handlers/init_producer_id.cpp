// InitProducerId: a producer id for an idempotent producer, from this broker's block of ids (engine/broker/producer_id_manager.h).
#include "engine/broker/request_handler.h"
#include "engine/protocol/init_producer_id.h"

namespace gregor::broker {

void handle_init_producer_id(HandlerContext& ctx, const Request& req, protocol::InitProducerIdRequest request) {
  // v3+: a producer may name the id and epoch it had (both or neither); without a transactional id
  // it simply gets a new one, as Kafka does.
  if ((request.producer_id == -1) != (request.producer_epoch == -1)) {
    protocol::InitProducerIdResponse resp;
    resp.error_code = ErrorCode::INVALID_REQUEST;
    return ctx.channel.respond(req, resp);
  }
  if (request.transactional_id &&
      !authorize(ctx, req, AclOperation::kWrite, AclResourceType::kTransactionalId, *request.transactional_id)) {
    protocol::InitProducerIdResponse resp;  // Kafka's rule: Write on the transactional id
    resp.error_code = ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    return ctx.channel.respond(req, resp);
  }
  if (request.transactional_id) {
    // Transactions are not modelled: there is no transaction coordinator to map the id.
    protocol::InitProducerIdResponse resp;
    resp.error_code = ErrorCode::COORDINATOR_NOT_AVAILABLE;
    return ctx.channel.respond(req, resp);
  }
  // Kafka's rule for an idempotent producer (KIP-679): IdempotentWrite on the cluster, or Write on
  // some topic.
  if (ctx.authorizer.enabled() &&
      !authorize(ctx, req, AclOperation::kIdempotentWrite, AclResourceType::kCluster, kClusterResourceName, false) &&
      !ctx.authorizer.cache().authorize_by_resource_type(ctx.sasl.principal(req.from), ctx.rt.peer_host(req.from),
                                                         AclOperation::kWrite, AclResourceType::kTopic)) {
    authorize_cluster(ctx, req, AclOperation::kIdempotentWrite);  // traces the denial
    protocol::InitProducerIdResponse resp;
    resp.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
    return ctx.channel.respond(req, resp);
  }
  ctx.producer_ids.generate([&ctx, req](ErrorCode code, int64_t id) {
    protocol::InitProducerIdResponse resp;
    resp.error_code = code;
    resp.producer_id = id;
    resp.producer_epoch = code == ErrorCode::NONE ? 0 : -1;
    if (code == ErrorCode::NONE) ctx.rt.emit(ev::ProducerIdAssigned{.producer_id = id, .producer_epoch = 0});
    ctx.channel.respond(req, resp);
  });
}

}  // namespace gregor::broker
