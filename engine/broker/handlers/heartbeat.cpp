// Heartbeat: a member is alive (or learns that the group rebalances).
#include "engine/broker/request_handler.h"
#include "engine/protocol/heartbeat.h"

namespace gregor::broker {

void handle_heartbeat(HandlerContext& ctx, const Request& req, protocol::HeartbeatRequest request) {
  if (!authorize(ctx, req, AclOperation::kRead, AclResourceType::kGroup, request.group_id))
    return ctx.channel.error_responder<protocol::HeartbeatResponse>(req)(ErrorCode::GROUP_AUTHORIZATION_FAILED);
  ctx.groups.heartbeat(request, ctx.channel.error_responder<protocol::HeartbeatResponse>(req));
}

}  // namespace gregor::broker
