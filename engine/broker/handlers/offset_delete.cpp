// OffsetDelete: the group coordinator deletes the group's offsets of the partitions named
// (engine/group/group_coordinator.h).
#include "engine/broker/request_handler.h"
#include "engine/protocol/offset_delete.h"

namespace gregor::broker {

void handle_offset_delete(HandlerContext& ctx, const Request& req, protocol::OffsetDeleteRequest request) {
  ctx.groups.offset_delete(request, [&ctx, req](const protocol::OffsetDeleteResponse& resp) { ctx.channel.respond(req, resp); });
}

}  // namespace gregor::broker
