// LeaveGroup: members leave their group, which rebalances (v3+: a batch, by member or instance id).
#include "engine/broker/request_handler.h"
#include "engine/protocol/leave_group.h"

namespace gregor::broker {

void handle_leave_group(HandlerContext& ctx, const Request& req, protocol::LeaveGroupRequest request) {
  ctx.groups.leave_group(request, req.header.api_version, ctx.channel.responder<protocol::LeaveGroupResponse>(req));
}

}  // namespace gregor::broker
