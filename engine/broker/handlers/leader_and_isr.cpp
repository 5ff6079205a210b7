// LeaderAndIsr (from the controller): this broker's replicas become leaders or followers
// (engine/broker/replica_manager.h). Refused, in Kafka's order: on a client listener
// (CLUSTER_AUTHORIZATION_FAILED), naming an older registration of this broker
// (STALE_BROKER_EPOCH, KIP-380), from a controller older than the newest this broker has heard
// from (STALE_CONTROLLER_EPOCH).
#include "engine/broker/request_handler.h"
#include "engine/protocol/leader_and_isr.h"

namespace gregor::broker {

void handle_leader_and_isr(HandlerContext& ctx, const Request& req, protocol::LeaderAndIsrRequest request) {
  if (refuse_controller_request_on_client_listener<protocol::LeaderAndIsrResponse>(ctx, req, "LeaderAndIsr")) return;
  auto lai = std::make_shared<const protocol::LeaderAndIsrRequest>(std::move(request));
  if (ctx.controller.is_broker_epoch_stale(lai->broker_epoch)) {
    protocol::LeaderAndIsrResponse resp;
    resp.error_code = ErrorCode::STALE_BROKER_EPOCH;
    emit_stale_broker_epoch(ctx, "LeaderAndIsr", lai->broker_epoch);
    return ctx.channel.respond(req, resp);
  }
  if (!ctx.replicas.accept_controller_epoch(lai->controller_epoch)) {
    protocol::LeaderAndIsrResponse resp;
    resp.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
    ctx.rt.emit(ev::StaleControllerRequest{
        .api = "LeaderAndIsr", .controller_epoch = lai->controller_epoch, .known_epoch = ctx.replicas.controller_epoch()});
    return ctx.channel.respond(req, resp);
  }
  for (const auto& l : lai->live_leaders) ctx.rt.learn_address(NodeId{l.broker_id}, l.host_name, l.port);
  ctx.replicas.become_leader_or_follower(lai, [&ctx, req](protocol::LeaderAndIsrResponse resp) {
    ctx.groups.on_partitions_changed();  // load or unload __consumer_offsets partitions
    ctx.channel.respond(req, resp);
  });
}

}  // namespace gregor::broker
