// UpdateMetadata (from the controller): replaces this broker's metadata cache, learns the live
// brokers' addresses, and completes the requests waiting for new metadata (CreateTopics).
#include "engine/broker/request_handler.h"
#include "engine/protocol/update_metadata.h"

namespace gregor::broker {

void handle_update_metadata(HandlerContext& ctx, const Request& req, protocol::UpdateMetadataRequest request) {
  protocol::UpdateMetadataResponse resp;
  if (!ctx.replicas.accept_controller_epoch(request.controller_epoch)) {
    resp.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
    return ctx.channel.respond(req, resp);
  }
  std::map<int32_t, BrokerEndpoint> brokers;
  for (const auto& b : request.live_brokers) {
    if (b.endpoints.empty()) continue;
    brokers[b.id] = BrokerEndpoint{b.id, b.endpoints.front().host, b.endpoints.front().port};
    ctx.rt.learn_address(NodeId{b.id}, b.endpoints.front().host, b.endpoints.front().port);
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
