// StopReplica (from the controller): the partitions stop here, and are deleted with their files
// when their topic is deleted. A request from a stale controller is refused.
#include "engine/broker/request_handler.h"
#include "engine/protocol/stop_replica.h"

namespace gregor::broker {

void handle_stop_replica(HandlerContext& ctx, const Request& req, protocol::StopReplicaRequest request) {
  if (!ctx.replicas.accept_controller_epoch(request.controller_epoch)) {
    protocol::StopReplicaResponse resp;
    resp.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
    return ctx.channel.respond(req, resp);
  }
  protocol::StopReplicaResponse resp = ctx.replicas.stop_replicas(request);
  ctx.groups.on_partitions_changed();
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
