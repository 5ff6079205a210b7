// ListGroups: the groups this broker coordinates (v4+ filtered by state, v5+ by type). With an
// authorizer: every group for a principal that may Describe the cluster, else those it may Describe.
#include "engine/broker/request_handler.h"
#include "engine/protocol/list_groups.h"

namespace gregor::broker {

void handle_list_groups(HandlerContext& ctx, const Request& req, protocol::ListGroupsRequest request) {
  protocol::ListGroupsResponse resp = ctx.groups.list_groups(request);
  if (ctx.authorizer.enabled() &&
      !authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kCluster, kClusterResourceName, false)) {
    std::vector<protocol::ListGroupsResponse::ListedGroup> kept;
    for (auto& g : resp.groups)
      if (authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kGroup, g.group_id, false)) kept.push_back(std::move(g));
    resp.groups = std::move(kept);
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
