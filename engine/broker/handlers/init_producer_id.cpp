// InitProducerId: a producer id for an idempotent producer, from this broker's block of ids
// (engine/broker/producer_id_manager.h); with a transactional id, from its transaction coordinator
// (engine/txn/transaction_coordinator.h), which bumps the epoch of an existing one (fencing the
// older instance).
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
    std::optional<std::pair<int64_t, int16_t>> expected;
    if (request.producer_id != -1) expected = std::make_pair(request.producer_id, request.producer_epoch);
    const int16_t version = req.header.api_version;
    return ctx.txns.init_producer_id(*request.transactional_id, request.transaction_timeout_ms, expected,
                                     [&ctx, req, version](const txn::TransactionCoordinator::ProducerIdAndEpoch& r) {
                                       protocol::InitProducerIdResponse resp;
                                       resp.error_code = r.error;
                                       // Before v4 (KIP-588) a fenced producer hears INVALID_PRODUCER_EPOCH.
                                       if (r.error == ErrorCode::PRODUCER_FENCED && version < 4)
                                         resp.error_code = ErrorCode::INVALID_PRODUCER_EPOCH;
                                       resp.producer_id = r.error == ErrorCode::NONE ? r.producer_id : -1;
                                       resp.producer_epoch = r.error == ErrorCode::NONE ? r.producer_epoch : -1;
                                       ctx.channel.respond(req, resp);
                                     });
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
