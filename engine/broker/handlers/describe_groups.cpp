// DescribeGroups: the groups' state, members and assignments.
#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_groups.h"

namespace gregor::broker {

void handle_describe_groups(HandlerContext& ctx, const Request& req, protocol::DescribeGroupsRequest request) {
  ctx.channel.respond(req, ctx.groups.describe_groups(request));
}

}  // namespace gregor::broker
