// FindCoordinator: the broker coordinating a group (v4+: several groups at once, KIP-699) (engine/group/group_coordinator.h).
#include "engine/broker/request_handler.h"
#include "engine/protocol/find_coordinator.h"

namespace gregor::broker {

void handle_find_coordinator(HandlerContext& ctx, const Request& req, protocol::FindCoordinatorRequest request) {
  ctx.groups.find_coordinator(request, req.header.api_version, ctx.channel.responder<protocol::FindCoordinatorResponse>(req));
}

}  // namespace gregor::broker
