// JoinGroup: answered when the group's rebalance completes (engine/group/group_coordinator.h).
#include "engine/broker/request_handler.h"
#include "engine/protocol/join_group.h"

namespace gregor::broker {

void handle_join_group(HandlerContext& ctx, const Request& req, protocol::JoinGroupRequest request) {
  // Kafka names the client host by its address; a connection id is what Gregor knows.
  const std::string host = "/connection" + std::to_string(-req.from.value);
  ctx.groups.join_group(request, req.header.api_version, req.header.client_id.value_or(""), host,
                        ctx.channel.responder<protocol::JoinGroupResponse>(req));
}

}  // namespace gregor::broker
