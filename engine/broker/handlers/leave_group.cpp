// LeaveGroup: a member leaves its group, which rebalances.
#include "engine/broker/request_handler.h"
#include "engine/protocol/leave_group.h"

namespace gregor::broker {

void handle_leave_group(HandlerContext& ctx, const Request& req, protocol::LeaveGroupRequest request) {
  ctx.groups.leave_group(request, ctx.channel.error_responder<protocol::LeaveGroupResponse>(req));
}

}  // namespace gregor::broker
