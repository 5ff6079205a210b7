// ControlledShutdown (to the controller, from a stopping broker): its leaderships move away; the
// answer lists the partitions it still leads. Refused on a client listener, and from an older
// registration of the broker (STALE_BROKER_EPOCH, checked by the controller).
#include "engine/broker/request_handler.h"
#include "engine/protocol/controlled_shutdown.h"

namespace gregor::broker {

void handle_controlled_shutdown(HandlerContext& ctx, const Request& req, protocol::ControlledShutdownRequest request) {
  if (refuse_controller_request_on_client_listener<protocol::ControlledShutdownResponse>(ctx, req, "ControlledShutdown"))
    return;
  ctx.controller.controlled_shutdown(request.broker_id, request.broker_epoch, [&ctx, req](ErrorCode code, std::vector<TopicPartition> remaining) {
    protocol::ControlledShutdownResponse resp;
    resp.error_code = code;
    for (const auto& tp : remaining) resp.remaining_partitions.push_back({tp.topic, tp.partition});
    ctx.channel.respond(req, resp);
  });
}

}  // namespace gregor::broker
