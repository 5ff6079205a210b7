// DescribeGroups: the groups' state, members and assignments. With an authorizer: a group the
// principal may not Describe is answered GROUP_AUTHORIZATION_FAILED and nothing else of it; for the
// others, v3+ with include_authorized_operations, the operations it may do on the group (KIP-430).
#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_groups.h"

namespace gregor::broker {

void handle_describe_groups(HandlerContext& ctx, const Request& req, protocol::DescribeGroupsRequest request) {
  protocol::DescribeGroupsResponse resp = ctx.groups.describe_groups(request);
  for (auto& g : resp.groups) {
    if (authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kGroup, g.group_id)) {
      if (request.include_authorized_operations && g.error_code == ErrorCode::NONE)
        g.authorized_operations =
            authorized_operations(ctx, req, AclResourceType::kGroup, g.group_id, group::kGroupAuthorizedOperations);
      continue;
    }
    protocol::DescribeGroupsResponse::DescribedGroup denied;
    denied.group_id = g.group_id;
    denied.error_code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
    g = std::move(denied);
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
