// UpdateMetadata (from the controller): replaces this broker's metadata cache, learns the live
// brokers' addresses (on every listener), and completes the requests waiting for new metadata (CreateTopics).
#include "engine/broker/request_handler.h"
#include "engine/protocol/update_metadata.h"

// Refused as LeaderAndIsr is (handlers/leader_and_isr.cpp).

namespace gregor::broker {

void handle_update_metadata(HandlerContext& ctx, const Request& req, protocol::UpdateMetadataRequest request) {
  if (refuse_controller_request_on_client_listener<protocol::UpdateMetadataResponse>(ctx, req, "UpdateMetadata")) return;
  if (ctx.controller.defer_until_registered(request.broker_epoch, "UpdateMetadata", [&ctx, req, request]() mutable {
        handle_update_metadata(ctx, req, std::move(request));
      }))
    return;
  protocol::UpdateMetadataResponse resp;
  if (ctx.controller.is_broker_epoch_stale(request.broker_epoch)) {
    resp.error_code = ErrorCode::STALE_BROKER_EPOCH;
    emit_stale_broker_epoch(ctx, "UpdateMetadata", request.broker_epoch);
    return ctx.channel.respond(req, resp);
  }
  if (!ctx.replicas.accept_controller_epoch(request.controller_epoch)) {
    resp.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
    return ctx.channel.respond(req, resp);
  }
  std::map<int32_t, BrokerEndpoint> brokers;
  for (const auto& b : request.live_brokers) {
    if (b.endpoints.empty()) continue;
    // Brokers reach each other on the inter-broker listener (the first endpoint of a request from
    // a controller that names none).
    const auto* inter = &b.endpoints.front();
    for (const auto& e : b.endpoints)
      if (e.listener == ctx.config.inter_broker_listener()) inter = &e;
    BrokerEndpoint be{b.id, inter->host, inter->port, {}};
    for (const auto& e : b.endpoints) be.listeners[e.listener.empty() ? "PLAINTEXT" : e.listener] = {e.host, e.port};
    brokers[b.id] = std::move(be);
    ctx.rt.learn_address(NodeId{b.id}, inter->host, inter->port);
    // This broker's ControlledShutdown goes to the controller's control-plane listener, if any.
    const auto* control = inter;
    for (const auto& e : b.endpoints)
      if (!ctx.config.control_plane_listener_name.empty() && e.listener == ctx.config.control_plane_listener_name) control = &e;
    ctx.rt.learn_address(lane_connection(NodeId{b.id}, Lane::kController), control->host, control->port);
  }
  std::map<TopicPartition, PartitionMetadata> parts;
  std::map<std::string, Uuid> topic_ids;
  for (const auto& ts : request.topic_states)
    if (!ts.topic_id.is_zero()) topic_ids[ts.topic_name] = ts.topic_id;
  for (const auto& ts : request.topic_states)
    for (const auto& ps : ts.partition_states)
      parts[TopicPartition{ts.topic_name, ps.partition_index}] =
          PartitionMetadata{ps.leader, ps.leader_epoch, ps.replicas, ps.isr, ps.offline_replicas};
  ctx.metadata.update(request.controller_id, request.controller_epoch, std::move(brokers), std::move(parts),
                      std::move(topic_ids));
  ctx.channel.respond(req, resp);
  ctx.admin.on_metadata_update();
}

}  // namespace gregor::broker
