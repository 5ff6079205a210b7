// FindCoordinator: the broker coordinating a group (engine/group/group_coordinator.h).
#include "engine/broker/request_handler.h"
#include "engine/protocol/find_coordinator.h"

namespace gregor::broker {

void handle_find_coordinator(HandlerContext& ctx, const Request& req, protocol::FindCoordinatorRequest request) {
  ctx.groups.find_coordinator(request, ctx.channel.responder<protocol::FindCoordinatorResponse>(req));
}

}  // namespace gregor::broker
