// ListGroups: the groups this broker coordinates (v4+ filtered by state, v5+ by type).
#include "engine/broker/request_handler.h"
#include "engine/protocol/list_groups.h"

namespace gregor::broker {

void handle_list_groups(HandlerContext& ctx, const Request& req, protocol::ListGroupsRequest request) {
  ctx.channel.respond(req, ctx.groups.list_groups(request));
}

}  // namespace gregor::broker
