// StopReplica (from the controller): the partitions stop here, and are deleted with their files
// when their topic is deleted. Refused as LeaderAndIsr is (handlers/leader_and_isr.cpp): on a
// client listener, with a stale broker epoch, from a stale controller.
#include "engine/broker/request_handler.h"
#include "engine/protocol/stop_replica.h"

namespace gregor::broker {

void handle_stop_replica(HandlerContext& ctx, const Request& req, protocol::StopReplicaRequest request) {
  if (refuse_controller_request_on_client_listener<protocol::StopReplicaResponse>(ctx, req, "StopReplica")) return;
  if (ctx.controller.is_broker_epoch_stale(request.broker_epoch)) {
    protocol::StopReplicaResponse resp;
    resp.error_code = ErrorCode::STALE_BROKER_EPOCH;
    emit_stale_broker_epoch(ctx, "StopReplica", request.broker_epoch);
    return ctx.channel.respond(req, resp);
  }
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
