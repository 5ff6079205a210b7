// LeaveGroup: members leave their group, which rebalances (v3+: a batch, by member or instance id).
#include "engine/broker/request_handler.h"
#include "engine/protocol/leave_group.h"

namespace gregor::broker {

void handle_leave_group(HandlerContext& ctx, const Request& req, protocol::LeaveGroupRequest request) {
  if (!authorize(ctx, req, AclOperation::kRead, AclResourceType::kGroup, request.group_id)) {
    protocol::LeaveGroupResponse denied;
    denied.error_code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
    return ctx.channel.respond(req, denied);
  }
  ctx.groups.leave_group(request, req.header.api_version, ctx.channel.responder<protocol::LeaveGroupResponse>(req));
}

}  // namespace gregor::broker
