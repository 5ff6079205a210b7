// SyncGroup: the leader hands out the assignments; each member gets its own.
#include "engine/broker/request_handler.h"
#include "engine/protocol/sync_group.h"

namespace gregor::broker {

void handle_sync_group(HandlerContext& ctx, const Request& req, protocol::SyncGroupRequest request) {
  if (!authorize(ctx, req, AclOperation::kRead, AclResourceType::kGroup, request.group_id)) {
    protocol::SyncGroupResponse denied;
    denied.error_code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
    return ctx.channel.respond(req, denied);
  }
  ctx.groups.sync_group(request, ctx.channel.responder<protocol::SyncGroupResponse>(req));
}

}  // namespace gregor::broker
