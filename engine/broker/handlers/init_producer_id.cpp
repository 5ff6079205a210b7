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
  if (request.transactional_id) {
    // Transactions are not modelled: there is no transaction coordinator to map the id.
    protocol::InitProducerIdResponse resp;
    resp.error_code = ErrorCode::COORDINATOR_NOT_AVAILABLE;
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
