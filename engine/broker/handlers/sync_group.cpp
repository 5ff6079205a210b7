// SyncGroup: the leader hands out the assignments; each member gets its own.
#include "engine/broker/request_handler.h"
#include "engine/protocol/sync_group.h"

namespace gregor::broker {

void handle_sync_group(HandlerContext& ctx, const Request& req, protocol::SyncGroupRequest request) {
  ctx.groups.sync_group(request, ctx.channel.responder<protocol::SyncGroupResponse>(req));
}

}  // namespace gregor::broker
