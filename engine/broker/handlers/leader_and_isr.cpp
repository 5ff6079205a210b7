// LeaderAndIsr (from the controller): this broker's replicas become leaders or followers
// (engine/broker/replica_manager.h). Refused, in Kafka's order: on a client listener
// (CLUSTER_AUTHORIZATION_FAILED), naming an older registration of this broker
// (STALE_BROKER_EPOCH, KIP-380), from a controller older than the newest this broker has heard
// from (STALE_CONTROLLER_EPOCH). Versions 0-7 decode into one shape; v5's type (full or
// incremental) and v6's leader recovery state are not used (no KRaft, no unclean recovery), v7's
// KRaft controller flag neither.
#include "engine/broker/request_handler.h"
#include "engine/protocol/leader_and_isr.h"

namespace gregor::broker {

namespace {
constexpr int16_t kLeaderAndIsrVersionTopicIdsMin = 5;
}  // namespace

void handle_leader_and_isr(HandlerContext& ctx, const Request& req, protocol::LeaderAndIsrRequest request) {
  if (refuse_controller_request_on_client_listener<protocol::LeaderAndIsrResponse>(ctx, req, "LeaderAndIsr")) return;
  if (ctx.controller.defer_until_registered(request.broker_epoch, "LeaderAndIsr", [&ctx, req, request]() mutable {
        handle_leader_and_isr(ctx, req, std::move(request));
      }))
    return;
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
  ctx.replicas.become_leader_or_follower(lai, [&ctx, req, lai](protocol::LeaderAndIsrResponse resp) {
    ctx.groups.on_partitions_changed();  // load or unload __consumer_offsets partitions
    ctx.txns.on_partitions_changed();  // load or unload __transaction_state partitions
    if (req.header.api_version >= kLeaderAndIsrVersionTopicIdsMin) {
      // v5+ answers per topic, named by the id the request gave it (KIP-516).
      std::map<std::string, Uuid> ids;
      for (const auto& t : lai->topic_states) ids[t.topic_name] = t.topic_id;
      for (auto& e : resp.partition_errors) {
        if (resp.topics.empty() || resp.topics.back().topic_id != ids[e.topic_name])
          resp.topics.push_back({.topic_id = ids[e.topic_name], .partition_errors = {}});
        resp.topics.back().partition_errors.push_back(std::move(e));
      }
      resp.partition_errors.clear();
    }
    ctx.channel.respond(req, resp);
  });
}

}  // namespace gregor::broker
